""""Who wrote this paper?", "What is its date?": answered from the title block of the document's first page (its
opening is selected though it shares no word with the question), each line cited and verified; a question naming
another thing, or a title block without the particular, is answered as any other question."""

from __future__ import annotations

from pipeline import REQUEST_DATE, Request, Settings
from tests.pdf_files import title_page
from tests.decisions import decision, reasons

PARTICULARS = {"title_block", "labelled", "affiliation"}


def _ask(engine, corpus, question):
    return engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings())


def test_the_title_block_answers_who_wrote_the_paper_its_title_and_its_date(logic_engine):
    corpus = logic_engine.corpus([logic_engine.parse(title_page(), "crane-survey.pdf")])
    authors = _ask(logic_engine, corpus, "Who wrote this paper?")
    assert authors.answer.status == "answered", authors.explanation
    assert [(c.page, c.start_line, c.end_line) for c in authors.answer.citations] == [(1, 3, 3), (1, 4, 4)]
    assert authors.answer.answer.split() == ("Maria Lindqvist1, Tomas Berg2 and Aino Virtanen1 [crane-survey:p1:3] "
                                             "Kenji Watanabe2 [crane-survey:p1:4]").split()
    assert all(c.verified for c in authors.answer.citations)
    found = decision(authors.proposal, "title_block")
    assert (found.by, found.facts["fields"], found.facts["block"]) == ("particulars", "author", "1-8")
    title = _ask(logic_engine, corpus, "What is the title of this paper?")
    assert title.answer.answer == "Salt, Paint and Steel: A Survey of Corrosion on Harbour Cranes [crane-survey:p1:1-2]"
    assert title.answer.citations[0].verified
    dated = _ask(logic_engine, corpus, "When was this paper published?")
    assert [c.quote for c in dated.answer.citations] == ["March 14, 2023"]
    named = _ask(logic_engine, corpus, "Who wrote the crane survey?")  # names the document: its id holds "crane survey"
    assert [c.start_line for c in named.answer.citations] == [3, 4]
    institution = _ask(logic_engine, corpus, "Which institution is Kenji Watanabe from?")
    assert [c.quote for c in institution.answer.citations] == ["2Port Authority of Tromsø, Norway"]


def test_a_question_about_something_else_or_a_missing_particular_is_answered_as_any_other(logic_engine):
    corpus = logic_engine.corpus([logic_engine.parse(title_page(), "crane-survey.pdf")])
    version = _ask(logic_engine, corpus, "Which version of the survey does this paper describe?")
    assert not PARTICULARS & set(reasons(version.proposal))  # the title block gives no version
    # a follow-up merged with the question before asks for both: the title alone does not answer it
    merged = _ask(logic_engine, corpus, "What is the title of this paper which version does this paper describe?")
    assert not PARTICULARS & set(reasons(merged.proposal))
    other = _ask(logic_engine, corpus, "Who wrote the paint standard?")
    assert not PARTICULARS & set(reasons(other.proposal))
    assert not any(c.quote.startswith("Maria Lindqvist") for c in other.answer.citations)


def test_the_opening_is_selected_though_other_chunks_match_the_question_s_words_better(logic_engine):
    data = title_page(pages_after=["Who wrote the paper on cranes? The paper was wrote up by the port office, and this "
                                   "paper cites every paper the office wrote." for _ in range(3)])
    corpus = logic_engine.corpus([logic_engine.parse(data, "crane-survey.pdf")])
    trace = logic_engine.ask(corpus, Request(question="Who wrote this paper?", date=REQUEST_DATE), Settings(top_k=2))
    assert "the question asks about the document itself: its opening is selected as well" in trace.retrieval.notes
    assert [c.parent.page for c in trace.retrieval.selected][0] == 1
    assert [c.start_line for c in trace.answer.citations] == [3, 4]


