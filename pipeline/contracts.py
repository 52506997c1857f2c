"""Typed contracts between the pipeline's stages (seed 000, Table 45.2).

parse → Document; chunk → Chunk; retrieve → Candidate/Retrieval; pack → Context;
generate → Proposal; verify → CitationCheck/Answer; and the Trace that records all of it.
Every stage takes and returns these models, so each step can be inspected and serialised.
"""

from __future__ import annotations

import datetime as dt
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Annotated, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, PlainValidator, WithJsonSchema

SCHEMA_VERSION = "answer-v1"
TRACE_VERSION = "trace-v1"

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


class WordBoxes(Sequence[Word]):
    """A line's words, packed six numbers to a word in one float64 array; reading one gives a `Word`.

    Twenty pages of a three-column PDF hold about 15,000 words: as tuples of Python numbers they took
    3.4 MiB, a third of a session's memory for its upload; packed they take 0.7 MiB. Float64 keeps every
    coordinate and offset exactly. Serialises as a list of [start, end, x0, y0, x1, y1].
    """

    __slots__ = ("_values",)

    def __init__(self, words: Iterable[Sequence[float]] = ()) -> None:
        values = array("d")
        for word in words:
            if len(word) != 6:
                raise ValueError("a word is [start, end, x0, y0, x1, y1]")
            values.extend(word)
        self._values = values

    @classmethod
    def packed(cls, values: array) -> WordBoxes:
        """From a flat array of six numbers per word, as the PDF parser builds it (no copy)."""
        boxes = cls.__new__(cls)
        boxes._values = values
        return boxes

    def __len__(self) -> int:
        return len(self._values) // 6

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("word index out of range")
        start, end, x0, y0, x1, y1 = self._values[6 * index: 6 * index + 6]
        return Word(int(start), int(end), x0, y0, x1, y1)

    def __iter__(self) -> Iterator[Word]:
        values = self._values
        for i in range(0, len(values), 6):
            start, end, x0, y0, x1, y1 = values[i: i + 6]
            yield Word(int(start), int(end), x0, y0, x1, y1)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WordBoxes):
            return self._values == other._values
        if isinstance(other, (list, tuple)):
            return list(self) == [tuple(w) for w in other]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values.tobytes())

    def __repr__(self) -> str:
        return f"WordBoxes({len(self)} words)"

    def __reduce__(self):
        return (WordBoxes.packed, (self._values,))


def _word_boxes(value) -> WordBoxes:
    return value if isinstance(value, WordBoxes) else WordBoxes(value)


WordList = Annotated[
    WordBoxes,
    PlainValidator(_word_boxes),
    PlainSerializer(lambda boxes: [list(word) for word in boxes], return_type=list),
    WithJsonSchema({"type": "array", "items": {"type": "array", "items": {"type": "number"}, "minItems": 6,
                                                "maxItems": 6}}),
]


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
    words: WordList = WordBoxes()


class Page(_Frozen):
    """A text document has one page with `number=None`; a PDF page has a 1-based number."""

    number: int | None = None
    text: str
    lines: tuple[Line, ...]
    width: float | None = None
    height: float | None = None
    furniture: tuple[int, ...] = ()  # numbers of running heads/feet and page numbers (layout, never quoted)


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


DocumentKind = Literal["text", "pdf"]


class Document(_Frozen):
    meta: DocumentMeta
    kind: DocumentKind
    filename: str
    digest: str = Field(description="sha256 of the file's bytes")
    pages: tuple[Page, ...]

    @property
    def source_id(self) -> str:
        return self.meta.source_id

    @property
    def paged(self) -> bool:
        """True when lines are addressed per page (PDF), False when per body (text)."""
        return self.kind == "pdf"

    def page(self, number: int | None) -> Page | None:
        for page in self.pages:
            if page.number == number:
                return page
        return None

    def page_for(self, number: int | None) -> Page | None:
        """The page a citation or chunk addresses: the numbered PDF page, or a text document's body.

        A PDF citation without a page number addresses nothing; a text document ignores the number.
        """
        if not self.paged:
            return self.pages[0] if self.pages else None
        return None if number is None else self.page(number)

    def span_text(self, page: int | None, start_line: int, end_line: int) -> str | None:
        """The exact text of lines start_line..end_line (1-based, inclusive), or None if they do not exist."""
        found = self.page_for(page)
        if found is None or not (1 <= start_line <= end_line <= len(found.lines)):
            return None
        return found.text[found.lines[start_line - 1].start : found.lines[end_line - 1].end]


