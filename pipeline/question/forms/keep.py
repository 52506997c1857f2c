"""A question form's check of the answer stage's candidates (the optional hook `KeepsUnits`): which of them may answer a
question of its form ("How much …?": only a unit holding an amount), or a `Refusal` naming why none may. The composer asks
every registered form that keeps, in the order of registration, before it chooses; a form's refusal is the request's
abstention, recorded as a decision with the form's name, the reason code and its facts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pipeline.core.contracts import PackedSource
from pipeline.lang.tokenize import Tokenizer


@dataclass(frozen=True)
class Evidence:
    """What a check may read beside the candidates: the packed sources, the corpus's tokenizer, and the scorer's
    threshold (a unit under it is never chosen for its score, only for its form)."""

    sources: Sequence[PackedSource]
    tokenizer: Tokenizer
    min_support: float


@dataclass(frozen=True)
class Refusal:
    """No candidate may answer: a reason code (`pipeline.core.contracts.REASON_WORDS`) with its particulars."""

    reason: str
    facts: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class KeepsUnits(Protocol):
    """A form that keeps the candidates (scored units: `.unit`, `.probability`, best first) that may answer `question`,
    or refuses them all. `with_reader`: whether the check still runs when the learned reader ranks (most of them,
    switched off in turn with the reader ranking, changed nothing or gained: docs/decisions.md, "The reader ranks")."""

    name: str
    with_reader: bool

    def keep(self, question: str, candidates: list[Any], evidence: Evidence) -> list[Any] | Refusal: ...
