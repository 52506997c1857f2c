"""Background embedding (pipeline.background): BM25 answers at once, dense ranking once the vectors are in.

The embedder is the deterministic test embedder slowed on demand (tests/fakes.py): while paused, the
background worker's batches wait for a permit, so a question can be asked mid-embedding.
"""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline import EngineConfig, Request, build_engine, completed
from pipeline.index.stores.memory import MemoryVectorStore
from tests.fakes import FailingTestEmbedder, GatedTestEmbedder

DAY = dt.date(2026, 9, 14)
# 12 paragraphs far apart: one chunk each with the default 800-code-point window.
LINES = [f"Rule {n}: the ferry to island {n} leaves from pier {n + 3}. " + "Timetables are posted daily. " * 25
         for n in range(12)]
TEXT = "---\nid: ferries\ntopic: harbour\n---\n" + "\n".join(LINES) + "\nThe harbour pass costs 42 euros per month.\n"


@pytest.fixture
def gated():
    embedder = GatedTestEmbedder()
    engine = build_engine(EngineConfig(vector_store="memory"), embedder=embedder)
    yield engine, embedder
    embedder.resume()


def _ask(engine, corpus, question="How much does the harbour pass cost per month?"):
    return engine.ask(corpus, Request(question=question, date=DAY))


def test_a_question_mid_embedding_answers_from_bm25_and_says_dense_was_unavailable(gated):
    engine, embedder = gated
    document = engine.parse(TEXT.encode(), "ferries.md")
    store = MemoryVectorStore()
    embedder.pause()
    corpus, job = engine.searchable_corpus([document], vector_store=store)
    assert job is not None and corpus.dense_pending is not None
    chunks = len(corpus.chunks_of("ferries"))
    assert chunks > 8  # more than one background batch
    embedder.allow(1)  # one batch of 8
    for _ in range(200):
        if job.progress()[0] == 8:
            break
        job.wait(0.02)
    assert job.document_status("ferries") == f"embedding 8 of {chunks}"

    trace = _ask(engine, corpus)
    assert "42 euros" in trace.retrieval.selected[0].text  # BM25 found it
    assert trace.retrieval.rankings == ("bm25",) and trace.settings.retrieval == "bm25"
    assert trace.retrieval.notes[0].startswith(f"dense ranking unavailable: embedding 8 of {chunks}")
    assert all(c.dense is None for c in trace.retrieval.candidates)

    embedder.resume()
    assert job.wait(10) and job.status() == "ready" and job.document_status("ferries") == "ready"
    ready = completed(corpus, store)
    trace = _ask(engine, ready)
    assert trace.retrieval.rankings == ("bm25", "dense") and trace.settings.retrieval == "hybrid"
    assert not any("dense ranking unavailable" in n for n in trace.retrieval.notes)
    assert all(c.dense is not None for c in trace.retrieval.candidates)
    assert "42 euros" in trace.retrieval.selected[0].text


def test_cancelling_a_job_stops_it_within_one_batch(gated):
    engine, embedder = gated
    document = engine.parse(TEXT.encode(), "ferries.md")
    embedder.pause()
    corpus, job = engine.searchable_corpus([document], vector_store=MemoryVectorStore())
    job.cancel()
    embedder.resume()
    assert job.wait(10)
    assert job.state == "cancelled" and embedder.background_batches <= 1
    assert corpus.dense_pending is not None  # a cancelled corpus never claims dense vectors


def test_a_failed_embedding_is_reported_and_bm25_keeps_answering():
    embedder = FailingTestEmbedder()
    engine = build_engine(EngineConfig(vector_store="memory"), embedder=embedder)
    document = engine.parse(TEXT.encode(), "ferries.md")
    embedder.failing = True
    corpus, job = engine.searchable_corpus([document], vector_store=MemoryVectorStore())
    assert job.wait(10)
    assert job.status() == "failed (RuntimeError: the embedding model stopped)"
    assert job.document_status("ferries").startswith("failed (RuntimeError")
    embedder.failing = False  # the model is back for the question (the composer embeds units), the job stays failed
    trace = _ask(engine, corpus)
    assert "42 euros" in trace.retrieval.selected[0].text
    assert "dense ranking unavailable: failed (RuntimeError" in trace.retrieval.notes[0]


def test_stored_vectors_need_no_job(logic_engine):
    document = logic_engine.parse(TEXT.encode(), "ferries.md")
    store = MemoryVectorStore()
    logic_engine.corpus([document], vector_store=store)
    corpus, job = logic_engine.searchable_corpus([document], vector_store=store)
    assert job is None and corpus.dense_pending is None
    assert _ask(logic_engine, corpus).retrieval.rankings == ("bm25", "dense")