# --------------------------------------------------------------------------- chunk


class Span(_Frozen):
    """A line range on one page (page None for text documents)."""

    page: int | None = None
    start_line: int
    end_line: int


ChunkKind = Literal["line", "card", "window"]


class Chunk(_Frozen):
    """An addressed piece of a document.

    kind "line": one per source line, for diagnosis. kind "card": an authored card whose
    parent is its support span. kind "window": ~800 code points, never crossing a page,
    whose parent is the lines it touches; `start`/`end` are its code-point offsets into
    the page text, so the overlap carried from the previous window keeps its address.
    """

    chunk_id: str
    source_id: str
    kind: ChunkKind
    text: str
    parent: Span
    start: int | None = None
    end: int | None = None
    card_id: str | None = None
    content_hash: str
    # Context above the window, indexed and embedded with the text, never part of what a citation quotes:
    # the header rows above a window of table rows (a row far down a table keeps its column names), or
    # the start of the sentence a PDF page's first line finishes (chunk.continued_sentence).
    heading: str = ""

    @property
    def search_text(self) -> str:
        """What BM25 and the embedder see: the heading (if any), then the text."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text


# --------------------------------------------------------------------------- retrieve


class Request(_Frozen):
    question: str
    date: dt.date
    date_given: bool = True
    topic: str | None = None
    groups: tuple[str, ...] = ()


def _shipped_threshold() -> float:
    from .answer_model import shipped_model  # data only (numpy + the shipped JSON); imported late to stay light

    return shipped_model().threshold


class Settings(_Frozen):
    """Per-request thresholds and switches; every value is validated here and recorded in the trace.

    Product defaults chosen on the natural-question dev set (README, "Choices and limits"): five
    hits, a low relevance gate (the calibrated answer scorer decides answerability) and a window
    that holds several whole parents. The seed scenarios keep the seed's values (scenarios.py).
    """

    top_k: int = Field(5, ge=1, le=1000)
    min_lexical: float = Field(0.3, ge=0.0, le=1.01, description="minimum IDF-weighted question-term coverage")
    min_dense: float = Field(0.8, ge=-1.0, le=1.01, description="minimum dense cosine (either threshold passes)")
    rrf_k: int = Field(60, ge=1)
    window: int = Field(6000, ge=0, le=1_000_000, description="context window in code points")
    reserve: int = Field(200, ge=0, le=1_000_000, description="code points reserved for the output")
    eligibility: Literal["before_cutoff", "after_selection"] = "before_cutoff"
    retrieval: Literal["hybrid", "bm25", "dense"] = "hybrid"
    trace_limit: int = Field(100, ge=1, description="candidates listed in the trace, best first")
    # The extractive composer abstains below this calibrated answer probability; the default is
    # pipeline/answer_model.json's own threshold (chosen on the public curves), so a retrained
    # model never runs with a stale cut.
    min_support: float = Field(default_factory=_shipped_threshold, ge=0.0, le=1.5,
                               description="the extractive composer's minimum answer probability")
    # A paraphrase counts as supported only if nearly all of its content words are in the span.
    support_coverage: float = Field(0.85, ge=0.0, le=1.0, description="the containment judge's word coverage")
    on_unsupported: Literal["drop", "abstain"] = Field(
        "drop", description="drop: answer with the verified claims only; abstain: any unsupported claim abstains")


class IndexSettings(_Frozen):
    """Index-time choices: they shape chunks and BM25 statistics, so they are fixed per corpus and traced."""

    chunk_window: int = Field(800, ge=100, le=100_000, description="window chunk size in code points")
    chunk_overlap: int = Field(100, ge=0, le=50_000, description="overlap between consecutive windows")
    bm25_k1: float = Field(1.2, gt=0.0, le=10.0)
    bm25_b: float = Field(0.75, ge=0.0, le=1.0)
    cjk: Literal["jieba", "bigram"] = "jieba"
    dense_search_min_chunks: int = Field(
        50_000, ge=0, description="from this many chunks on, dense search runs in Chroma (HNSW, access filter in "
        "the query) when the vector store is Chroma; below it, an exact matrix product in the process "
        "(switch-over measured by `python -m pipeline bench scale --crossover`)")
    dense_candidates: int = Field(300, ge=1, le=100_000, description="chunks HNSW returns per query (twice: readable, "
                                  "and readable and eligible); brute force scores every readable chunk")
    dense_idle_days: float = Field(7.0, gt=0.0, le=3650.0, description="a Chroma chunk collection that no process "
                                   "has opened or searched for this long (an older library, a finished session) is deleted "
                                   "when another corpus is filled")


class Candidate(_Frozen):
    chunk_id: str
    source_id: str
    version: str | None
    kind: ChunkKind
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


class TableComparison(_Frozen):
    """The row of a table holding the most (or least) of what a superlative question asks about, compared over every
    row of the table in its document (pipeline/table_compare.py): the row retrieval packs first and the composer
    cites, with how it was chosen."""

    source_id: str
    page: int | None
    line: int = Field(description="the winning row's line")
    key: str = Field(description="the winning row's first cell")
    column: str = Field(description="the column compared")
    value: str = Field(description="the winning row's cell in that column, as written")
    highest: bool = Field(description="True: the most; False: the least")
    rows_compared: int
    runner_up: str = Field(description="the next row's key and cell")
    selected_by: tuple[str, ...] = Field((), description="question words every compared row holds (\"airfare\")")
    why: str = Field("", description="why this column")
    tied_with: tuple[str, ...] = Field((), description="other rows holding the same figure: no one row answers")

    def describe(self) -> str:
        most = "highest" if self.highest else "lowest"
        rows = f"{self.rows_compared} rows" + (f" holding {', '.join(map(repr, self.selected_by))}" if self.selected_by else "")
        where = f" (page {self.page})" if self.page is not None else ""
        if self.rows_compared == 1:
            return (f"table comparison: {self.key!r} is the only row holding {', '.join(map(repr, self.selected_by))} "
                    f"of the table{where} in {self.source_id}; its {self.column!r} is {self.value}; {self.why}")
        if self.tied_with:
            shown = ", ".join(map(repr, self.tied_with[:5])) + (f" and {len(self.tied_with) - 5} more" if len(self.tied_with) > 5 else "")
            return (f"table comparison: {self.key!r} and {shown} tie for the {most} {self.column!r} ({self.value}) of "
                    f"{rows} of the table{where} in {self.source_id}: no one row holds it; {self.why}")
        return (f"table comparison: {self.key!r} has the {most} {self.column!r} ({self.value}) of {rows} of the table"
                f"{where} in {self.source_id}; runner-up {self.runner_up}; {self.why}")


class Retrieval(_Frozen):
    candidates: tuple[Candidate, ...]
    selected: tuple[Candidate, ...]
    eligibility: Literal["before_cutoff", "after_selection"]
    scored: int = 0
    dense_search: Literal["brute-force", "chroma-hnsw"] | None = Field(
        None, description="how dense scores were computed (None: no dense scoring); with chroma-hnsw only the "
        "returned chunks have a dense score")
    notes: tuple[str, ...] = ()
    rankings: tuple[str, ...] = Field((), description="the rankings fused: bm25 and/or dense (dense is left out "
                                      "while a document's vectors are still being computed; notes say why)")
    term_weights: dict[str, float] = Field(default_factory=dict, description="the question terms' IDF weights")
    comparison: TableComparison | None = Field(None, description="for a superlative question, the table row compared "
                                               "to hold the most or least; its chunk is selected first")


# --------------------------------------------------------------------------- pack


class PackedLine(_Frozen):
    number: int
    text: str
    furniture: bool = False  # a running head/foot or page number: kept for its address, never quoted


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
    heading: str = ""  # the table header rows above these lines, shown as context, never cited
    in_code: bool = False  # the first line is inside a fenced code block opened above it (a window cut mid-block)
    names: str = ""  # the words that name its document (id, title, topic): in every unit's words, never cited
    continues: str = ""  # the start of the sentence its first line finishes, from the previous PDF page: context


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
    # Short form → long form, as the packed sources' documents define them ("AOA" → "angle of attack"):
    # the composer counts either form as the other. Never cited, never shown to a model as evidence.
    abbreviations: dict[str, str] = {}
    # Retrieval's table comparison, when its row is among the packed lines (the composer cites that row).
    comparison: TableComparison | None = None

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


class ChatMessage(_Frozen):
    role: Literal["system", "user", "assistant"]
    content: str


class GenerationAttempt(_Frozen):
    """One request to a language model server: how it ended and how long it took."""

    outcome: str  # "ok", "http 429", "timeout", "connection refused", "json mode refused", ...
    status: int | None = None
    latency_ms: float
    waited_s: float = 0.0  # backoff slept before this attempt


class GenerationRecord(_Frozen):
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


class JudgeCall(_Frozen):
    """A language-model support judge's call on one (claim, span): what it was asked and said (never the key)."""

    host: str
    model: str
    messages: tuple[ChatMessage, ...]
    raw_reply: str | None = None
    verdict: Literal["supported", "not_supported"] | None = None
    rationale: str | None = None
    latency_ms: float = 0.0
    attempts: tuple[GenerationAttempt, ...] = ()
    fallback: str | None = Field(None, description="why another judge decided instead (the call failed or was unreadable)")


