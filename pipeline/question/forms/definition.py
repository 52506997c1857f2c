"""A question form: "What does X mean?", "What is X?": the term asked to define."""

from __future__ import annotations

from pipeline.lang.forms import defined_term


class Definition:
    name = "definition"

    def found(self, question: str) -> str | None:
        return defined_term(question)