def test_the_opening_that_names_an_author_is_selected_for_their_institution(logic_engine):
    data = title_page(pages_after=[f"Kenji Watanabe measured the cranes of the institution's port in winter {year}; Kenji "
                                   "Watanabe wrote that Watanabe's institution keeps its cranes well."
                                   for year in (2019, 2020, 2021)])  # three pages, each its own text
    corpus = logic_engine.corpus([logic_engine.parse(data, "crane-survey.pdf")])
    trace = logic_engine.ask(corpus, Request(question="Which institution is Kenji Watanabe from?", date=REQUEST_DATE),
                             Settings(top_k=2))
    assert "the question asks about the document itself: its opening is selected as well" in trace.retrieval.notes
    assert [c.quote for c in trace.answer.citations] == ["2Port Authority of Tromsø, Norway"]


MANUAL = ("FROBNICATE(1)                 User Commands                FROBNICATE(1)\n\nNAME\n"
          "       frobnicate - turn widgets into gadgets\n\nDESCRIPTION\n"
          + "".join(f"       Option -{c} makes the gadget {c}-shaped and keeps the widget's colour and size.\n"
                    for c in "abcdefghijklmnopqrstuvw")
          + "\nAUTHOR\n       Written by Ann Example and Bob Sample.\n\nREPORTING BUGS\n       Mail the list.\n")


def test_a_document_without_a_title_block_answers_from_where_it_labels_its_authors(logic_engine):
    corpus = logic_engine.corpus([logic_engine.parse(MANUAL.encode(), "frobnicate-man.txt")])
    trace = logic_engine.ask(corpus, Request(question="Who wrote frobnicate?", date=REQUEST_DATE), Settings(top_k=1))
    assert "where it states its authors" in " ".join(trace.retrieval.notes)  # its words are not the question's
    assert trace.answer.status == "answered", trace.explanation
    assert [c.quote for c in trace.answer.citations] == ["       Written by Ann Example and Bob Sample."]
    assert trace.answer.citations[0].verified and decision(trace.proposal, "labelled").facts["fields"] == "author"


def test_a_label_is_a_line_of_its_own_or_ends_in_a_colon_and_its_value_has_the_field_s_form():
    from pipeline.core.contracts import PackedLine, PackedSource
    from pipeline.text.labelled_fields import labelled_units

    def source(text: str) -> PackedSource:
        lines = tuple(PackedLine(number=i + 1, text=line) for i, line in enumerate(text.split("\n")))
        return PackedSource(n=1, source_id="doc", version=None, page=None, start_line=1, end_line=len(lines),
                            support_span=False, dated="", sibling_group="", lines=lines)

    def quoted(text: str, question: str = "Who wrote it?", field: str = "author") -> list[str]:
        return [unit.quote for unit in labelled_units(source(text), field, question)]

    assert quoted("Copyright 2021\n\n  Authors:\n\n      * Ann Example\n      * Bob Sample\n\nThis manual is free.") == [
        "      * Ann Example\n      * Bob Sample"]
    assert quoted("## Authors\n\nAnn Example <ann@example.org>\n") == ["Ann Example <ann@example.org>"]
    assert quoted("Title\nAuthor: Ann Example\nDate: 2021") == ["Author: Ann Example"]
    assert quoted("The author of the package wrote it in C.") == []  # a sentence, not a label
    page = "AUTHOR\n       This manual page was written by Bob Sample for Debian.\n"
    assert quoted(page) == [] and quoted(page, "Who wrote this manual page?") != []
    sidebar = "Version:\n3.3\nDate:\nNovember 23, 2020\nContact:\nelsarticle@stmdocs.in"
    assert quoted(sidebar, field="version") == ["Version:\n3.3"]
    assert quoted(sidebar, field="date") == ["Date:\nNovember 23, 2020"]
    assert quoted("Date\n2020-11-23\n2021-01-05", field="date") == []  # a table's column, not a label
    assert quoted("Version: see below", field="version") == []  # a version's value holds a number
