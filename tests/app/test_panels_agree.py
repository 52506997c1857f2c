"""The Answer panel never contradicts itself or the trace (issue 51, point 1): every demo, every abstention reason code
(and each stage that gives insufficient_evidence), a partial answer, a pasted answer and a language model's answers are
rendered, and what the panel shows — the badge, the two marks, each citation marker's ✓/✗, the Why line, the listed
citations and the conversation's row — is compared with the trace's own fields.

Real parsing, index, retrieval, composer, reader and checks; the language model is the suite's one stand-in for a
remote service (tests/llm_standin.py)."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections import Counter

import pytest

from pipeline import REASON_CODES, MARKER, Proposal, ProposedCitation, Request, Trace, marker_key
from tests.conftest import REQUEST_DATE

MARKS = re.compile(r"<div class='rag-markrow' data-mark='(\w+)' data-result='(\w+)'>(.*?)</div>", re.S)
SHOWN_MARKER = re.compile(r'<span class="rag-mark (\w+)" title="([^"]+)">(?:[✓✗] )?(\[[^\]]+\])</span>')
BADGE = re.compile(r'<span class="rag-badge (\w+)">([^<]+)</span>')
NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def _scores(trace: Trace) -> list[tuple[float, float]]:
    p = trace.proposal
    if p is None:
        return []
    pairs = [(p.reader_score, p.reader_threshold), (p.score, p.threshold)]
    # where the reader ranks, its probability is the proposal's score: one statement, not two
    return list(dict.fromkeys((s, t) for s, t in pairs if s is not None and t is not None))


def assert_agrees(trace: Trace) -> dict[str, tuple[str, str]]:
    """Every check of the panel against the trace; returns {mark name: (result, words)}."""
    from ui.history import Conversation, history_html
    from ui.panels import answer_html
    from ui.source import citation_choices

    shown = answer_html(trace)
    answer, checks = trace.answer, trace.checks
    marks = {name: (result, _text(words)) for name, result, words in MARKS.findall(shown)}
    assert set(marks) == {"quote", "answers"}, shown

    # The badge: what the answer object says.
    badge_kind, badge_text = BADGE.search(shown).groups()
    expected_badge = "no" if answer.status != "answered" else "partial" if answer.partial else "ok"
    assert badge_kind == expected_badge
    assert (answer.status != "answered") == (str(answer.reason_code) in badge_text)

    # Quote is in the source: the citation checks that ran, whichever stage ended the request.
    quote, quote_words = marks["quote"]
    assert quote == ("muted" if not checks else "ok" if all(c.verified for c in checks) else "no"), quote_words
    failed = sum(not c.verified for c in checks)
    if failed:
        assert ("the citation was dropped" if len(checks) == 1 else f"{failed} of {len(checks)}") in quote_words

    # Each marker the panel shows is marked as its checks left it; one never checked is plain, and then the quote mark
    # does not claim "no passage was cited".
    states = {}
    for check in checks:
        key = (check.citation.source_id, check.citation.start_line, check.citation.end_line)
        states[key] = "ok" if check.verified or states.get(key) == "ok" else "no"
    # (the list of dropped claims marks each claim's own citations, all ✗: a claim stands when one of them passed)
    dropped_list = re.search(r"<div class='rag-dropped'>.*?</ul></div>", shown, re.S)
    in_list = SHOWN_MARKER.findall(dropped_list.group(0)) if dropped_list else []
    assert all(kind == "no" for kind, _, _ in in_list)
    assert len(in_list) == sum(len(c.citations) for c in answer.claims if c.status == "dropped")
    markers = SHOWN_MARKER.findall(shown.replace(dropped_list.group(0), "") if dropped_list else shown)
    for kind, title, text in markers:
        sid, _, start, end = marker_key(MARKER.fullmatch(text))
        if kind == "unchecked":
            assert (sid, start, end) not in states and title == "not checked"
        elif (sid, start, end) in states:
            assert kind == states[(sid, start, end)], (text, kind, states)
    if markers:
        assert "no passage was cited" not in quote_words
    if any(kind == "unchecked" for kind, _, _ in markers):
        assert quote == "muted" and "not checked" in quote_words

    # Answers your question: a ✓ only for an answer shown; a ✗ only when the answerer itself refused.
    result, words = marks["answers"]
    proposal = trace.proposal
    refused = proposal is not None and (proposal.abstain_reason is not None or not (proposal.answer or "").strip())
    if result == "ok":
        assert answer.status == "answered"
    if result == "no":
        assert refused and trace.abstention.stage == "generate"
    if refused and proposal.generation is None:
        assert result == "no"
    # The numbers it states are the proposal's, each once, and a score is never called short of a threshold it passes.
    said = Counter(NUMBER.findall(words))
    assert all(count == 1 for count in said.values()), words
    from pipeline import score_and_threshold

    stated = [(s, t) for s, t in _scores(trace) if score_and_threshold(s, t)[0] in said]
    assert len(said) == 2 * len(stated), (words, _scores(trace))  # no number the proposal does not hold
    if "unlikely" in words or "scores only" in words:
        assert stated and all(s < t for s, t in stated), words
    if re.search(r"(?<!un)likely", words):
        assert stated and all(s >= t for s, t in stated), words

    # Why: the engine's explanation, in plain words.
    from ui.panels import plain_words

    why = re.search(r"<p class='rag-why'[^>]*><b>Why:</b> (.*?)</p>", shown, re.S).group(1)
    assert html.unescape(why) == plain_words(trace.explanation)

    # Every checked citation is listed with its checks; the Source tab offers the answer's citations.
    listed = re.findall(r'<div class="rag-cit (ok|no)">', shown)
    assert len(listed) == len(checks) or (not checks and len(listed) == len(answer.citations + answer.dropped_citations))
    assert len(citation_choices(trace)) == len(answer.citations) + len(answer.dropped_citations)

    # The conversation's row says what the badge says.
    conversation = Conversation()
    conversation.add("ask", trace.request.question, trace, {}, None)
    assert badge_text in _text(history_html(conversation))
    return marks


# --------------------------------------------------------------------------- the cases


@pytest.fixture(scope="module")
def shared(engine):
    from ui.state import load_shared

    return load_shared(engine, sandbox=False)


@pytest.fixture(scope="module")
def demo_traces(shared):
    from ui.demos import DEMOS, run_demo

    return {name: run_demo(shared, name, declared=("executives",))[1] for _, name in DEMOS}


def test_every_demo_shows_marks_that_agree_with_its_trace(demo_traces):
    results = {name: assert_agrees(trace) for name, trace in demo_traces.items()}
    # the contradictions issue 51 found, by name
    conflict = results["conflict-750-800"]
    assert conflict["quote"][0] == "ok" and "withheld" in conflict["quote"][1]
    assert conflict["answers"][0] == "muted" and "two sources that both hold disagree" in conflict["answers"][1]
    assert results["supported-en"]["answers"][0] == "ok"


def _sample_ask(engine, sample_corpus, question: str, **settings) -> Trace:
    from pipeline import Settings

    return engine.ask(sample_corpus, Request(question=question, date=REQUEST_DATE), Settings(**settings))


def _checked(engine, sample_corpus, answer: str, question: str = "Beijing lodging", **fields) -> Trace:
    proposal = Proposal(answer=answer, **fields)
    return engine.ask(sample_corpus, Request(question=question, date=REQUEST_DATE, topic="travel"), proposal=proposal)


def _model_traces(sample_corpus) -> list[Trace]:
    """A language model's (stand-in server's) answer, its refusal and a reply cut short."""
    from pipeline.core.contracts import Settings
    from pipeline.engine.journey import ask
    from pipeline.generate.llm.generator import ChatCompletionsGenerator, LlmConfig
    from tests.llm_standin import StandInChatServer, json_reply

    request = Request(question="What is the daily meal allowance in Beijing?", date=REQUEST_DATE, topic="travel")
    settings = Settings(top_k=3, min_lexical=0.6, min_dense=0.9, window=4000, reserve=400)
    supported = "The allowance is 180 yuan per day in Beijing. [meals-allowance:5]"
    cite = [{"source_id": "meals-allowance", "start_line": 5, "end_line": 5}]
    traces = []
    for reply in (json_reply(supported, cite), json_reply("NOT_IN_SOURCES"),
                  json_reply(supported, cite, finish_reason="length")):
        with StandInChatServer([reply]) as server:
            generator = ChatCompletionsGenerator(LlmConfig(base_url=server.base_url, model="standin-model",
                                                           api_key="sk-standin", timeout_s=5.0, backoff_s=0.01))
            traces.append(ask(sample_corpus, request, settings, generator=generator))
    return traces


def test_every_abstention_reason_code_and_answer_kind_shows_marks_that_agree(engine, sample_corpus, demo_traces):
    traces = [
        *demo_traces.values(),
        _sample_ask(engine, sample_corpus, "Who wrote the baggage rules?"),  # the answer scorer below its threshold
        _sample_ask(engine, sample_corpus, "Is remote work allowed on Fridays?"),  # a rule of the composer
        _sample_ask(engine, sample_corpus, "What is the lodging limit in Shanghai?"),
        # a partial answer: one claim stands, one is dropped
        _checked(engine, sample_corpus, "The lodging limit is 750 yuan. [travel-v2:1-3] Breakfast is free. [travel-v2:1-3]"),
        _checked(engine, sample_corpus, "The lodging limit is 750 yuan."),  # pasted without a citation
        # the answerer refused, yet its text cites lines: never checked, and never "no passage was cited"
        _checked(engine, sample_corpus, "The lodging limit is 750 yuan. [travel-v2:1-3]", producer="extractive",
                 abstain_reason="insufficient_evidence", score=0.4, threshold=0.1, reader="reader-v2",
                 reader_score=0.12, reader_threshold=0.3, note="the reader finds the passage does not answer"),
        # scores that pass, refused by a rule
        _checked(engine, sample_corpus, "", producer="extractive", abstain_reason="insufficient_evidence", score=0.64,
                 threshold=0.1, note="best span scores 0.64 ≥ threshold 0.10"),
        *_model_traces(sample_corpus),
    ]
    for trace in traces:
        assert_agrees(trace)
    seen = {(t.answer.reason_code, t.abstention.stage) for t in traces if t.abstention is not None}
    assert {code for code, _ in seen} == set(REASON_CODES), seen
    assert {stage for code, stage in seen if code == "insufficient_evidence"} == {"retrieve", "generate"}
    assert any(t.answer.partial for t in traces)


def test_a_score_that_passes_but_is_refused_by_a_rule_is_not_restated_as_the_reason(engine, sample_corpus):
    """Issue 51: "no: … scores 0.64, enough (it needs 0.10), but it was refused: best span scores 0.64, at least the
    0.10 needed" — the note restated the score as if it were the reason."""
    from ui.verdict import answers_mark

    trace = _checked(engine, sample_corpus, "", producer="extractive", abstain_reason="insufficient_evidence",
                     score=0.64, threshold=0.1, note="best span scores 0.64 ≥ threshold 0.10")
    words = _text(answers_mark(trace).text)
    assert words.count("0.64") == 1 and "refused it by one of its rules (see Why)" in words


def test_a_reader_refusal_names_the_readers_score_and_a_withheld_answer_names_why(logic_engine, make_corpus):
    from ui.verdict import answers_mark

    policy = "---\nid: harbour\n---\nHarbour rules.\nThe harbour pass costs 42 euros per month.\n"
    corpus = make_corpus(("harbour.md", policy))
    request = Request(question="How much is the harbour pass?", date=dt.date(2026, 9, 14))
    proposal = Proposal(producer="extractive", abstain_reason="insufficient_evidence", score=0.7, threshold=0.1,
                        reader="reader-v2", reader_score=0.21, reader_threshold=0.3,
                        citations=[ProposedCitation(source_id="harbour", start_line=2, end_line=2)])
    trace = logic_engine.ask(corpus, request, proposal=proposal)
    mark = answers_mark(trace)
    assert mark.kind == "no" and "0.21 sure" in _text(mark.text) and "0.70" not in _text(mark.text)
    assert_agrees(trace)
