"""What the page says about a result, read once from its trace: the status badge, the two marks ("Quote is in the
source", "Answers your question"), the state of every citation marker shown, and why.

Every line that judges a result is a field of one `Reading`, derived here from the trace's typed fields: the answer,
the citation checks that ran (`trace.checks`, also when a later stage withheld the answer), the proposal's scores and
thresholds, and the abstention's stage. The Answer panel, the Check-an-answer tab and the conversation's rows only
format it, so no two of them can disagree (issue 51: a conflict said "nothing to check: no passage was cited" beside
a checked `[travel-v2:1-3]`, and "refused: best span scores 0.64, at least the 0.10 needed").
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pipeline import MARKER, CitationCheck, Trace, decision_words, explain, score_and_threshold

Kind = Literal["ok", "no", "muted", "partial"]
SIGNS: dict[str, str] = {"ok": "✓", "no": "✗", "muted": "–", "partial": "⚠"}


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value))


def term(plain: str, technical: str) -> str:
    """A plain label for a reader who is not an expert, with the technical name in its tooltip."""
    return f"<span class='rag-term' title='{_e(technical)}'>{_e(plain)}</span>"


@dataclass(frozen=True)
class Mark:
    kind: Kind
    text: str  # escaped HTML

    @property
    def sign(self) -> str:
        return SIGNS[self.kind]


@dataclass(frozen=True)
class Reading:
    badge: Mark
    quote: Mark
    answers: Mark
    why: str  # the explanation in plain words (plain text, not escaped)
    why_engine: str  # the engine's own words, for the tooltip
    # (source_id, start_line, end_line) → "ok" (a check of it passed) or "no" (every check of it failed); a marker
    # absent here was never checked
    markers: dict[tuple[str, int, int], str] = field(default_factory=dict)
    unshown_checks: tuple[CitationCheck, ...] = ()  # checks of citations the answer object does not list


# --------------------------------------------------------------------------- plain words

# Display-only rewording of the engine's explanation (the trace keeps its words, shown in the tooltip).
_PLAIN = ((re.compile(r"(\d+(?:\.\d+)?) < threshold (\d+(?:\.\d+)?)"), r"\1, below the \2 needed"),
          (re.compile(r"(\d+(?:\.\d+)?) ≥ threshold (\d+(?:\.\d+)?)"), r"\1, at least the \2 needed"),
          (re.compile(r"\bunits\b"), "passages"), (re.compile(r"\bunit\b"), "passage"),
          (re.compile(r"\bproducer\b"), "answerer"), (re.compile(r"\bRRF\b"), "combined ranking"))


def plain_words(text: str) -> str:
    """`text` with the trace's jargon ("unit", "0.10 < threshold 0.10", "producer", "RRF") in plain words."""
    for pattern, words in _PLAIN:
        text = pattern.sub(words, text)
    return text


# What each citation check makes sure of, in plain words (the check's name stays in the tooltip and the table).
CHECK_WORDS = {
    "source_exists": "the cited document exists",
    "source_eligible": "the cited document may be used for this request (current, readable, on topic)",
    "lines_exist": "the cited lines exist",
    "quote_exact": "the quote is word for word in those lines",
    "numbers_match": "the numbers in the sentence are in those lines",
    "names_match": "the names in the sentence are in those lines",
    "claim_supported": "those lines say what the sentence says",
    "support_span_covered": "the citation covers the passage marked as the answer",
}

# The step a request stopped at, as a person says it.
STAGE_WORDS = {"retrieve": "retrieval", "pack": "packing the context", "generate": "the answerer",
               "conflict": "the comparison of the cited sources with their siblings", "verify": "the citation checks"}

# Why an answer the answerer proposed was withheld afterwards, by reason code.
WITHHELD_WORDS = {"conflicting_evidence": "two sources that both hold disagree",
                  "unsupported_claim": "its citations failed their checks",
                  "incomplete_source": "its citation leaves out part of the passage that qualifies it",
                  "ineligible_citation": "it cites a source that may not be used for this request"}


def answer_mark(answer) -> str:
    """The answer's verdict in one line: a clean ✓ only when every claim of the proposal stands."""
    if answer.status != "answered":
        return f"✗ abstained — {answer.reason_code}"
    if answer.partial:
        dropped = sum(claim.status == "dropped" for claim in answer.claims)
        return f"⚠ partly answered — {dropped} claim{'s' if dropped != 1 else ''} dropped"
    return "✓ answered"


