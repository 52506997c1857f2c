"""One reading of the question per request (pipeline/question/reading.py), recorded in the trace and given to the
answerer with the packed context."""

from __future__ import annotations

import datetime as dt

from pipeline import Request, read_question


def test_a_search_and_a_question_read_apart():
    assert read_question("Beijing lodging").keywords and read_question("北京住宿").chinese
    assert not read_question("What is the lodging limit in Beijing?").keywords


def test_each_form_found_names_its_evidence():
    forms = {f.form: f.evidence for f in read_question("What does BM25 mean?").forms}
    assert forms["definition"] == "BM25"
    forms = {f.form: f.evidence for f in read_question("Which hotel is the most expensive?").forms}
    assert forms["superlative"] == "the most expensive"
    forms = {f.form: f.evidence for f in read_question("How do I install the package?").forms}
    assert "procedure" in forms
    assert read_question("Beijing lodging").forms == ()


def test_the_journey_reads_once_and_hands_the_reading_to_the_answerer(engine, sample_corpus):
    trace = engine.ask(sample_corpus, Request(question="Beijing lodging", date=dt.date(2026, 9, 14)))
    assert trace.reading == read_question("Beijing lodging")
    assert trace.context is not None and trace.context.reading == trace.reading


def test_a_question_typed_in_capitals_is_read_in_sentence_case():
    reading = read_question("HOW MUCH IS THE MEAL ALLOWANCE?")
    assert reading.as_read == "How much is the meal allowance?" and not reading.keywords
    assert read_question("How much is the meal allowance?").as_read is None  # as typed
    assert read_question("BM25?").as_read is None and read_question("WHAT IS BM25?").as_read == "What is bm25?"
    assert read_question("Is the NASA budget in USD?").as_read is None  # capitals inside a sentence stay


def test_the_stages_read_a_question_typed_in_capitals_as_written_and_the_trace_keeps_it_as_typed(engine, sample_corpus):
    """The reader read the sample policy's answer to "HOW MUCH IS THE MEAL ALLOWANCE?" at 0.30 and refused it; read in
    sentence case the question is answered as the same question in lower case is."""
    asked = Request(question="HOW MUCH IS THE MEAL ALLOWANCE?", date=dt.date(2026, 9, 14))
    trace = engine.ask(sample_corpus, asked)
    assert trace.request.question == "HOW MUCH IS THE MEAL ALLOWANCE?"
    assert trace.context.question == "How much is the meal allowance?"
    assert trace.answer.status == "answered" and "180 yuan" in trace.answer.answer
    assert trace.answer.citations[0].verified
    from ui.panels import answer_html

    assert "read as “How much is the meal allowance?”" in answer_html(trace)
