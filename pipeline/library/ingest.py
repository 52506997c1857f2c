"""A persistent store built by `python -m pipeline ingest --store DIR` (the CLI's), and reading it back.

Every function takes the `Engine` whose parsers, embedder and vector store it uses, so nothing here
chooses a component itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.core.interfaces import Progress
from pipeline.engine.config import Engine
from pipeline.index.corpus import Corpus
from pipeline.ingest.document import document_warnings, sha256
from pipeline.ingest.metadata import check_unique_ids
from pipeline.ingest.paths import iter_input_files, parse_path
from pipeline.library.store import DocumentStore


def _store_vectors(engine: Engine, store: DocumentStore):
    """A store keeps its vectors in its own embedded Chroma folder, unless the engine uses a server."""
    if engine.config.chroma_host or engine.config.chroma_port or engine.config.vector_store != "chroma":
        return engine.vector_store
    from pipeline.index.stores.chroma import ChromaVectorCache

    return ChromaVectorCache(engine.embedder.name, path=store.chroma_path)


def ingest(engine: Engine, store_dir: Path, paths: Sequence[Path], progress: Progress | None = None,
           failed: list[str] | None = None,
           warn: Callable[[str], None] | None = None) -> tuple[list[str], list[str]]:
    """Add files to a store: (added ids, unchanged ids). A refused file never half-enters the store.

    With a `failed` list, a file that is refused (unreadable, unparsable, an id the store or an earlier file of
    this batch holds with other bytes) is one line there ("file: reason") and the rest go on; without it, the
    first refused file raises InputError and nothing is added. A file whose bytes (sha256) are already stored is
    neither parsed nor embedded again. `warn` hears what a user should know about each added document (a page
    read by OCR, other tools' front-matter keys).
    """
    store = DocumentStore(store_dir)
    stored = {entry["digest"]: source_id for source_id, entry in store.manifest().items()}
    refuse = _refusal(failed)
    fresh_files: dict[str, tuple[Document, bytes]] = {}
    unchanged: list[str] = []
    for path in _input_files(paths, engine, refuse):
        data = refuse(_read, path)
        if data is None:
            continue
        if sha256(data) in stored:
            unchanged.append(stored[sha256(data)])
        elif (document := refuse(parse_path, path, engine.parsers)) is not None:
            fresh_files[document.digest] = (document, data)
    stored_documents = store.documents()
    fresh: list[Document] = []
    for document, _ in fresh_files.values():
        if refuse(_check_new, store, document, stored_documents + fresh):
            fresh.append(document)
    # Embed before the manifest changes: vectors are a cache keyed by content hash, so a
    # failure here leaves, at worst, unused vectors, never a half-visible document.
    engine.corpus(fresh, progress=progress, vector_store=_store_vectors(engine, store))
    store.commit(fresh, {d.digest: fresh_files[d.digest][1] for d in fresh})
    if warn is not None:
        for warning in (w for d in fresh for w in document_warnings(d)):
            warn(warning)
    return [d.source_id for d in fresh], unchanged


def _refusal(failed: list[str] | None):
    """`refuse(step, *args)`: the step's result, or None with its InputError recorded in `failed` (re-raised
    when there is no list)."""
    def refuse(step, *args):
        try:
            return step(*args)
        except InputError as error:
            if failed is None:
                raise
            failed.append(str(error))
            return None

    return refuse


def _input_files(paths: Sequence[Path], engine: Engine, refuse) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        found.extend(refuse(iter_input_files, [path], set(engine.upload_suffixes)) or [])
    return sorted(set(found), key=found.index)


def _check_new(store: DocumentStore, document: Document, earlier: list[Document]) -> bool:
    """Refuse an id the store holds with other bytes, or one a stored or accepted document already has."""
    store.plan([document])
    check_unique_ids([*earlier, document])
    return True


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