def badge_kind(answer) -> Kind:
    if answer.status != "answered":
        return "no"
    return "partial" if answer.partial else "ok"


# --------------------------------------------------------------------------- the reading


def read(trace: Trace) -> Reading:
    """Everything the page says to judge `trace`, derived once."""
    answer = trace.answer
    return Reading(
        badge=Mark(badge_kind(answer), _e(answer_mark(answer))),
        quote=quote_mark(trace),
        answers=answers_mark(trace),
        why=_why(trace),
        why_engine=trace.explanation,
        markers=marker_states(trace.checks),
        unshown_checks=unshown_checks(trace),
    )


def how_chosen(proposal) -> str:
    """How a producer chose, in plain words: its decisions (`Proposal.decisions`), or its note when it records none (a
    language model's, a person's)."""
    if proposal.decisions:
        return "; ".join(decision_words(decision, plain=True) for decision in proposal.decisions)
    return proposal.note or ""


def _rule(proposal) -> str:
    """The rule that chose an answer its score did not: the decision that answered, in plain words."""
    return next((decision_words(d, plain=True) for d in proposal.decisions if d.outcome == "answered"),
                proposal.note or "")


def _why(trace: Trace) -> str:
    """The explanation in plain words; an answerer's refusal told from its decisions, not from its note's words."""
    abstention, proposal = trace.abstention, trace.proposal
    if (abstention is not None and abstention.stage == "generate" and proposal is not None and proposal.decisions
            and abstention.detail == proposal.note):
        return plain_words(explain(abstention.model_copy(update={"detail": ""}), trace.generator_called)
                           ) + f" ({how_chosen(proposal)})"
    return plain_words(trace.explanation)


def citation_key(citation) -> tuple[str, int, int]:
    return (citation.source_id, citation.start_line, citation.end_line)


def marker_states(checks: Sequence[CitationCheck]) -> dict[tuple[str, int, int], str]:
    """Each checked citation's state: "ok" when one of its checks passed (a claim it supports stands), else "no"."""
    states: dict[tuple[str, int, int], str] = {}
    for check in checks:
        key = citation_key(check.citation)
        states[key] = "ok" if check.verified or states.get(key) == "ok" else "no"
    return states


def unshown_checks(trace: Trace) -> tuple[CitationCheck, ...]:
    """The checks whose citation the answer object lists nowhere: a later stage (a conflict) withheld the answer
    after its citations passed. The panel lists them too, so that a checked marker always has its checks shown."""
    listed = {citation_key(c) for c in (*trace.answer.citations, *trace.answer.dropped_citations)}
    return tuple(check for check in trace.checks if citation_key(check.citation) not in listed)


def _failed_words(checks: Sequence[CitationCheck]) -> str:
    names = dict.fromkeys(name for check in checks for name in check.failed_checks)
    return "; ".join(term(f"not: {CHECK_WORDS.get(n, n.replace('_', ' '))}", n) for n in names) or "a check failed"


def _cites(trace: Trace) -> bool:
    """Did the proposal cite anything (a citation listed, or a marker in its text)?"""
    proposal = trace.proposal
    return proposal is not None and bool(proposal.citations or MARKER.search(proposal.answer or ""))


def _stopped_at(trace: Trace) -> str:
    stage = trace.abstention.stage if trace.abstention is not None else "retrieve"
    return STAGE_WORDS.get(stage, stage)


def quote_mark(trace: Trace) -> Mark:
    """Whether the cited lines exist, hold the quote and say what the sentence citing them says: the citation checks
    that ran. It says nothing about whether the answer is the one the question wanted."""
    checks = trace.checks
    if not checks:
        if _cites(trace):
            return Mark("muted", f"not checked: the request stopped at {_e(_stopped_at(trace))}, before its citations "
                                 "were checked (see Why).")
        return Mark("muted", "nothing to check: no passage was cited.")
    failed = [check for check in checks if not check.verified]
    if not failed:
        said = ("yes: the cited passage is" if len(checks) == 1 else f"yes: the {len(checks)} cited passages are") + (
            " in the source at the lines given, word for word, and says what the sentence citing it says."
            if len(checks) == 1 else " in the source at the lines given, word for word, and say what the sentences "
                                     "citing them say.")
        if trace.answer.status != "answered":
            said += " The answer is withheld all the same (see Why)."
        return Mark("ok", said)
    kept = len(checks) - len(failed)
    dropped = "the citation was dropped" if len(checks) == 1 else f"{len(failed)} of {len(checks)} citations were dropped"
    return Mark("no", f"no: {dropped} ({_failed_words(failed)})."
                + (f" {kept} other citation{'s' if kept > 1 else ''} passed." if kept else ""))


