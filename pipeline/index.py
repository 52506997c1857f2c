"""Index: documents → retrieval chunks with BM25 statistics and dense vectors.

A `Corpus` is an immutable snapshot of one requester-visible collection. BM25 statistics
are computed over every chunk a requester may read (access is filtered before anything is
scored), and never over an eligibility-filtered remainder (seed 000, §45.3).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import bm25s
import numpy as np

from .bounded import LruDict
from .chunk import retrieval_chunks
from .contracts import Chunk, Document
from .embed import Embedder, Progress, VectorCache, embed_texts
from .metadata import check_unique_ids
from .tokenize import Tokenizer

BM25_K1 = 1.2
BM25_B = 0.75


def corpus_digest(documents: Iterable[Document]) -> str:
    """sha256 over the sorted (source id, document digest) pairs."""
    lines = sorted(f"{d.source_id}\t{d.digest}" for d in documents)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def can_read(document: Document, groups: Sequence[str]) -> bool:
    return document.meta.access is None or bool(set(document.meta.access) & set(groups))


@dataclass
class LexicalIndex:
    """BM25 (bm25s, Lucene variant) over one readable subset of the chunks."""

    rows: np.ndarray  # corpus chunk indices covered, in index order
    bm25: bm25s.BM25 | None  # None when nothing readable has a term
    vocabulary: dict[str, int]
    document_frequency: np.ndarray
    vectors: np.ndarray | None = None  # the rows' unit vectors, copied once per readable set

    @classmethod
    def build(cls, rows: np.ndarray, chunk_tokens: Sequence[list[str]]) -> LexicalIndex:
        vocabulary: dict[str, int] = {}
        ids = []
        for tokens in chunk_tokens:
            ids.append([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
        if not vocabulary:  # nothing readable (or no terms): bm25s cannot index that; every score is 0
            return cls(rows=rows, bm25=None, vocabulary={}, document_frequency=np.zeros(0, dtype=np.int64))
        bm25 = bm25s.BM25(k1=BM25_K1, b=BM25_B)
        # bm25s takes (token ids, vocabulary) so our tokenizer, not its own, defines terms.
        bm25.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocabulary), show_progress=False)
        frequency = np.zeros(len(vocabulary), dtype=np.int64)
        for token_ids in ids:
            frequency[list(set(token_ids))] += 1
        return cls(rows=rows, bm25=bm25, vocabulary=vocabulary, document_frequency=frequency)

    def idf(self, token: str) -> float:
        n = len(self.rows)
        df = self.document_frequency[self.vocabulary[token]] if token in self.vocabulary else 0
        return float(np.log(1 + (n - df + 0.5) / (df + 0.5)))

    def token_scores(self, token: str) -> np.ndarray:
        """BM25 contribution of one query token to every indexed chunk (zeros if unseen)."""
        if token not in self.vocabulary or len(self.rows) == 0 or self.bm25 is None:
            return np.zeros(len(self.rows), dtype=np.float32)
        return np.asarray(self.bm25.get_scores([self.vocabulary[token]]), dtype=np.float32)


def sibling_key(document: Document) -> tuple | None:
    """Parallel policies share topic, authority and valid_from (seed 000, §45.3).

    The language is part of the key: a translation is the same policy, not a parallel one.
    Without a topic or an authority a document has no siblings.
    """
    meta = document.meta
    if not (meta.topic or meta.authority):
        return None
    return ((meta.topic or "").casefold(), (meta.authority or "").casefold(), meta.valid_from, (meta.lang or "").casefold())


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


@dataclass
class Corpus:
    """Documents, their chunks, token lists and unit-length vectors, ready to query."""

    documents: dict[str, Document]
    chunks: list[Chunk]
    chunk_tokens: list[list[str]]
    vectors: np.ndarray
    tokenizer: Tokenizer
    embedder: Embedder
    digest: str
    embedded_now: int = 0
    source_order: list[str] = field(default_factory=list)
    chunk_source: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    sources: SourceTable | None = None
    # Bounded (LRU): callers choose the groups, so one entry per distinct value would grow without limit.
    _lexical: dict[frozenset[str], LexicalIndex] = field(default_factory=lambda: LruDict(4), repr=False)
    _readable: dict[frozenset[str], frozenset[str]] = field(default_factory=lambda: LruDict(64), repr=False)
    memo: dict = field(default_factory=lambda: LruDict(16), repr=False)  # values derived per readable set

    def readable_sources(self, groups: Sequence[str]) -> frozenset[str]:
        key = frozenset(groups)
        if key not in self._readable:
            self._readable[key] = frozenset(sid for sid, doc in self.documents.items() if can_read(doc, groups))
        return self._readable[key]

    def readable_digest(self, groups: Sequence[str]) -> str:
        """The corpus digest of what this requester may read: recomputable from the trace's
        document list, and silent about documents the requester may not see."""
        key = ("digest", self.readable_sources(groups))
        if key not in self.memo:
            self.memo[key] = corpus_digest(self.readable_documents(groups).values())
        return self.memo[key]

    def readable_documents(self, groups: Sequence[str]) -> dict[str, Document]:
        readable = self.readable_sources(groups)
        key = ("documents", readable)
        if key not in self.memo:
            self.memo[key] = {sid: doc for sid, doc in self.documents.items() if sid in readable}
        return self.memo[key]

    def lexical_index(self, readable: frozenset[str]) -> LexicalIndex:
        """BM25 over every chunk of the readable documents (cached per readable set)."""
        if readable not in self._lexical:
            rows = np.array([i for i, c in enumerate(self.chunks) if c.source_id in readable], dtype=np.int64)
            index = LexicalIndex.build(rows, [self.chunk_tokens[i] for i in rows])
            # Everything readable (the usual case): share the matrix instead of copying it.
            index.vectors = self.vectors if len(rows) == len(self.chunks) else self.vectors[rows]
            self._lexical[readable] = index
        return self._lexical[readable]


def build_corpus(
    documents: Sequence[Document],
    embedder: Embedder,
    cache: VectorCache | None = None,
    tokenizer: Tokenizer | None = None,
    progress: Progress | None = None,
    chunker: Callable[[Document], list[Chunk]] = retrieval_chunks,
) -> Corpus:
    """Chunk, tokenize and embed `documents` (vectors come from the cache where known)."""
    check_unique_ids(documents)
    tokenizer = tokenizer or Tokenizer()
    chunks = [chunk for document in documents for chunk in chunker(document)]
    if progress:
        progress(0, len(chunks), "tokenizing")
    chunk_tokens = [tokenizer.tokens(chunk.text) for chunk in chunks]
    vectors, embedded_now = embed_texts([c.text for c in chunks], embedder, cache, progress)
    corpus = Corpus(
        documents={d.source_id: d for d in documents},
        chunks=chunks,
        chunk_tokens=chunk_tokens,
        vectors=vectors,
        tokenizer=tokenizer,
        embedder=embedder,
        digest=corpus_digest(documents),
        embedded_now=embedded_now,
        source_order=[d.source_id for d in documents],
        sources=SourceTable.build(documents),
    )
    position = {sid: i for i, sid in enumerate(corpus.source_order)}
    corpus.chunk_source = np.array([position[c.source_id] for c in chunks], dtype=np.int64)
    return corpus
