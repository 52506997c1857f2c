"""What the parts derive from a session's text (unit vectors, the learned judge's profiles and sentence vectors) is
kept with the corpus it was derived from: each session's own, gone when the session ends or an upload leaves."""

from __future__ import annotations

from pipeline import Library, Request
from tests.conftest import REQUEST_DATE
from ui.state import Session, load_shared

QUESTION = Request(question="What is the harbour fee for a small boat?", date=REQUEST_DATE)
NOTE = ("harbour.md", "Harbour fees are 12 euros per day for a small boat.\nFees are paid at the harbour office.\n")


def test_a_session_keeps_what_it_derives_and_shares_none_of_it(logic_engine, tmp_path):
    shared = load_shared(logic_engine, library=Library(tmp_path))
    one, two = Session(), Session()
    mine = one.corpus(shared)
    assert mine is not two.corpus(shared) and mine.documents is two.corpus(shared).documents  # views of one collection
    logic_engine.ask(mine, QUESTION, judge=logic_engine.judge_named("learned"))
    assert mine.cached() > 0
    assert two.corpus(shared).cached() == 0 and shared.corpus.cached() == 0  # nothing of it elsewhere
    one.clear()
    assert one.corpus(shared).cached() == 0  # the ended session's derived values went with it


def test_deleting_an_upload_drops_what_was_derived_from_it(logic_engine, tmp_path):
    shared = load_shared(logic_engine, library=Library(tmp_path))
    session = Session()
    name, text = NOTE
    document = logic_engine.parse(text.encode(), name)
    session.add(shared, [document], {document.digest: text.encode()})
    with_upload = session.corpus(shared)
    logic_engine.ask(with_upload, QUESTION)
    assert with_upload.cached() > 0
    session.remove(shared, document.source_id)
    assert session.corpus(shared) is not with_upload and session.corpus(shared).cached() == 0