@dataclass(frozen=True)
class _Score:
    """One of the answerer's scores against its threshold, said in words."""

    score: float
    threshold: float
    said: str  # escaped HTML

    @property
    def passes(self) -> bool:
        return self.score >= self.threshold


def _scores(trace: Trace) -> list[_Score]:
    """The reader's score and the answer scorer's, each against its threshold (the reader's first: it decides
    last, on the passage the scorer chose)."""
    p = trace.proposal
    out = []
    if p is not None and p.reader_score is not None and p.reader_threshold is not None:
        read_, needs = score_and_threshold(p.reader_score, p.reader_threshold)
        out.append(_Score(p.reader_score, p.reader_threshold,
                          "a reading model, reading the chosen passage with your question, is "
                          f"{term(f'{read_} sure', f'reader {p.reader}: reader_score')} it answers "
                          f"(it needs {term(needs, 'reader_threshold')})"))
    if p is not None and p.score is not None and p.threshold is not None:
        shown, needs = score_and_threshold(p.score, p.threshold)
        out.append(_Score(p.score, p.threshold,
                          f"the best passage scores {term(shown, 'answer scorer: best unit score')} "
                          f"(it needs {term(needs, 'answer scorer: threshold')})"))
    return out


NOT_SCORED = ("not judged: nobody scored whether this answer fits your question (it was written elsewhere, e.g. "
              "pasted or a demo's proposal); only its citations were checked.")


def answers_mark(trace: Trace) -> Mark:
    """How sure the answerer is that the passage answers the question, and why: the reader's or the answer scorer's
    score against its threshold; a rule; a model; a person. A ✓ only for an answer that is shown."""
    p, answered = trace.proposal, trace.answer.status == "answered"
    if p is None:
        return Mark("muted", f"not judged: no answer was proposed; the request stopped at {_e(_stopped_at(trace))} "
                             "(see Why).")
    refused = p.abstain_reason is not None or not (p.answer or "").strip()
    if p.generation is not None:
        return _model_mark(p, refused)
    scores = _scores(trace)
    low = next((s for s in scores if not s.passes), None)
    if refused:
        if low is not None:
            return Mark("no", f"unlikely, so no answer is given: {low.said}.")
        if scores:
            return Mark("no", f"{scores[0].said}, but the answerer refused it by one of its rules (see Why).")
        return Mark("no", "the answerer found no passage that answers it (see Why).")
    if not answered:  # proposed, then withheld by a later stage
        reason = _e(WITHHELD_WORDS.get(trace.answer.reason_code or "", "a later check refused it"))
        if not scores:
            return Mark("muted", f"not judged (nobody scored this proposal: it was written elsewhere), and no answer "
                                 f"is given: {reason} (see Why).")
        judged = f"likely an answer: {scores[0].said}" if low is None else f"proposed although {low.said}"
        return Mark("muted", f"{judged}; but none is given: {reason} (see Why).")
    if low is not None:
        return Mark("muted", f"chosen by a rule, not by its score ({low.said}): {_e(_rule(p))}.")
    if scores:
        return Mark("ok", f"likely: {scores[0].said}.")
    if p.note or p.decisions:
        return Mark("ok", f"chosen by a rule: {_e(_rule(p))}.")
    return Mark("muted", NOT_SCORED)


def _model_mark(p, refused: bool) -> Mark:
    if p.abstain_reason == "generator_unavailable":
        return Mark("muted", "not judged: the language model gave no usable answer (see Why).")
    if refused:
        return Mark("no", "the language model said the sources do not answer it (see Why).")
    return Mark("muted", "not measured as a number: a language model wrote this answer; each of its sentences was "
                         "checked against the lines it cites (see Claims).")
