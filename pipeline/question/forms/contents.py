"""A form of evidence every question meets: a table of contents' entry shares its section title's every word with the
question and says where an answer is, not what; it may answer only a question asking where ("Which section …?")."""

from __future__ import annotations

from pipeline.lang.questions import ASKS_WHERE_IN_DOCUMENT
from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.text.units import is_contents_entry


class Contents:
    name = "contents"
    with_reader = True  # the reader reads a contents entry as answering (tests/generate/test_contents_entries.py)

    def found(self, question: str) -> str | None:
        asked = ASKS_WHERE_IN_DOCUMENT.search(question)
        return f"asks where in the document ({asked.group(0)!r})" if asked else None

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        if ASKS_WHERE_IN_DOCUMENT.search(question):
            return candidates
        return [c for c in candidates if not is_contents_entry(c.unit)] or Refusal("contents_entry")
