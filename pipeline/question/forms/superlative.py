"""A question form: "Which is the most expensive …?": the row holding the most or the least of something."""

from __future__ import annotations

from pipeline.lang.comparisons import states_extreme, superlative
from pipeline.question.forms.keep import Evidence, Refusal


class Superlative:
    name = "superlative"
    with_reader = False

    def found(self, question: str) -> str | None:
        found = superlative(question)
        return found.words if found is not None else None

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        """With no table comparison to answer it (which answers whole, before any unit is scored), only a unit that says
        which is most ("… is the largest …", "up to $10,505") may answer; a row or a sentence that merely matches the
        words may not."""
        if superlative(question) is None:
            return candidates
        return [c for c in candidates if states_extreme(c.unit.quote)] or Refusal("extreme_unstated")
