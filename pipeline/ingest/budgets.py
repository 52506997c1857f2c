"""What uploads may hold in the server's memory, across every session: a budget counted in estimated bytes.

Bytes on disk say little about memory: prose holds ~20× its bytes once parsed, chunked and indexed
(lines, chunks, BM25 postings, vectors), and a line costs ~1 KB however short it is (9 million
one-character lines in 18 MB took the server from 259 to 6,476 MiB). So a document is priced from what
its parse produced — lines, characters, word boxes — with `document_cost`, whose coefficients were
measured (resident memory of a session after upload, chunking, BM25 and embedding; docs/limits.md). A
session's uploads may hold SESSION_MEMORY_BYTES and all sessions together UPLOAD_MEMORY_BYTES
(pipeline.core.limits); an upload that does not fit is refused with one line, never an out-of-memory kill.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping

from pipeline.core import limits
from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.ingest.parsers.text import count_lines

# Measured on prose, one-character lines, one long line and generated PDFs (2026-12-01): resident bytes
# held per line, per character and per PDF word box, rounded up; vectors (384 floats, two copies) are in
# the per-character figure (a window of ~600 characters).
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


def text_size(data: bytes) -> dict[str, int]:
    """A text file's size as `document_cost` prices it, before it is parsed (lines counted on the bytes)."""
    return {"lines": count_lines(data), "chars": len(data)}


def text_cost(data: bytes) -> int:
    """The same estimate for a text file before it is parsed."""
    return document_cost(text_size(data))


def mib(size: int) -> str:
    return f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size / 2**20:.1f} MiB"


class MemoryBudget:
    """Reservations by owner (a session) and item (a document id). Thread-safe; an owner that is garbage
    collected gives its reservations back."""

    def __init__(self, capacity: int | None = None, per_owner: int | None = None) -> None:
        self._capacity, self._per_owner = capacity, per_owner
        self._held: dict[int, dict[str, int]] = {}
        self._lock = threading.Lock()

    @property
    def capacity(self) -> int:
        return self._capacity if self._capacity is not None else limits.UPLOAD_MEMORY_BYTES

    @property
    def per_owner(self) -> int:
        return self._per_owner if self._per_owner is not None else limits.SESSION_MEMORY_BYTES

    def held(self, owner: object | None = None) -> int:
        with self._lock:
            if owner is None:
                return sum(sum(items.values()) for items in self._held.values())
            return sum(self._held.get(id(owner), {}).values())

    def check(self, owner: object, costs: Mapping[str, int], label: str) -> None:
        """Would `costs` (item → bytes, replacing those items' current reservations) fit? InputError if not."""
        with self._lock:
            self._refuse_unless_fits(owner, costs, label)

    def reserve(self, owner: object, costs: Mapping[str, int], label: str, force: bool = False) -> None:
        """Hold `costs` for `owner` (replacing the same items' reservations), or refuse with one line.
        `force` puts back a reservation that was held before (a failed replacement's previous version)."""
        with self._lock:
            if not force:
                self._refuse_unless_fits(owner, costs, label)
            key = id(owner)
            if key not in self._held:
                self._held[key] = {}
                weakref.finalize(owner, self._forget, key)
            self._held[key].update(costs)

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

    def _refuse_unless_fits(self, owner: object, costs: Mapping[str, int], label: str) -> None:
        mine = self._held.get(id(owner), {})
        adding = sum(costs.values()) - sum(mine.get(item, 0) for item in costs)
        owner_total = sum(mine.values()) + adding
        total = sum(sum(items.values()) for items in self._held.values()) + adding
        need = mib(sum(costs.values()))
        if owner_total > self.per_owner:
            raise InputError(label, f"would hold about {need} of server memory once indexed; one session's "
                                    f"uploads may hold {mib(self.per_owner)} (delete an upload, or upload a "
                                    "smaller file)")
        if total > self.capacity:
            raise InputError(label, f"would hold about {need} of server memory once indexed, and the server is "
                                    f"full: every session's uploads together may hold {mib(self.capacity)}; try "
                                    "again later")


_uploads = MemoryBudget()


def upload_budget() -> MemoryBudget:
    """The process's budget for session uploads."""
    return _uploads
