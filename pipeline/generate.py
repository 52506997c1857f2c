"""Generate: packed context → a proposed answer with citations (not yet trusted).

A generator is any callable `Context -> Proposal`. The default, `local-extractive-v1`, is an
exact-source extractive composer (seed 000, §45.4): it splits the packed evidence into units
(sentences across wrapped lines, list items, table rows; `units.py`), scores each with a
small learned model of meaning, words and expected answer type (`answer_model.py`), and
copies and cites the best unit — or abstains when the best unit's calibrated probability is
below the threshold (Settings.min_support, by default the model's own). Conflicts between
sibling sources are checked by the engine (conflicts.py), not here.
"""

from __future__ import annotations

import copy
import re
import threading
from dataclasses import replace
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from .abbreviations import expand_tokens
from .about import asks_about_document
from .answer_forms import (ASKS_SEVERAL, compared_row, definition_first, first_defining, rows_best_first, source_text, summary_units,
                           whole_list_first)
from .answer_model import (VALUE_TYPES, AnswerModel, Pair, asks_procedure, defined_term, feature_matrix,
                           found_types, holds_wanted_value, negation_unmatched, new_numerals, shipped_model, states_count, wanted_types)
from .contracts import Context, Proposal, ProposedCitation
from .table_compare import states_extreme, superlative
from .tables import asked_cells, asked_unit, named_row
from .tokenize import Tokenizer, chinese_place_names, english_names, has_cjk, unmentioned_names
from .units import PERSON_PRONOUN, Unit, citation_marker, introduces, join_lines, joined, sentence_spans, units_of  # noqa: F401 (re-exported)

Generator = Callable[[Context], Proposal]
PRODUCER = "local-extractive-v1"
# The calibrated answer probability below which the composer abstains (answer_model.json).
DEFAULT_MIN_SUPPORT = shipped_model().threshold
_UNIT_VECTORS: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_UNIT_VECTOR_LIMIT = 50_000
_UNIT_VECTORS_LOCK = threading.Lock()  # the app answers two questions at once


def chunk_vector_lookup(corpus) -> Callable[[str], np.ndarray | None]:
    """A unit whose text is a whole chunk's text reuses the vector computed at index time."""
    # Built once per corpus and kept on it (a corpus's chunks never change).
    rows = getattr(corpus, "_chunk_rows_by_text", None)
    if rows is None:
        rows = {chunk.text: row for row, chunk in enumerate(corpus.chunks)}
        object.__setattr__(corpus, "_chunk_rows_by_text", rows)

    def lookup(text: str) -> np.ndarray | None:
        row = rows.get(text)
        return None if row is None else corpus.vectors[row]

    return lookup


def unit_vectors(embedder, texts: list[str], known: Callable[[str], np.ndarray | None] | None = None) -> np.ndarray:
    """Unit-length passage vectors: from the index where a unit is a whole chunk, else embedded
    once and cached in memory by (model, exact text)."""
    with _UNIT_VECTORS_LOCK:
        if known is not None:
            for text in texts:
                if (embedder.name, text) not in _UNIT_VECTORS:
                    vector = known(text)
                    if vector is not None:
                        _UNIT_VECTORS[(embedder.name, text)] = vector
        found = {t: _UNIT_VECTORS[(embedder.name, t)] for t in texts if (embedder.name, t) in _UNIT_VECTORS}
    missing = [t for t in dict.fromkeys(texts) if t not in found]
    if missing:
        vectors = np.asarray(embedder.embed_passages(missing), dtype=np.float32)
        fresh = {t: v / max(float(np.linalg.norm(v)), 1e-12) for t, v in zip(missing, vectors)}
        found.update(fresh)
        with _UNIT_VECTORS_LOCK:
            _UNIT_VECTORS.update(((embedder.name, t), v) for t, v in fresh.items())
            while len(_UNIT_VECTORS) > _UNIT_VECTOR_LIMIT:
                _UNIT_VECTORS.popitem(last=False)
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


