"""A question form that answers whole (the optional hook `AnswersWhole`): from the evidence's form, before any unit is
scored — a title block's lines for "Who wrote this paper?", a document's summary for "What is this about?", the table
row retrieval's comparison chose for "Which city had the most visitors?". The composer asks every registered form that
answers whole, in the order of registration, and the first answer (or abstention: a tie) stands."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pipeline.core.contracts import Context, Decision
from pipeline.text.units import Unit


@dataclass(frozen=True)
class WholeAnswer:
    units: list[Unit]  # what answers, in order (the first one is named as the best unit)
    decision: Decision  # why: outcome "answered", or "abstained" (a comparison's tie: no one row holds the most)


@runtime_checkable
class AnswersWhole(Protocol):
    name: str

    def answer(self, context: Context) -> WholeAnswer | None: ...
