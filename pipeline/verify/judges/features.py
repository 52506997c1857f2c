"""What the learned support judge looks at, for one claim against one sentence of a cited span.

Every feature is cheap and language-neutral where it can be: token coverage both ways (the
project's tokenizer: English stems, Chinese words), character 3-gram containment (works for
Chinese without word splitting), rapidfuzz ratios, numbers, negation, direction words
(increase/decrease, higher/lower, before/after …, English and Chinese), "no effect" wording,
entity-like tokens, the embedding cosine, and direction moves (lang.direction: what a
direction word moves, so "same thing, other way" is seen within a sentence). Embedding
similarity alone cannot tell "supports" from "contradicts" (SciFact: AUC 0.735), hence the
polarity cues and their products with coverage, which let a linear model say "same words,
opposite direction".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz

from pipeline.core.cache import BoundedCache
from pipeline.core.contracts import SupportVerdict
from pipeline.lang.direction import Move, directions, move_match, moves
from pipeline.lang.forms import ASKS, REPORTS
from pipeline.lang.negation import NEGATED_STATEMENT, NO_EFFECT
from pipeline.lang.instructions import is_instruction
from pipeline.lang.numbers import numbers_missing, stated_numbers
from pipeline.lang.opposites import said_opposite
from pipeline.lang.sentences import sentence_units
from pipeline.lang.text import normalized
from pipeline.lang.tokenize import Tokenizer

FEATURE_NAMES = (
    "cosine", "claim_coverage", "sentence_coverage", "char3_containment", "partial_ratio", "token_set_ratio",
    "claim_numbers_missing", "negation_sentence", "negation_mismatch",
    "direction_agree", "direction_conflict", "polarity_conflict", "null_sentence", "null_mismatch",
    "entity_coverage", "sentence_length", "cosine_x_coverage",
    "coverage_x_direction_conflict", "coverage_x_negation_mismatch", "coverage_x_null_mismatch",
    "cosine_x_direction_conflict", "cosine_x_null_mismatch", "cosine_x_polarity_conflict",
    "sentence_asks", "sentence_reports", "cosine_x_asks", "sentence_is_heading", "flip_margin",
    "move_agree", "move_conflict",
)
# Features of the claim alone are left out on purpose: they would only learn how SciFact's
# annotators wrote false claims (often by negating true ones), not whether a span supports one.

# Gene names, drug codes, abbreviations: a capital or digit after the first character. The two capitals or digits
# are the first two ([a-z]*+, [a-z\-]*+ possessive): with [A-Za-z]* and [A-Za-z0-9\-]* before them, a word with no
# boundary to end at ("AAA…A_") was tried at every choice of the two (cubic: 200 characters took 50 ms).
_ENTITY = re.compile(r"\b[a-z]*+[A-Z0-9][a-z\-]*+[A-Z0-9][A-Za-z0-9\-]*\b|\b[A-Z][a-z]+\b")


def _char3(text: str) -> frozenset[str]:
    squeezed = re.sub(r"[\s\W_]+", "", text)
    if len(squeezed) < 3:
        return frozenset([squeezed]) if squeezed else frozenset()
    return frozenset(squeezed[i : i + 3] for i in range(len(squeezed) - 2))


@dataclass(frozen=True)
class Profile:
    """Everything about one text that features compare; computed once per claim or sentence."""

    text: str
    tokens: frozenset[str]
    char3: frozenset[str]
    numbers: frozenset[str]
    negated: bool
    null_effect: bool
    asks: bool
    reports: bool
    heading: bool
    directions: tuple[tuple[str, int], ...]
    entities: frozenset[str]
    moves: tuple[Move, ...] = ()


PROFILE_CACHE_SIZE = 50_000


class Profiler:
    """Profiles of texts, each computed once and kept in `cache` (a corpus's, or the profiler's own)."""

    def __init__(self, tokenizer: Tokenizer | None = None, cache: BoundedCache | None = None):
        self.tokenizer = tokenizer or Tokenizer()
        self.cache = cache if cache is not None else BoundedCache(PROFILE_CACHE_SIZE)

    def profile(self, text: str) -> Profile:
        return self.cache.get((self.tokenizer.name, text), lambda: self._profile(text))

    def _profile(self, text: str) -> Profile:
        flat = normalized(text)
        entities = frozenset(e.casefold() for e in _ENTITY.findall(text) if not _starts_sentence(text, e))
        return Profile(
            text=flat, tokens=frozenset(self.tokenizer.tokens(text)), char3=_char3(flat),
            numbers=frozenset(stated_numbers(text)), negated=bool(NEGATED_STATEMENT.search(flat)),
            null_effect=bool(NO_EFFECT.search(flat)), asks=bool(ASKS.search(flat)),
            reports=bool(REPORTS.search(flat)), heading=not flat.rstrip("\"')”’)]").endswith((".", "!", "。", "！", ";", "；")),
            directions=tuple(sorted(directions(flat).items())),
            entities=entities, moves=moves(flat),
        )


def _starts_sentence(text: str, word: str) -> bool:
    """A capitalised first word is not an entity (unless it has inner capitals or digits)."""
    return text.lstrip().startswith(word) and word[1:].islower()


def _share(part: frozenset, whole: frozenset) -> float:
    return len(part & whole) / len(part) if part else 0.0


def features(claim: Profile, sentence: Profile, cosine: float, flip_margin: float) -> np.ndarray:
    """`flip_margin`: the sentence's cosine to the claim minus its cosine to the claim's opposite (flipped())."""
    coverage = _share(claim.tokens, sentence.tokens)
    negation_mismatch = float(claim.negated != sentence.negated)
    null_mismatch = float(sentence.null_effect and not claim.null_effect or claim.null_effect and not sentence.null_effect)
    claim_dirs, sentence_dirs = dict(claim.directions), dict(sentence.directions)
    products = [claim_dirs[a] * sentence_dirs[a] for a in claim_dirs]
    agree, conflict = float(any(p > 0 for p in products)), float(any(p < 0 for p in products))
    missing_numbers = len(claim.numbers - sentence.numbers) / len(claim.numbers) if claim.numbers else 0.0
    # "did not increase" points down: the amount direction, flipped by a negation in the same text.
    claim_polarity = claim_dirs["amount"] * (-1 if claim.negated else 1)
    sentence_polarity = sentence_dirs["amount"] * (-1 if sentence.negated else 1)
    polarity_conflict = float(claim_polarity * sentence_polarity < 0)
    row = [
        cosine, coverage, _share(sentence.tokens, claim.tokens), _share(claim.char3, sentence.char3),
        fuzz.partial_ratio(claim.text, sentence.text) / 100, fuzz.token_set_ratio(claim.text, sentence.text) / 100,
        missing_numbers, float(sentence.negated), negation_mismatch,
        agree, conflict, polarity_conflict, float(sentence.null_effect), null_mismatch,
        _share(claim.entities, sentence.entities), np.log1p(len(sentence.tokens)) / 4, cosine * coverage,
        coverage * conflict, coverage * negation_mismatch, coverage * null_mismatch,
        cosine * conflict, cosine * null_mismatch, cosine * polarity_conflict,
        float(sentence.asks), float(sentence.reports), cosine * float(sentence.asks), float(sentence.heading),
        flip_margin, *move_match(claim.moves, sentence.moves),
    ]
    return np.asarray(row, dtype=np.float64)


def containing_run(claim_n: str, span: str, units: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The shortest run of consecutive units whose text contains the claim verbatim (PDF sentences cross lines)."""
    if not claim_n:
        return ()
    for length in range(1, len(units) + 1):
        for first in range(len(units) - length + 1):
            run = units[first : first + length]
            if claim_n in normalized("\n".join(span[s:e] for s, e in run)):  # a line break: a hyphenated word joins
                return tuple(run)
        if length >= 4:  # a claim longer than four pieces is judged by the model
            break
    return ()


