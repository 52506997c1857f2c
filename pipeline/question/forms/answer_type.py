"""A question form: "How much …?", "When …?": the types of value the answer must hold (money, a date, a number, …);
only a unit holding such a value (or running on to the sentence that does) may answer."""

from __future__ import annotations

from pipeline.lang.questions import VALUE_TYPES, holds_wanted_value, wanted_types
from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.text.run_on import with_value
from pipeline.text.units import Unit


class AnswerType:
    name = "answer type"
    with_reader = True

    def found(self, question: str) -> str | None:
        return ", ".join(wanted_types(question)) or None

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        """The sentence that names the thing is not the answer to how much it is."""
        typed = [c for c in candidates if holds_value(question, c.unit) or holds_value(question, with_value(c.unit, question))]
        if typed:
            return typed
        return Refusal("value_missing", {"wanted": " or ".join(t for t in wanted_types(question) if t in VALUE_TYPES)})


def holds_value(question: str, unit: Unit) -> bool:
    """Whether `unit` holds the kind of value `question` asks for; a table row's currency sits in its header or nowhere
    ("618.00")."""
    return holds_wanted_value(question, unit.quote, money_asked=False if unit.kind == "row" else None)
