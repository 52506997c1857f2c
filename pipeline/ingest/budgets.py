"""What uploads may hold in the server's memory, across every session: a budget counted in estimated bytes.

Bytes on disk say little about memory: prose holds ~20× its bytes once parsed, chunked and indexed
(lines, chunks, BM25 postings, vectors), and a line costs ~1 KB however short it is (9 million
one-character lines in 18 MB took the server from 259 to 6,476 MiB). So a document is priced from what
its parse produced — lines, characters, word boxes — with `document_cost`, whose coefficients were
measured (resident memory of a session after upload, chunking, BM25 and embedding; docs/limits.md). A
session's uploads may hold SESSION_MEMORY_BYTES, a client's (an address's, an account's: every session it keeps
alive) CLIENT_MEMORY_BYTES, and all sessions together UPLOAD_MEMORY_BYTES (pipeline.core.limits); an upload that
does not fit is refused with one line, never an out-of-memory kill.
The estimates leave out what is not an upload (the reader model, the parsing workers, a burst of asks), so on
a host with a known memory size (`HostMemory`) an upload is also refused while what the server and its workers
measurably use leaves less than a reserve.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from pipeline.core import limits
from pipeline.core.contracts import Document
from pipeline.core.errors import InputError

# Measured on prose, one-character lines, one long line and generated PDFs (2026-12-01): resident bytes
# held per line, per character and per PDF word box, rounded up; vectors (384 floats, two copies) are in
# the per-character figure (a window of ~600 characters). Since a page keeps its lines by column
# (`contracts.documents.LineTable`, 2026-12-08) a parsed line holds ~80 bytes instead of ~670; the figure is
# kept: the estimate stays above what is held, and what it no longer spends on lines is room the host check sees.
PER_LINE = 1024
PER_CHAR = 16
PER_WORD = 48
PER_DOCUMENT = 256 * 1024


def document_size(document: Document) -> dict[str, int]:
    """What a document will cost to hold, as `document_cost` prices it (a parsing worker computes it before it
    sends the document, so the server can refuse one before unpacking it)."""
    lines = [line for page in document.pages for line in page.lines]
    return {"pages": len(document.pages), "lines": len(lines), "chars": sum(len(line.text) for line in lines),
            "words": sum(len(line.words) for line in lines), "cards": len(document.meta.cards)}


def document_cost(size: Mapping[str, int]) -> int:
    """Estimated bytes a parsed document holds once indexed, from its size (`document_size`)."""
    return (PER_DOCUMENT + PER_LINE * size.get("lines", 0) + PER_CHAR * size.get("chars", 0)
            + PER_WORD * size.get("words", 0))


def count_lines(data: bytes) -> int:
    """The lines a text file's bytes hold once line endings are normalised (without decoding them)."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1


def text_size(data: bytes) -> dict[str, int]:
    """A text file's size as `document_cost` prices it, before it is parsed (lines counted on the bytes)."""
    return {"lines": count_lines(data), "chars": len(data)}


def text_cost(data: bytes) -> int:
    """The same estimate for a text file before it is parsed."""
    return document_cost(text_size(data))


def mib(size: int) -> str:
    return f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size / 2**20:.1f} MiB"


_CGROUP_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


def cgroup_limit() -> int | None:
    """The memory cgroup's limit in bytes (v2 or v1), or None where there is none below the machine's memory."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in _CGROUP_LIMITS:
        try:
            value = path.read_text().strip()
        except OSError:
            continue
        if value.isdigit() and int(value) < physical:
            return int(value)
    return None


_server: int | None = None  # the server's process id, in a parse worker (set by `count_host_from`)


def count_host_from(pid: int) -> None:
    """Measure the host's use from `pid`'s process tree: a parse worker counts its server's (itself included)."""
    global _server
    _server = pid


