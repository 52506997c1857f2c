"""Generate: how an answer was chosen, as data. Each step of the answer stage that keeps, refuses, moves or extends a
unit is one `Decision` (what decided, its outcome, a reason code, the unit, the scores, the particulars); the proposal
and the trace keep the list, the producer's note is its rendering in the engine's words, and the page renders the same
records in plain words (`decision_words(..., plain=True)`): nobody parses a sentence to learn why."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from pipeline.core.contracts.base import Frozen
from pipeline.core.scores import score_and_threshold

DecisionOutcome = Literal["answered", "abstained", "moved", "extended", "narrowed", "noted"]

# Every reason code, with its words: "{unit}"/"{units}" are the engine's "unit(s)" or the page's "passage(s)";
# "{scores}" is the score against its threshold; any other name is one of the decision's facts. A question form
# registered elsewhere (`FORMS.register`) adds the codes of its refusals here, with their words.
REASON_WORDS: dict[str, str] = {
    # nothing to choose from
    "no_sources": "nothing to compose from",
    "no_units": "no quotable {unit} in the evidence",
    # a form's check refused every candidate
    "contents_entry": "every candidate {unit} is an entry of a table of contents, which says where an answer is, "
                      "not what",
    "value_missing": "the question asks for a {wanted} and no candidate {unit} holds one",
    "address_missing": "the question asks for {address} and no candidate {unit} holds one",
    "default_missing": "the question asks what holds by default and no candidate {unit} states a default",
    "row_unnamed": "every candidate {unit} is a table row the question does not name by its first cell",
    "name_unmentioned": "the question names {names} and no candidate {unit}'s source mentions it",
    "code_name_unmentioned": "the question names {names} and no candidate {unit} does",
    "opposite": "every candidate {unit} speaks of the opposite of what the question asks (the best says “{said}” "
                "where the question asks “{asked}”)",
    "other_number": "the question asks about {asked} and every candidate {unit} names another",
    "other_year": "the question asks about a year that no candidate table's columns give",
    "extreme_unstated": "the question asks which is the most or the least, no candidate {unit} says so and no table "
                        "comparison was possible",
    # the reader's or the scorer's verdict on the best candidate
    "reader_answers": "the reader ({reader}) reads {read} candidate {units}; the best, a {kind}, answers with "
                      "probability {scores}",
    "reader_finds_none": "the reader ({reader}) reads {read} candidate {units} and finds none that answers: the best, "
                         "{unit_marker}, answers with probability {scores}",
    "reader_below": "the reader's best {unit} answers with probability {scores}",
    "runner_up": "the runner-up {unit_marker} {score}",
    "scorer_answers": "best {kind} scores {scores}",
    "scorer_finds_none": "the best {unit} {unit_marker} scores {scores}",
    "scorer_below": "the scorer's best {unit} scores {scores}",
    "keywords": "the query is keywords, not a question, so the scorer decides, not the reader ({reader}), which reads "
                "questions",
    # a unit chosen or moved first for its form
    "defines_term": "it defines {term!r} (the {preferred_by} preferred {preferred}, {preferred_score})",
    "definition": "definition: the {unit} defines {term!r}",
    "table_lookup": "table lookup: the question names the row {key!r} and the column {columns!r}{cells}",
    "table_lookup_key": "table lookup: the question names the row {key!r} of a table of names and values",
    "table_lookup_unit": "table lookup: the question asks for {quantity}s and only the row {key!r} holds a value in "
                         "{symbol}{cells}",
    "row_named": "the question names its row {key!r} and the column {columns!r}{cells}",
    "row_named_key": "the question names its row {key!r} of a table of names and values",
    "several_things": "the question asks for several things and the list holds {item}",
    "compared": "table comparison: {row!r} has the {most} {column!r} ({value}) of the table in {source}",
    "compared_tie": "table comparison: {row!r} ties with {tied} for the {most} {column!r} ({value}): no one row holds it",
    "compared_only": "table comparison: {row!r} is the only row holding {words} of the table in {source}; its "
                     "{column!r} is {value}",
    # what a unit became
    "part_answers_alone": "the reader ({reader}) finds its part {unit_marker} answers alone ({score}; its other parts "
                          "{others}), so only that is quoted",
    "other_numbers_aside": "the parts naming another number are left aside",
    "list_read_whole": "no part of the list answers alone (the reader's best: {unit_marker} {score}), so it is read "
                       "whole",
    "runs_to_value": "it runs on to {unit_marker}, which holds the value asked",
    "runs_to_default": "it runs on to {unit_marker}, which states the default",
    "with_antecedent": "it runs back to {unit_marker}, which says what it speaks of",
    "with_what_follows": "it runs on to what it announces ({unit_marker})",
    "with_command": "the command it describes is quoted with it ({unit_marker})",
    "signature": "the entry's heading {unit_marker} names the call it describes",
    "continues_page": "it finishes a sentence begun on the previous page: “{begun}”",
    "table_header": "table header: {header}",
    # a whole answer the evidence's form gives
    "title_block": "document particulars: the question asks for the {fields} of {source}; its title block ({where}lines "
                   "{block}) gives the {fields} on {lines}",
    "labelled": "document particulars: the question asks for the {fields} of {source}; it states {them} under a label "
                "({spans})",
    "affiliation": "document particulars: the question asks for the institution of {author}; the title block of "
                   "{source} (lines {block}) names them and gives it on {lines}",
    "summary": "document summary: the passage under {label!r}",
    "summary_opening": "document summary: no summary or abstract was found; the opening sentences of the passage "
                       "ranked first ({source} lines {lines})",
    "summaries": "document summaries: the packed sources come from {documents} documents; the summary or opening "
                 "sentences of each, in rank order",
    # a language model's answer, or why there is none ("said": the one line a person reads, in our own words)
    "model_unavailable": "{said}",
    "reply_too_large": "{said}",
    "reply_cut_short": "{said}",
    "reply_unreadable": "{said}",
    "model_not_in_sources": "the model says the sources do not answer the question",
    "model_cites_nothing": "the model's answer cites no source",
    "model_not_called": "{why}; the model was not called",
}


class Decision(Frozen):
    """One step of how the answer stage chose, in the order taken."""

    by: str = Field(description="what decided: a question form's name (\"answer type\"), \"reader\", \"scorer\", or a "
                                "step of the composer (\"extend\")")
    outcome: DecisionOutcome
    reason: str = Field(description="a reason code: a key of REASON_WORDS")
    unit: str | None = Field(None, description="the marker ([source:lines]) of the unit the decision is about")
    score: float | None = None
    threshold: float | None = None
    facts: dict[str, str] = Field(default_factory=dict, description="the particulars the reason names")

    @field_validator("reason")
    @classmethod
    def _known(cls, reason: str) -> str:
        if reason not in REASON_WORDS:
            raise ValueError(f"unknown reason code {reason!r}")
        return reason


def decision_words(decision: Decision, plain: bool = False) -> str:
    """The decision in words: the engine's (the producer's note) or, `plain`, the page's ("passage", "below the 0.10
    needed")."""
    scores = ""
    if decision.score is not None and decision.threshold is not None:
        score, threshold = score_and_threshold(decision.score, decision.threshold)
        below = decision.score < decision.threshold
        if plain:
            scores = f"{score}, {'below' if below else 'at least'} the {threshold} needed"
        else:
            scores = f"{score} {'<' if below else '≥'} threshold {threshold}"
    facts = {"unit": "passage" if plain else "unit", "units": "passages" if plain else "units", "scores": scores,
             "score": "" if decision.score is None else f"{decision.score:.2f}", "unit_marker": decision.unit or "",
             **decision.facts}
    words = REASON_WORDS[decision.reason].format(**facts)
    if decision.outcome == "abstained" and decision.unit and decision.threshold is None and decision.score is not None:
        words += f" (the best {facts['unit']} {decision.unit} scores {decision.score:.2f})"
    return words


def decisions_note(decisions: list[Decision] | tuple[Decision, ...]) -> str:
    """The producer's note: its decisions in the engine's words, in order."""
    return "; ".join(decision_words(decision) for decision in decisions)
