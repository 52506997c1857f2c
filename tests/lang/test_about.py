"""A question about a document as a whole ("What is this document about?", "Summarize this report", 这篇文档讲什么？)
is answered with the passage that says so — its summary or abstract, else its opening sentences — cited and
verified; retrieval ranks those chunks first whatever their words."""

from __future__ import annotations

import pytest

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.lang.forms import asks_about_document, opens_summary
from tests.decisions import decision

FILLER = "".join(f"Section {i} describes procedure number {i} for the harbour crane in great detail.\n" for i in range(40))
REPORT = ("---\nid: crane-report\n---\n# Harbour crane inspection\n\nSUMMARY: The port authority found corrosion on "
          "the north crane. It proposes to replace the crane's cables before winter.\n\n" + FILLER)
NO_SUMMARY = ("---\nid: ferry-guide\n---\n# Island ferry guide\n\nThis guide explains how to travel to the island by "
              "ferry. It lists the piers and the fares.\n\n" + FILLER)


@pytest.mark.parametrize("question", ["What is this document about?", "What's this about?", "Summarize this report",
                                      "What is the purpose of this document?", "这篇文档讲什么？", "Give me a summary of this paper."])
def test_questions_about_the_whole_document_are_recognised(question):
    assert asks_about_document(question)


@pytest.mark.parametrize("question", ["What is the lodging limit about?", "What does the summary say about fees?",
                                      "How do I summarize a table?"])
def test_other_questions_are_not(question):
    assert not asks_about_document(question)


def test_summary_labels_open_a_summary():
    assert opens_summary("SUMMARY: The FAA proposes …") and opens_summary("## Abstract") and opens_summary("摘要：本文…")
    assert opens_summary("Abstract¶")  # a Sphinx page saved as text marks its headings
    assert not opens_summary("In summary, the fees rise.")


def test_the_summary_answers_and_the_opening_when_there_is_none(make_corpus, logic_engine):
    corpus = make_corpus(("report.md", REPORT), ("guide.md", NO_SUMMARY))
    ask = lambda q: logic_engine.ask(corpus, Request(question=q, date=REQUEST_DATE), Settings())  # noqa: E731
    trace = ask("What is this report about?")
    assert trace.answer.status == "answered", trace.explanation
    assert trace.answer.answer.startswith("SUMMARY: The port authority found corrosion on the north crane. It proposes")
    assert all(c.verified for c in trace.answer.citations) and decision(trace.proposal, "summary").facts["label"].startswith("SUMMARY:")
    alone = make_corpus(("guide.md", NO_SUMMARY))
    opening = logic_engine.ask(alone, Request(question="What is this about?", date=REQUEST_DATE), Settings())
    assert opening.answer.answer.startswith("This guide explains how to travel to the island by ferry. It lists")
    assert decision(opening.proposal, "summary_opening").facts["source"] == "ferry-guide"


def test_over_several_documents_each_one_s_summary_or_opening_answers_unless_a_word_names_one(make_corpus, logic_engine):
    corpus = make_corpus(("report.md", REPORT), ("guide.md", NO_SUMMARY))
    ask = lambda q: logic_engine.ask(corpus, Request(question=q, date=REQUEST_DATE), Settings())  # noqa: E731
    trace = ask("What are these documents about?")
    assert trace.answer.status == "answered", trace.explanation
    answer = trace.answer.answer
    assert len(trace.answer.citations) == 2 and {c.source_id for c in trace.answer.citations} == {"crane-report", "ferry-guide"}
    assert "SUMMARY: The port authority found corrosion" in answer and "This guide explains how to travel" in answer
    assert all(c.verified for c in trace.answer.citations) and decision(trace.proposal, "summaries").facts == {"documents": "2"}
    # A word that names one document ("report" in crane-report) picks it.
    one = ask("What is this report about?")
    assert {c.source_id for c in one.answer.citations} == {"crane-report"}
    # "This document" is one document: the one retrieval ranks first; "What is this about?" leaves it open.
    assert len(ask("What is this document about?").answer.citations) == 1
    assert len(ask("What is this about?").answer.citations) == 2
