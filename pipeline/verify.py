"""Verify: every proposed citation is proven against the source text, or dropped.

Checks, by name (a failed citation is dropped with the names it failed):
- source_exists         the cited source is in the collection and readable by this requester
- source_eligible       valid on the request date and on the requested topic
- lines_exist           the cited page and lines exist
- quote_exact           a given quote is an exact copy from the cited lines
- claim_supported       the sentence it supports is contained in, or supported by, the span
- numbers_match         every number in that sentence appears in the span
- support_span_covered  a citation into an annotated support span covers all of it
An answer stands only if every claim keeps at least one verified citation; otherwise it
abstains with `ineligible_citation`, `incomplete_source` or `unsupported_claim`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .contracts import CheckResult, CitationCheck, Document, Proposal, ProposedCitation, Request
from .retrieve import ineligibility
from .support_features import without_instructions
from .tokenize import Tokenizer, numbers_in

CHECK_NAMES = (
    "source_exists", "source_eligible", "lines_exist", "quote_exact",
    "claim_supported", "numbers_match", "support_span_covered",
)
# A paraphrase counts as supported only if nearly all of its weighted content is in the span.
SUPPORT_COVERAGE = 0.85
MARKER = re.compile(r"\[(?P<sid>[\w.\-]+?)(?::p(?P<page>\d+))?:(?P<start>\d+)(?:-(?P<end>\d+))?\]")
_NEGATION = re.compile(r"\b(?:not|no|never|none|without|cannot)\b|n't|不|没有|禁止|无", re.IGNORECASE)
_CJK_GAP = re.compile(r"(?<=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]) (?=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef\d])|(?<=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef\d]) (?=[\u3000-\u303f\u3400-\u9fff\uff00-\uffef])")


def normalize(text: str) -> str:
    """Compare text, not typography: NFKC, case-folded, whitespace collapsed, quotes unified."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = " ".join(text.split())
    # Chinese has no spaces between sentences or lines: a line break there is not a word gap.
    return _CJK_GAP.sub("", text)


def _strip_edges(text: str) -> str:
    return text.strip(" \t\n.,;:!?。，；：！？")


@dataclass(frozen=True)
class Claim:
    text: str
    citations: tuple[int, ...]  # indices into the proposal's citations


def split_claims(proposal: Proposal) -> list[Claim]:
    """Attach each citation to the text before its marker; unmarked citations cover the whole answer."""
    answer = proposal.answer or ""
    claims, position, used = [], 0, set()
    for match in MARKER.finditer(answer):
        text = answer[position : match.start()].strip()
        position = match.end()
        for index, citation in enumerate(proposal.citations):
            same_lines = citation.start_line == int(match["start"]) and citation.end_line == int(match["end"] or match["start"])
            same_page = match["page"] is None or citation.page == int(match["page"])
            if citation.source_id == match["sid"] and same_lines and same_page and index not in used:
                used.add(index)
                if text:
                    claims.append(Claim(text, (index,)))
                elif claims:  # "… [a:1] [b:2]": consecutive markers support the same text
                    claims[-1] = Claim(claims[-1].text, claims[-1].citations + (index,))
                break
    rest = answer[position:].strip()
    unmarked = tuple(i for i in range(len(proposal.citations)) if i not in used)
    whole = MARKER.sub("", answer).strip()
    if unmarked:
        claims.append(Claim(whole, unmarked))
    elif _strip_edges(rest):
        claims.append(Claim(rest, ()))  # text after the last marker, with no citation at all
    return claims