class SupportVerdict(_Frozen):
    """A support judge's verdict on one (claim, cited span) pair."""

    supported: bool
    score: float | None = None
    detail: str = ""
    sentences: tuple[tuple[int, int], ...] = Field(
        (), description="code-point spans, within the cited span, of the sentences that support the claim")
    call: JudgeCall | None = Field(None, description="the language-model judge's call, when one was made")


CheckName = Literal[
    "source_exists", "source_eligible", "lines_exist", "quote_exact",
    "claim_supported", "numbers_match", "names_match", "support_span_covered",
]
CHECK_NAMES: tuple[str, ...] = CheckName.__args__  # type: ignore[attr-defined]


class CheckResult(_Frozen):
    name: CheckName
    passed: bool
    detail: str = ""


class SupportSentence(_Frozen):
    """A sentence inside a citation's lines that the support judge found to say the claim (the highlight).

    Addressed like the citation (same page): its lines, and its code-point offsets into that page's
    (or the text document's body) text, so a viewer can mark exactly it within the cited span.
    """

    start_line: int
    end_line: int
    start: int = Field(description="code-point offset into the page (or body) text, inclusive")
    end: int = Field(description="code-point offset into the page (or body) text, exclusive")
    text: str


class CitationCheck(_Frozen):
    citation: ProposedCitation
    claim: str
    checks: tuple[CheckResult, ...]
    support: tuple[SupportSentence, ...] = Field(
        (), description="the sentences of the cited lines that support the claim (only on a verified citation)")
    judge_call: JudgeCall | None = Field(None, description="the language-model support judge's call, if one was made")

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
    support: list[SupportSentence] = Field(
        [], description="the sentence(s) inside the cited lines that support the claim, as the judge found them")


