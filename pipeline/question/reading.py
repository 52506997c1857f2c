"""One reading of the question per request: whether it is a search or a question, its script, and the forms the answer
stage knows (the `FORMS` registry, `pipeline.question.forms`), each with the words that show it (`QuestionReading`,
recorded as `trace.reading`)."""

from __future__ import annotations

from pipeline.core.contracts import FormFound, QuestionReading
from pipeline.lang.questions import is_keyword_query
from pipeline.lang.tokenize import has_cjk
from pipeline.question.forms import FORMS


def read_question(question: str) -> QuestionReading:
    """How the answer stage reads `question`: in sentence case when typed in capitals, then every registered form,
    asked in the order of registration."""
    as_read = in_sentence_case(question)
    found = ((name, FORMS.create(name).found(as_read)) for name in FORMS.in_order())
    return QuestionReading(keywords=is_keyword_query(as_read), chinese=has_cjk(as_read),
                           forms=tuple(FormFound(form=name, evidence=evidence) for name, evidence in found if evidence),
                           as_read=as_read if as_read != question else None)


def in_sentence_case(question: str) -> str:
    """A question typed in capitals ("WHAT IS THE LODGING LIMIT IN BEIJING?") in sentence case: the models read
    questions as people write them (the reader read the sample policy's answer to it at 0.20, to "What is the lodging
    limit in Beijing?" at 0.85), and capitals carry no case to lose. A question with a lower-case letter, or of fewer
    than three words, stays as typed ("BM25?")."""
    if not question.isupper() or sum(len(word) > 1 for word in question.split()) < 3:
        return question
    lowered = question.lower()
    return lowered[:1].upper() + lowered[1:]
