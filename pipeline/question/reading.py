"""One reading of the question per request: whether it is a search or a question, its script, and the forms the answer
stage knows, each with the words that show it (`QuestionReading`, recorded as `trace.reading`)."""

from __future__ import annotations

from pipeline.core.contracts import FormFound, QuestionReading
from pipeline.lang.comparisons import superlative
from pipeline.lang.forms import asks_about_document, defined_term
from pipeline.lang.questions import asked_address, asks_procedure, is_keyword_query, wanted_types
from pipeline.lang.tokenize import has_cjk


def read_question(question: str) -> QuestionReading:
    """How the answer stage reads `question`."""
    return QuestionReading(keywords=is_keyword_query(question), chinese=has_cjk(question),
                           forms=tuple(_forms(question)))


def _forms(question: str) -> list[FormFound]:
    found = []
    if term := defined_term(question):
        found.append(FormFound(form="definition", evidence=term))
    if asks_procedure(question):
        found.append(FormFound(form="procedure", evidence="how to do something, or which command or option"))
    if extreme := superlative(question):
        found.append(FormFound(form="superlative", evidence=extreme.words))
    if asks_about_document(question):
        found.append(FormFound(form="about the document", evidence="asks about a document's own particulars"))
    if kind := asked_address(question):
        found.append(FormFound(form="address", evidence=kind))
    if types := wanted_types(question):
        found.append(FormFound(form="answer type", evidence=", ".join(types)))
    return found
