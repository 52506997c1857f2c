"""A question form: "How much …?", "When …?": the types of value the answer must hold (money, a date, a number, …)."""

from __future__ import annotations

from pipeline.lang.questions import wanted_types


class AnswerType:
    name = "answer type"

    def found(self, question: str) -> str | None:
        return ", ".join(wanted_types(question)) or None
