"""Index: documents → retrieval chunks with BM25 statistics and dense vectors.

A `Corpus` is an immutable snapshot of one requester-visible collection. BM25 statistics
are computed over every chunk a requester may read (access is filtered before anything is
scored), and never over an eligibility-filtered remainder (seed 000, §45.3).
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from pipeline.core.cache import BoundedCache, Caches
from pipeline.core.contracts import Chunk, Document, DocumentRecord, IndexSettings
from pipeline.core.interfaces import Embedder, Progress, VectorStore
from pipeline.core.policy import can_read, sibling_key
from pipeline.index.chunk import Chunker
from pipeline.index.embed import embed_texts
from pipeline.index.lexical import LexicalIndex
from pipeline.ingest.metadata import check_unique_ids, document_names
from pipeline.lang.tokenize import Tokenizer

if TYPE_CHECKING:
    from pipeline.index.dense import ChromaChunkSearch
    from pipeline.index.lexical_store import Bm25Store

# Views of a corpus kept per distinct readable set (and group sets remembered): bounded, so a
# caller sending ever new groups strings cannot grow memory (each view may copy the vectors).
VIEW_CACHE_SIZE = 8
GROUPS_CACHE_SIZE = 256


def corpus_digest(documents: Iterable[Document]) -> str:
    """sha256 over the sorted (source id, document digest) pairs."""
    lines = sorted(f"{d.source_id}\t{d.digest}" for d in documents)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SourceTable:
    """Per-document metadata as arrays, so eligibility is one vector operation per request."""

    valid_from: np.ndarray  # date ordinals; -1 when open
    valid_to: np.ndarray  # date ordinals; a sentinel past any date when open
    updated: np.ndarray  # date ordinals; 0 when unknown
    topic: np.ndarray  # case-folded topic ("" when none)
    sibling_group: np.ndarray  # one id per sibling key; -1 for a document without siblings

    @classmethod
    def build(cls, documents: Sequence[Document]) -> SourceTable:
        def ordinal(date, missing):
            return date.toordinal() if date else missing

        metas = [d.meta for d in documents]
        groups: dict[tuple, int] = {}
        keys = [sibling_key(d) for d in documents]
        return cls(
            valid_from=np.array([ordinal(m.valid_from, -1) for m in metas], dtype=np.int64),
            valid_to=np.array([ordinal(m.valid_to, 10**9) for m in metas], dtype=np.int64),
            updated=np.array([ordinal(m.updated, 0) for m in metas], dtype=np.int64),
            topic=np.array([(m.topic or "").casefold() for m in metas], dtype=object),
            sibling_group=np.array([-1 if k is None else groups.setdefault(k, len(groups)) for k in keys], dtype=np.int64),
        )

    def eligible(self, date, topic: str | None) -> np.ndarray:
        day = date.toordinal()
        mask = (self.valid_from <= day) & (day <= self.valid_to)
        if topic:
            mask &= self.topic == topic.casefold()
        return mask


def document_record(document: Document) -> DocumentRecord:
    meta = document.meta
    return DocumentRecord(
        source_id=meta.source_id, version=meta.version, filename=Path(document.filename).name,
        kind=document.kind, digest=document.digest, valid_from=meta.valid_from, valid_to=meta.valid_to,
        updated=meta.updated, topic=meta.topic, authority=meta.authority, license=meta.license,
        uri=meta.uri, restricted=meta.access is not None, extra=dict(meta.extra),
        info=document.info.model_dump(exclude_none=True) if document.info else {},
        ocr_pages=[page.number for page in document.pages if page.ocr and page.number is not None],
    )


@dataclass(frozen=True)
class ReadableView:
    """What one requester may read: its documents, their digest and records, and BM25 over their chunks."""

    sources: frozenset[str]
    documents: dict[str, Document]
    digest: str
    records: tuple[DocumentRecord, ...]
    lexical: LexicalIndex


def document_name_tokens(document: Document, tokenizer: Tokenizer) -> set[str]:
    return tokenizer.name_tokens(document_names(document))


@dataclass(frozen=True, eq=False)
class Corpus:
    """Documents, their chunks, token lists and unit-length vectors, ready to query.

    Immutable once built (by `build_corpus`); per-requester views are derived on demand and
    kept in a small bounded cache.
    """

    documents: dict[str, Document]
    chunks: list[Chunk]
    chunk_tokens: list[list[str]] | None  # None until needed: a saved BM25 index may make them unnecessary
    vectors: np.ndarray
    tokenizer: Tokenizer
    embedder: Embedder
    digest: str
    source_order: list[str]
    chunk_source: np.ndarray  # per chunk, the index of its document in source_order
    sources: SourceTable
    index_settings: IndexSettings = IndexSettings()
    embedded_now: int = 0
    # While background embedding runs (pipeline.index.background): the documents whose rows are still zero (never
    # ranked by dense similarity), and how far each one's embedding is ("embedding 3 of 12").
    dense_missing: frozenset[str] = frozenset()
    dense_status: Callable[[str], str] | None = None
    lexical_store: Bm25Store | None = None  # saved BM25 indexes by view (None: build in every process)
    dense_search: ChromaChunkSearch | None = None  # HNSW in Chroma for a large corpus (None: brute force)
    _tokens_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _names: dict[str, np.ndarray] | None = field(default=None, repr=False)
    _views: BoundedCache = field(default_factory=lambda: BoundedCache(VIEW_CACHE_SIZE), repr=False)
    _groups: BoundedCache = field(default_factory=lambda: BoundedCache(GROUPS_CACHE_SIZE), repr=False)
    # What parts derive from this corpus's text (unit vectors, text profiles: `CorpusBound`), kept here so that it
    # goes when the corpus goes: a session that ends or deletes an upload leaves none of it in the process.
    _caches: Caches = field(default_factory=Caches, repr=False)

    def cache(self, name: str, size: int) -> BoundedCache:
        """This corpus's bounded cache called `name` (made on first use)."""
        return self._caches.named(name, size)

    def cached(self) -> int:
        """How many derived values this corpus's caches hold."""
        return len(self._caches)

    def with_own_caches(self) -> Corpus:
        """The same corpus (documents, chunks, vectors and views shared) with caches of its own: one session's."""
        return dataclasses.replace(self, _caches=Caches())

    def pending_dense(self, missing: frozenset[str], status: Callable[[str], str]) -> Corpus:
        """This corpus, marked as lacking the dense vectors of the documents `missing` (`status(source id)` says how
        far their embedding is)."""
        return dataclasses.replace(self, dense_missing=frozenset(missing), dense_status=status,
                                   _views=BoundedCache(VIEW_CACHE_SIZE), _groups=BoundedCache(GROUPS_CACHE_SIZE))

    def with_vectors(self, vectors: np.ndarray, missing: frozenset[str] = frozenset()) -> Corpus:
        """This corpus with new dense vectors, lacking only those of `missing`. The views built so far are kept
        with the new matrix (their BM25 indexes are not rebuilt when a document's vectors come in)."""
        views = BoundedCache(VIEW_CACHE_SIZE)
        for readable, view in self._views.items():
            rows, moved = view.lexical.rows, None
            if self.dense_search is None:  # as `_build_view` does: the whole matrix, or the readable rows' copy
                moved = vectors if len(rows) == len(self.chunks) else vectors[rows]
            views.put(readable, dataclasses.replace(view, lexical=dataclasses.replace(view.lexical, vectors=moved)))
        return dataclasses.replace(self, vectors=vectors, dense_missing=frozenset(missing),
                                   dense_status=self.dense_status if missing else None,
                                   _views=views, _groups=BoundedCache(GROUPS_CACHE_SIZE))

    def readable_sources(self, groups: Sequence[str]) -> frozenset[str]:
        key = frozenset(groups)
        return self._groups.get(key, lambda: frozenset(
            sid for sid, doc in self.documents.items() if can_read(doc, groups)))

    def view(self, groups: Sequence[str]) -> ReadableView:
        readable = self.readable_sources(groups)
        return self._views.get(readable, lambda: self._build_view(readable))

    def named_sources(self) -> dict[str, np.ndarray]:
        """Word → which documents (a mask over `source_order`) it names; computed once, on first need."""
        with self._tokens_lock:
            if self._names is None:
                named: dict[str, np.ndarray] = {}
                for index, sid in enumerate(self.source_order):
                    for token in document_name_tokens(self.documents[sid], self.tokenizer):
                        named.setdefault(token, np.zeros(len(self.source_order), dtype=bool))[index] = True
                object.__setattr__(self, "_names", named)
            return self._names

    def tokens(self) -> list[list[str]]:
        """Every chunk's tokens, computed once, on first need (never, when saved BM25 indexes cover every view)."""
        with self._tokens_lock:
            if self.chunk_tokens is None:
                object.__setattr__(self, "chunk_tokens", [self.tokenizer.tokens(c.lexical_text) for c in self.chunks])
            return self.chunk_tokens

    def _build_view(self, readable: frozenset[str]) -> ReadableView:
        documents = {sid: doc for sid, doc in self.documents.items() if sid in readable}
        rows = np.array([i for i, c in enumerate(self.chunks) if c.source_id in readable], dtype=np.int64)
        digest = corpus_digest(documents.values())
        lexical = self._lexical(rows, digest)
        # Everything readable (the usual case): share the matrix instead of copying it. With HNSW in
        # Chroma the view needs no copy at all.
        if self.dense_search is None:
            lexical.vectors = self.vectors if len(rows) == len(self.chunks) else self.vectors[rows]
        return ReadableView(
            sources=readable, documents=documents, digest=digest,
            records=tuple(document_record(d) for d in documents.values()), lexical=lexical,
        )

    def _lexical(self, rows: np.ndarray, view_digest: str) -> LexicalIndex:
        """BM25 over `rows`: loaded from the saved indexes when one matches, else built (and saved)."""
        settings, store = self.index_settings, self.lexical_store
        key = None
        if store is not None:
            from pipeline.index.lexical_store import index_key

            indexed = hashlib.sha256()  # the exact texts BM25 indexes (a changed chunker changes the key)
            for i in rows:
                indexed.update(self.chunks[i].lexical_text.encode("utf-8", "surrogatepass") + b"\0")
            shaping = settings.model_dump(include={"chunk_window", "chunk_overlap", "bm25_k1", "bm25_b", "cjk"})
            key = index_key(f"{view_digest}:{indexed.hexdigest()}", shaping, self.tokenizer.name)
            loaded = store.load(key)
            if loaded is not None and np.array_equal(loaded.rows, rows):
                return loaded
        tokens = self.tokens()
        lexical = LexicalIndex.build(rows, [tokens[i] for i in rows], settings.bm25_k1, settings.bm25_b)
        if store is not None and key is not None:
            store.save(key, lexical)
        return lexical

    def readable_documents(self, groups: Sequence[str]) -> dict[str, Document]:
        return self.view(groups).documents

    def readable_digest(self, groups: Sequence[str]) -> str:
        """The corpus digest of what this requester may read: recomputable from the trace's
        document list, and silent about documents the requester may not see."""
        return self.view(groups).digest

    def lexical_index(self, readable: frozenset[str]) -> LexicalIndex:
        """BM25 over every chunk of the readable documents."""
        return self._views.get(readable, lambda: self._build_view(readable)).lexical

    def chunks_of(self, source_id: str) -> list[Chunk]:
        """The chunks that were actually indexed for one document, in index order."""
        return [chunk for chunk in self.chunks if chunk.source_id == source_id]