def process_tree_pss(pid: int | None = None) -> int:
    """Bytes the process and its children (the parsing workers) hold, each shared page split between the processes
    mapping it (PSS: what the host's memory cgroup is charged for them; adding resident sets counts the shared
    libraries once per process). By default the server's tree, also when called in one of its parse workers."""
    pid = (_server or os.getpid()) if pid is None else pid
    total = 0
    for one in (pid, *child_processes(pid)):
        try:
            text = Path(f"/proc/{one}/smaps_rollup").read_text()
        except OSError:  # gone, or not Linux
            continue
        total += next((int(line.split()[1]) * 1024 for line in text.splitlines() if line.startswith("Pss:")), 0)
    return total


def child_processes(pid: int) -> list[int]:
    """The process ids of `pid`'s children (Linux /proc; [] elsewhere)."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    found: list[int] = []
    for thread in threads:
        try:
            found += [int(child) for child in Path(f"/proc/{pid}/task/{thread}/children").read_text().split()]
        except OSError:
            continue
    return found


class HostMemory:
    """The host's memory size and what the server and its workers use of it, measured at most once an interval
    (a second)."""

    def __init__(self, limit: int | None = None, reserve: int | None = None,
                 measure: Callable[[], int] = process_tree_pss, interval_s: float = 1.0) -> None:
        self._limit, self._reserve = limit, reserve
        self._cgroup: int | None | bool = False  # not read yet
        self._measure = measure
        self._interval_s = interval_s
        self._measured, self._at = 0, float("-inf")

    @property
    def limit(self) -> int | None:
        if self._limit is not None:
            return self._limit
        if limits.HOST_MEMORY_BYTES:
            return limits.HOST_MEMORY_BYTES
        if self._cgroup is False:
            self._cgroup = cgroup_limit()
        return self._cgroup or None

    @property
    def reserve(self) -> int:
        return self._reserve if self._reserve is not None else limits.HOST_MEMORY_RESERVE_BYTES

    def in_use(self) -> int:
        now = time.monotonic()
        if now - self._at >= self._interval_s:
            self._measured, self._at = self._measure(), now
        return self._measured

    def refuse_unless_fits(self, adding: int, label: str) -> None:
        """Refuse an upload that would take the server and its workers within the reserve of the host's memory; one
        larger than `HOST_MEMORY_SMALL_UPLOAD_BYTES` also may not take its last that much, kept for small uploads (a
        large one cannot crowd every other user's note out)."""
        limit = self.limit
        if not limit or adding <= 0:
            return
        used = self.in_use()
        small = limits.HOST_MEMORY_SMALL_UPLOAD_BYTES
        if used + adding > limit - self.reserve:
            raise InputError(label, f"would hold about {mib(adding)} of server memory once indexed, and the server "
                                    f"is short of memory ({mib(used)} of {mib(limit)} in use); try again later")
        if adding > small and used + adding > limit - self.reserve - small:
            raise InputError(label, f"would hold about {mib(adding)} of server memory once indexed, and the server "
                                    f"keeps its last {mib(small)} for uploads smaller than that ({mib(used)} of "
                                    f"{mib(limit)} in use); upload a smaller file, or try again later")


class MemoryBudget:
    """Reservations by owner (a session) and item (a document id), each owner counted against the clients it
    belongs to (keys such as "address:203.0.113.7", "account:alice"), within the host's memory where it is known.
    Thread-safe; an owner that is garbage collected gives its reservations back."""

    def __init__(self, capacity: int | None = None, per_owner: int | None = None,
                 host: HostMemory | None = None, per_client: int | None = None) -> None:
        self._capacity, self._per_owner, self._per_client = capacity, per_owner, per_client
        self._host = host
        self._held: dict[int, dict[str, int]] = {}
        self._clients: dict[int, frozenset[str]] = {}  # owner → the clients it counts against
        self._lock = threading.Lock()

    @property
    def capacity(self) -> int:
        return self._capacity if self._capacity is not None else limits.UPLOAD_MEMORY_BYTES

    @property
    def per_owner(self) -> int:
        return self._per_owner if self._per_owner is not None else limits.SESSION_MEMORY_BYTES

    @property
    def per_client(self) -> int:
        return self._per_client if self._per_client is not None else limits.CLIENT_MEMORY_BYTES

    def held_by_client(self, client: str) -> int:
        """What every owner counted against `client` holds together."""
        with self._lock:
            return self._client_total(client)

    def _client_total(self, client: str, leaving_out: int | None = None) -> int:
        return sum(sum(items.values()) for key, items in self._held.items()
                   if key != leaving_out and client in self._clients.get(key, ()))

    def held(self, owner: object | None = None) -> int:
        with self._lock:
            if owner is None:
                return sum(sum(items.values()) for items in self._held.values())
            return sum(self._held.get(id(owner), {}).values())

    def check(self, owner: object, costs: Mapping[str, int], label: str, clients: Iterable[str] = ()) -> None:
        """Would `costs` (item → bytes, replacing those items' current reservations) fit? InputError if not.
        `clients`: the keys of who asks (its address, its account), besides those the owner counts against."""
        with self._lock:
            self._refuse_unless_fits(owner, costs, label, self._clients.get(id(owner), frozenset()) | set(clients))

    def reserve(self, owner: object, costs: Mapping[str, int], label: str, force: bool = False,
                clients: Iterable[str] = ()) -> None:
        """Hold `costs` for `owner` (replacing the same items' reservations), or refuse with one line; from now on
        the owner counts against `clients` too. `force` puts back a reservation that was held before (a failed
        replacement's previous version)."""
        with self._lock:
            key = id(owner)
            counted = self._clients.get(key, frozenset()) | set(clients)
            if not force:
                self._refuse_unless_fits(owner, costs, label, counted)
            if key not in self._held:
                self._held[key] = {}
                weakref.finalize(owner, self._forget, key)
            self._held[key].update(costs)
            self._clients[key] = counted

    def release(self, owner: object, items: list[str] | None = None) -> None:
        """Give back `items` of `owner` (all of them when None)."""
        with self._lock:
            held = self._held.get(id(owner))
            if held is None:
                return
            for item in list(held) if items is None else items:
                held.pop(item, None)

    def _forget(self, key: int) -> None:
        with self._lock:
            self._held.pop(key, None)
            self._clients.pop(key, None)

    def _refuse_unless_fits(self, owner: object, costs: Mapping[str, int], label: str,
                            clients: frozenset[str]) -> None:
        mine = self._held.get(id(owner), {})
        adding = sum(costs.values()) - sum(mine.get(item, 0) for item in costs)
        owner_total = sum(mine.values()) + adding
        total = sum(sum(items.values()) for items in self._held.values()) + adding
        need = mib(sum(costs.values()))
        if owner_total > self.per_owner:
            raise InputError(label, f"would hold about {need} of server memory once indexed; one session's "
                                    f"uploads may hold {mib(self.per_owner)} (delete an upload, or upload a "
                                    "smaller file)")
        for client in sorted(clients):
            if self._client_total(client, leaving_out=id(owner)) + owner_total > self.per_client:
                whose = "your account's" if client.startswith("account:") else "your address's"
                raise InputError(label, f"would hold about {need} of server memory once indexed; {whose} uploads "
                                        f"in all its sessions may hold {mib(self.per_client)} (delete an upload, or "
                                        "close another session)")
        if total > self.capacity:
            raise InputError(label, f"would hold about {need} of server memory once indexed, and the server is "
                                    f"full: every session's uploads together may hold {mib(self.capacity)}; try "
                                    "again later")
        self.host.refuse_unless_fits(adding, label)

    @property
    def host(self) -> HostMemory:
        if self._host is None:
            self._host = HostMemory()
        return self._host


_uploads = MemoryBudget()


def upload_budget() -> MemoryBudget:
    """The process's budget for session uploads."""
    return _uploads
