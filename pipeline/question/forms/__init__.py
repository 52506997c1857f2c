"""The question forms the answer stage knows, each one class in a module of its own plus one registration below
(`pipeline.core.interfaces.QuestionForm`, the `FORMS` registry). The reading of a question (`pipeline.question.reading`)
asks each registered form, in the order of registration, and retrieval fuses the ranking of each that ranks chunks of
its own (`boost.BoostsRetrieval`); a form registered elsewhere (`FORMS.register`) is read, recorded and fused the same
way."""

from __future__ import annotations

from pipeline.core.registry import FORMS
from pipeline.question.forms.about_document import AboutTheDocument
from pipeline.question.forms.address import Address
from pipeline.question.forms.answer_type import AnswerType
from pipeline.question.forms.boost import Boost, BoostsRetrieval
from pipeline.question.forms.code_name import CodeName
from pipeline.question.forms.definition import Definition
from pipeline.question.forms.page import Page
from pipeline.question.forms.procedure import Procedure
from pipeline.question.forms.superlative import Superlative

# In this order retrieval fuses the rankings of those that boost (`BoostsRetrieval`) and the reading lists those found.
for form in (Definition, Page, AboutTheDocument, CodeName, Procedure, Superlative, Address, AnswerType):
    FORMS.register(form.name, form)


def boosting_forms() -> list[BoostsRetrieval]:
    """The registered forms that rank chunks of their own, in the order of registration."""
    forms = [FORMS.create(name) for name in FORMS.in_order()]
    return [form for form in forms if isinstance(form, BoostsRetrieval)]


__all__ = ["FORMS", "Boost", "BoostsRetrieval", "boosting_forms"]
