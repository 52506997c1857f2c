"""Generate: packed context → a proposed answer with citations (not yet trusted).

A generator is anything with a `name` that maps a `Context` to a `Proposal` (the `Generator`
protocol in `pipeline.interfaces`). The default, `local-extractive-v1`, is an exact-source
extractive composer (seed 000, §45.4): it copies the packed evidence that best answers the
question, the whole span for an annotated support span, otherwise the sentence (with the lines
it sits on), and cites it. It abstains when no sentence covers enough of the question.
Disagreeing sibling sources are the engine's conflict step (`pipeline.conflicts`), which judges
every producer's proposal alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .citations import marker
from .contracts import Context, PackedSource, Proposal, ProposedCitation, Settings
from .tokenize import Tokenizer, has_cjk, is_cjk_char, numbers_in

PRODUCER = "local-extractive-v1"
# Chosen on SQuAD 2.0's public half (README, Results): accuracy 0.517 at 0.6 → 0.557 at 0.7
# (the maximum, 0.577, lies at 0.85-0.9, but a seed scenario's answer covers 0.72 of its question).
DEFAULT_MIN_SUPPORT = Settings().min_support
_CJK_SENTENCE = re.compile(r"[^。！？；!?]*[。！？；!?]+|[^。！？；!?]+$")
_NUMBER_QUESTION = re.compile(
    r"\b(?:how (?:many|much|long|old|far)|what (?:time|year|date|percentage|amount)|when|which year)\b"
    r"|多少|几|何时|哪一年|什么时候",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Unit:
    """A candidate piece of evidence: exact text and the lines it sits on."""

    source: PackedSource
    start_line: int
    end_line: int
    quote: str

    def marker(self) -> str:
        return marker(self.source.source_id, self.source.page, self.start_line, self.end_line)


def join_lines(quote: str) -> str:
    """A quote as one answer sentence: lines joined by a space (none between Chinese lines)."""
    lines = [line.strip() for line in quote.split("\n") if line.strip()]
    joined = lines[0] if lines else ""
    for line in lines[1:]:
        gap = "" if is_cjk_char(joined[-1]) or is_cjk_char(line[0]) else " "
        joined = f"{joined}{gap}{line}"
    return joined


@lru_cache(maxsize=2)
def _segmenter(language: str):
    import pysbd

    return pysbd.Segmenter(language=language, clean=False, char_span=True)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries as code-point spans (pysbd for English, punctuation for Chinese)."""
    if has_cjk(text):
        spans = [(m.start(), m.end()) for m in _CJK_SENTENCE.finditer(text)]
    else:
        spans = [(s.start, s.end) for s in _segmenter("en").segment(text)]
    trimmed = []
    for start, end in spans:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            trimmed.append((start, end))
    return trimmed


def units_of(source: PackedSource) -> list[Unit]:
    """The whole span for an annotated support span; otherwise sentences.

    Text documents split at line breaks first (a line is a paragraph or a list item); PDF
    lines are visual lines, so their sentences may run across lines.
    """
    if source.support_span:
        quote = "\n".join(line.text for line in source.lines)
        return [Unit(source, source.start_line, source.end_line, quote)]
    blocks = [[line] for line in source.lines] if source.page is None else [list(source.lines)]
    units = []
    for block in blocks:
        text, starts = "", []
        for line in block:
            starts.append(len(text) + (1 if text else 0))
            text = f"{text}\n{line.text}" if text else line.text
        # Split on the text with line breaks as spaces (a PDF line break is not a sentence end),
        # then quote the exact text, line breaks included: the offsets are the same.
        for start, end in sentence_spans(text.replace("\n", " ")):
            touched = [line.number for line, s in zip(block, starts) if s < end and s + len(line.text) > start]
            if touched:
                units.append(Unit(source, touched[0], touched[-1], text[start:end]))
    return units


class LocalExtractive:
    """The default producer: exact copies of packed evidence, cited; no model involved."""

    name = PRODUCER

    def __init__(self, tokenizer: Tokenizer | None = None, min_support: float = DEFAULT_MIN_SUPPORT):
        self.tokenizer = tokenizer or Tokenizer()
        self.min_support = min_support

    def _score(self, unit: Unit, weights: dict[str, float], wants_number: bool) -> tuple[float, frozenset[str]]:
        tokens = set(self.tokenizer.tokens(unit.quote))
        matched = frozenset(t for t in weights if t in tokens)
        total = sum(weights.values()) or 1.0
        coverage = sum(weights[t] for t in matched) / total
        if wants_number and numbers_in(unit.quote):
            coverage += 0.05  # a "how much / when" question is answered by a sentence with a number
        return coverage, matched

    def __call__(self, context: Context) -> Proposal:
        weights = context.term_weights or {t: 1.0 for t in self.tokenizer.query_tokens(context.question)}
        if not context.sources or not weights:
            return Proposal(producer=self.name, abstain_reason="insufficient_evidence", note="nothing to compose from")
        wants_number = bool(_NUMBER_QUESTION.search(context.question))
        scored = []
        for source in context.sources:
            for unit in units_of(source):
                coverage, _ = self._score(unit, weights, wants_number)
                scored.append((coverage, -len(unit.quote), unit))
        scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
        best_score, _, best = scored[0]
        if best_score < self.min_support:
            return Proposal(
                producer=self.name, abstain_reason="insufficient_evidence", score=round(best_score, 4),
                note=f"no packed sentence covers enough of the question (best {best_score:.2f} < {self.min_support})",
            )
        claim = join_lines(best.quote)
        return Proposal(
            producer=self.name,
            answer=f"{claim} {best.marker()}",
            citations=[
                ProposedCitation(
                    source_id=best.source.source_id, page=best.source.page,
                    start_line=best.start_line, end_line=best.end_line, quote=best.quote,
                )
            ],
            score=round(best_score, 4),
            note=f"best evidence covers {best_score:.2f} of the question's weighted terms",
        )
