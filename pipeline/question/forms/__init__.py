"""The question forms the answer stage knows, each one class in a module of its own plus one registration below
(`pipeline.core.interfaces.QuestionForm`, the `FORMS` registry). The reading of a question (`pipeline.question.reading`)
asks each registered form, in the order of registration; a form registered elsewhere (`FORMS.register`) is read and
recorded the same way."""

from __future__ import annotations

from pipeline.core.registry import FORMS
from pipeline.question.forms.about_document import AboutTheDocument
from pipeline.question.forms.address import Address
from pipeline.question.forms.answer_type import AnswerType
from pipeline.question.forms.definition import Definition
from pipeline.question.forms.procedure import Procedure
from pipeline.question.forms.superlative import Superlative

for form in (Definition, Procedure, Superlative, AboutTheDocument, Address, AnswerType):
    FORMS.register(form.name, form)

__all__ = ["FORMS"]
