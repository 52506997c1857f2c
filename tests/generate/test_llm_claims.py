"""Every claim a model's reply makes is in the answer's `claims`, verified or dropped with its failed checks.

Through the whole engine with the stand-in Chat Completions server (tests/llm_standin.py; a hosted model cannot be
reached from CI). A model's JSON often lists a span once and cites it after two sentences, or cites a span the list
omits: the sentence before such a marker used to vanish from `claims` while the page showed a clean ✓ answered.
"""

from __future__ import annotations

import pytest

from pipeline.core.citations import marker, strip_markers
from pipeline.core.contracts import Request, Settings
from pipeline.engine.journey import ask
from pipeline.generate.llm.generator import ChatCompletionsGenerator, LlmConfig
from tests.conftest import REQUEST_DATE
from tests.llm_standin import ScriptedReply, StandInChatServer, json_reply

LODGING = Request(question="Beijing lodging", date=REQUEST_DATE, topic="travel")
ROOMY = Settings(top_k=3, min_lexical=0.6, min_dense=0.9, window=4000, reserve=400)  # a prompt holds a system message
TRUE = "The lodging limit is 750 yuan. [travel-v2:1-3]"
WRONG = "Executives may spend 2000 yuan."
LISTED_ONCE = [{"source_id": "travel-v2", "start_line": 1, "end_line": 3}]


def _ask(reply: ScriptedReply, corpus, settings: Settings = ROOMY, judge=None):
    with StandInChatServer([reply]) as server:
        generator = ChatCompletionsGenerator(LlmConfig(base_url=server.base_url, model="standin-model", timeout_s=5.0))
        return ask(corpus, LODGING, settings, generator=generator, judge=judge)


def _claims(trace) -> dict[str, tuple[str, list[str]]]:
    return {claim.text: (claim.status, claim.failed_checks) for claim in trace.answer.claims}


@pytest.mark.parametrize("reply, wrong_marker, failed, strict_reason", [
    # the reply: the span is listed once and cited after both sentences
    (json_reply(f"{TRUE} {WRONG} [travel-v2:1-3]", LISTED_ONCE), "[travel-v2:1-3]", {"numbers_match"},
     "unsupported_claim"),
    # a server without JSON mode: plain text whose two markers are one span
    (ScriptedReply(content=f"{TRUE} {WRONG} [travel-v2:1-3]", refuse_json_mode=True), "[travel-v2:1-3]",
     {"numbers_match"}, "unsupported_claim"),
    # a line range the list omits (and that cuts the annotated support span)
    (json_reply(f"{TRUE} {WRONG} [travel-v2:3]", LISTED_ONCE), "[travel-v2:3]",
     {"numbers_match", "support_span_covered"}, "incomplete_source"),
    # an expired version, a source that does not exist, lines that do not exist, none of them listed
    (json_reply(f"{TRUE} {WRONG} [travel-v1:1-3]", LISTED_ONCE), "[travel-v1:1-3]", {"source_eligible"},
     "ineligible_citation"),
    (json_reply(f"{TRUE} {WRONG} [travel-v9:1-3]", LISTED_ONCE), "[travel-v9:1-3]", {"source_exists"},
     "ineligible_citation"),
    (json_reply(f"{TRUE} {WRONG} [travel-v2:7-9]", LISTED_ONCE), "[travel-v2:7-9]", {"lines_exist"},
     "unsupported_claim"),
    # no marker at all after the wrong sentence
    (json_reply(f"{TRUE} {WRONG}", LISTED_ONCE), None, {"cited"}, "unsupported_claim"),
])
def test_a_wrong_claim_is_listed_dropped_with_its_failed_checks_and_the_answer_is_partial(
        sample_corpus, reply, wrong_marker, failed, strict_reason):
    trace = _ask(reply, sample_corpus)
    answer = trace.answer
    assert _claims(trace)["The lodging limit is 750 yuan."] == ("verified", [])
    status, checks = _claims(trace)[WRONG]
    assert status == "dropped" and failed <= set(checks), checks
    # never a clean answer: it stands, marked partial, showing only the verified claim
    assert answer.status == "answered" and answer.partial and answer.answer == TRUE
    assert WRONG in trace.explanation
    dropped = next(claim for claim in answer.claims if claim.text == WRONG)
    assert [marker(c.source_id, c.page, c.start_line, c.end_line) for c in dropped.citations] == (
        [wrong_marker] if wrong_marker else [])
    if wrong_marker:
        assert dropped.citations[0] in answer.dropped_citations and not dropped.citations[0].verified
        assert set(dropped.citations[0].failed_checks) == set(checks)
    # a strict reader abstains instead, with the reason the failed checks justify, the claims still listed
    strict = _ask(reply, sample_corpus, ROOMY.model_copy(update={"on_unsupported": "abstain"}))
    assert strict.answer.status == "abstained" and not strict.answer.partial
    assert strict.answer.reason_code == strict_reason
    assert _claims(strict)[WRONG][0] == "dropped"


def test_the_wrong_claim_alone_abstains_and_is_listed(sample_corpus):
    trace = _ask(json_reply(f"{WRONG} [travel-v2:1-3]", LISTED_ONCE), sample_corpus)
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "unsupported_claim"
    assert _claims(trace) == {WRONG: ("dropped", ["claim_supported", "numbers_match"])}


def test_every_sentence_of_a_reply_is_in_some_claim(sample_corpus):
    """No text is lost: with repeated, unlisted and missing markers, the claims hold every word of the answer."""
    answer = (f"{TRUE} {WRONG} [travel-v2:1-3] Breakfast is included. [travel-v2:2] It costs nothing. "
              "[travel-v2:1-3] [travel-v1:1-3] Pets stay free")
    trace = _ask(json_reply(answer, LISTED_ONCE), sample_corpus)
    said = " ".join(claim.text for claim in trace.answer.claims)
    assert said.split() == strip_markers(answer).replace("  ", " ").split()
    assert [claim.status for claim in trace.answer.claims] == ["verified", "dropped", "dropped", "dropped", "dropped"]
    assert trace.answer.partial and trace.answer.claims[-1].failed_checks == ["cited"]
    assert [c.source_id for c in trace.answer.claims[3].citations] == ["travel-v2", "travel-v1"]


@pytest.mark.parametrize("judge_name", ["containment", "learned"])
def test_a_wrong_sentence_without_its_own_marker_does_not_ride_on_the_next_ones(engine, sample_corpus, judge_name):
    """Both judges verified "Breakfast is free. <the policy's three lines> [travel-v2:1-3]" as one claim: the
    policy's words carried the wrong sentence. Each sentence of a claim is judged, unless the claim is a verbatim
    quote (the extractive composer's several sentences)."""
    policy = ("Fictional Beijing lodging policy; amounts are per room per night. Effective from 2026-01-01; replaces "
              "travel-v1. The lodging limit is 750 yuan.")
    judge = engine.judge_named(judge_name)
    trace = _ask(json_reply(f"Breakfast is free. {policy} [travel-v2:1-3]", LISTED_ONCE), sample_corpus, judge=judge)
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "unsupported_claim"
    detail = next(r.detail for r in trace.checks[0].checks if r.name == "claim_supported")
    assert detail.startswith("sentence 1 of 4, 'Breakfast is free.', is not supported")
    quoted = _ask(json_reply(f"{policy} [travel-v2:1-3]", LISTED_ONCE), sample_corpus, judge=judge)
    assert quoted.answer.status == "answered" and not quoted.answer.partial, quoted.explanation
