"""A sentence that runs from one PDF page onto the next: the next page's first window and first sentence carry
its start as context (never cited), so "How many people died in the Lion Air crash?" can find "…, resulting in
189 fatalities." at the top of page 2."""

from __future__ import annotations

import pymupdf

from pipeline.core.contracts import Request, Settings
from pipeline.index.chunk import continued_sentence, window_chunks
from pipeline.retrieve.selection import retrieve
from pipeline.text.units import units_of
from tests.conftest import REQUEST_DATE

FILLER = [f"Paragraph {i} of the notice describes an ordinary maintenance step." for i in range(12)]


def _two_pages(ending: str) -> bytes:
    doc = pymupdf.open()
    first = doc.new_page()
    for i, line in enumerate([*FILLER, "On October 29, 2018, an airplane operated by Lion Air", ending]):
        first.insert_text((72, 72 + 16 * i), line, fontsize=10)
    second = doc.new_page()
    for i, line in enumerate(["Jakarta, Indonesia, resulting in 189 fatalities.", "The investigation is complete.",
                              *FILLER[:3]]):
        second.insert_text((72, 72 + 16 * i), line, fontsize=10)
    return doc.tobytes()


def test_the_next_page_carries_the_start_of_an_unfinished_sentence(engine):
    document = engine.parse(_two_pages("was involved in an accident after takeoff from"), "notice.pdf")
    assert continued_sentence(document, document.pages[1]).endswith("operated by Lion Air was involved in an accident "
                                                                     "after takeoff from")
    assert continued_sentence(document, document.pages[0]) == ""
    first_window = next(c for c in window_chunks(document) if c.parent.page == 2)
    assert "Lion Air" in first_window.heading and "Lion Air" not in first_window.text  # context, not text
    finished = engine.parse(_two_pages("was involved in an accident."), "finished.pdf")
    assert continued_sentence(finished, finished.pages[1]) == ""  # the page ended its sentence


def test_the_continued_sentence_is_found_and_scored_with_its_start(engine):
    corpus = engine.corpus([engine.parse(_two_pages("was involved in an accident after takeoff from"), "notice.pdf")])
    request = Request(question="How many people died in the Lion Air crash?", date=REQUEST_DATE)
    retrieval = retrieve(corpus, request, Settings(retrieval="bm25", min_lexical=0.0))
    page_two = next(c for c in retrieval.candidates if c.parent.page == 2)
    assert page_two.lexical_coverage > 0 and page_two.bm25_rank is not None  # "Lion Air" is in its context
    trace = engine.ask(corpus, request, Settings())
    source = next(s for s in trace.context.sources if s.page == 2)
    assert "Lion Air" in source.continues
    unit = next(u for u in units_of(source) if "189 fatalities" in u.quote)
    assert unit.section == source.continues and "Lion Air" not in unit.quote  # scored with it, never quoted
