"""A question form: "Who wrote this report?": a document's own particulars (author, title, date, version)."""

from __future__ import annotations

from pipeline.lang.forms import asks_about_document


class AboutTheDocument:
    name = "about the document"

    def found(self, question: str) -> str | None:
        return "asks about a document's own particulars" if asks_about_document(question) else None
