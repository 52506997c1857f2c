"""A question form: "How do I …?", "which command …": answered by an instruction with its command."""

from __future__ import annotations

from pipeline.lang.questions import asks_procedure


class Procedure:
    name = "procedure"

    def found(self, question: str) -> str | None:
        return "how to do something, or which command or option" if asks_procedure(question) else None
