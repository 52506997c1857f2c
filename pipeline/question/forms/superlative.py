"""A question form: "Which is the most expensive …?": the row holding the most or the least of something."""

from __future__ import annotations

from pipeline.lang.comparisons import superlative


class Superlative:
    name = "superlative"

    def found(self, question: str) -> str | None:
        found = superlative(question)
        return found.words if found is not None else None