def candidate_pairs(context: Context, tokenizer: Tokenizer, embedder, prefilter: int, known=None):
    """The units worth scoring by meaning, their raw (question, unit) pairs, lexical coverage and matched terms."""
    weights = context.term_weights or {t: 1.0 for t in tokenizer.query_tokens(context.question)}
    total = sum(weights.values()) or 1.0
    question_terms = set(tokenizer.tokens(context.question))
    wanted = wanted_types(context.question)
    procedure = asks_procedure(context.question)
    forms = abbreviation_tokens(context.abbreviations, tokenizer)
    rows = []
    for source in context.sources:
        named = tokenizer.name_tokens(source.names)  # "ferry" in every line of ferry-baggage.md (its topic)
        for unit in units_of(source):
            if unit.kind == "heading" or unit.names_columns or (unit.kind == "code" and not procedure):
                continue  # a heading or a table's header names a topic; a code block answers "how do I …", not "how fast"
            tokens = set(tokenizer.tokens(unit.quote))
            if not tokens - question_terms and "yesno" not in wanted:
                continue  # it only repeats the question ("伊维卡·奥利奇（，；"); a yes/no question's answer may
            label = unit.header or unit.section
            scored_tokens = expand_tokens((tokens | set(tokenizer.tokens(label)) if label else tokens) | named, forms)
            matched = frozenset(t for t in weights if t in scored_tokens or same_word_family(t, scored_tokens))
            lexical = (sum(weights[t] for t in matched) + _compound_credit(weights, matched, unit.quote)) / total
            found = found_types(unit.quote)
            pair = Pair(dense=0.0, lexical=lexical, wanted=wanted, found=found, novel_terms=len(tokens - question_terms),
                        rank=source.n, length=len(unit.quote), row=unit.kind == "row",
                        new_value=new_numerals(context.question, unit.quote),
                        negation_unmatched=negation_unmatched(context.question, unit.quote))
            type_hit = sum(1 for t in wanted if t in found) / len(wanted) if wanted else 0.0
            rows.append((lexical + 0.25 * type_hit + 0.1 / source.n, pair, unit, matched))
    if not rows:
        return [], [], [], []
    # Words and type choose the units worth embedding; meaning then decides among them.
    rows.sort(key=lambda row: row[0], reverse=True)
    rows = rows[:prefilter]
    query = embedder.embed_query(context.question)
    query = query / max(float(np.linalg.norm(query)), 1e-12)
    texts = [_scored_text(unit) for _, _, unit, _ in rows]
    dense = unit_vectors(embedder, texts, known) @ query
    pairs = [replace(p, dense=float(d)) for d, (_, p, _, _) in zip(dense, rows)]
    return [r[2] for r in rows], pairs, [r[1].lexical for r in rows], [r[3] for r in rows]


def unit_features(context: Context, tokenizer: Tokenizer, embedder, prefilter: int, known=None):
    """The units worth scoring by meaning, their feature rows, lexical coverage and matched terms."""
    units, pairs, lexical, matched = candidate_pairs(context, tokenizer, embedder, prefilter, known)
    return units, feature_matrix(pairs), lexical, matched


def _scored_text(unit: Unit) -> str:
    """What the meaning score reads: the unit, with a row's header or an item's section heading."""
    if unit.section:
        return f"{unit.section}: {join_lines(unit.quote)}"
    return join_lines(unit.quote) + (f"\n{unit.header}" if unit.header else "")


def scored_units(context: Context, tokenizer: Tokenizer, embedder, model: AnswerModel,
                 known=None) -> list[tuple[float, Unit, float, frozenset[str]]]:
    """(probability, unit, lexical coverage, matched terms) for the units scored by meaning, best first."""
    units, features, lexical, matched = unit_features(context, tokenizer, embedder, model.prefilter, known)
    if not units:
        return []
    probabilities = model.probability(features)
    out = [(float(p), u, c, m) for p, u, c, m in zip(probabilities, units, lexical, matched)]
    out.sort(key=lambda row: (row[0], -len(row[1].quote)), reverse=True)
    return out


