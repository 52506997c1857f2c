"""A fair lane: a few slots (parse workers), shared out between clients so a client's tasks wait behind its own.

With one first-come lane, an 80 KB CSV held the upload lane for everyone (three in one request: 94 s, while another
user's 47-byte file waited 92 s). Here each client's tasks queue apart, and a free slot goes to the waiting client
served least recently (one never served first), its oldest task first: a client arriving behind another's queue of
ten waits for the task in progress, not for the ten. Who the client is comes from `acting_for` (the app sets it to
the request's account, else its address: `ui.clients`); work the server does for itself is "server".

    lane = FairLane(2)
    with acting_for("address:203.0.113.7"), lane.turn():
        ...  # holds one of the 2 slots; `lane.turn()` again inside this block does not wait again

A client may have at most `waiting_per_client` tasks waiting (None: no limit); one more is refused at once with one
line, so a client cannot queue up the server's threads.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import threading
from collections.abc import Iterator

from pipeline.core.errors import InputError

_client: contextvars.ContextVar[str] = contextvars.ContextVar("lane_client", default="server")
_held: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar("lane_held", default=frozenset())


@contextlib.contextmanager
def acting_for(client: str) -> Iterator[None]:
    """Tasks started inside this block count as `client`'s."""
    token = _client.set(client)
    try:
        yield
    finally:
        _client.reset(token)


def current_client() -> str:
    return _client.get()


class FairLane:
    """`capacity` slots; waiting tasks queue per client, a free slot goes to the client served least recently."""

    def __init__(self, capacity: int, waiting_per_client: int | None = None) -> None:
        self.capacity = capacity
        self.waiting_per_client = waiting_per_client
        self._busy = 0
        self._waiting: dict[str, list[int]] = {}  # client → its waiting tickets, oldest first
        self._served: dict[str, int] = {}  # client → the grant it last had (a count; larger is more recent)
        self._grants = itertools.count(1)
        self._tickets = itertools.count()
        self._changed = threading.Condition()
        self._closed = False
        self.most_waiting = 0  # the most tasks that waited at once (for tests and the bench)

    @contextlib.contextmanager
    def turn(self) -> Iterator[None]:
        """Hold a slot for the current client (`acting_for`) while the block runs; re-entrant."""
        if id(self) in _held.get():
            yield
            return
        self.acquire()
        token = _held.set(_held.get() | {id(self)})
        try:
            yield
        finally:
            _held.reset(token)
            self.release()

    def acquire(self) -> None:
        client = current_client()
        with self._changed:
            queue = self._waiting.setdefault(client, [])
            if self.waiting_per_client is not None and len(queue) >= self.waiting_per_client:
                if not queue:
                    del self._waiting[client]
                raise InputError("upload", f"{len(queue)} of your uploads are waiting already; wait for them to "
                                           "finish, then try again")
            ticket = next(self._tickets)
            queue.append(ticket)
            self.most_waiting = max(self.most_waiting, sum(len(q) for q in self._waiting.values()))
            try:
                while self._closed or self._busy >= self.capacity or self._next() != ticket:
                    if self._closed:
                        raise InputError("server", "is shutting down")
                    self._changed.wait()
            except BaseException:
                self._leave(client, ticket)
                raise
            self._leave(client, ticket)
            self._busy += 1
            self._served[client] = next(self._grants)
            self._forget_idle_clients()

    def release(self) -> None:
        with self._changed:
            self._busy -= 1
            self._changed.notify_all()

    def waiting(self, client: str | None = None) -> int:
        with self._changed:
            if client is not None:
                return len(self._waiting.get(client, ()))
            return sum(len(queue) for queue in self._waiting.values())

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def _next(self) -> int | None:
        """The ticket a free slot goes to: the oldest of the waiting client served least recently."""
        if not self._waiting:
            return None
        client = min(self._waiting, key=lambda c: (self._served.get(c, 0), self._waiting[c][0]))
        return self._waiting[client][0]

    def _leave(self, client: str, ticket: int) -> None:
        queue = self._waiting.get(client)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self._waiting[client]
        self._changed.notify_all()

    def _forget_idle_clients(self) -> None:
        """Keep the last grants of waiting clients and the most recent others (a bounded table)."""
        if len(self._served) > 4096:
            keep = sorted(self._served, key=self._served.__getitem__)[-1024:]
            self._served = {c: self._served[c] for c in {*keep, *self._waiting} if c in self._served}
