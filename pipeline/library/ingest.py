"""A persistent store built by `python -m pipeline ingest --store DIR` (the CLI's), and reading it back.

Every function takes the `Engine` whose parsers, embedder and vector store it uses, so nothing here
chooses a component itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pipeline.core.errors import InputError
from pipeline.core.interfaces import Progress
from pipeline.engine.config import Engine
from pipeline.index.corpus import Corpus
from pipeline.ingest.document import sha256
from pipeline.ingest.metadata import check_unique_ids
from pipeline.ingest.paths import iter_input_files, parse_path
from pipeline.library.store import DocumentStore


def _store_vectors(engine: Engine, store: DocumentStore):
    """A store keeps its vectors in its own embedded Chroma folder, unless the engine uses a server."""
    if engine.config.chroma_host or engine.config.chroma_port or engine.config.vector_store != "chroma":
        return engine.vector_store
    from pipeline.index.stores.chroma import ChromaVectorCache

    return ChromaVectorCache(engine.embedder.name, path=store.chroma_path)


def ingest(engine: Engine, store_dir: Path, paths: Sequence[Path],
           progress: Progress | None = None) -> tuple[list[str], list[str]]:
    """Add files to a store: (added ids, unchanged ids). Bad input leaves the store as it was.

    A file whose bytes (sha256) are already stored is neither parsed nor embedded again.
    """
    store = DocumentStore(store_dir)
    stored = {entry["digest"]: source_id for source_id, entry in store.manifest().items()}
    fresh_files, unchanged = [], []
    for path in iter_input_files(list(paths), set(engine.upload_suffixes)):
        data = _read(path)
        if sha256(data) in stored:
            unchanged.append(stored[sha256(data)])
        else:
            fresh_files.append((path, data))
    documents = [parse_path(path, engine.parsers) for path, _ in fresh_files]
    fresh, _ = store.plan(documents)  # raises on an id the store holds with other bytes
    check_unique_ids(store.documents() + fresh)
    # Embed before the manifest changes: vectors are a cache keyed by content hash, so a
    # failure here leaves, at worst, unused vectors, never a half-visible document.
    engine.corpus(fresh, progress=progress, vector_store=_store_vectors(engine, store))
    store.commit(fresh, {sha256(data): data for _, data in fresh_files})
    return [d.source_id for d in fresh], unchanged


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror}") from None


def corpus_from_store(engine: Engine, store_dir: Path, progress: Progress | None = None) -> Corpus:
    store = DocumentStore(store_dir)
    if not (store_dir / "manifest.json").exists():
        raise InputError(str(store_dir), "no store here (run `python -m pipeline ingest --store DIR PATH ...` first)")
    return engine.corpus(store.documents(), progress=progress, vector_store=_store_vectors(engine, store))
