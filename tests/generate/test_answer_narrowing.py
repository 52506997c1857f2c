"""An answer quotes the sentence that answers, not the sentences around it: when the scorer's best unit is several
sentences (a sentence with the one before it, a long list item), the reader says which one answers and only that is
quoted. A sentence that opens with a pronoun keeps the sentence that says what the pronoun is about."""

from __future__ import annotations

import pytest

from pipeline.core.contracts import Request, Settings
from tests.conftest import REQUEST_DATE

pytestmark = pytest.mark.slow

TOOLS = ("# Account tools\n\n"
         "The syncusers tool copies the account entries from the central register to every workstation each night. "
         "They include only the shared service accounts, which packages need in order to own their files.\n")
SUBMISSIONS = ("# Call for essays\n\n"
               "Essays for the spring issue are sent to the editor by email. "
               "They should not exceed 4,000 words, including notes.\n")
FERRY = ("# Ferry rules\n\n"
         "- Bicycles: Bicycles are carried on the car deck for a fee of 5 euros. Folding bicycles travel free as hand "
         "luggage if they are folded.\n"
         "- Luggage: Each passenger may bring two bags.\n")


@pytest.fixture(scope="module")
def corpus(engine):
    return engine.corpus([engine.parse(text.encode("utf-8"), name)
                          for name, text in (("tools.md", TOOLS), ("essays.md", SUBMISSIONS), ("ferry.md", FERRY))])


def _ask(engine, corpus, question, **settings):
    return engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings(**settings) if settings else None)


def test_the_answering_sentence_is_quoted_without_the_pronoun_sentence_after_it(engine, corpus):
    trace = _ask(engine, corpus, "What does the syncusers tool do?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "copies the account entries" in answer.answer
    assert "They include" not in answer.answer
    assert answer.citations[0].verified
    assert "only that is quoted" in trace.proposal.note and "reader-v1" in trace.proposal.note


def test_a_pronoun_sentence_that_answers_keeps_the_sentence_before_it(engine, corpus):
    trace = _ask(engine, corpus, "How many words may an essay have?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "4,000 words" in answer.answer
    assert "Essays for the spring issue" in answer.answer  # what "They" are
    assert "only that is quoted" not in trace.proposal.note


def test_one_sentence_of_a_long_list_item_is_quoted(engine, corpus):
    trace = _ask(engine, corpus, "How much does it cost to take a bicycle on the car deck?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "5 euros" in answer.answer
    assert "Folding bicycles" not in answer.answer
    assert answer.citations[0].verified


def test_without_the_reader_the_unit_stays_whole(engine, corpus):
    trace = _ask(engine, corpus, "What does the syncusers tool do?", min_reader=0)
    assert trace.answer.status == "answered"
    assert "copies the account entries" in trace.answer.answer
    assert "They include" in trace.answer.answer
    assert "only that is quoted" not in (trace.proposal.note or "")