VALUE_NEIGHBOURS = 2  # how many following units may hold the value the best unit lacks


def with_value(best: Unit, question: str) -> Unit:
    """The best unit, extended to a following unit of its source that holds the value it lacks.

    A question asking how much or when is often answered by a sentence that names the thing with
    the amount in the next one ("… receive a daily meal allowance. It is paid … The allowance is
    180 yuan per day"): the scorer picks the naming sentence, the answer then runs to the value.
    """
    wanted = [t for t in wanted_types(question) if t in VALUE_TYPES]
    if (not wanted or best.kind in ("row", "code", "list", "span") or new_numerals(question, best.quote)
            or states_count(question, best.quote)):
        return best
    units = units_of(best.source)
    position = next((i for i, u in enumerate(units) if u.start_line == best.start_line and u.quote == best.quote), None)
    if position is None:
        return best
    for unit in units[position + 1 : position + 1 + VALUE_NEIGHBOURS]:
        if unit.kind == "row" or unit.end_line < best.end_line:
            break
        if new_numerals(question, unit.quote) and any(t in found_types(unit.quote) for t in wanted):
            return joined(best, unit)
    return best


# "操场的种类大约分成两种。", "There are three kinds of pass.": a sentence that counts the kinds it is about to name.
_COUNTS_KINDS = re.compile(r"(?:分为|分成|分作|有|包括)[约大]*[一二两三四五六七八九十几\d]+(?:种|类|个部分|个方面|部分|方面)[。.]?\s*$"
                           r"|\b(?:two|three|four|five|six|several|\d+)\s+(?:\w+\s+)?(?:kinds|types|categories|classes|groups|ways|forms)"
                           r"\b[^.]{0,40}\.\s*$", re.IGNORECASE)


def with_antecedent(best: Unit, question: str) -> Unit:
    """A who-question's answer that opens with a pronoun ("He appointed … and made Ralph the Timid earl") runs back
    over the sentence before it, which says who ("Edward the Confessor …") — the pair is a unit of its own."""
    if "who" not in wanted_types(question) or best.kind != "sentence" or not PERSON_PRONOUN.match(best.quote.lstrip()):
        return best
    pair = [u for u in units_of(best.source) if u.kind == "sentence" and u.end_line == best.end_line
            and u.start_line <= best.start_line and u.quote.endswith(best.quote) and len(u.quote) > len(best.quote)]
    return min(pair, key=lambda u: len(u.quote), default=best)


def with_what_follows(best: Unit, question: str = "") -> Unit:
    """A unit that announces a list or a command ("中文句子使用全角标点，例如：") answers together with it; asked for
    several things, a sentence that only counts them ("操场的种类大约分成两种。") answers with the next sentence, which
    names them ("一种位于室内，一种位于室外。")."""
    if introduces(best):
        following = [u for u in units_of(best.source) if u.kind in ("list", "code") and u.start_line == best.start_line
                     and u.end_line > best.end_line and u.quote.startswith(best.quote)]
        return max(following, key=lambda u: u.end_line, default=best)
    if best.kind != "sentence" or not ASKS_SEVERAL.search(question) or not _COUNTS_KINDS.search(best.quote):
        return best
    units = [u for u in units_of(best.source) if u.kind == "sentence"]
    position = next((i for i, u in enumerate(units) if u.start_line == best.start_line and u.quote == best.quote), None)
    after = units[position + 1] if position is not None and position + 1 < len(units) else None
    if after is None or after.start_line > best.end_line + 1 or after.end_line < best.end_line:
        return best
    return joined(best, after)


