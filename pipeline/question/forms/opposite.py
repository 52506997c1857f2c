"""A form of evidence: a unit that speaks only of the opposite of what the question asks does not answer it. "How do I
download a file?" is not answered by a unit about uploads (a yes/no question is: "Are dogs allowed?" — "Dogs are
prohibited.")."""

from __future__ import annotations

from pipeline.lang.opposites import question_opposite
from pipeline.lang.questions import wanted_types
from pipeline.question.forms.keep import Evidence, Refusal


class Opposite:
    name = "opposite"
    with_reader = False

    def found(self, question: str) -> str | None:
        return None  # an opposite is a unit's, told against the question

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        if "yesno" in wanted_types(question):
            return candidates
        kept, first_pair = [], None
        for candidate in candidates:
            pair = question_opposite(question, candidate.unit.quote)
            if pair is None:
                kept.append(candidate)
            elif first_pair is None:
                first_pair = pair
        if kept or first_pair is None:
            return kept
        asked, said = first_pair
        return Refusal("opposite", {"asked": asked, "said": said})
