"""One reading of the question per request: whether it is a search or a question, its script, and the forms the answer
stage knows (the `FORMS` registry, `pipeline.question.forms`), each with the words that show it (`QuestionReading`,
recorded as `trace.reading`)."""

from __future__ import annotations

from pipeline.core.contracts import FormFound, QuestionReading
from pipeline.lang.questions import is_keyword_query
from pipeline.lang.tokenize import has_cjk
from pipeline.question.forms import FORMS


def read_question(question: str) -> QuestionReading:
    """How the answer stage reads `question`: every registered form, asked in the order of registration."""
    found = ((name, FORMS.create(name).found(question)) for name in FORMS.in_order())
    return QuestionReading(keywords=is_keyword_query(question), chinese=has_cjk(question),
                           forms=tuple(FormFound(form=name, evidence=evidence) for name, evidence in found if evidence))
