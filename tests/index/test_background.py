"""Background embedding per document (pipeline.index.background): BM25 answers at once; every document is ranked by
BM25 while any readable one is still embedding, and by both once all are in; each document has its own status and job,
and a cancelled job stops within one batch.

The embedder is the deterministic test embedder slowed on demand (tests/fakes.py): while paused, the
background worker's batches wait for a permit, so a question can be asked mid-embedding.
"""

from __future__ import annotations

import datetime as dt
import threading

import numpy as np
import pytest

from pipeline import EngineConfig, Request, asking, build_engine, completed, refreshed
from pipeline.index.background import JOB_BATCH_SIZE, EmbeddingWorker
from pipeline.index.stores.memory import MemoryVectorStore
from tests.fakes import FailingTestEmbedder, GatedTestEmbedder

DAY = dt.date(2026, 9, 14)
# 12 paragraphs far apart: one chunk each with the default 800-code-point window.
LINES = [f"Rule {n}: the ferry to island {n} leaves from pier {n + 3}. " + "Timetables are posted daily. " * 25
         for n in range(12)]
TEXT = "---\nid: ferries\ntopic: harbour\n---\n" + "\n".join(LINES) + "\nThe harbour pass costs 42 euros per month.\n"
PETS = ("---\nid: pets\ntopic: harbour\n---\nDogs travel on the ferry in a crate or on a short lead.\n"
        "Cats travel in a closed basket on the passenger deck.\n")
TOLLS = "---\nid: tolls\n---\nThe bridge toll is 7 euros for a car and 2 euros for a bicycle.\n"


@pytest.fixture
def gated():
    embedder = GatedTestEmbedder()
    engine = build_engine(EngineConfig(vector_store="memory"), embedder=embedder)
    yield engine, embedder
    embedder.resume()


def _ask(engine, corpus, question="How much does the harbour pass cost per month?"):
    return engine.ask(corpus, Request(question=question, date=DAY))


def _until(test, seconds: float = 10.0) -> bool:
    event = threading.Event()
    for _ in range(int(seconds / 0.02)):
        if test():
            return True
        event.wait(0.02)
    return test()


def test_a_question_while_the_only_document_embeds_answers_from_bm25_and_says_dense_was_unavailable(gated):
    engine, embedder = gated
    document = engine.parse(TEXT.encode(), "ferries.md")
    store = MemoryVectorStore()
    embedder.pause()
    corpus, jobs = engine.searchable_corpus([document], vector_store=store)
    assert jobs is not None and corpus.dense_missing == {"ferries"}
    chunks = len(corpus.chunks_of("ferries"))
    assert chunks > JOB_BATCH_SIZE  # more than one background batch
    embedder.allow(1)
    assert _until(lambda: jobs.progress()[0] == JOB_BATCH_SIZE)
    assert jobs.document_status("ferries") == f"embedding {JOB_BATCH_SIZE} of {chunks}"
    assert jobs.status() == f"ferries.md: embedding {JOB_BATCH_SIZE} of {chunks}"

    trace = _ask(engine, corpus)
    assert "42 euros" in trace.retrieval.selected[0].text  # BM25 found it
    assert trace.retrieval.rankings == ("bm25",) and trace.settings.retrieval == "bm25"
    assert trace.retrieval.dense_pending == (("ferries", f"embedding {JOB_BATCH_SIZE} of {chunks}"),)
    assert all(c.dense is None for c in trace.retrieval.candidates)

    embedder.resume()
    assert jobs.wait(10) and jobs.status() == "ready" and jobs.document_status("ferries") == "ready"
    ready = completed(corpus, store)
    assert not ready.dense_missing
    trace = _ask(engine, ready)
    assert trace.retrieval.rankings == ("bm25", "dense") and trace.settings.retrieval == "hybrid"
    assert trace.retrieval.dense_pending == ()
    assert all(c.dense is not None for c in trace.retrieval.candidates)
    assert "42 euros" in trace.retrieval.selected[0].text


def test_every_document_is_ranked_by_bm25_while_another_embeds(gated):
    # Fusing a meaning rank for some documents only lets their nearest chunks in ahead of the pending document's
    # (measured on 646 product questions: a sample in 234 packed contexts instead of 24, the same answers).
    engine, embedder = gated
    pets, ferries = engine.parse(PETS.encode(), "pets.md"), engine.parse(TEXT.encode(), "ferries.md")
    store = MemoryVectorStore()
    engine.corpus([pets], vector_store=store)  # pets' vectors are stored: only ferries lacks its own
    embedder.pause()
    corpus, jobs = engine.searchable_corpus([pets, ferries], vector_store=store)
    assert set(jobs.jobs) == {"ferries"} and corpus.dense_missing == {"ferries"}

    trace = _ask(engine, corpus, "How do dogs travel on the ferry?")
    assert trace.settings.retrieval == "bm25" and trace.retrieval.rankings == ("bm25",)
    assert all(c.dense is None and c.dense_rank is None for c in trace.retrieval.candidates)
    assert trace.retrieval.selected[0].source_id == "pets"  # the stored document still answers by its words
    assert [source for source, _ in trace.retrieval.dense_pending] == ["ferries"]  # pets' vectors are in
    trace = _ask(engine, corpus)
    assert "42 euros" in trace.retrieval.selected[0].text  # the pending document still answers by its words

    embedder.resume()
    assert jobs.wait(10)
    ready = refreshed(corpus, store, jobs.ready_sources())
    assert not ready.dense_missing and ready.dense_status is None
    before, after = corpus.view(()).lexical, ready.view(()).lexical
    assert after.bm25 is before.bm25  # the BM25 index is kept, the vectors are new
    rows = [row for row, chunk in enumerate(corpus.chunks) if chunk.source_id == "ferries"]
    assert not before.vectors[rows].any() and np.allclose(np.linalg.norm(after.vectors[rows], axis=1), 1.0)
    trace = _ask(engine, ready, "How do dogs travel on the ferry?")
    assert trace.retrieval.rankings == ("bm25", "dense")  # both again, for every document
    assert all(c.dense is not None for c in trace.retrieval.candidates)
    assert trace.retrieval.dense_pending == ()


