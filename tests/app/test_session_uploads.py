"""A session's uploads (ui.state.Session): replaced in place, deleted, and embedded in the background by a job
that the session's end cancels. The embedder is the deterministic test embedder, slowed on demand."""

from __future__ import annotations

import pytest

from pipeline import EngineConfig, Library, build_engine, vector_key
from pipeline.index.chunk import Chunker
from tests.conftest import CORPUS
from tests.fakes import GatedTestEmbedder
from ui.state import Session, delete_session, load_shared

V1 = b"---\nid: dues\nversion: v1\ntopic: port\n---\nHarbour dues are 12 euros per day.\n"
V2 = b"---\nid: dues\nversion: v2\ntopic: port\n---\nHarbour dues are 15 euros per day from March.\n"


@pytest.fixture(scope="module")
def gated_shared(tmp_path_factory):
    embedder = GatedTestEmbedder()
    engine = build_engine(EngineConfig(vector_store="memory"), embedder=embedder)
    shared = load_shared(engine=engine, samples_dir=CORPUS, library=Library(tmp_path_factory.mktemp("data")))
    yield shared, embedder
    embedder.resume()


def _keys(shared, document):
    index = shared.engine.config.index
    return [vector_key(shared.engine.embedder.name, c.text) for c in Chunker(index.chunk_window, index.chunk_overlap)(document)]


def test_replacing_an_upload_drops_the_old_chunks_and_vectors(gated_shared):
    shared, _ = gated_shared
    session = Session()
    old = shared.engine.parse(V1, "dues.md")
    session.add(shared, [old], {old.digest: V1})
    assert session.embedding_job.wait(10) and session.document_status("dues") == "ready"
    assert session._vectors.fetch(_keys(shared, old))
    new = shared.engine.parse(V2, "dues-2027.md")
    assert session.replace(shared, new, V2) is old
    corpus = session.corpus(shared)
    assert [c.text for c in corpus.chunks_of("dues")] == ["Harbour dues are 15 euros per day from March."]
    assert session._vectors.fetch(_keys(shared, old)) == {}  # the old version's vectors are gone
    assert session.embedding_job.wait(10)
    assert not session.corpus(shared).dense_missing  # the new version's vectors are in: dense again
    session.remove(shared, "dues")
    assert "dues" not in session.corpus(shared).documents and session._vectors.fetch(_keys(shared, new)) == {}


def test_the_session_ending_cancels_its_background_embedding(gated_shared):
    shared, embedder = gated_shared
    session = Session()
    text = ("---\nid: long\n---\n" + "\n".join(f"Clause {n}. " + "Words about harbour rules. " * 40
                                             for n in range(30))).encode()
    document = shared.engine.parse(text, "long.md")
    embedder.pause()
    try:
        batches = embedder.background_batches
        session.add(shared, [document], {document.digest: text})
        job = session.embedding_job
        chunks = len(_keys(shared, document))
        assert session.document_status("long") in {f"waiting to embed {chunks} chunks", f"embedding 0 of {chunks}"}
        delete_session(session)  # what Gradio calls when the session's state expires or its tab closes
    finally:
        embedder.resume()
    assert job.wait(10) and job.state == "cancelled"
    assert embedder.background_batches - batches <= 1  # stopped within one batch


def test_the_library_reaches_ready_even_when_the_vectors_finish_before_the_upload_step_ends(gated_shared):
    """The race CI hit: the list was refreshed while embedding, the vectors were done before the upload's last
    step, and the timer that refreshes the list was never started — the row said "embedding 0 of 1" for good."""
    from ui import views

    shared, _ = gated_shared
    session = Session()
    document = shared.engine.parse(V1, "dues.md")
    session.add(shared, [document], {document.digest: V1})
    assert session.embedding_job.wait(10) and not session.embedding()  # done before the last step ran
    *_, timer, files = views.upload_finished(shared, session)
    assert timer.active and files is None  # one tick is still due (it shows "ready"); the file box is emptied
    docs, _, timer, session = views.embedding_tick(shared, session, "")
    assert "ready" in docs and "dues" in docs and not timer.active  # refreshed, and the timer stops itself


def test_a_pdf_that_cannot_be_stored_refuses_the_upload_and_leaves_the_session_as_it_was(gated_shared, monkeypatch):
    """A full or missing disk while keeping the PDF: one clear error, and neither the document nor its chunks
    are half-added (before, the upload was listed without its PDF and the collection was not rebuilt)."""
    import pymupdf

    import ui.pdf_files
    from pipeline import InputError

    shared, _ = gated_shared
    session = Session()
    text = shared.engine.parse(V1, "dues.md")
    session.add(shared, [text], {text.digest: V1})
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "The harbour pass costs 42 euros per month.")
    data = pdf.tobytes()
    document = shared.engine.parse(data, "pass.pdf")
    monkeypatch.setattr(ui.pdf_files, "_folder", None)
    monkeypatch.setattr(ui.pdf_files.tempfile, "mkdtemp", lambda **_: "/dev/full")  # not a folder: writes fail
    with pytest.raises(InputError, match="could not be kept on the server"):
        session.add(shared, [document], {document.digest: data})
    assert set(session.uploads) == {"dues"} and not session.pdf_bytes
    assert "pass" not in session.corpus(shared).documents
