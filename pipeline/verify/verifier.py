"""Verify: every proposed citation is proven against the source text, or dropped.

Checks, by name (a failed citation is dropped with the names it failed):
- source_exists         the cited source is in the collection and readable by this requester
- source_eligible       valid on the request date and on the requested topic
- lines_exist           the cited page and lines exist
- quote_exact           a given quote is an exact copy from the cited lines
- claim_supported       the text it supports is supported by the span (a `SupportJudge` decides; one that
                        `ReadsUnderTitle` reads the span under the document's id, title and topic), and so is
                        each sentence of that text unless it is a verbatim copy
- numbers_match         every number in that sentence is stated in the span ("two" = "2", "8 am" = "08:00")
- names_match           every place or proper name in that sentence is in the span or names the document
                        (its id, title, topic or authority)
- support_span_covered  a citation into an annotated support span covers all of it
An answer stands only if every claim keeps at least one verified citation; otherwise it
abstains with `ineligible_citation`, `incomplete_source` or `unsupported_claim`.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from pipeline.core.citations import Claim, has_text, split_claims, strip_markers
from pipeline.core.contracts import (
    CHECK_NAMES,
    CheckResult,
    CitationCheck,
    Document,
    Page,
    Proposal,
    ProposedCitation,
    Request,
    SupportSentence,
    SupportVerdict,
)
from pipeline.core.interfaces import ReadsUnderTitle, SupportJudge
from pipeline.core.policy import ineligibility
from pipeline.ingest.metadata import document_names
from pipeline.lang.names import chinese_place_names, defined_abbreviation, proper_names, unmentioned_names
from pipeline.lang.numbers import numbers_missing
from pipeline.lang.sentences import sentence_spans
from pipeline.lang.text import normalize, strip_edges
from pipeline.lang.tokenize import han_count

__all__ = ["CHECK_NAMES", "Verifier", "abstention_for", "claims_without_support", "verify"]


class Verifier:
    """Runs the deterministic checks and asks `judge` only whether the claim is supported."""

    def __init__(self, judge: SupportJudge):
        self.judge = judge

    def _judge(self, claim: str, span: str, document: Document) -> SupportVerdict:
        if isinstance(self.judge, ReadsUnderTitle):
            return self.judge.under_title(claim, span, document_names(document))
        return self.judge(claim, span)

    def _support(self, claim: str, span: str, document: Document) -> tuple[CheckResult, SupportVerdict]:
        verdict = self._judge(claim, span, document)
        if verdict.supported:
            unsupported = self._unsupported_sentence(claim, span, document)
            if unsupported is not None:
                verdict = verdict.model_copy(update={"supported": False, "sentences": (), "detail": unsupported})
        return CheckResult(name="claim_supported", passed=verdict.supported, detail=verdict.detail), verdict

    def _unsupported_sentence(self, claim: str, span: str, document: Document) -> str | None:
        """A claim of several sentences (text before one marker) stands only if each of them does: a wrong sentence
        must not ride on a right one's words ("Breakfast is free. The lodging limit is 750 yuan. [travel-v2:1-3]").
        None when each is supported, or the claim is a verbatim copy of the span (a quote of several sentences)."""
        if strip_edges(normalize(claim)) in normalize(span):
            return None
        sentences = [claim[start:end] for start, end in sentence_spans(claim) if has_text(claim[start:end])]
        if len(sentences) < 2:
            return None
        for number, sentence in enumerate(sentences, 1):
            verdict = self._judge(sentence, span, document)
            if not verdict.supported:
                return f"sentence {number} of {len(sentences)}, {sentence!r}, is not supported: {verdict.detail}"
        return None

    def check(self, citation: ProposedCitation, claim: str, documents: dict[str, Document], request: Request) -> CitationCheck:
        results: list[CheckResult] = []
        document = documents.get(citation.source_id)
        if document is None:
            results.append(CheckResult(name="source_exists", passed=False, detail=f"no readable source {citation.source_id!r}"))
            return CitationCheck(citation=citation, claim=claim, checks=tuple(results))
        version = f"version {document.meta.version}" if document.meta.version else "(no version)"
        results.append(CheckResult(name="source_exists", passed=True, detail=f"{citation.source_id} {version}"))
        reasons = ineligibility(document, request)
        results.append(CheckResult(name="source_eligible", passed=not reasons, detail="; ".join(reasons) or "valid and on topic"))
        span = document.span_text(citation.page, citation.start_line, citation.end_line)
        if span is None:
            page = document.page_for(citation.page)
            where = f"page {citation.page}" if document.paged else "the body"
            count = len(page.lines) if page is not None else 0
            results.append(CheckResult(
                name="lines_exist", passed=False,
                detail=f"lines {citation.start_line}-{citation.end_line} of {where} do not exist ({count} lines)",
            ))
            return CitationCheck(citation=citation, claim=claim, checks=tuple(results))
        results.append(CheckResult(name="lines_exist", passed=True))
        results.append(_quote_check(citation, span))
        support, verdict = self._support(claim, span, document)
        results.append(support)
        missing_numbers = numbers_missing(claim, span)
        results.append(CheckResult(
            name="numbers_match", passed=not missing_numbers,
            detail=f"not in the span: {', '.join(missing_numbers)}" if missing_numbers else "every number appears in the span",
        ))
        names = f"{document_names(document)} {(document.meta.authority or '').replace('-', ' ')}"
        results.append(_names_check(claim, f"{names}\n{span}"))
        results.append(_support_span_check(document, citation))
        # Only a verified citation names its supporting sentences: a highlight must never say "supports" for a
        # citation that a deterministic check dropped (e.g. the judge agreed but a number differs).
        verified = all(result.passed for result in results)
        sentences = supporting_sentences(document.page_for(citation.page), citation.start_line, verdict.sentences) \
            if verified else ()
        return CitationCheck(citation=citation, claim=claim, checks=tuple(results), support=sentences,
                             judge_call=verdict.call)


def supporting_sentences(page: Page, start_line: int, spans) -> tuple[SupportSentence, ...]:
    """The judge's sentence spans (code points within the cited span) as page addresses: lines and offsets."""
    base = page.lines[start_line - 1].start
    starts = [line.start for line in page.lines]
    found = []
    for start, end in spans:
        text = page.text[base + start : base + end]
        lead = len(text) - len(text.lstrip())
        start, end = base + start + lead, base + start + len(text.rstrip())
        if end <= start:
            continue
        first, last = bisect_right(starts, start), bisect_right(starts, end - 1)
        found.append(SupportSentence(start_line=first, end_line=last, start=start, end=end, text=page.text[start:end]))
    return tuple(found)


