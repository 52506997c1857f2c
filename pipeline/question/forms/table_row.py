"""A form of evidence: a table row answers only a question that says which row it asks about (`text.tables.names_row`,
or by the key and column `named_row` finds): its cells are values, and a row holding the asked kind of value under an
asked column may be any row of the table."""

from __future__ import annotations

from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.text.tables import named_row, names_row


class TableRow:
    name = "table row"
    with_reader = False

    def found(self, question: str) -> str | None:
        return None  # a row is named by its table's keys, which only the evidence holds

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        # One under the scorer's threshold is never chosen for its score: it stays for the lookup of the row a
        # question names.
        if not any(c.unit.kind == "row" and c.probability >= evidence.min_support for c in candidates):
            return candidates
        tokens = evidence.tokenizer.tokens
        asked = set(evidence.tokenizer.query_tokens(question))
        kept = [c for c in candidates if c.unit.kind != "row" or c.probability < evidence.min_support
                or names_row(question, c.unit, asked, tokens) or named_row(question, [c.unit], tokens) is not None]
        return kept or Refusal("row_unnamed")
