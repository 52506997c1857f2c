"""Conflict: sibling sources that disagree about what an answer claims (seed 000, §45.5).

An engine step, run on every producer's proposal (the extractive composer, a language model, a
pasted answer) before it is accepted: for each cited source, its siblings — readable, eligible
documents with the same topic, authority, start date and language — are searched for the unit
(an annotated support span, or a statement as the composer reads it: a sentence, a list item, a
table row) that speaks about the same terms. If that unit and the
cited evidence disagree on their numbers or their negation, ranking cannot decide which policy
holds, and the request abstains with `conflicting_evidence`, whichever of the two was cited.

Undated siblings with different `updated` dates are versions, not a conflict: the newest wins
(retrieval marks the older one superseded).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.core.citations import Claim, marker
from pipeline.core.contracts import Abstention, Document, EvidenceSpan, PackedLine, PackedSource, Proposal, Request
from pipeline.core.policy import conflicting_siblings, sibling_key
from pipeline.lang.negation import SAYS_NO
from pipeline.lang.numbers import stated_numbers
from pipeline.lang.tokenize import Tokenizer
from pipeline.text.units import units_of

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


# The units a policy's statements are compared in: what the composer quotes (text.units), not its composites (a
# list with its introduction) nor what states nothing (a table's header row, a heading alone).
_STATEMENTS = ("sentence", "item", "row")


def _units(document: Document, page_number: int | None = None, lines: range | None = None) -> Iterable[_Unit]:
    """Annotated support spans whole, and elsewhere the units the composer reads (optionally only within `lines`
    of one page): one way of cutting a policy into statements, whichever check reads it."""
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
        chosen = [line for line in page.lines if lines is None or line.number in lines]
        if not chosen:
            continue
        # A line a card covers is left blank: it ends the statement before it, and is read whole as the card.
        packed = tuple(PackedLine(number=line.number, text="" if (page.number, line.number) in covered else line.text,
                                  furniture=line.number in page.furniture) for line in chosen)
        source = PackedSource(n=1, source_id=document.source_id, version=document.meta.version, page=page.number,
                              start_line=chosen[0].number, end_line=chosen[-1].number, support_span=False, dated="",
                              sibling_group="", lines=packed)
        for unit in units_of(source):
            if unit.kind in _STATEMENTS and not unit.names_columns:
                yield _Unit(document, page.number, unit.start_line, unit.end_line, unit.quote)


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
                disagreement = self._disagreement(found, terms, conflicting_siblings(cited, documents, request))
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
            negation_differs = bool(SAYS_NO.search(other.text)) != bool(SAYS_NO.search(unit.text))
            if numbers_differ or negation_differs:
                what = "numbers" if numbers_differ else "negation"
                return (f"{unit.label()} and {other.label()} have the same topic, authority and start date but "
                        f"disagree ({what}): {' '.join(unit.text.split())!r} vs {' '.join(other.text.split())!r}"), other
        return None



