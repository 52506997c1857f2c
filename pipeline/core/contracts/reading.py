"""How the question was read, once per request (`pipeline.question.reading`): what it asks for and the forms found in
it, each with the words that show it. Recorded in the trace, so a person sees what the answer stage took the question
to ask."""

from __future__ import annotations

from pydantic import Field

from pipeline.core.contracts.base import Frozen


class FormFound(Frozen):
    form: str = Field(description="the registered question form's name (pipeline.question.forms)")
    evidence: str = Field(description="what in the question shows the form: the term, the words, the types asked")


class QuestionReading(Frozen):
    keywords: bool = Field(description="a few words typed as a search, not a question: the learned reader, which "
                                       "reads questions, does not decide on it")
    chinese: bool = Field(description="written in Chinese characters")
    forms: tuple[FormFound, ...] = ()
    as_read: str | None = Field(None, description="the question as the answer stage reads it, when that is not as typed: "
                                                  "typed in capitals, it is read in sentence case")
