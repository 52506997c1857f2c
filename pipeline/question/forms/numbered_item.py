"""A question form: a numbered thing ("How are level 2 headings formatted?", "What does step 4 say?"); a unit that names
it only with other numbers ("Level 3 heading …") does not answer (`lang.references`)."""

from __future__ import annotations

from pipeline.lang.references import numbered_references
from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.text.units import Unit


class NumberedItem:
    name = "numbered item"
    with_reader = False

    def found(self, question: str) -> str | None:
        return _asked(numbered_references(question)) or None

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        references = numbered_references(question)
        kept = [c for c in candidates if not names_another(references, c.unit)]
        if kept or not references:
            return kept
        return Refusal("other_number", {"asked": _asked(references)})


def _asked(references: list) -> str:
    return ", ".join(f"{r.label} {' or '.join(sorted(r.numbers))}" for r in references)


def names_another(references: list, unit: Unit) -> bool:
    """Whether `unit` names one of the numbered things only with another number."""
    return any(reference.named_otherwise(unit.quote) for reference in references)
