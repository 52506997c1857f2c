"""The Trace that records the whole journey, and the Abstention every refusal becomes."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

from pipeline.core.contracts.base import Frozen, ReasonCode
from pipeline.core.contracts.context import Context
from pipeline.core.contracts.proposals import Proposal
from pipeline.core.contracts.reading import QuestionReading
from pipeline.core.contracts.requests import Request
from pipeline.core.contracts.retrieval import Retrieval
from pipeline.core.contracts.settings import IndexSettings, Settings
from pipeline.core.contracts.verdicts import Answer, CitationCheck

TRACE_VERSION = "trace-v1"

class DocumentRecord(Frozen):
    source_id: str
    version: str | None
    filename: str
    kind: str
    digest: str
    valid_from: dt.date | None
    valid_to: dt.date | None
    updated: dt.date | None
    topic: str | None
    authority: str | None
    license: str | None
    uri: str | None
    restricted: bool
    # Shown, never used for eligibility: other tools' front-matter keys, and what a PDF says about itself.
    extra: dict[str, str] = {}
    info: dict[str, str] = {}
    ocr_pages: list[int] = Field(default=[], description="pages whose lines were recognised by OCR from an image")


Stage = Literal["retrieve", "pack", "generate", "conflict", "verify"]


class EvidenceSpan(Frozen):
    """An exact span of a source that an abstention points at (e.g. each side of a conflict)."""

    source_id: str
    version: str | None = None
    page: int | None = None
    start_line: int
    end_line: int
    text: str


class Abstention(Frozen):
    """Why the request ended without an answer: the one path every stage's refusal takes."""

    reason_code: ReasonCode
    stage: Stage
    detail: str = ""
    evidence: tuple[EvidenceSpan, ...] = Field((), description="the spans behind the refusal (a conflict's two sides)")


class Trace(BaseModel):
    trace_version: Literal["trace-v1"] = TRACE_VERSION
    request: Request
    reading: QuestionReading | None = None  # how the answer stage read the question (pipeline.question.reading)
    settings: Settings
    index: IndexSettings = IndexSettings()
    components: dict[str, str] = Field(default_factory=dict, description="component role → name and version")
    corpus_digest: str
    documents: list[DocumentRecord]
    tokenizer: str
    embedder: str
    retrieval: Retrieval | None = None
    context: Context | None = None
    generator_called: bool = False
    proposal: Proposal | None = None
    checks: list[CitationCheck] = []
    answer: Answer
    abstention: Abstention | None = None
    explanation: str = ""
    timings_ms: dict[str, float] = {}
