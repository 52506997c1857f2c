"""The Answer panel shows how the answer was chosen from the answerer's typed decisions (`Proposal.decisions`): one line
per step with what decided, in plain words, the reason code in the line's `data-reason`; a refusal's Why says the
answerer's decision in the same words. Nothing is read back out of the engine's note."""

from __future__ import annotations

import datetime as dt
import re

from pipeline import Request
from ui.panels import answer_html

DAY = dt.date(2026, 9, 14)


def _steps(html: str) -> list[tuple[str, str, str]]:
    """(by, reason code, text) of each step the panel lists."""
    found = re.findall(r"<li data-by='([^']*)' data-reason='([^']*)'[^>]*><b>[^<]*</b>: ([^<]*)</li>", html)
    return [(by, reason, text) for by, reason, text in found]


def test_each_step_of_an_answers_choice_is_a_line_with_its_code(engine, sample_corpus):
    trace = engine.ask(sample_corpus, Request(question="What is the lodging limit in Beijing?", date=DAY))
    assert trace.answer.status == "answered"
    shown = answer_html(trace)
    steps = _steps(shown)
    # the score the reader's ranking decided by is labelled as the reader's, not as the answer scorer's own
    assert "Reader&#x27;s ranking</span>: best" in shown and "Answer scorer" not in shown
    assert [(by, reason) for by, reason, _ in steps] == [(d.by, d.reason) for d in trace.proposal.decisions]
    by, reason, text = steps[0]
    assert trace.proposal.reader_score == trace.proposal.score
    assert (by, reason) == ("reader", "reader_answers")
    assert "candidate passages" in text and "at least the 0.55 needed" in text and " unit" not in text


def test_a_refusal_says_the_answerers_decision_in_plain_words(engine, sample_corpus):
    trace = engine.ask(sample_corpus, Request(question="What is the parking fee at the Shanghai office?", date=DAY))
    assert trace.answer.status == "abstained" and trace.abstention.stage == "generate"
    refused = trace.proposal.decisions[0]
    assert refused.outcome == "abstained"
    why = answer_html(trace).split("<b>Why:</b>", 1)[1].split("</p>", 1)[0]
    assert "passage" in why and " unit" not in why and "below the" in why
