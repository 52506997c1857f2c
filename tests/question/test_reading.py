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