class ClaimVerdict(BaseModel):
    """One sentence (claim) of a proposed answer, with its citations: kept only if one of them verified."""

    text: str
    status: Literal["verified", "dropped"]
    citations: list[Citation] = []


class Answer(BaseModel):
    """The public answer object (`answer-v1`); its JSON Schema is exported to schema/.

    `answer` holds only the verified claims; `claims` lists every claim of the proposal, verified or
    dropped, each with its citations and their failed checks.
    """

    schema_version: Literal["answer-v1"] = SCHEMA_VERSION
    status: Literal["answered", "abstained"]
    answer: str | None
    citations: list[Citation] = []
    dropped_citations: list[Citation] = []
    reason_code: ReasonCode | None = None
    producer: str
    claims: list[ClaimVerdict] = []


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


Stage = Literal["retrieve", "pack", "generate", "conflict", "verify"]


class EvidenceSpan(_Frozen):
    """An exact span of a source that an abstention points at (e.g. each side of a conflict)."""

    source_id: str
    version: str | None = None
    page: int | None = None
    start_line: int
    end_line: int
    text: str


class Abstention(_Frozen):
    """Why the request ended without an answer: the one path every stage's refusal takes."""

    reason_code: ReasonCode
    stage: Stage
    detail: str = ""
    evidence: tuple[EvidenceSpan, ...] = Field((), description="the spans behind the refusal (a conflict's two sides)")


class Trace(BaseModel):
    trace_version: Literal["trace-v1"] = TRACE_VERSION
    request: Request
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
