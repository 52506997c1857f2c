"""A question that names a page ("the proposal on the last page", "page 2", "第2页") ranks that page's chunks of
each PDF as first in a ranking of their own, and its page words are not query terms."""

from __future__ import annotations

import pymupdf
import pytest

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.lang.page_refs import page_reference, without_page_reference
from pipeline.retrieve.selection import retrieve


@pytest.mark.parametrize("question, number", [
    ("What problem is the proposal on the last page meant to fix?", -1), ("What does page 3 say about costs?", 3),
    ("What is on the 2nd page?", 2), ("What does the first page say?", 1), ("第2页讲了什么？", 2), ("最后一页说了什么？", -1),
    ("How many pages are there?", None), ("What is the page limit?", None),
])
def test_page_references_are_read(question, number):
    found = page_reference(question)
    assert (found.number if found else None) == number


def test_page_words_leave_the_query():
    assert "page" not in without_page_reference("What is the proposal on the last page about?").lower()


def _report() -> bytes:
    document = pymupdf.open()
    for text in ("The proposal on this page concerns ferry timetables and harbour fees.",
                 "An interim note on harbour fees and other matters.",
                 "The proposal on this page concerns seized landing gear on small aircraft."):
        document.new_page().insert_text((72, 90), text, fontsize=11)
    return document.tobytes()


def test_the_named_page_leads_retrieval(logic_engine):
    corpus = logic_engine.corpus([logic_engine.parse(_report(), "report.pdf")])
    for question, page in [("What is the proposal on the last page about?", 3), ("What is the proposal on page 1 about?", 1)]:
        retrieval = retrieve(corpus, Request(question=question, date=REQUEST_DATE), Settings())
        assert retrieval.selected[0].parent.page == page, [c.parent.page for c in retrieval.selected]
        assert "page" not in retrieval.term_weights and "last" not in retrieval.term_weights
    # A text document has no pages: the reference ranks nothing of it.
    text = logic_engine.corpus([logic_engine.parse(b"The last page of the proposal lists the ferry fees.\n", "note.txt")])
    found = retrieve(text, Request(question="What is the proposal on the last page about?", date=REQUEST_DATE), Settings())
    assert [c.source_id for c in found.selected] == ["note"]
    assert "page" in found.term_weights  # no PDF in the collection: the words stay content words