# --------------------------------------------------------------------------- pair level
# The decision is made per (claim, span): the features of the sentence the selector picked,
# plus how the claim relates to the span as a whole.
_CUES = ("negation_mismatch", "direction_conflict", "polarity_conflict", "null_mismatch", "move_conflict")
PAIR_FEATURE_NAMES = (
    *(f"best_{name}" for name in FEATURE_NAMES),
    "max_cosine", "top2_cosine", "cosine_above_median", "max_claim_coverage", "span_claim_coverage",
    "selector_confidence", *(f"top2_any_{cue}" for cue in _CUES), "selector_weighted_flip_margin",
)
_COLUMN = {name: index for index, name in enumerate(FEATURE_NAMES)}


def pair_features(matrix: np.ndarray, selector_logits: np.ndarray, span_claim_coverage: float) -> tuple[np.ndarray, int]:
    """Pair features from the sentence feature rows and the selector's logits; returns (row, best sentence)."""
    order = np.argsort(-selector_logits, kind="stable")
    best = int(order[0])
    weights = np.exp(selector_logits - selector_logits.max())
    weights /= weights.sum()
    cosines = np.sort(matrix[:, _COLUMN["cosine"]])[::-1]
    top2 = matrix[order[:2]]
    row = np.concatenate([
        matrix[best],
        [cosines[0], cosines[:2].mean(), cosines[0] - np.median(cosines), matrix[:, _COLUMN["claim_coverage"]].max(),
         span_claim_coverage, weights.max()],
        [top2[:, _COLUMN[cue]].max() for cue in _CUES],
        # the flip margin averaged under the selector's softmax: a wrong pick does not decide the polarity alone
        # (out of fold: false-verification rate at recall 0.66-0.74 0.233 -> 0.222)
        [weights @ matrix[:, _COLUMN["flip_margin"]]],
    ])
    return row, best


