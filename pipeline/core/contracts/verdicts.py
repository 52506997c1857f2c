"""Verify: the checks on each citation, the support judge's verdict, and the public answer object (answer-v1)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from pipeline.core.contracts.base import Frozen, ReasonCode
from pipeline.core.contracts.proposals import ChatMessage, GenerationAttempt, ProposedCitation

SCHEMA_VERSION = "answer-v1"

class JudgeCall(Frozen):
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


class SupportVerdict(Frozen):
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


class CheckResult(Frozen):
    name: CheckName
    passed: bool
    detail: str = ""


class SupportSentence(Frozen):
    """A sentence inside a citation's lines that the support judge found to say the claim (the highlight).

    Addressed like the citation (same page): its lines, and its code-point offsets into that page's
    (or the text document's body) text, so a viewer can mark exactly it within the cited span.
    """

    start_line: int
    end_line: int
    start: int = Field(description="code-point offset into the page (or body) text, inclusive")
    end: int = Field(description="code-point offset into the page (or body) text, exclusive")
    text: str


class CitationCheck(Frozen):
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


# The failed check of a claim that carries no citation at all (a sentence without a marker).
UNCITED = "cited"


class ClaimVerdict(BaseModel):
    """One sentence (claim) of a proposed answer, with its citations: kept only if one of them verified."""

    text: str
    status: Literal["verified", "dropped"]
    citations: list[Citation] = []
    failed_checks: list[str] = Field(
        [], description="why a dropped claim was dropped: the checks its citations failed, or 'cited' when it has none")


class Answer(BaseModel):
    """The public answer object (`answer-v1`); its JSON Schema is exported to schema/.

    `answer` holds only the verified claims; `claims` lists every claim of the proposal, verified or
    dropped, each with its citations and their failed checks. An answer that stands with some claims
    dropped is `partial`: never shown as a clean answer.
    """

    schema_version: Literal["answer-v1"] = SCHEMA_VERSION
    status: Literal["answered", "abstained"]
    answer: str | None
    citations: list[Citation] = []
    dropped_citations: list[Citation] = []
    reason_code: ReasonCode | None = None
    producer: str
    claims: list[ClaimVerdict] = []
    partial: bool = Field(False, description="answered, but some claims of the proposal were dropped (see claims)")
