"""A question form: a year asked ("… in 2023?"); a row of a table whose columns are other years than the one asked does
not answer."""

from __future__ import annotations

from pipeline.lang.numbers import YEAR
from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.text.tables import other_years_only


class Year:
    name = "year"
    with_reader = False

    def found(self, question: str) -> str | None:
        return ", ".join(sorted(set(YEAR.findall(question)))) or None

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        asked = set(YEAR.findall(question))
        if not asked:
            return candidates
        return [c for c in candidates if not other_years_only(asked, c.unit)] or Refusal("other_year")
