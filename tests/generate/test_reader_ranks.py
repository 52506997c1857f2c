"""The reader ranks: it reads every candidate unit with the question and the unit it reads highest answers, when that
probability reaches the threshold (issue 49). The wrong answers the feature scorer's choice gave, as tests."""

from __future__ import annotations

import pytest

from pipeline import Request, Settings
from tests.conftest import REQUEST_DATE, ask_with, corpus_of
from tests.decisions import decision, reasons

pytestmark = pytest.mark.slow

QUESTION = "What is the lodging limit for executives in Beijing?"


def test_the_executives_rule_answers_an_executive_not_the_staff_rule(engine, sample_corpus):
    """Signed in with the executives group, executive-travel (1200) ranked first and was selected, yet the scorer
    answered travel-v2's 750."""
    trace = engine.ask(sample_corpus, Request(question=QUESTION, date=REQUEST_DATE, groups=("executives",)), Settings())
    assert trace.answer.status == "answered" and "1200 yuan" in trace.answer.answer
    assert trace.answer.citations[0].source_id == "executive-travel" and trace.answer.citations[0].verified
    proposal = trace.proposal
    assert proposal.reader == "reader-v2" and proposal.score >= proposal.reader_threshold == Settings().min_reader
    assert proposal.runner_up and proposal.runner_up_score < proposal.score  # the runner-up is shown with its score
    chosen = decision(proposal, "reader_answers")
    assert chosen.score == proposal.score and int(chosen.facts["read"]) > 1
    assert decision(proposal, "runner_up").score == proposal.runner_up_score


def test_without_the_group_the_staff_rule_does_not_answer_for_executives(engine, sample_corpus):
    """Without the group the staff rule (750) says nothing about executives: refused, and the restricted rule is
    nowhere in the trace."""
    trace = engine.ask(sample_corpus, Request(question=QUESTION, date=REQUEST_DATE), Settings())
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "insufficient_evidence"
    assert "executive-travel" not in trace.model_dump_json()


MARS = ("# Mars\n\nMars is the fourth planet from the Sun and the second smallest in the Solar System. "
        "Mars is about 6,779 kilometres wide, roughly half the width of Earth. "
        "A day on Mars lasts 24 hours and 37 minutes.\n\n"
        "## Orbit\n\nMars orbits the Sun at an average distance of about 228 million kilometres.\n")


def test_a_distance_question_is_answered_by_the_distance_not_the_width(engine):
    """"How far is Mars from the Sun?" was answered with the sentence giving Mars's width."""
    corpus = corpus_of(engine, ("mars.md", MARS))
    trace = ask_with(engine, corpus, "How far is Mars from the Sun?")
    assert trace.answer.status == "answered" and "228 million kilometres" in trace.answer.answer
    assert "wide" not in trace.answer.answer
    width = ask_with(engine, corpus, "How wide is Mars?")
    assert width.answer.status == "answered" and "6,779 kilometres wide" in width.answer.answer


ALICE = ("# Chapter XII\n\n"
         "\"Wake up, Alice dear!\" said her sister; \"Why, what a long sleep you've had!\"\n\n"
         "\"Oh, I've had such a curious dream!\" said Alice, and she told her sister, as well as she could remember "
         "them, all these strange Adventures of hers that you have just been reading about; and when she had finished, "
         "her sister kissed her, and said, \"It was a curious dream, dear, certainly: but now run in to your tea; it's "
         "getting late.\" So Alice got up and ran off, thinking while she ran, as well she might, what a wonderful dream "
         "it had been.\n")


def test_a_name_the_text_never_gives_is_refused(engine):
    """"What is Alice's sister's name?" was answered with '"Wake up, Alice dear!" said her sister.'"""
    corpus = corpus_of(engine, ("alice.md", ALICE))
    trace = ask_with(engine, corpus, "What is Alice's sister's name?")
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "insufficient_evidence"
    assert trace.proposal.score < trace.proposal.reader_threshold


PEOPLE = ("name,occupation,born,died\nCarrie Fisher,actor,1956-10-21,2016-12-27\n"
          "David Bowie,musician,1947-01-08,2016-01-10\nPrince,musician,1958-06-07,2016-04-21\n"
          "Alan Rickman,actor,1946-02-21,2016-01-14\n")


def test_a_table_row_is_read_cell_by_cell_and_answers_with_its_row_and_column(engine):
    """"When did David Bowie die?" was refused (0.097 < 0.10) with the row found: the reader now reads each row as
    "name: David Bowie; …; died: 2016-01-10"."""
    corpus = corpus_of(engine, ("people.csv", PEOPLE))
    trace = ask_with(engine, corpus, "When did David Bowie die?")
    assert trace.answer.status == "answered" and "2016-01-10" in trace.answer.answer
    assert "Prince" not in trace.answer.answer and trace.answer.citations[0].verified
    assert trace.proposal.score >= trace.proposal.reader_threshold
    assert decision(trace.proposal, "row_named").facts["key"] == "David Bowie" and trace.proposal.asked_columns == ["died"]
    assert ("died", "2016-01-10") in trace.proposal.row_cells


def test_a_keyword_query_is_decided_by_the_scorer_not_the_reader(engine, sample_corpus):
    """The reader learnt from questions: "Beijing lodging" reads 0.09 against the policy that answers it."""
    trace = engine.ask(sample_corpus, Request(question="Beijing lodging", date=REQUEST_DATE), Settings())
    assert trace.answer.status == "answered" and "750 yuan" in trace.answer.answer
    assert reasons(trace.proposal)[:2] == ["scorer_answers", "keywords"]


def test_keyword_queries_and_questions_are_told_apart():
    from pipeline.lang.questions import is_keyword_query

    for query in ("Beijing lodging", "北京住宿", "passport renewal", "executive lodging in Beijing", "lodging Shanghai?"):
        assert is_keyword_query(query), query
    for question in ("What is the lodging limit?", "北京住宿限额是多少", "Explain the lodging rule",
                     "qual è l'utile", "the limit for hotels in Beijing when travelling with a manager for work"):
        assert not is_keyword_query(question), question
