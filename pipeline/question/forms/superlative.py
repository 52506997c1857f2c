"""A question form: "Which is the most expensive …?": the row holding the most or the least of something."""

from __future__ import annotations

from pipeline.core.contracts import Context, Decision
from pipeline.lang.comparisons import states_extreme, superlative
from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.question.forms.whole import WholeAnswer
from pipeline.text.units import Unit, units_of


class Superlative:
    name = "superlative"
    with_reader = False

    def found(self, question: str) -> str | None:
        found = superlative(question)
        return found.words if found is not None else None

    def answer(self, context: Context) -> WholeAnswer | None:
        """The row retrieval's table comparison chose (computed over the whole table), or the abstention of a tie."""
        if (row := compared_row(context)) is None:
            return None
        return WholeAnswer([row], compared(context.comparison, row))

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        """With no table comparison to answer it (which answers whole, before any unit is scored), only a unit that says
        which is most ("… is the largest …", "up to $10,505") may answer; a row or a sentence that merely matches the
        words may not."""
        if superlative(question) is None:
            return candidates
        return [c for c in candidates if states_extreme(c.unit.quote)] or Refusal("extreme_unstated")


def compared_row(context: Context) -> Unit | None:
    """The packed table row retrieval's comparison chose ("Which state had the most handgun checks?"), as a unit."""
    comparison = context.comparison
    if comparison is None:
        return None
    return next((unit for source in context.sources if source.source_id == comparison.source_id
                 and source.page == comparison.page for unit in units_of(source)
                 if unit.kind == "row" and unit.start_line == comparison.line), None)


def compared(comparison, row: Unit) -> Decision:
    """The table comparison retrieval made (`Retrieval.comparison`), as the decision it is."""
    facts = {"row": comparison.key, "column": comparison.column, "value": comparison.value,
             "most": "highest" if comparison.highest else "lowest", "source": comparison.source_id}
    if comparison.tied_with:
        tied = ", ".join(map(repr, comparison.tied_with[:5])) + (
            f" and {len(comparison.tied_with) - 5} more" if len(comparison.tied_with) > 5 else "")
        return Decision(by="superlative", outcome="abstained", reason="compared_tie", unit=row.marker(),
                        facts={**facts, "tied": tied})
    if comparison.rows_compared == 1:
        return Decision(by="superlative", outcome="answered", reason="compared_only", unit=row.marker(),
                        facts={**facts, "words": ", ".join(map(repr, comparison.selected_by))})
    return Decision(by="superlative", outcome="answered", reason="compared", unit=row.marker(), facts=facts)
