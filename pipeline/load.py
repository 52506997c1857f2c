"""Loading documents from paths or a store into a Corpus (the CLI's and the app's entry)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from .contracts import Document
from .embed import Embedder, Progress, default_embedder
from .index import Corpus, build_corpus
from .metadata import check_unique_ids
from .errors import InputError
from .parse import document_warnings, iter_input_files, parse_path, sha256
from .store import DocumentStore
from .tokenize import Tokenizer
from .vectors import ChromaVectorCache


def parse_paths(paths: Sequence[Path]) -> list[Document]:
    """Parse every file under `paths`; the first bad file raises InputError naming it."""
    documents = [parse_path(path) for path in iter_input_files(list(paths))]
    check_unique_ids(documents)
    for document in documents:
        for warning in document_warnings(document):
            print(f"warning: {warning}", file=sys.stderr)
    return documents


def stderr_progress(done: int, total: int, stage: str) -> None:
    """Embedding progress on stderr: at the start, every 10 batches, and at the end."""
    if total and stage == "embedding" and (done in (0, total) or done % 320 == 0):
        print(f"\rembedding {done}/{total} passages (cached vectors are reused)", end="\n" if done == total else "",
              file=sys.stderr, flush=True)


def corpus_from_documents(
    documents: Sequence[Document],
    cache_path: Path | None = None,
    embedder: Embedder | None = None,
    tokenizer: Tokenizer | None = None,
    progress: Progress | None = None,
) -> Corpus:
    embedder = embedder or default_embedder()
    cache = ChromaVectorCache(embedder.name, path=cache_path)
    return build_corpus(documents, embedder, cache, tokenizer=tokenizer, progress=progress)


def ingest(store_dir: Path, paths: Sequence[Path], progress: Progress | None = None) -> tuple[list[str], list[str]]:
    """Add files to a store: (added ids, unchanged ids). Bad input leaves the store as it was.

    A file whose bytes (sha256) are already stored is neither parsed nor embedded again.
    """
    store = DocumentStore(store_dir)
    stored = {entry["digest"]: source_id for source_id, entry in store.manifest().items()}
    fresh_files, unchanged = [], []
    for path in iter_input_files(list(paths)):
        data = _read(path)
        if sha256(data) in stored:
            unchanged.append(stored[sha256(data)])
        else:
            fresh_files.append((path, data))
    documents = [parse_path(path) for path, _ in fresh_files]
    fresh, _ = store.plan(documents)  # raises on an id the store holds with other bytes
    check_unique_ids(store.documents() + fresh)
    # Embed before the manifest changes: vectors are a cache keyed by content hash, so a
    # failure here leaves, at worst, unused vectors, never a half-visible document.
    corpus_from_documents(fresh, cache_path=store.chroma_path, progress=progress)
    store.commit(fresh, {sha256(data): data for _, data in fresh_files})
    return [d.source_id for d in fresh], unchanged


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror}") from None


def corpus_from_store(store_dir: Path, progress: Progress | None = None) -> Corpus:
    store = DocumentStore(store_dir)
    if not (store_dir / "manifest.json").exists():
        raise InputError(str(store_dir), "no store here (run `python -m pipeline ingest --store DIR PATH ...` first)")
    return corpus_from_documents(store.documents(), cache_path=store.chroma_path, progress=progress)
