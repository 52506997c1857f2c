"""The names_match check: a place or name a claim states must be in what it cites (the span, or the names of the
cited document). Real sample documents, the real verifier; the containment judge keeps these tests model-free."""

from __future__ import annotations

import pytest

from pipeline.core.contracts import ProposedCitation, Request
from pipeline.verify.judges.containment import ContainmentJudge
from pipeline.verify.verifier import Verifier
from tests.conftest import REQUEST_DATE

MEALS = ProposedCitation(source_id="meals-allowance", start_line=5, end_line=5)
LODGING_ZH = ProposedCitation(source_id="travel-v1-zh", start_line=1, end_line=3)


def _names(sample_documents, citation: ProposedCitation, claim: str):
    documents = {d.source_id: d for d in sample_documents}
    check = Verifier(ContainmentJudge()).check(citation, claim, documents, Request(question=claim, date=REQUEST_DATE))
    return next(c for c in check.checks if c.name == "names_match")


@pytest.mark.parametrize("citation, claim, passed", [
    (MEALS, "In Guangzhou the daily meal allowance is 180 yuan.", False),
    (MEALS, "Guangzhou's daily meal allowance is 180 yuan.", False),
    (MEALS, "In Shanghai the daily meal allowance is 180 yuan.", True),
    (MEALS, "Beijing's daily meal allowance is 180 yuan.", True),
    (MEALS, "The Meal allowance on business trips is 180 yuan in Beijing.", True),  # the document's title names it
    (LODGING_ZH, "广州的住宿限额为600元。", False),
    (LODGING_ZH, "北京的住宿限额为600元。", True),
    (LODGING_ZH, "The lodging limit in Beijing is 600 yuan.", True),  # an English claim on a Chinese span: 北京 ≠ Beijing
])
def test_a_name_the_cited_text_never_states_fails_names_match(sample_documents, citation, claim, passed):
    result = _names(sample_documents, citation, claim)
    assert result.passed is passed, result.detail
    if not passed:
        assert "not in the span" in result.detail and ("Guangzhou" in result.detail or "广州" in result.detail)


@pytest.mark.parametrize("claim, names", [
    ("In Guangzhou the daily meal allowance is 180 yuan.", ["Guangzhou"]),
    ("Guangzhou's allowance is 180 yuan.", ["Guangzhou"]),
    ("BCL-2 activation antagonizes the apoptotic effects of c-Myc.", []),  # codes and acronyms are not names here
    ("Anti-CTLA-4 treatment reinvigorates exhausted PD-1+Eomes+CD8 T cells.", []),
    ("The FAA requires inspections of Boeing planes.", ["Boeing"]),
])
def test_proper_names_of_a_claim(claim, names):
    from pipeline.lang.names import proper_names

    assert proper_names(claim) == names


def test_a_name_the_claim_abbreviates_is_cited_by_its_abbreviation():
    from pipeline.verify.verifier import _names_check

    claim = "Female carriers of the Apolipoprotein E4 (APOE4) allele have increased risk for Alzheimer's disease."
    assert _names_check(claim, "APOE genotype modifies the risk of Alzheimer's disease in women.").passed
    assert not _names_check(claim, "Estrogen exposure modifies the risk of Alzheimer's disease in women.").passed


def test_an_unversioned_source_is_not_said_to_be_version_none(sample_documents):
    documents = {d.source_id: d for d in sample_documents}
    citation = ProposedCitation(source_id="pets", start_line=1, end_line=1)
    claim = "Pets travel free on the upper deck."
    check = Verifier(ContainmentJudge()).check(citation, claim, documents, Request(question=claim, date=REQUEST_DATE))
    assert check.checks[0].detail == "pets (no version)"
