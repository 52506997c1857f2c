"""Sign-in that costs a bounded amount: argon2 off the event loop, and throttled per account and per address.

Gradio's `/login` awaits the `auth` function on the server's event loop. Verifying an argon2id hash
(64 MiB, t=3, p=4) there stopped every other request meanwhile: 8 anonymous login threads took `/healthz`
from 4 ms to a 15.8 s median. Here the verification runs in a thread of its own pool, niced, at most
LOGIN_VERIFICATIONS_AT_ONCE at a time (each takes 64 MiB and the cores); at most LOGIN_WAITING_MAX sign-ins
wait for one, and more are told to try again.

Failures are counted per account at an address, and per address (the address uvicorn reports, an IPv6
client's /64: `ui.clients`; behind a proxy, run uvicorn with `--proxy-headers` and `--forwarded-allow-ips` so
it is the client's). After LOGIN_FREE_FAILURES_PER_ACCOUNT failures an account is locked at that address for
LOGIN_LOCK_FIRST_S, twice as long after each further failure, up to LOGIN_LOCK_MAX_S; an address likewise,
for every account, after LOGIN_FREE_FAILURES_PER_ADDRESS. A locked sign-in is answered at once (no
verification) with HTTP 429 "… try again in N s". A success clears its account's failures at that address
(not the address's: one's own account must not reset guesses at others').

The account's lock is keyed on the account and the address together: keyed on the account alone, five wrong
passwords from anywhere locked a known user out of their own account. The price: guesses at one account
from many addresses are slowed per address, not for the account as a whole. Every guess still costs an
argon2 verification, one at a time for the whole server (LOGIN_VERIFICATIONS_AT_ONCE), so no number of
addresses guesses faster than that lane, and each address is locked after its own few failures.
Failures older than LOGIN_FORGET_S are forgotten; at most MAX_TRACKED accounts and addresses are tracked.
"""

from __future__ import annotations

import asyncio
import contextvars
import math
import os
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

from fastapi import HTTPException

from pipeline import limits

from .clients import address_key

MAX_TRACKED = 10_000
LOGIN_NICE = 10

client_address: contextvars.ContextVar[str] = contextvars.ContextVar("client_address", default="unknown")


class ClientAddress:
    """ASGI middleware: the request's client address, for the sign-in throttle (`client_address`)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            client = scope.get("client")
            token = client_address.set(client[0] if client else "unknown")
            try:
                await self.app(scope, receive, send)
            finally:
                client_address.reset(token)
            return
        await self.app(scope, receive, send)


class Lockouts:
    """Failures by key, and how long each key is locked: free failures, then doubling locks."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock
        self._failures: OrderedDict[str, tuple[int, float]] = OrderedDict()  # key → (count, last failure)
        self._lock = threading.Lock()

    def locked_for(self, key: str, free: int) -> float:
        """Seconds `key` stays locked (0: not locked)."""
        with self._lock:
            count, last = self._current(key)
        if count < free:
            return 0.0
        lock = min(limits.LOGIN_LOCK_MAX_S, limits.LOGIN_LOCK_FIRST_S * 2 ** (count - free))
        return max(0.0, last + lock - self.clock())

    def failed(self, key: str) -> None:
        with self._lock:
            count, _ = self._current(key)
            self._failures[key] = (count + 1, self.clock())
            self._failures.move_to_end(key)
            while len(self._failures) > MAX_TRACKED:
                self._failures.popitem(last=False)

    def clear(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)

    def _current(self, key: str) -> tuple[int, float]:
        count, last = self._failures.get(key, (0, 0.0))
        if count and self.clock() - last > limits.LOGIN_FORGET_S:
            self._failures.pop(key, None)
            return 0, 0.0
        return count, last


class LoginGuard:
    """The `auth` Gradio awaits: throttle, then verify in a worker thread."""

    def __init__(self, accounts, clock=time.monotonic) -> None:
        self.accounts = accounts
        self.lockouts = Lockouts(clock)
        self._waiting = 0
        # Its own threads (not the pool that runs the app's other routes), at a lower CPU priority: argon2's
        # lanes (p=4) would otherwise take both cores from the requests of people already signed in.
        self._pool = ThreadPoolExecutor(limits.LOGIN_VERIFICATIONS_AT_ONCE, thread_name_prefix="argon2",
                                        initializer=_lower_priority)
        self.verifying = self.most_verifying = 0  # verifications running now, and the most at once
        self._counting = threading.Lock()

    async def login(self, username: str, password: str) -> bool:
        address = address_key(client_address.get())
        account = f"account:{username}@{address}"
        wait = max(self.lockouts.locked_for(account, limits.LOGIN_FREE_FAILURES_PER_ACCOUNT),
                   self.lockouts.locked_for(address, limits.LOGIN_FREE_FAILURES_PER_ADDRESS))
        if wait > 0:
            _refuse(f"too many failed sign-ins; try again in {math.ceil(wait)} s", wait)
        if self._waiting >= limits.LOGIN_WAITING_MAX:
            _refuse("the server is busy with other sign-ins; try again in 5 s", 5)
        self._waiting += 1
        try:
            ok = await asyncio.wrap_future(self._pool.submit(self._verify, username, password))
        finally:
            self._waiting -= 1
        if ok:
            self.lockouts.clear(account)
        else:
            self.lockouts.failed(account)
            self.lockouts.failed(address)
        return ok

    def _verify(self, username: str, password: str) -> bool:
        with self._counting:
            self.verifying += 1
            self.most_verifying = max(self.most_verifying, self.verifying)
        try:
            return self.accounts.verify(username, password)
        finally:
            with self._counting:
                self.verifying -= 1


def _lower_priority() -> None:
    """Nice this thread (Linux schedules threads apart; the lanes argon2 starts inherit it)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOGIN_NICE)
    except (AttributeError, OSError):
        pass


def _refuse(message: str, retry_after: float) -> None:
    raise HTTPException(status_code=429, detail=message, headers={"Retry-After": str(math.ceil(retry_after))})
