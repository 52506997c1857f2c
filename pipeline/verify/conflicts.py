"""Conflict: sibling sources that disagree about what an answer claims (seed 000, §45.5).

An engine step, run on every producer's proposal (the extractive composer, a language model, a
pasted answer) before it is accepted: for each cited source, its siblings — readable, eligible
documents with the same topic, authority, start date and language — are searched for the unit
(an annotated support span, or a sentence) that speaks about the same terms. If that unit and the
cited evidence disagree on their numbers or their negation, ranking cannot decide which policy
holds, and the request abstains with `conflicting_evidence`, whichever of the two was cited.

Undated siblings with different `updated` dates are versions, not a conflict: the newest wins
(retrieval marks the older one superseded).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.core.citations import Claim, marker
from pipeline.core.contracts import Abstention, Document, EvidenceSpan, Proposal, Request
from pipeline.core.policy import ineligibility, sibling_key, versions_of_each_other
from pipeline.lang.numbers import stated_numbers
from pipeline.lang.sentences import sentence_spans
from pipeline.lang.tokenize import Tokenizer

# Disagreement cues; "prohibited"/"forbidden" count here (a rule and its ban are a conflict).
_NEGATION = re.compile(r"\b(?:not|no|never|none|without|prohibited|forbidden)\b|不|没有|禁止|无", re.IGNORECASE)
# A sibling unit speaks about the same thing when it holds this share of the claim's and the
# question's terms (and exactly the same ones as the cited evidence).
MIN_SHARED_TERMS = 0.6


@dataclass(frozen=True)
class _Unit:
    document: Document
    page: int | None
    start_line: int
    end_line: int
    text: str

    def label(self) -> str:
        return f"{self.document.source_id} {marker(self.document.source_id, self.page, self.start_line, self.end_line)}"

    def evidence(self) -> EvidenceSpan:
        return EvidenceSpan(source_id=self.document.source_id, version=self.document.meta.version, page=self.page,
                            start_line=self.start_line, end_line=self.end_line, text=self.text)


def _units(document: Document, page_number: int | None = None, lines: range | None = None) -> Iterable[_Unit]:
    """Annotated support spans whole, and sentences elsewhere (optionally only within `lines` of one page)."""
    covered: set[tuple[int | None, int]] = set()
    for card in document.meta.cards:
        span = range(card.start_line, card.end_line + 1)
        if lines is not None and (card.page != page_number or not set(span) & set(lines)):
            continue
        covered.update((card.page, n) for n in span)
        text = document.span_text(card.page, card.start_line, card.end_line)
        if text is not None:
            yield _Unit(document, card.page, card.start_line, card.end_line, text)
    for page in document.pages:
        if lines is not None and page.number != page_number:
            continue
        chosen = [line for line in page.lines if (lines is None or line.number in lines)
                  and (page.number, line.number) not in covered and line.text.strip()]
        for block in _blocks(chosen, paged=document.paged):
            text = page.text[block[0].start : block[-1].end]
            for start, end in sentence_spans(text.replace("\n", " ")):
                absolute_start, absolute_end = block[0].start + start, block[0].start + end
                touched = [ln.number for ln in block if ln.start < absolute_end and ln.end > absolute_start]
                if touched:
                    yield _Unit(document, page.number, touched[0], touched[-1], text[start:end])


def _blocks(lines: list, paged: bool) -> list[list]:
    """Consecutive lines: a text line is a paragraph of its own; PDF sentences run across visual lines."""
    if not paged:
        return [[line] for line in lines]
    blocks: list[list] = []
    for line in lines:
        if blocks and blocks[-1][-1].number == line.number - 1:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return blocks


class ConflictCheck:
    """Finds sibling evidence that disagrees with what a proposal cites."""

    def __init__(self, tokenizer: Tokenizer):
        self.tokenizer = tokenizer

    def _terms(self, text: str) -> set[str]:
        return {t for t in self.tokenizer.tokens(text) if not t[0].isdigit()}

    def _best(self, units: Iterable[_Unit], terms: set[str]) -> tuple[_Unit, frozenset[str]] | None:
        best, best_terms = None, frozenset()
        for unit in units:
            shared = frozenset(terms & self._terms(unit.text))
            if len(shared) > len(best_terms):
                best, best_terms = unit, shared
        if best is None or len(best_terms) < MIN_SHARED_TERMS * len(terms):
            return None
        return best, best_terms

    def __call__(self, proposal: Proposal, claims: list[Claim], documents: dict[str, Document],
                 request: Request) -> Abstention | None:
        """An abstention naming the disagreeing units, or None when no cited source has a disagreeing sibling."""
        question_terms = set(self.tokenizer.query_tokens(request.question)) - {""}
        for claim in claims:
            for index in claim.citations:
                citation = proposal.citations[index]
                cited = documents.get(citation.source_id)
                if cited is None or sibling_key(cited) is None:
                    continue
                terms = (question_terms | self._terms(claim.text))
                terms = {t for t in terms if not t[0].isdigit()}
                lines = range(citation.start_line, citation.end_line + 1)
                found = self._best(_units(cited, citation.page if cited.paged else None, lines), terms) if terms else None
                if found is None:
                    continue
                disagreement = self._disagreement(found, terms, _siblings(cited, documents, request))
                if disagreement is not None:
                    detail, other = disagreement
                    return Abstention(reason_code="conflicting_evidence", stage="conflict", detail=detail,
                                      evidence=(found[0].evidence(), other.evidence()))
        return None

    def _disagreement(self, cited: tuple[_Unit, frozenset[str]], terms: set[str],
                      siblings: list[Document]) -> tuple[str, _Unit] | None:
        unit, unit_terms = cited
        for sibling in siblings:
            found = self._best(_units(sibling), terms)
            if found is None or found[1] != unit_terms:
                continue
            other = found[0]
            numbers_differ = sorted(stated_numbers(other.text)) != sorted(stated_numbers(unit.text))
            negation_differs = bool(_NEGATION.search(other.text)) != bool(_NEGATION.search(unit.text))
            if numbers_differ or negation_differs:
                what = "numbers" if numbers_differ else "negation"
                return (f"{unit.label()} and {other.label()} have the same topic, authority and start date but "
                        f"disagree ({what}): {' '.join(unit.text.split())!r} vs {' '.join(other.text.split())!r}"), other
        return None


def _siblings(cited: Document, documents: dict[str, Document], request: Request) -> list[Document]:
    """Readable, eligible documents of the same sibling group that are not just older or newer versions."""
    key = sibling_key(cited)
    out = []
    for document in documents.values():
        if document.source_id == cited.source_id or sibling_key(document) != key or ineligibility(document, request):
            continue
        if versions_of_each_other(cited, document):
            continue
        out.append(document)
    return out


