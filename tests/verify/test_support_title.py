"""The containment judge reads a cited span under its document's names: a word the span leaves to its title is
neither found nor missing, so it excuses nothing else (the verifier passes the title; tests/app checks the pasted
answer end to end)."""

from __future__ import annotations

import pytest

from pipeline.core.contracts import ProposedCitation, Request
from pipeline.verify.judges.containment import ContainmentJudge
from pipeline.verify.verifier import Verifier
from tests.conftest import REQUEST_DATE

TITLE = "Meal allowance on business trips"
LINE = "The allowance is 180 yuan per day in Beijing and Shanghai and 150 yuan per day elsewhere."


@pytest.fixture(scope="module")
def judge() -> ContainmentJudge:
    return ContainmentJudge()


def test_a_word_only_the_title_says_is_not_counted_missing(judge):
    claim = "The meal allowance in Shanghai is 180 yuan per day."
    assert not judge(claim, LINE).supported  # without the title: "meal" is missing, 5 of 6 words
    verdict = judge.under_title(claim, LINE, TITLE)
    assert verdict.supported, verdict.detail
    assert "the document's title says them: meal" in verdict.detail and verdict.sentences == ((0, len(LINE)),)


@pytest.mark.parametrize("claim", [
    "Business trips get a lodging allowance of 180 yuan per day.",  # "lodging": the title covers the rest, not it
    "The meal allowance is not 180 yuan per day in Shanghai.",  # a negation flip stays a flip
    "Meal allowance on business trips.",  # nothing beyond the title
])
def test_the_title_excuses_nothing_else(judge, claim):
    verdict = judge.under_title(claim, LINE, TITLE)
    assert not verdict.supported, verdict.detail


def test_the_verifier_reads_the_span_under_the_documents_names(make_corpus):
    corpus = make_corpus(("meals.md", f"---\nid: meals\ntitle: {TITLE}\n---\n{LINE}\n"),
                         ("untitled.md", f"---\nid: untitled-policy\n---\nAnother paragraph first.\n{LINE}\n"))
    request = Request(question="meal allowance", date=REQUEST_DATE)
    claim = "The meal allowance in Shanghai is 180 yuan per day."
    titled = Verifier(ContainmentJudge()).check(ProposedCitation(source_id="meals", start_line=1, end_line=1), claim,
                                                corpus.documents, request)
    assert titled.verified, titled.checks
    untitled = Verifier(ContainmentJudge()).check(ProposedCitation(source_id="untitled-policy", start_line=2, end_line=2),
                                                  claim, corpus.documents, request)
    assert untitled.failed_checks == ["claim_supported"]