class LocalExtractive:
    """The default producer: exact copies of packed evidence, cited; no generative model involved."""

    name = PRODUCER

    def __init__(self, tokenizer: Tokenizer | None = None, min_support: float | None = None, embedder=None,
                 model: AnswerModel | None = None, known_vectors: Callable[[str], np.ndarray | None] | None = None):
        self.tokenizer = tokenizer or Tokenizer()
        self.known_vectors = known_vectors  # e.g. chunk_vector_lookup(corpus): index-time vectors
        self.model = model or shipped_model()
        self.min_support = self.model.threshold if min_support is None else min_support
        if embedder is None:
            from .embed import default_embedder

            embedder = default_embedder()
        self.embedder = embedder

    def for_corpus(self, corpus) -> LocalExtractive:
        """This composer, reusing `corpus`'s index-time vectors for units that are whole chunks."""
        if corpus.embedder.name != self.embedder.name:
            return self
        bound = copy.copy(self)
        bound.known_vectors = chunk_vector_lookup(corpus)
        return bound

    def _none_fits(self, scored: list, why: str) -> Proposal:
        """An abstention: no scored unit passed a check the question needs (`why`); the best one is named."""
        score, best = scored[0][0], scored[0][1]
        return Proposal(producer=self.name, abstain_reason="insufficient_evidence", score=round(score, 4),
                        threshold=self.min_support, best_unit=_shown(best),
                        note=f"{why} (the best unit {best.marker()} scores {score:.2f})")

    def _structural_match(self, context: Context, scored: list) -> tuple[Unit, str] | None:
        """Below the threshold, a unit whose form answers the question's form: a sentence that defines the term a
        "what does X mean?" asks about ('To "convey" a work means …'), or the table row and column it names."""
        question = context.question
        term = defined_term(question)
        # definition_first has already put the unit that defines the term (if any) first
        defining = first_defining(term, scored[:1], context) if term else None
        if defining is not None:
            return defining[1], f"definition: the unit defines {term!r}"
        lookup = named_row(question, rows_best_first(context, scored), self.tokenizer.tokens)
        if lookup is None or not _holds_value(question, lookup[0]):
            return None
        row, key, columns = lookup
        named = f"and the column {' / '.join(columns)!r}" if columns else "of a table of names and values"
        if cells := asked_cells(row, columns):
            named += " (" + "; ".join(f"{name}: {cell}" for name, cell in cells) + ")"
        unit = asked_unit(question)
        if unit and key.casefold() not in question.casefold():
            return row, f"table lookup: the question asks for {unit[0]}s and only the row {key!r} {named} holds a value in {unit[1]}"
        return row, f"table lookup: the question names the row {key!r} {named}"

    def _whole_answer(self, context: Context) -> Proposal | None:
        """An answer the evidence's form gives before any unit is scored: a document's summary for "What is this
        about?", the row a table comparison chose (computed over the whole table; a tie abstains)."""
        if asks_about_document(context.question) and (summary := summary_units(context)) is not None:
            units, how = summary
            return self._answer(units, how, {"score": None, "threshold": self.min_support, "best_unit": _shown(units[0])})
        if (row := compared_row(context)) is None:
            return None
        fields = {"score": None, "threshold": self.min_support, "best_unit": _shown(row)}
        if context.comparison.tied_with:
            return Proposal(producer=self.name, abstain_reason="insufficient_evidence", note=context.comparison.describe(),
                            **fields)
        return self._answer([row], context.comparison.describe(), fields)

    def _gated(self, context: Context, scored: list) -> list | Proposal:
        """The scored units that can answer the question's kind, or the abstention saying none can."""
        # A how-much/when question is answered only by a unit (with the value sentence after it)
        # that holds such a value: the sentence that names the thing is not the answer.
        question = context.question
        typed = [row for row in scored if _holds_value(question, row[1])
                 or _holds_value(question, with_value(row[1], question))]
        if not typed:
            wanted = " or ".join(t for t in wanted_types(question) if t in VALUE_TYPES)
            return self._none_fits(scored, f"the question asks for a {wanted} and no candidate unit holds one")
        # A place or name the question gives must be in the cited source: 上海的住宿限额 was answered with the
        # Beijing policy's limit (the units matched 住宿 and 限额, not 上海), "… in Beijing?" with Shanghai's.
        places, names = chinese_place_names(question), english_names(question)
        texts = {source.n: source_text(source) for source in context.sources} if places or names else {}
        named = [row for row in typed if all(place in texts[row[1].source.n] for place in places)
                 and not unmentioned_names(names, texts[row[1].source.n])] if texts else typed
        if not named:
            return self._none_fits(typed, f"the question names {'、'.join(places + names)} and no candidate unit's "
                                          "source mentions it")
        # "Which action costs the most?" with no table comparison to answer it: only a unit that says which is most
        # ("… is the largest …", "up to $10,505") may answer; a row or a sentence that merely matches the words may not.
        if superlative(question) is None:
            return named
        stating = [row for row in named if states_extreme(row[1].quote)]
        return stating or self._none_fits(named, "the question asks which is the most or the least, no candidate unit "
                                                 "says so and no table comparison was possible")

    def __call__(self, context: Context) -> Proposal:
        if not context.sources:
            return Proposal(producer=self.name, abstain_reason="insufficient_evidence", note="nothing to compose from")
        if (whole := self._whole_answer(context)) is not None:
            return whole
        scored = scored_units(context, self.tokenizer, self.embedder, self.model, self.known_vectors)
        if not scored:
            return Proposal(producer=self.name, abstain_reason="insufficient_evidence", note="no quotable unit in the evidence")
        scored = self._gated(context, scored)
        if isinstance(scored, Proposal):
            return scored
        question = context.question
        scored, moved = definition_first(context, scored)
        scored, moved = whole_list_first(question, scored, self.min_support, moved)
        best_score, best, _, _ = scored[0]
        runner_up = scored[1] if len(scored) > 1 else None
        fields = {
            "score": round(best_score, 4), "threshold": self.min_support,
            "best_unit": _shown(best),
            "runner_up": _shown(runner_up[1]) if runner_up else None,
            "runner_up_score": round(runner_up[0], 4) if runner_up else None,
        }
        if best_score < self.min_support:
            found = self._structural_match(context, scored)
            if found is None:
                return Proposal(
                    producer=self.name, abstain_reason="insufficient_evidence", **fields,
                    note=f"the best unit {best.marker()} scores "
                    f"{best_score:.2f} < threshold {self.min_support:.2f}",
                )
            best, how = found
            how += f" (the scorer's best unit scores {best_score:.2f} < threshold {self.min_support:.2f})"
        else:
            best = with_antecedent(with_value(with_what_follows(best, question), question), question)
            how = f"best {best.kind} scores {best_score:.2f} ≥ threshold {self.min_support:.2f}" + moved
            if best.section and best.section == best.source.continues:
                how += f"; it finishes a sentence begun on the previous page: “{best.section}”"
        return self._answer([best], how, fields)

    def _answer(self, units: list[Unit], how: str, fields: dict) -> Proposal:
        """The proposal quoting each unit, one cited passage after the other (one unit, but for a collection's summaries)."""
        return Proposal(
            producer=self.name,
            # A command or a list keeps its lines: joined into one, a command would not run.
            answer="\n".join(f"{u.quote if u.kind in ('code', 'list') else join_lines(u.quote)} {u.marker()}" for u in units),
            citations=[
                ProposedCitation(source_id=u.source.source_id, page=u.source.page, start_line=u.start_line,
                                 end_line=u.end_line, quote=u.quote)
                for u in units
            ],
            note=how + (f"; table header: {' '.join(units[0].header.split())}" if units[0].header else ""),
            **fields,
        )


def _holds_value(question: str, unit: Unit) -> bool:
    """The value gate for a unit; a table row's currency sits in its header or nowhere ("618.00")."""
    return holds_wanted_value(question, unit.quote, money_asked=False if unit.kind == "row" else None)


def _shown(unit: Unit) -> str:
    """A unit as the trace names it: its marker and its text, cut to 300 characters."""
    return f"{unit.marker()} {join_lines(unit.quote)}"[:300]
