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