def _quote_check(citation: ProposedCitation, span: str) -> CheckResult:
    if citation.quote is None:
        return CheckResult(name="quote_exact", passed=True, detail="no quote given; the cited lines are quoted")
    exact = citation.quote in span or " ".join(citation.quote.split()) in " ".join(span.split())
    return CheckResult(name="quote_exact", passed=exact,
                       detail="an exact copy of the cited lines" if exact else "the quote is not in the cited lines")


_LATIN_LETTER = re.compile(r"[A-Za-z]")


def _names_check(claim: str, source: str) -> CheckResult:
    """A place or name the claim states must be in what it cites: "In Guangzhou the allowance is 180 yuan" citing
    "180 yuan per day in Beijing and Shanghai" is not supported, however close the words. Names are compared
    within one script: an English claim's "Beijing" is not looked for in a Chinese span's 北京."""
    han, latin = han_count(source), len(_LATIN_LETTER.findall(source))
    missing = [name for name in (unmentioned_names(proper_names(claim), source) if latin >= han else [])
               if not _abbreviation_in(defined_abbreviation(claim, name), source)]
    if han:
        missing += [place for place in chinese_place_names(claim) if place not in source]
    return CheckResult(name="names_match", passed=not missing,
                       detail=f"not in the span: {', '.join(missing)}" if missing else "every name appears in the span")


def _abbreviation_in(abbreviation: str | None, source: str) -> bool:
    """A name the claim abbreviates ("Apolipoprotein E4 (APOE4)") is cited when the source uses the abbreviation."""
    return bool(abbreviation) and not unmentioned_names([abbreviation], source)  # "APOE4" is cited by "APOE"


def _support_span_check(document: Document, citation: ProposedCitation) -> CheckResult:
    page = citation.page if document.paged else None
    for card in document.meta.cards:
        if card.page != page:
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


def verify(proposal: Proposal, documents: dict[str, Document], request: Request, verifier: Verifier,
           claims: list[Claim] | None = None) -> list[CitationCheck]:
    """Check every citation of `proposal` against `documents` (the requester-readable ones)."""
    checks: list[CitationCheck] = []
    for claim in claims if claims is not None else split_claims(proposal):
        for index in claim.citations:
            checks.append(verifier.check(proposal.citations[index], strip_markers(claim.text), documents, request))
    return checks


def abstention_for(failed: list[CitationCheck]) -> str:
    """The reason code a set of failed citations justifies, most fundamental first."""
    names = {name for check in failed for name in check.failed_checks}
    if names & {"source_exists", "source_eligible"}:
        return "ineligible_citation"
    if "support_span_covered" in names:
        return "incomplete_source"
    return "unsupported_claim"


def claims_without_support(proposal: Proposal, checks: list[CitationCheck],
                           claims: list[Claim] | None = None) -> tuple[list[str], list[CitationCheck]]:
    """Claims that keep no verified citation, and the failed checks behind them."""
    unsupported, failures = [], []
    cursor = 0
    for claim in claims if claims is not None else split_claims(proposal):
        own = checks[cursor : cursor + len(claim.citations)]
        cursor += len(claim.citations)
        if not any(check.verified for check in own):
            unsupported.append(claim.text)
            failures.extend(check for check in own if not check.verified)
    return unsupported, failures
