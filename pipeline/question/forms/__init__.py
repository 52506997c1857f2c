"""The question forms the answer stage knows, each one class in a module of its own plus one registration below
(`pipeline.core.interfaces.QuestionForm`, the `FORMS` registry). The reading of a question (`pipeline.question.reading`)
asks each registered form, in the order of registration; retrieval fuses the ranking of each that ranks chunks of its
own (`boost.BoostsRetrieval`), and the composer asks each that answers whole (`whole.AnswersWhole`), then each that
checks candidates (`keep.KeepsUnits`) which may answer, in the same order. A form registered elsewhere (`FORMS.register`) is read, recorded, fused and asked the same way."""

from __future__ import annotations

from pipeline.core.registry import FORMS
from pipeline.question.forms.about_document import AboutTheDocument
from pipeline.question.forms.address import Address
from pipeline.question.forms.answer_type import AnswerType
from pipeline.question.forms.boost import Boost, BoostsRetrieval
from pipeline.question.forms.code_name import CodeName
from pipeline.question.forms.contents import Contents
from pipeline.question.forms.default import Default
from pipeline.question.forms.definition import Definition
from pipeline.question.forms.keep import Evidence, KeepsUnits, Refusal
from pipeline.question.forms.names import Names
from pipeline.question.forms.numbered_item import NumberedItem
from pipeline.question.forms.opposite import Opposite
from pipeline.question.forms.page import Page
from pipeline.question.forms.particulars import Particulars
from pipeline.question.forms.procedure import Procedure
from pipeline.question.forms.superlative import Superlative
from pipeline.question.forms.table_row import TableRow
from pipeline.question.forms.whole import AnswersWhole, WholeAnswer
from pipeline.question.forms.year import Year

# In this order retrieval fuses the rankings of those that boost (`BoostsRetrieval`), the composer asks those that answer
# whole (`AnswersWhole`; the first answer stands) and those that check (`KeepsUnits`; the first to refuse every candidate
# names the abstention), and the reading lists those found.
for form in (Definition, Page, Particulars, AboutTheDocument, Contents, AnswerType, Address, Default, TableRow, Names, CodeName,
             Procedure, Opposite, NumberedItem, Year, Superlative):
    FORMS.register(form.name, form)


def _forms_with(hook: type) -> list:
    """The registered forms that have the optional `hook`, in the order of registration."""
    return [form for form in (FORMS.create(name) for name in FORMS.in_order()) if isinstance(form, hook)]


def boosting_forms() -> list[BoostsRetrieval]:
    """The registered forms that rank chunks of their own."""
    return _forms_with(BoostsRetrieval)


def keeping_forms() -> list[KeepsUnits]:
    """The registered forms that check the composer's candidates."""
    return _forms_with(KeepsUnits)


def answering_forms() -> list[AnswersWhole]:
    """The registered forms that answer whole."""
    return _forms_with(AnswersWhole)


__all__ = ["FORMS", "AnswersWhole", "Boost", "BoostsRetrieval", "Evidence", "KeepsUnits", "Refusal", "WholeAnswer",
           "answering_forms", "boosting_forms", "keeping_forms"]
