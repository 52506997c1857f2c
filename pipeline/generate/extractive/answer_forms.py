"""Answer forms: units whose form answers the question's form, whatever the scorer thinks of their words.

"What is X?" is answered by the unit that defines X (a sentence, a footnote of X's mark, X spelled out); a question for
several things by the whole list that holds the best item; a question naming a row and a column by that row (the
lookup is in `tables.named_row`). The forms that answer whole before any unit is scored (a title block's particulars,
a document's summary, the row a table comparison chose) are question forms' `answer` hooks (`question/forms/whole.py`).
"""

from __future__ import annotations

from pipeline.core.contracts import Context, Decision
from pipeline.lang.forms import defined_term, defines
from pipeline.lang.questions import ASKS_SEVERAL
from pipeline.question.forms.names import source_text
from pipeline.text.footnotes import marks_of, opens_note
from pipeline.text.units import Unit, units_of


def definition_first(context: Context, scored: list) -> tuple[list, list[Decision]]:
    """For "what is X?", the first unit that defines X ("X is a …", "… (or X) …") answers, even when the scorer
    ranked a unit that only mentions X higher (under the threshold too: its form answers the question's form, see
    `LocalExtractive._structural_match`), with the decision that moved it (none when nothing moved)."""
    term = defined_term(context.question)
    if not term:
        return scored, []
    defining = first_defining(term, scored, context)
    if defining is None or defining is scored[0]:
        return scored, []
    rest = [row for row in scored if row is not defining]
    moved = Decision(by="definition", outcome="moved", reason="defines_term", unit=defining.unit.marker(),
                     facts={"term": term, "preferred_by": "scorer", "preferred": rest[0].unit.marker(),
                            "preferred_score": f"{rest[0].probability:.2f}"})
    return [defining, *rest], [moved]


def first_defining(term: str, scored: list, context: Context):
    """The best-scored unit that defines `term` ("MCAS is a function of …"), else the footnote of a mark the evidence
    puts on it ("*Other" in a header, "*Refers to frames …" below), else one that spells it out ("the maneuvering
    characteristics augmentation system (MCAS)"); None if none does."""
    marks = {source.source_id: frozenset() for source in context.sources}
    for source in context.sources:
        marks[source.source_id] |= marks_of(term, source_text(source))
    return (next((row for row in scored if defines(term, row.unit.quote, spelled_out=False)), None)
            or next((row for row in scored if opens_note(marks[row.unit.source.source_id], row.unit.quote)), None)
            or next((row for row in scored if defines(term, row.unit.quote)), None))


def whole_list_first(question: str, scored: list, threshold: float,
                     decisions: list[Decision] | None = None) -> tuple[list, list[Decision]]:
    """A question for several things, best answered by one item of a list: the whole list answers, when it
    too reaches the threshold ("What are the dependencies?" wants every library, not the first one); `decisions` with
    the one that moved it."""
    decisions = list(decisions or [])
    best = scored[0].unit
    if best.kind != "item" or not ASKS_SEVERAL.search(question):
        return scored, decisions
    whole = next((row for row in scored if row.unit.kind == "list" and row.probability >= threshold and row.unit.source.n == best.source.n
                  and row.unit.start_line <= best.start_line and best.end_line <= row.unit.end_line), None)
    if whole is None:
        return scored, decisions
    rest = [row for row in scored if row is not whole]
    return [whole, *rest], [*decisions, Decision(by="several things", outcome="moved", reason="several_things",
                                                 unit=whole.unit.marker(), facts={"item": best.marker()})]


def rows_best_first(context: Context, scored: list) -> list[Unit]:
    """Every table row of the evidence: those the scorer ranked first, in its order, then the rest."""
    rows = [row.unit for row in scored if row.unit.kind == "row"]
    seen = {(u.source.n, u.start_line) for u in rows}
    rest = [u for source in context.sources for u in units_of(source)
            if u.kind == "row" and (source.n, u.start_line) not in seen]
    return rows + rest


