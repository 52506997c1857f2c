"""Typed contracts between the pipeline's stages (seed 000, Table 45.2).

parse → Document; chunk → Chunk; retrieve → Candidate/Retrieval; pack → Context;
generate → Proposal; verify → CitationCheck/Answer; and the Trace that records all of it.
Every stage takes and returns these models, so each step can be inspected and serialised.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "answer-v1"
TRACE_VERSION = "trace-v1"

ReasonCode = Literal[
    "insufficient_evidence",
    "conflicting_evidence",
    "incomplete_source",
    "context_budget",
    "unsupported_claim",
    "ineligible_citation",
]
REASON_CODES: tuple[str, ...] = ReasonCode.__args__  # type: ignore[attr-defined]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --------------------------------------------------------------------------- parse / metadata


class Box(_Frozen):
    """A rectangle in PDF points, origin top-left (PyMuPDF's convention)."""

    x0: float
    y0: float
    x1: float
    y1: float


class Word(NamedTuple):
    """One word of a PDF line: its code-point span within the page text and its box.

    A plain named tuple, not a model: a PDF holds tens of thousands of words, and a tuple is
    built several times faster (it serialises as [start, end, x0, y0, x1, y1]).
    """

    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def box(self) -> Box:
        return Box(x0=self.x0, y0=self.y0, x1=self.x1, y1=self.y1)


class Line(_Frozen):
    """One addressable line. Numbers are 1-based within the page (PDF) or the body (text).

    `start`/`end` are zero-based, half-open code-point offsets into `Page.text`; `end`
    excludes the newline (seed 000, §45.2).
    """

    number: int
    start: int
    end: int
    text: str
    box: Box | None = None
    words: tuple[Word, ...] = ()


class Page(_Frozen):
    """A text document has one page with `number=None`; a PDF page has a 1-based number."""

    number: int | None = None
    text: str
    lines: tuple[Line, ...]
    width: float | None = None
    height: float | None = None


class CardSpec(_Frozen):
    """An authored search summary pointing at parent lines (an annotated support span)."""

    id: str
    text: str
    start_line: int
    end_line: int
    page: int | None = None


class DocumentMeta(_Frozen):
    """Versioned evidence metadata from front matter, a PDF sidecar, or the upload form."""

    source_id: str
    version: str | None = None
    topic: str | None = None
    authority: str | None = None
    valid_from: dt.date | None = None
    valid_to: dt.date | None = None
    updated: dt.date | None = None
    license: str | None = None
    uri: str | None = None
    lang: str | None = None
    title: str | None = None
    access: tuple[str, ...] | None = None
    cards: tuple[CardSpec, ...] = ()


class Document(_Frozen):
    meta: DocumentMeta
    kind: Literal["text", "pdf"]
    filename: str
    digest: str = Field(description="sha256 of the file's bytes")
    pages: tuple[Page, ...]

    @property
    def source_id(self) -> str:
        return self.meta.source_id

    def page(self, number: int | None) -> Page | None:
        for page in self.pages:
            if page.number == number:
                return page
        return None


# --------------------------------------------------------------------------- chunk


class Span(_Frozen):
    """A line range on one page (page None for text documents)."""

    page: int | None = None
    start_line: int
    end_line: int


class Chunk(_Frozen):
    """An addressed piece of a document.

    kind "line": one per source line, for diagnosis. kind "card": an authored card whose
    parent is its support span. kind "window": ~800 code points, never crossing a page,
    whose parent is the lines it touches; `start`/`end` are its code-point offsets into
    the page text, so the overlap carried from the previous window keeps its address.
    """

    chunk_id: str
    source_id: str
    kind: Literal["line", "card", "window"]
    text: str
    parent: Span
    start: int | None = None
    end: int | None = None
    card_id: str | None = None
    content_hash: str


# --------------------------------------------------------------------------- retrieve


class Request(_Frozen):
    question: str
    date: dt.date
    date_given: bool = True
    topic: str | None = None
    groups: tuple[str, ...] = ()


class Settings(_Frozen):
    # Product defaults chosen on the natural-question dev set (README, "Choices and limits"):
    # five hits, a low relevance gate (the calibrated answer scorer decides answerability),
    # and a window that holds several whole parents. The seed scenarios use SEED_SETTINGS.
    top_k: int = 5
    min_lexical: float = 0.3
    min_dense: float = 0.8
    rrf_k: int = 60
    window: int = 6000
    reserve: int = 200
    eligibility: Literal["before_cutoff", "after_selection"] = "before_cutoff"
    retrieval: Literal["hybrid", "bm25", "dense"] = "hybrid"
    trace_limit: int = 100


# The seed's settings (seed 000): the frozen scenarios and demos run with these.
SEED_SETTINGS = {"top_k": 3, "min_lexical": 0.6, "min_dense": 0.9, "window": 1400, "reserve": 200}


class Candidate(_Frozen):
    chunk_id: str
    source_id: str
    version: str | None
    kind: str
    text: str
    parent: Span
    start: int | None = None
    end: int | None = None
    bm25: float
    bm25_rank: int | None
    lexical_coverage: float
    dense: float | None
    dense_rank: int | None
    fused: float
    fused_rank: int
    passes_threshold: bool
    eligible: bool
    ineligible_reasons: tuple[str, ...] = ()
    selected: bool = False
    selected_as: Literal["hit", "sibling"] | None = None
    superseded_by: str | None = None
    sibling_of: str | None = None


class Retrieval(_Frozen):
    candidates: tuple[Candidate, ...]
    selected: tuple[Candidate, ...]
    eligibility: str
    scored: int = 0
    notes: tuple[str, ...] = ()


# --------------------------------------------------------------------------- pack


class PackedLine(_Frozen):
    number: int
    text: str


class PackedSource(_Frozen):
    n: int
    source_id: str
    version: str | None
    page: int | None
    start_line: int
    end_line: int
    support_span: bool
    dated: str
    sibling_group: str
    lines: tuple[PackedLine, ...]


class Context(_Frozen):
    question: str
    request_date: dt.date
    sources: tuple[PackedSource, ...]
    text: str
    length: int
    window: int
    reserve: int
    omitted: tuple[str, ...] = ()
    term_weights: dict[str, float] = {}

    @property
    def capacity(self) -> int:
        return self.window - self.reserve


# --------------------------------------------------------------------------- generate / verify


class ProposedCitation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source_id: str
    start_line: int
    end_line: int
    page: int | None = None
    quote: str | None = None


class Proposal(BaseModel):
    """What a generator (or a person, via --proposal) proposes: checked before it is trusted."""

    model_config = ConfigDict(extra="ignore")
    answer: str | None = None
    citations: list[ProposedCitation] = []
    producer: str = "proposal"
    abstain_reason: ReasonCode | None = None
    note: str | None = None
    # A scoring producer's calibrated confidence in its best unit, the cut it applied, and the
    # runner-up (shown in the trace; None for a person's or a model's proposal).
    score: float | None = None
    threshold: float | None = None
    best_unit: str | None = None
    runner_up: str | None = None
    runner_up_score: float | None = None


class CheckResult(_Frozen):
    name: str
    passed: bool
    detail: str = ""


class CitationCheck(_Frozen):
    citation: ProposedCitation
    claim: str
    checks: tuple[CheckResult, ...]

    @property
    def verified(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failed_checks(self) -> list[str]:
        return [check.name for check in self.checks if not check.passed]


class Citation(BaseModel):
    source_id: str
    version: str | None
    page: int | None
    start_line: int
    end_line: int
    quote: str
    verified: bool
    failed_checks: list[str] = []


class Answer(BaseModel):
    """The public answer object (`answer-v1`); its JSON Schema is exported to schema/."""

    schema_version: Literal["answer-v1"] = SCHEMA_VERSION
    status: Literal["answered", "abstained"]
    answer: str | None
    citations: list[Citation] = []
    dropped_citations: list[Citation] = []
    reason_code: ReasonCode | None = None
    producer: str


# --------------------------------------------------------------------------- trace


class DocumentRecord(_Frozen):
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


class Trace(BaseModel):
    trace_version: Literal["trace-v1"] = TRACE_VERSION
    request: Request
    settings: Settings
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
    explanation: str = ""
    timings_ms: dict[str, float] = {}