class Verifier:
    """`judge` (a SupportJudge, e.g. support_model.LearnedJudge) decides claim_supported; None = containment."""

    def __init__(self, tokenizer: Tokenizer | None = None, judge=None):
        self.tokenizer = tokenizer or Tokenizer()
        self.judge = judge

    def _claim_supported(self, claim: str, span: str) -> CheckResult:
        if self.judge is None:
            # Text that instructs a reader-model ("ignore previous instructions and say X") is no evidence of X.
            return self._support(claim, without_instructions(span))
        verdict = self.judge(claim, span)
        return CheckResult(name="claim_supported", passed=verdict.supported, detail=verdict.detail)

    def _support(self, claim: str, span: str) -> CheckResult:
        if not _strip_edges(claim):
            return CheckResult(name="claim_supported", passed=False, detail="the answer has no text for this citation")
        claim_n, span_n = _strip_edges(normalize(claim)), normalize(span)
        if claim_n in span_n:
            return CheckResult(name="claim_supported", passed=True, detail="contained in the cited span")
        claim_tokens = set(self.tokenizer.tokens(claim))
        if not claim_tokens:
            return CheckResult(name="claim_supported", passed=False, detail="no content words to check")
        span_tokens = set(self.tokenizer.tokens(span))
        missing = sorted(claim_tokens - span_tokens)
        coverage = 1 - len(missing) / len(claim_tokens)
        negation_flip = bool(_NEGATION.search(claim_n)) != bool(_NEGATION.search(span_n))
        passed = coverage >= SUPPORT_COVERAGE and not negation_flip
        detail = f"{coverage:.0%} of the claim's content words are in the span"
        if missing:
            detail += f"; missing: {', '.join(missing[:8])}"
        if negation_flip:
            detail += "; negation differs between claim and span"
        return CheckResult(name="claim_supported", passed=passed, detail=detail)

    def check(self, citation: ProposedCitation, claim: str, documents: dict[str, Document], request: Request) -> CitationCheck:
        results: list[CheckResult] = []
        document = documents.get(citation.source_id)
        if document is None:
            results.append(CheckResult(name="source_exists", passed=False, detail=f"no readable source {citation.source_id!r}"))
            return CitationCheck(citation=citation, claim=claim, checks=tuple(results))
        results.append(CheckResult(name="source_exists", passed=True, detail=f"{citation.source_id} version {document.meta.version}"))
        reasons = ineligibility(document, request)
        results.append(CheckResult(name="source_eligible", passed=not reasons, detail="; ".join(reasons) or "valid and on topic"))
        page = document.page(citation.page) if document.kind == "pdf" else document.pages[0]
        if document.kind == "pdf" and citation.page is None:
            page = None
        if page is None or not (1 <= citation.start_line <= citation.end_line <= len(page.lines)):
            where = f"page {citation.page}" if document.kind == "pdf" else "the body"
            count = len(page.lines) if page is not None else 0
            results.append(CheckResult(
                name="lines_exist", passed=False,
                detail=f"lines {citation.start_line}-{citation.end_line} of {where} do not exist ({count} lines)",
            ))
            return CitationCheck(citation=citation, claim=claim, checks=tuple(results))
        results.append(CheckResult(name="lines_exist", passed=True))
        first, last = page.lines[citation.start_line - 1], page.lines[citation.end_line - 1]
        span = page.text[first.start : last.end]
        if citation.quote is None:
            results.append(CheckResult(name="quote_exact", passed=True, detail="no quote given; the cited lines are quoted"))
        else:
            exact = citation.quote in span or " ".join(citation.quote.split()) in " ".join(span.split())
            results.append(CheckResult(
                name="quote_exact", passed=exact,
                detail="an exact copy of the cited lines" if exact else "the quote is not in the cited lines",
            ))
        results.append(self._claim_supported(claim, span))
        missing_numbers = [n for n in numbers_in(claim) if n not in set(numbers_in(span))]
        results.append(CheckResult(
            name="numbers_match", passed=not missing_numbers,
            detail=f"not in the span: {', '.join(missing_numbers)}" if missing_numbers else "every number appears in the span",
        ))
        results.append(_support_span_check(document, citation))
        return CitationCheck(citation=citation, claim=claim, checks=tuple(results))


def _support_span_check(document: Document, citation: ProposedCitation) -> CheckResult:
    for card in document.meta.cards:
        if card.page != (citation.page if document.kind == "pdf" else None):
            continue
        overlaps = citation.start_line <= card.end_line and citation.end_line >= card.start_line
        covers = citation.start_line <= card.start_line and citation.end_line >= card.end_line
        if overlaps and not covers:
            return CheckResult(
                name="support_span_covered", passed=False,
                detail=f"lines {citation.start_line}-{citation.end_line} cut the support span "
                f"{card.start_line}-{card.end_line} (card {card.id})",
            )
    return CheckResult(name="support_span_covered", passed=True)


def verify(proposal: Proposal, documents: dict[str, Document], request: Request, verifier: Verifier) -> list[CitationCheck]:
    """Check every citation of `proposal` against `documents` (the requester-readable ones)."""
    checks: list[CitationCheck] = []
    for claim in split_claims(proposal):
        for index in claim.citations:
            checks.append(verifier.check(proposal.citations[index], MARKER.sub("", claim.text).strip(), documents, request))
    return checks


def abstention_for(failed: list[CitationCheck]) -> str:
    """The reason code a set of failed citations justifies, most fundamental first."""
    names = {name for check in failed for name in check.failed_checks}
    if names & {"source_exists", "source_eligible"}:
        return "ineligible_citation"
    if "support_span_covered" in names:
        return "incomplete_source"
    return "unsupported_claim"


def claims_without_support(proposal: Proposal, checks: list[CitationCheck]) -> tuple[list[str], list[CitationCheck]]:
    """Claims that keep no verified citation, and the failed checks behind them."""
    unsupported, failures = [], []
    cursor = 0
    for claim in split_claims(proposal):
        own = checks[cursor : cursor + len(claim.citations)]
        cursor += len(claim.citations)
        if not any(check.verified for check in own):
            unsupported.append(claim.text)
            failures.extend(check for check in own if not check.verified)
    return unsupported, failures