def build_corpus(
    documents: Sequence[Document],
    embedder: Embedder,
    cache: VectorStore | None = None,
    tokenizer: Tokenizer | None = None,
    progress: Progress | None = None,
    chunker: Callable[[Document], list[Chunk]] | None = None,
    index_settings: IndexSettings | None = None,
    lexical_store: Bm25Store | None = None,
) -> Corpus:
    """Chunk, tokenize and embed `documents` (vectors come from the cache where known).

    With a `lexical_store`, tokens wait until a view's BM25 index is not found saved there.
    From `dense_search_min_chunks` chunks on, with a Chroma `cache`, the chunk vectors also go
    into a per-corpus Chroma collection and dense search runs there (`pipeline.index.dense`)."""
    check_unique_ids(documents)
    settings = index_settings or IndexSettings()
    tokenizer = tokenizer or Tokenizer(settings.cjk)
    chunker = chunker or Chunker(settings.chunk_window, settings.chunk_overlap)
    chunks = [chunk for document in documents for chunk in chunker(document)]
    chunk_tokens = None
    if lexical_store is None:
        if progress:
            progress(0, len(chunks), "tokenizing")
        chunk_tokens = [tokenizer.tokens(chunk.lexical_text) for chunk in chunks]
    vectors, embedded_now = embed_texts([c.search_text for c in chunks], embedder, cache, progress)
    digest = corpus_digest(documents)
    dense = None
    if chunks and len(chunks) >= settings.dense_search_min_chunks and cache is not None:
        from pipeline.index.dense import (
            chunk_collection_prefix,
            chunk_metadatas,
            open_chunk_search,
            prune_idle_collections,
        )

        dense = open_chunk_search(cache, embedder.name, digest)
        if dense is not None:
            unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            by_id = {d.source_id: d for d in documents}
            dense.fill(unit, chunk_metadatas(by_id, [c.source_id for c in chunks]), progress)
            prune_idle_collections(dense.client, chunk_collection_prefix(embedder.name), dense.name,
                                   settings.dense_idle_days * 86_400)
    source_order = [d.source_id for d in documents]
    position = {sid: i for i, sid in enumerate(source_order)}
    return Corpus(
        documents={d.source_id: d for d in documents},
        chunks=chunks,
        chunk_tokens=chunk_tokens,
        vectors=vectors,
        tokenizer=tokenizer,
        embedder=embedder,
        digest=digest,
        source_order=source_order,
        chunk_source=np.array([position[c.source_id] for c in chunks], dtype=np.int64),
        sources=SourceTable.build(documents),
        index_settings=settings,
        embedded_now=embedded_now,
        lexical_store=lexical_store,
        dense_search=dense,
    )
