"""Who may start a session: a session ends by its own idleness, never because other clients started more.

Gradio keeps every session's state in one table of `capacity` entries and, when a new session hash arrives at a full
table, drops the least recently used session, whoever's it is: 520 anonymous `/history` calls with fresh hashes pushed
everyone else's sessions (and their uploads) out in ~20 s. Here a request that would start a session (an event's
JSON naming a hash the table does not hold) is admitted first (`SessionTable.admit`):

- a client (its address, an IPv6 client's /64, and its account when signed in: `ui.clients`) may start
  SESSION_STARTS_PER_CLIENT sessions per SESSION_START_WINDOW_S and hold SESSIONS_PER_CLIENT at once (429 "… try
  again in N s" past either);
- while MAX_SESSIONS are held, a new session is refused (503 "the server holds as many sessions as it can …"),
  and no live one is dropped. Sessions leave when their own lifetime ends (`ui.retention`).

A `/call/<api>` without a session hash (as `curl` sends it) gets one here, so the session Gradio makes for it is
counted against its client too. The component-server route, which no component of this app uses, is closed: it could
start sessions from a form body. Gradio's own least-recently-used drop stays as a backstop at twice MAX_SESSIONS,
which no admitted request reaches.
"""

from __future__ import annotations

import datetime
import json
import math
import threading
import time
import uuid
from collections import OrderedDict, deque

from pipeline import limits

from . import retention
from .clients import account_key, address_key
from .session_owner import hash_in_body, hash_in_path, hash_in_query, is_json, json_answer, read_body, replay

MAX_TRACKED_CLIENTS = 10_000
ADMITTED_GRACE_S = 60  # an admitted hash whose session Gradio has not made yet counts as held this long
_PREFIX = "/gradio_api/"
_CLOSED = (_PREFIX + "component_server", _PREFIX + "component_server/")


class SessionTable:
    """The sessions Gradio holds (`holder`: its StateHolder), who started each, and whether a new one may start."""

    def __init__(self, holder, clock=time.monotonic) -> None:
        self.holder = holder
        self.clock = clock
        self._started: dict[str, _Started] = {}  # session hash → who started it, when, whether Gradio made it
        self._starts: OrderedDict[str, deque[float]] = OrderedDict()  # client → its session starts in the window
        self._lock = threading.Lock()

    def admit(self, session_hash: str, clients: tuple[str, ...]) -> tuple[int, str, float] | None:
        """None when the request may go on (a live session, or a new one admitted), else (status, message,
        retry-after seconds)."""
        now = self.clock()
        with self._lock:
            if self._held(session_hash, now):
                return None
            self._forget_ended(now)
            refusal = self._refusal(clients, now)
            if refusal is not None:
                return refusal
            self._started[session_hash] = _Started(clients, now)
            for client in clients:
                starts = self._starts.setdefault(client, deque())
                self._starts.move_to_end(client)
                starts.append(now)
            while len(self._starts) > MAX_TRACKED_CLIENTS:
                self._starts.popitem(last=False)
        return None

    def held_by(self, client: str) -> int:
        """The sessions `client` holds now (those it started that Gradio still holds, or is making)."""
        now = self.clock()
        with self._lock:
            return sum(1 for hash_, started in self._started.items()
                       if client in started.clients and self._held(hash_, now))

    def _held(self, session_hash: str, now: float) -> bool:
        """Whether the session is held: Gradio holds it, or it was admitted a moment ago and is being made."""
        started = self._started.get(session_hash)
        if session_hash in self.holder.session_data:
            if started is not None:
                started.made = True
            return True
        return started is not None and not started.made and now - started.at < ADMITTED_GRACE_S

    def _forget_ended(self, now: float) -> None:
        for session_hash in [h for h in self._started if not self._held(h, now)]:
            del self._started[session_hash]

    def _refusal(self, clients: tuple[str, ...], now: float) -> tuple[int, str, float] | None:
        for client in clients:
            whose = "your account" if client.startswith("account:") else "your address"
            starts = self._starts.get(client, deque())
            while starts and now - starts[0] > limits.SESSION_START_WINDOW_S:
                starts.popleft()
            if len(starts) >= limits.SESSION_STARTS_PER_CLIENT:
                wait = max(1.0, limits.SESSION_START_WINDOW_S - (now - starts[0]))
                return 429, f"too many new sessions from {whose}; try again in {math.ceil(wait)} s", wait
            mine = [h for h, started in self._started.items() if client in started.clients]
            if len(mine) >= limits.SESSIONS_PER_CLIENT:
                wait = self._first_to_expire(mine)
                return (429, f"{whose} holds {len(mine)} sessions, the most one may; close a tab or try again in "
                             f"{math.ceil(wait)} s", wait)
        held = len(self.holder.session_data) + sum(1 for h in self._started if h not in self.holder.session_data)
        if held >= retention.MAX_SESSIONS:
            wait = self._first_to_expire(list(self.holder.session_data))
            return (503, f"the server holds as many sessions as it can ({retention.MAX_SESSIONS}); try again in "
                         f"{math.ceil(wait)} s", wait)
        return None

    def _first_to_expire(self, hashes: list[str]) -> float:
        """Seconds until the first of these sessions reaches the end of its lifetime, unused (at least 1)."""
        used = [self.holder.time_last_used.get(h) for h in hashes]
        oldest = min((u for u in used if u is not None), default=None)
        if oldest is None:
            return float(ADMITTED_GRACE_S)
        idle = (datetime.datetime.now() - oldest).total_seconds()
        return max(1.0, retention.SESSION_TTL_S - idle)


class _Started:
    """Who started a session (its client keys), when it was admitted, and whether Gradio has made it since (once
    made, a session that leaves Gradio's table has ended)."""

    def __init__(self, clients: tuple[str, ...], at: float) -> None:
        self.clients, self.at, self.made = clients, at, False


class SessionGate:
    """ASGI middleware: a request that would start a session is admitted by `table` first."""

    def __init__(self, app, table: SessionTable, user_of=None) -> None:
        self.app = app
        self.table = table
        self.user_of = user_of  # the request's signed-in user (with sign-in), else None

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(_PREFIX):
            await self.app(scope, receive, send)
            return
        if path in _CLOSED:
            await json_answer(send, 404, "this app has no component server functions")
            return
        session_hash = hash_in_path(path) or hash_in_query(scope)
        if scope["method"] == "POST" and is_json(scope) and session_hash is None:
            body, too_large = await read_body(receive)
            if too_large:
                await json_answer(send, 413, "the request is too large")
                return
            session_hash = hash_in_body(body)
            if session_hash is None and path.startswith(_PREFIX + "call/"):
                session_hash, body = _with_new_hash(body)
            receive = replay(body, receive)
            if session_hash is not None:
                refusal = self.table.admit(session_hash, self._clients(scope))
                if refusal is not None:
                    await json_answer(send, *refusal)
                    return
        await self.app(scope, receive, send)

    def _clients(self, scope) -> tuple[str, ...]:
        client = scope.get("client")
        keys = [address_key(client[0] if client else None)]
        account = account_key(self.user_of(scope)) if self.user_of is not None else None
        return (*keys, account) if account else tuple(keys)


def _with_new_hash(body: bytes) -> tuple[str | None, bytes]:
    """A `/call` body given a fresh session hash (Gradio would make one of the event's id, unseen here)."""
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        return None, body
    if not isinstance(value, dict):
        return None, body
    value["session_hash"] = uuid.uuid4().hex
    return value["session_hash"], json.dumps(value).encode()