def test_each_document_has_its_own_status_and_cancelling_one_leaves_the_other(gated):
    engine, embedder = gated
    ferries, tolls = engine.parse(TEXT.encode(), "ferries.md"), engine.parse(TOLLS.encode(), "tolls.md")
    embedder.pause()
    batches = embedder.background_batches
    worker = EmbeddingWorker()
    corpus, jobs = engine.searchable_corpus([ferries, tolls], vector_store=MemoryVectorStore(), worker=worker)
    chunks = len(corpus.chunks_of("ferries"))
    assert jobs.document_status("tolls") == "waiting to embed 1 chunks"  # behind ferries, counted alone
    embedder.allow(1)
    assert _until(lambda: jobs.document_status("ferries") == f"embedding {JOB_BATCH_SIZE} of {chunks}")
    assert jobs.status() == f"ferries.md: embedding {JOB_BATCH_SIZE} of {chunks}; tolls.md: waiting to embed 1 chunks"

    jobs.cancel("ferries")  # deleted mid-embedding: the rest of its batches never run
    embedder.resume()
    assert jobs.wait(10) and worker.idle()
    assert jobs.job("ferries").state == "cancelled" and jobs.document_status("tolls") == "ready"
    assert embedder.background_batches - batches <= 3  # ferries' first, at most one more, tolls' one
    assert jobs.ready_sources() == {"tolls"}


def test_a_queued_job_that_is_cancelled_never_runs(gated):
    engine, embedder = gated
    ferries, tolls = engine.parse(TEXT.encode(), "ferries.md"), engine.parse(TOLLS.encode(), "tolls.md")
    embedder.pause()
    worker = EmbeddingWorker()
    _, jobs = engine.searchable_corpus([ferries, tolls], vector_store=MemoryVectorStore(), worker=worker)
    assert [j.source_id for j in worker.active()] == ["ferries", "tolls"]
    jobs.cancel()
    assert worker.active() == []  # nothing left that the worker will spend time on
    batches = embedder.background_batches
    embedder.resume()
    assert jobs.wait(10) and worker.idle()
    assert {j.state for j in jobs.jobs.values()} == {"cancelled"}
    assert embedder.background_batches - batches <= 1  # at most the batch that was already waiting


def test_the_worker_lets_a_question_go_first_between_batches(gated):
    engine, embedder = gated
    document = engine.parse(TEXT.encode(), "ferries.md")
    worker = EmbeddingWorker()
    with asking():  # a question is being answered
        _, jobs = engine.searchable_corpus([document], vector_store=MemoryVectorStore(), worker=worker)
        assert _until(lambda: jobs.progress()[0] == JOB_BATCH_SIZE)
        threading.Event().wait(0.5)
        assert jobs.progress()[0] == JOB_BATCH_SIZE  # it waits after one batch
    assert jobs.wait(10) and jobs.state == "ready"  # and goes on once the question is answered


def test_a_failed_embedding_is_reported_and_bm25_keeps_answering():
    embedder = FailingTestEmbedder()
    engine = build_engine(EngineConfig(vector_store="memory"), embedder=embedder)
    document = engine.parse(TEXT.encode(), "ferries.md")
    embedder.failing = True
    corpus, jobs = engine.searchable_corpus([document], vector_store=MemoryVectorStore())
    assert jobs.wait(10)
    assert jobs.status() == "ferries.md: failed (RuntimeError: the embedding model stopped)"
    assert jobs.state == "failed" and jobs.document_status("ferries").startswith("failed (RuntimeError")
    embedder.failing = False  # the model is back for the question (the composer embeds units), the job stays failed
    trace = _ask(engine, corpus)
    assert "42 euros" in trace.retrieval.selected[0].text
    ((source, state),) = trace.retrieval.dense_pending
    assert source == "ferries" and state.startswith("failed (RuntimeError")


def test_stored_vectors_need_no_job(logic_engine):
    document = logic_engine.parse(TEXT.encode(), "ferries.md")
    store = MemoryVectorStore()
    logic_engine.corpus([document], vector_store=store)
    corpus, jobs = logic_engine.searchable_corpus([document], vector_store=store)
    assert jobs is None and not corpus.dense_missing
    assert _ask(logic_engine, corpus).retrieval.rankings == ("bm25", "dense")
