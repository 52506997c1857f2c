"""A question form: what holds unless set ("… by default?", "… if I don't give one?"): only a unit that states a
default, or runs on to the sentence of its entry that does, answers; a table or configuration row is a value in effect."""

from __future__ import annotations

from pipeline.lang.questions import found_types, wanted_types
from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.text.run_on import with_default


class Default:
    name = "default"
    with_reader = False

    def found(self, question: str) -> str | None:
        return "what holds by default" if "default" in wanted_types(question) else None

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        if "default" not in wanted_types(question):
            return candidates
        kept = [c for c in candidates if c.unit.kind == "row" or "default" in found_types(c.unit.quote)
                or with_default(c.unit, question) is not c.unit]
        return kept or Refusal("default_missing")
