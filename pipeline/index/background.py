"""Ask as soon as a document is parsed: BM25 at once, dense vectors computed in the background.

`searchable_corpus` builds a corpus whose lexical index is complete and whose dense vectors are
those already stored; the missing ones go to an `EmbeddingJob` that the process's one embedding
worker runs, batch by batch, into the same vector store. Until the job is done the corpus says
why dense ranking is unavailable (`Corpus.dense_pending`), and `engine.ask` ranks by BM25 only and
notes it in the trace. When the job is done, `completed` gives the same corpus with every vector.

One worker per process (a single thread) bounds the CPU that embedding takes from questions; a job
checks its cancel flag between batches, so a session that ends stops its work within one batch.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache

import numpy as np

from pipeline.core.contracts import Document, IndexSettings
from pipeline.core.interfaces import Embedder, VectorStore
from pipeline.index.chunk import Chunker
from pipeline.index.corpus import Corpus, build_corpus
from pipeline.index.embed import embed_texts, vector_key
from pipeline.lang.tokenize import Tokenizer

# Small batches: progress ("embedding 8 of 40") moves often and a cancel waits for one batch at most.
JOB_BATCH_SIZE = 8


class EmbeddingJob:
    """The missing passage vectors of one collection, with per-document progress (thread-safe)."""

    def __init__(self, missing: dict[str, str], chunk_keys: dict[str, list[str]], embedder: Embedder,
                 store: VectorStore, batch_size: int = JOB_BATCH_SIZE):
        self._missing = missing  # key → text, in document order
        self._chunk_keys = chunk_keys  # source id → its chunks' keys (all of them, known or not)
        self._embedder, self._store, self._batch_size = embedder, store, batch_size
        self._done: set[str] = set()
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._finished = threading.Event()
        self.state = "embedding"  # → "ready", "failed" or "cancelled"
        self.started = False  # False while it waits behind another collection's job
        self.reason = ""

    @property
    def total(self) -> int:
        return len(self._missing)

    def progress(self) -> tuple[int, int]:
        with self._lock:
            return len(self._done), len(self._missing)

    def status(self) -> str:
        """The collection's status: "embedding 8 of 40", "ready", "failed (reason)" or "cancelled"."""
        if self.state == "failed":
            return f"failed ({self.reason})"
        if self.state != "embedding":
            return self.state
        done, total = self.progress()
        if not self.started:
            return f"parsed, waiting to embed {total} chunks"
        return f"embedding {done} of {total}"

    def document_status(self, source_id: str) -> str:
        """One document's status: its chunks with a vector out of all its chunks."""
        keys = self._chunk_keys.get(source_id, [])
        if self.state == "failed" and any(k in self._missing and k not in self._done for k in keys):
            return f"failed ({self.reason})"
        with self._lock:
            have = sum(1 for k in keys if k not in self._missing or k in self._done)
        if have == len(keys) or self.state == "ready":
            return "ready"
        if self.state == "cancelled":
            return "cancelled"
        return f"embedding {have} of {len(keys)}" if self.started else "parsed"

    def pending(self, source_id: str) -> bool:
        return self.document_status(source_id) != "ready"

    def cancel(self) -> None:
        self._cancelled.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._finished.wait(timeout)

    def run(self) -> None:
        """Embed the missing texts batch by batch into the store (the worker calls this)."""
        self.started = True
        try:
            keys = list(self._missing)
            for offset in range(0, len(keys), self._batch_size):
                if self._cancelled.is_set():
                    self.state = "cancelled"
                    return
                batch = keys[offset: offset + self._batch_size]
                vectors = np.asarray(self._embedder.embed_passages([self._missing[k] for k in batch]), dtype=np.float32)
                self._store.store(batch, vectors)
                with self._lock:
                    self._done.update(batch)
            self.state = "ready"
        except Exception as error:  # noqa: BLE001 - the status names it; the lexical index keeps working
            self.reason = (f"{type(error).__name__}: " + (str(error).splitlines() or [""])[0])[:200]
            self.state = "failed"
        finally:
            self._finished.set()


class EmbeddingWorker:
    """One thread that runs embedding jobs in the order they come (per process: `embedding_worker`)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedding")

    def submit(self, job: EmbeddingJob) -> Future:
        return self._pool.submit(job.run)


@lru_cache(maxsize=1)
def embedding_worker() -> EmbeddingWorker:
    return EmbeddingWorker()


def _missing_vectors(documents: Sequence[Document], embedder: Embedder, store: VectorStore,
                     index: IndexSettings) -> tuple[dict[str, str], dict[str, list[str]], dict[str, np.ndarray]]:
    """(missing key → text, source id → chunk keys, known key → vector) for `documents`' chunks."""
    chunker = Chunker(index.chunk_window, index.chunk_overlap)
    chunk_keys: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for document in documents:
        keys = []
        for chunk in chunker(document):
            key = vector_key(embedder.name, chunk.search_text)
            texts.setdefault(key, chunk.search_text)
            keys.append(key)
        chunk_keys[document.source_id] = keys
    known = store.fetch(sorted(texts))
    return {k: t for k, t in texts.items() if k not in known}, chunk_keys, known


def searchable_corpus(documents: Sequence[Document], embedder: Embedder, store: VectorStore,
                      tokenizer: Tokenizer, index: IndexSettings,
                      worker: EmbeddingWorker | None = None) -> tuple[Corpus, EmbeddingJob | None]:
    """A corpus to ask now, and the job embedding what it lacks (None when every vector is stored).

    While the job runs, the corpus's rows without a vector are zero and `dense_pending` says why;
    nothing dense is computed from them (engine.ask ranks by BM25 only).
    """
    missing, chunk_keys, _ = _missing_vectors(documents, embedder, store, index)
    if not missing:
        return build_corpus(documents, embedder, store, tokenizer=tokenizer, index_settings=index), None
    job = EmbeddingJob(missing, chunk_keys, embedder, store)
    corpus = build_corpus(documents, embedder, _KnownOnly(store, embedder.dim), tokenizer=tokenizer,
                          index_settings=index)
    corpus = corpus.pending_dense(job.status)
    (worker or embedding_worker()).submit(job)
    return corpus, job


def completed(corpus: Corpus, store: VectorStore) -> Corpus:
    """`corpus` with every vector from `store` (after its job is ready); dense ranking is available again."""
    vectors, _ = embed_texts([c.search_text for c in corpus.chunks], corpus.embedder, store)
    return corpus.with_vectors(vectors)


class _KnownOnly:
    """A vector store view that answers every key: the stored vector, or a zero row (never stored)."""

    location = "known vectors only"

    def __init__(self, store: VectorStore, dim: int):
        self._store, self._dim = store, dim

    def fetch(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found = self._store.fetch(keys)
        zero = np.zeros(self._dim, dtype=np.float32)
        return {key: found.get(key, zero) for key in keys}

    def store(self, keys: Sequence[str], vectors: np.ndarray) -> None:  # never called: every key is "known"
        raise RuntimeError("the lexical-first corpus stores no vectors")
