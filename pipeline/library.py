"""The persistent library: documents that survive restarts, shared by every session (and every app
instance that shares DATA_DIR and, with CHROMA_HOST, the Chroma server holding the vectors).

DATA_DIR/library is a `DocumentStore` (manifest written last and atomically: a crash mid-ingest
leaves the previous library). Writers take an exclusive file lock, so two instances never
interleave manifests; readers notice another instance's commit through `version()`.
Session uploads never come here: only users allowed to (the `library-admin` group) add documents.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .contracts import Document
from .errors import InputError
from .parse import sha256
from .store import DocumentStore

if TYPE_CHECKING:
    from .config import Engine

LIBRARY_ADMIN = "library-admin"


def default_data_dir() -> Path:
    return Path(os.environ.get("DATA_DIR", "data"))


@dataclass(frozen=True)
class Incoming:
    """One file offered to the library: a label (never a path), its bytes and form metadata."""

    name: str
    data: bytes
    metadata: Mapping[str, Any] | None = None


class Library:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.store = DocumentStore(self.root / "library")

    def version(self) -> str:
        """Changes whenever a commit changes the manifest (cheap: one small file)."""
        path = self.store.root / "manifest.json"
        try:
            return hashlib.sha256(path.read_bytes()).hexdigest()
        except FileNotFoundError:
            return "empty"

    def documents(self) -> list[Document]:
        return self.store.documents()

    def blob(self, digest: str) -> bytes | None:
        return self.store.blob(digest)

    @contextmanager
    def _writing(self) -> Iterator[None]:
        self.store.root.mkdir(parents=True, exist_ok=True)
        with open(self.store.root / ".lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def add(self, engine: Engine, files: Sequence[Incoming], reserved_ids: set[str] = frozenset(),
            limits: Any = None, progress=None) -> tuple[list[str], list[str]]:
        """Parse, embed and commit `files`: (added ids, unchanged ids). Nothing is visible until the commit;
        a bad file stops the whole batch before it, naming the file."""
        with self._writing():
            stored = {entry["digest"]: sid for sid, entry in self.store.manifest().items()}
            fresh, unchanged, blobs = [], [], {}
            for item in files:
                digest = sha256(item.data)
                if digest in stored:
                    unchanged.append(stored[digest])
                    continue
                document = engine.parse(item.data, item.name, item.metadata, limits)
                if document.source_id in reserved_ids:
                    raise InputError(item.name, f"the id {document.source_id!r} is taken by a sample document")
                fresh.append(document)
                blobs[digest] = item.data
            new, _ = self.store.plan(fresh)
            # Embed before the manifest changes: vectors are a cache by content hash, so a failure
            # here leaves, at worst, unused vectors, never a half-visible document.
            engine.corpus(new, progress=progress)
            self.store.commit(new, blobs)
            return [d.source_id for d in new], unchanged