# The selector also sees where a sentence stands among the others: abstracts state findings
# late, and evidence sits next to other sentences close to the claim. Out of fold on SciFact
# training claims these lifted "the picked sentence is a gold rationale" from 0.67 to 0.73. How far
# a sentence stands above its own span's typical sentence (z-scores within the span) lifted it
# again, from 0.735 to 0.750 (mean of five fold assignments).
_STANDARDISED = ("cosine", "flip_margin", "claim_coverage", "char3_containment", "partial_ratio")
SELECTOR_CONTEXT_NAMES = ("position", "is_last", "is_top_cosine", "neighbour_cosine", "coverage_below_best",
                          *(f"{name}_in_span" for name in _STANDARDISED))
SELECTOR_FEATURE_NAMES = FEATURE_NAMES + SELECTOR_CONTEXT_NAMES


def selector_matrix(matrix: np.ndarray) -> np.ndarray:
    """The sentence feature rows of one span, with each sentence's place among the others appended."""
    count = len(matrix)
    cosines, coverage = matrix[:, _COLUMN["cosine"]], matrix[:, _COLUMN["claim_coverage"]]
    neighbours = np.maximum(np.r_[0.0, cosines[:-1]], np.r_[cosines[1:], 0.0])
    columns = matrix[:, [_COLUMN[name] for name in _STANDARDISED]]
    standardised = (columns - columns.mean(axis=0)) / (columns.std(axis=0) + 1e-6)
    context = np.column_stack([np.arange(count) / max(count - 1, 1), np.arange(count) == count - 1,
                               cosines == cosines.max(), neighbours, coverage - coverage.max(), standardised])
    return np.hstack([matrix, context.astype(np.float64)])


def span_claim_coverage(claim: Profile, sentences: list[Profile]) -> float:
    return _share(claim.tokens, frozenset().union(*(s.tokens for s in sentences))) if sentences else 0.0




CLAIM_EDGES = " \t\n.,;:!?。，；：！？\"'"


def prechecked(claim: str, span: str):
    """The checks every offline judge makes before its model: (the verdict they reach, or None; the span's
    sentences that are not instructions to a model; a note on the ones dropped). No text, no usable sentence, a
    number or quantity the span does not state, a word it says the opposite of: refused; the claim word for word
    in the span: supported."""

    if not claim.strip(CLAIM_EDGES):
        return SupportVerdict(supported=False, score=None, detail="the answer has no text for this citation"), [], ""
    units = sentence_units(span)
    kept = [(start, end) for start, end in units if not is_instruction(span[start:end])]
    skipped = len(units) - len(kept)
    note = f"; {skipped} instruction-like sentence(s) ignored" if skipped else ""
    if not kept:
        return SupportVerdict(supported=False, score=0.0, detail="no sentence of the span can support a claim" + note), kept, note
    kept_text = "\n".join(span[s:e] for s, e in kept)
    if missing := numbers_missing(claim, kept_text):
        return SupportVerdict(supported=False, score=0.0,
                              detail=f"the span does not state {', '.join(missing[:5])}" + note), kept, note
    if opposite := said_opposite(claim, kept_text):
        return SupportVerdict(supported=False, score=0.0,
                              detail=f"the span says {opposite[1]!r} where the claim says {opposite[0]!r}" + note), kept, note
    if containing := containing_run(normalized(claim).strip(CLAIM_EDGES), span, kept):
        return SupportVerdict(supported=True, score=1.0, detail="contained in the cited span" + note,
                              sentences=containing), kept, note
    return None, kept, note
