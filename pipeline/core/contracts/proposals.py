"""Generate: what a producer proposes (an answer with citations), and a language model's record of it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.core.contracts.base import Frozen, ReasonCode
from pipeline.core.contracts.decisions import Decision


class ProposedCitation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source_id: str
    start_line: int
    end_line: int
    page: int | None = None
    quote: str | None = None


class ChatMessage(Frozen):
    role: Literal["system", "user", "assistant"]
    content: str


class GenerationAttempt(Frozen):
    """One request to a language model server: how it ended and how long it took."""

    outcome: str  # "ok", "http 429", "timeout", "connection refused", "json mode refused", ...
    status: int | None = None
    latency_ms: float
    waited_s: float = 0.0  # backoff slept before this attempt


class GenerationRecord(Frozen):
    """What a language model was asked and what it replied (never the API key or full URL)."""

    host: str
    model: str
    temperature: float
    max_tokens: int
    seed: int | None = None
    json_mode: bool
    messages: tuple[ChatMessage, ...]
    prompt_code_points: int
    raw_reply: str | None = None
    finish_reason: str | None = None
    latency_ms: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    attempts: tuple[GenerationAttempt, ...] = ()


class Proposal(BaseModel):
    """What a generator (or a person, via --proposal) proposes: checked before it is trusted."""

    model_config = ConfigDict(extra="ignore")
    answer: str | None = None
    citations: list[ProposedCitation] = []
    producer: str = "proposal"
    abstain_reason: ReasonCode | None = None
    note: str | None = None
    generation: GenerationRecord | None = None  # set by a language-model generator, for the trace
    score: float | None = Field(None, description="the producer's own confidence in its best evidence, if it has one")
    # A scoring producer's cut, best unit and runner-up (None for a person's or a model's proposal).
    threshold: float | None = None
    best_unit: str | None = None
    runner_up: str | None = None
    runner_up_score: float | None = None
    # The reader's check of the chosen unit (a cross-encoder reading question and unit together), if one ran.
    reader: str | None = None
    reader_score: float | None = None
    reader_threshold: float | None = None
    # A quoted table row's cells under their column names, when the row lines up with its header one to one.
    row_cells: list[tuple[str, str]] = Field([], description="(column name, cell) of the table row the answer quotes")
    asked_columns: list[str] = Field([], description="the names of the row's columns the question names: its cells are "
                                                     "the figures asked for")
    decisions: list[Decision] = Field([], description="how a producer that chooses among units chose, step by step "
                                                      "(its note renders them)")
