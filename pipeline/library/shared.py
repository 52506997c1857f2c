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
import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError, StoreError
from pipeline.core.interfaces import Deletes
from pipeline.engine.config import Engine
from pipeline.ingest.document import sha256
from pipeline.library.store import DocumentStore
from pipeline.library.versions import check_replacement, replacement_metadata, stale_vector_keys

LIBRARY_ADMIN = "library-admin"
log = logging.getLogger("auditable_rag.library")


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

    def replace(self, engine: Engine, source_id: str, item: Incoming, version: str | None = None,
                keep: Sequence[Document] = (), limits: Any = None, progress=None) -> tuple[Document, Document]:
        """Replace one document by a new file under the same id (a new version): (old, new).

        Parse, embed, then commit; only after the commit do the old version's document file, blob and
        vectors go (vectors another current document or one of `keep` still uses stay). A failure before
        the commit — a bad file, an embedding error, a crash — leaves the previous version in place.
        """
        with self._writing():
            current = {d.source_id: d for d in self.store.documents()}
            if source_id not in current:
                raise InputError("library", f"{source_id!r} is not in the shared library")
            old = current[source_id]
            metadata = replacement_metadata(item.data, item.name, old, version,
                                            front_matter=engine.takes_front_matter(item.data, item.name))
            document = engine.parse(item.data, item.name, metadata, limits)
            check_replacement(old, document, item.name)
            engine.corpus([document], progress=progress)  # embedded before the commit, as in `add`
            self.store.commit([document], {document.digest: item.data})
            self.store.prune([old.digest])
            others = [d for sid, d in current.items() if sid != source_id] + [document, *keep]
            stale = stale_vector_keys(old, others, engine.embedder.name, engine.config.index)
            if stale and isinstance(engine.vector_store, Deletes):
                try:
                    engine.vector_store.delete(stale)
                except StoreError as error:  # committed already; vectors are a cache, so say it and go on
                    log.warning("replaced %s but could not delete its old vectors: %s", source_id, error)
            return old, document
