"""A table of contents' entry ("1.1 Uninstall TeX Live on Windows . . . . 2") shares every word of its section's title
with a question about that section, and says only where the answer is: it is not an answer."""

from __future__ import annotations

import pytest

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.lang.questions import ASKS_WHERE_IN_DOCUMENT
from pipeline.text.units import is_contents_entry, units_of
from tests.conftest import corpus_of

GUIDE = ("# Installing TeX Live\n\nContents\n\n1 Installing TeX Live . . . . . . . . . . . . 1  \n"
         "1.1 Uninstall TeX Live on Windows . . . . . . . . . . . . 2  \n"
         "1.2 Upgrade packages on Windows . . . . . . . . . . . . 3\n\n"
         "## 1 Installing TeX Live\n\nRun install-tl and follow the prompts.\n\n## 1.1 Uninstall TeX Live on Windows\n\n"
         "When moving to a new release, the old one is usually removed first. Run the batch file uninst.bat in the "
         "installation folder, then delete the .texlive2022 folder in your home folder.\n")


def source(*texts: str) -> PackedSource:
    lines = tuple(PackedLine(number=i + 1, text=text) for i, text in enumerate(texts))
    return PackedSource(n=1, source_id="doc", version=None, page=3, start_line=1, end_line=len(texts),
                        support_span=False, dated="", sibling_group="", lines=lines)


@pytest.mark.parametrize(("line", "entry"), [
    ("1.2\t卸载TEX Live . . . . . . . . . . . . . . . . . .\t9", True),
    ("1.1.1\t下载镜像一直不成功的处理办法. . . . . . . . . . . . .\t8", True),
    ("Introduction ........................ iii", True),
    ("Preface . . . . . . . . . .", True),  # its page number on the next line
    ("Coffee ........ $3.50", False),  # a price list's leaders lead to a price
    ("AOA sensor system test ....................... 40 work-hours × $85 per hour", False),
    ("See section 2....", False),
    ("Run the batch file uninst.bat.", False),
])
def test_an_entry_is_told_by_its_leaders_and_page_number(line, entry):
    assert all(is_contents_entry(unit) is entry for unit in units_of(source(line)))


@pytest.mark.parametrize(("question", "where"), [
    ("On which page is uninstalling described?", True),
    ("Which section covers upgrades?", True),
    ("卸载 TeX Live 在第几页？", True),
    ("How do I uninstall TeX Live on Windows?", False),
])
def test_a_question_may_ask_where_in_the_document(question, where):
    assert bool(ASKS_WHERE_IN_DOCUMENT.search(question)) is where


def test_the_section_answers_not_its_entry_in_the_contents(engine):
    # The scorer alone (no reader) put the entry first: 0.83 against the section's sentence.
    trace = engine.ask(corpus_of(engine, ("guide.md", GUIDE)),
                       Request(question="How do I uninstall TeX Live on Windows?", date=REQUEST_DATE), Settings(min_reader=0))
    assert trace.answer.status == "answered", trace.explanation
    assert "uninst.bat" in trace.answer.answer and ". . ." not in trace.answer.answer



def test_the_reader_alone_would_pass_the_entry_so_the_check_stays(engine):
    """Measured when each composer check was taken away (docs/decisions.md): the reader reads the entry as an answer,
    so with the reader on the entry must still be kept out by the contents check."""
    corpus = corpus_of(engine, ("guide.md", GUIDE))
    for question in ("How do I uninstall TeX Live on Windows?", "How do I upgrade packages on Windows?"):
        trace = engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings())
        assert trace.answer.status == "abstained" or ". . ." not in (trace.answer.answer or ""), trace.answer.answer
        assert all(". . ." not in (c.quote or "") for c in trace.answer.citations)
