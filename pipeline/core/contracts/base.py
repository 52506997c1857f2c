"""The base of every contract: frozen models, and the reason codes an abstention names."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

ReasonCode = Literal[
    "insufficient_evidence",
    "conflicting_evidence",
    "incomplete_source",
    "context_budget",
    "unsupported_claim",
    "ineligible_citation",
    "generator_unavailable",
]
REASON_CODES: tuple[str, ...] = ReasonCode.__args__  # type: ignore[attr-defined]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")



_set = object.__setattr__


def prevalidated(cls):
    """A constructor of the frozen model `cls` from a dict of values already valid, every field given: what
    `model_construct` does, at a third of its cost (a parse builds tens of thousands of lines, boxes and words from
    values it has just computed; a page kept by column reads its lines back so). The results are ordinary instances
    (==, model_dump, pickling and frozenness all work)."""
    fields = frozenset(cls.model_fields)
    new = cls.__new__

    def make(values: dict):
        obj = new(cls)
        _set(obj, "__dict__", values)
        _set(obj, "__pydantic_fields_set__", fields)
        _set(obj, "__pydantic_extra__", None)
        _set(obj, "__pydantic_private__", None)
        return obj

    return make
