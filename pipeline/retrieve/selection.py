"""Retrieve: question + explicit date/topic/groups → every scored candidate, then a selection.

Order of operations (seed 000 §45.3, seed 001):
1. documents the requester may not read are removed before anything is scored;
2. BM25 and dense scores are computed over the whole readable collection;
3. reciprocal rank fusion (k = 60) merges the two rankings;
4. the minimum score (lexical coverage or dense similarity) refuses weak matches;
5. validity on the request date and the topic are applied before the top-k cut-off
   (or, for the baseline, after it), with the reason kept for every ineligible chunk;
6. after a hit, its siblings (same topic, authority and valid_from) are inspected so parallel
   policies become visible; among undated siblings the newest `updated` supersedes.
Scores stay numpy arrays until the end; only the best `trace_limit` candidates (plus every
selected or superseded one) become trace records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipeline.core.contracts import Candidate, Request, Retrieval, Settings, TableComparison
from pipeline.core.policy import ineligibility, superseded_by
from pipeline.index.corpus import Corpus
from pipeline.ingest.metadata import document_names
from pipeline.lang.document_fields import asked_affiliation, asked_particulars
from pipeline.lang.comparisons import superlative
from pipeline.lang.names import name_words
from pipeline.text.labelled_fields import labels_field
from pipeline.retrieve.fusion import ranks, reciprocal_rank_fusion
from pipeline.retrieve.scores import Scores, score_collection
from pipeline.retrieve.table_compare import compare, document_tables


@dataclass
class _Ranked:
    """Per-scored-row arrays, in fused order."""

    order: np.ndarray  # positions into Scores arrays, best first
    fused: np.ndarray
    bm25_ranks: np.ndarray
    dense_ranks: np.ndarray
    passes: np.ndarray
    eligible: np.ndarray
    source: np.ndarray  # source index per position


def _rank(corpus: Corpus, request: Request, settings: Settings, scores: Scores) -> _Ranked:
    n = len(scores.rows)
    bm25_ranks = ranks(scores.bm25, scores.bm25 > 0)
    has_dense = scores.dense is not None
    dense_ranks = ranks(scores.dense, ~np.isnan(scores.dense)) if has_dense else np.zeros(n, dtype=np.int64)
    rankings = {"bm25": [bm25_ranks], "dense": [dense_ranks], "hybrid": [bm25_ranks, dense_ranks]}
    fused = reciprocal_rank_fusion(rankings[settings.retrieval], settings.rrf_k) if n else np.zeros(0)
    passes = scores.coverage >= settings.min_lexical
    if has_dense:
        passes = passes | (scores.dense >= settings.min_dense)
    for boost in scores.boosts:  # "What is X?", "… on the last page", "What is this about?": a ranking of their own
        fused = fused + boost.votes * boost.values / (settings.rrf_k + 1)
        if boost.passes:
            passes = passes | (boost.values > 0)
    source = corpus.chunk_source[scores.rows]
    eligible = corpus.sources.eligible(request.date, request.topic)[source]
    updated = corpus.sources.updated[source]
    # Fused score first; ties: newer `updated` first, then document order (seed 001).
    order = np.lexsort((np.arange(n), -updated, -fused)) if n else np.zeros(0, dtype=np.int64)
    return _Ranked(order, fused, bm25_ranks, dense_ranks, passes, eligible, source)


COMPARED_DOCUMENTS_FROM = 10  # a superlative question compares the tables of the documents of this many best chunks


def _compare_tables(corpus: Corpus, request: Request, scores: Scores, ranked: _Ranked) -> tuple[TableComparison, int] | None:
    """For "which … the most …?", the table row that holds it and the position of the best chunk holding that row.

    The tables compared are those of the documents of the best eligible chunks, the table a better chunk holds rows
    of first; only eligible, readable documents take part (the chunks come from the scored, readable rows). Like a
    defining chunk, the row that wins passes the minimum score: a table whose column and rows the question names
    is relevant ("the cheapest airfare": "cheapest" is in no document, so word coverage stays low)."""
    wanted = superlative(request.question)
    if wanted is None or not len(ranked.order):
        return None
    usable = ranked.order[ranked.eligible[ranked.order]][:COMPARED_DOCUMENTS_FROM]
    chunks = [corpus.chunks[scores.rows[position]] for position in usable]
    documents = list(dict.fromkeys(chunk.source_id for chunk in chunks))
    tables = {sid: document_tables(corpus.documents[sid]) for sid in documents}
    holding = [table for chunk in chunks for table in tables[chunk.source_id]
               if table.overlaps(chunk.parent.page, chunk.parent.start_line, chunk.parent.end_line)]
    ordered = list({id(table): table for table in holding + [t for sid in documents for t in tables[sid]]}.values())
    comparison = compare(request.question, wanted, ordered, corpus.tokenizer.tokens, corpus.tokenizer.query_tokens,
                         corpus.documents)
    if comparison is None:
        return None
    source = corpus.source_order.index(comparison.source_id)
    for position in ranked.order[(ranked.eligible & (ranked.source == source))[ranked.order]]:
        parent = corpus.chunks[scores.rows[position]].parent
        if parent.page == comparison.page and parent.start_line <= comparison.line <= parent.end_line:
            return comparison, int(position)
    return None


def _asked_document(corpus: Corpus, request: Request, scores: Scores, ranked: _Ranked) -> dict[int, str]:
    """For "Who wrote this guide?" (`lang.document_fields`), the positions of the asked document's opening window (the
    best-ranked eligible document the question names, or, for "this paper", the best-ranked) and, for its author, of
    the window where it labels the asked particular ("AUTHOR", "Authors:", "Version:"; `text.labelled_fields`); for "Which university is
    Till Tantau from?", the best-ranked eligible document's opening that names the author. They answer, and share few
    words or none with the question. Each position with what it is."""
    asked, author = asked_particulars(request.question), asked_affiliation(request.question)
    if (asked is None and author is None) or not len(ranked.order):
        return {}
    usable = ranked.order[ranked.eligible[ranked.order]]
    documents = dict.fromkeys(int(ranked.source[p]) for p in usable[:COMPARED_DOCUMENTS_FROM])
    for source in documents:
        if asked is not None and not asked.about(document_names(corpus.documents[corpus.source_order[source]])):
            continue
        windows = [int(p) for p in usable[ranked.source[usable] == source] if corpus.chunks[scores.rows[p]].kind == "window"]
        opening = min((p for p in windows if corpus.chunks[scores.rows[p]].parent.page in (None, 1)),
                      key=lambda p: corpus.chunks[scores.rows[p]].start, default=None)
        if author is not None:  # "Which university is Till Tantau from?": the opening that names the author
            if opening is not None and _names(corpus.chunks[scores.rows[opening]].text, author):
                return {opening: "its opening"}
            continue
        found = {} if opening is None else {opening: "its opening"}
        for field in asked.fields if asked is not None else ():
            if field != "title" and (labelled := _labelled(corpus, scores, windows, field)) is not None:
                found.setdefault(labelled, f"where it states its {'authors' if field == 'author' else field}")
        return found
    return {}


def _labelled(corpus: Corpus, scores: Scores, windows: list[int], field: str) -> int | None:
    """The window where the document labels the field ("Authors:", "Version:") nearest the window's start (so the
    value follows in it)."""
    labelled = [(found.start(), p) for p in windows if (found := labels_field(corpus.chunks[scores.rows[p]].text, field))]
    return min(labelled)[1] if labelled else None


def _names(text: str, person: str) -> bool:
    """Does `text` hold every word of a person's name (as `lang.names.name_words` compares them)?"""
    words = set(name_words(text))
    return all(word in words for word in name_words(person))


def _select(ranked: _Ranked, settings: Settings, texts, repeated: dict[int, int], first: int | None = None) -> list[int]:
    """The top-k passing chunks (eligibility before or after the cut); `first`, a compared table's row, leads. A chunk
    whose lines another selected one holds (`texts`: position → chunk text) is not a hit of its own: it goes into
    `repeated`, with the position holding it."""
    order, passes = ranked.order, ranked.passes
    if first is not None:  # selected for the comparison, whatever its scores
        order = np.concatenate(([first], order[order != first]))
        passes = passes.copy()
        passes[first] = True
    if settings.eligibility == "before_cutoff":
        pool = order[(passes & ranked.eligible)[order]]
        return _distinct(pool, texts, settings.top_k, repeated)
    # The baseline (seed 000, ch. 46): cut first, then drop what is ineligible.
    top = order[passes[order]][: settings.top_k]
    return [int(p) for p in top if ranked.eligible[p]]


def _distinct(pool: np.ndarray, texts, top_k: int, repeated: dict[int, int]) -> list[int]:
    """The best `top_k` of `pool` whose lines are not all another's: a slide deck's builds of one slide (each page the
    one before plus a line) or a repeated passage would fill the hits with one text. A chunk holding every line of a
    kept one takes its place; one whose every line a kept one holds is passed over."""
    kept: list[tuple[int, frozenset[str]]] = []
    for position in pool:
        lines = frozenset(line.strip() for line in texts(int(position)).splitlines() if line.strip())
        if (holder := next((kept_at for kept_at, other in kept if lines <= other), None)) is not None:
            repeated[int(position)] = holder
            continue
        held = [i for i, (_, other) in enumerate(kept) if other <= lines]
        if held:
            repeated.update({kept[i][0]: int(position) for i in held})
            kept[held[0]] = (int(position), lines)
            kept = [entry for i, entry in enumerate(kept) if i not in held[1:]]
        else:
            kept.append((int(position), lines))
        if len(kept) == top_k:
            break
    return [position for position, _ in kept]


def _repeats_note(corpus: Corpus, scores, repeated: dict[int, int]) -> str:
    """Which chunks were passed over for the selected one holding their every line (a chain of builds ends at the one
    selected)."""
    def chunk_id(position: int) -> str:
        return corpus.chunks[scores.rows[position]].chunk_id

    def final(holder: int) -> int:
        while holder in repeated:
            holder = repeated[holder]
        return holder

    return "; ".join(f"{chunk_id(p)} is not a hit of its own: its every line is in {chunk_id(final(h))}"
                     for p, h in repeated.items()) + " (a slide's later build, a repeated passage)"


def _siblings(corpus: Corpus, ranked: _Ranked, hits: list[int], notes: list[str]) -> dict[int, str]:
    """Each hit's eligible siblings: the best passing chunk of every sibling document."""
    sibling_of: dict[int, str] = {}
    taken = {int(ranked.source[p]) for p in hits}
    usable = ranked.order[(ranked.passes & ranked.eligible)[ranked.order]]
    usable_groups = corpus.sources.sibling_group[ranked.source[usable]]
    for hit in hits:
        group = corpus.sources.sibling_group[ranked.source[hit]]
        if group < 0:
            continue
        hit_source = corpus.source_order[ranked.source[hit]]
        for position in usable[usable_groups == group]:  # best first
            source_index = int(ranked.source[position])
            if source_index in taken:
                continue
            taken.add(source_index)
            sibling_of[int(position)] = hit_source
            sid = corpus.source_order[source_index]
            notes.append(f"{sid} is a sibling of {hit_source} (same topic, authority and valid_from)")
    return sibling_of


def _superseded(corpus: Corpus, ranked: _Ranked, selected: list[int], notes: list[str]) -> dict[int, str]:
    """Among undated siblings, the newest `updated` wins; older versions stay visible only."""
    superseded: dict[int, str] = {}
    docs = {p: corpus.documents[corpus.source_order[ranked.source[p]]] for p in selected}
    for position, document in docs.items():
        newest = superseded_by(document, [other for p, other in docs.items() if p != position])
        if newest is not None:
            superseded[position] = newest.source_id
            notes.append(
                f"{document.source_id} (updated {document.meta.updated}) is an older version; "
                f"{newest.source_id} (updated {newest.meta.updated}) is newer"
            )
    return superseded


def _candidate(
    corpus: Corpus, request: Request, scores: Scores, ranked: _Ranked, position: int, fused_rank: int, **marks
) -> Candidate:
    chunk = corpus.chunks[scores.rows[position]]
    return Candidate(
        chunk_id=chunk.chunk_id,
        source_id=chunk.source_id,
        version=corpus.documents[chunk.source_id].meta.version,
        kind=chunk.kind,
        text=chunk.text,
        parent=chunk.parent,
        start=chunk.start,
        end=chunk.end,
        bm25=round(float(scores.bm25[position]), 6),
        bm25_rank=int(ranked.bm25_ranks[position]) or None,
        lexical_coverage=round(float(scores.coverage[position]), 4),
        dense=round(float(scores.dense[position]), 6)
        if scores.dense is not None and not np.isnan(scores.dense[position]) else None,
        dense_rank=int(ranked.dense_ranks[position]) or None,
        fused=round(float(ranked.fused[position]), 6),
        fused_rank=fused_rank,
        passes_threshold=bool(ranked.passes[position]),
        eligible=bool(ranked.eligible[position]),
        ineligible_reasons=ineligibility(corpus.documents[chunk.source_id], request),
        **marks,
    )


def retrieve(corpus: Corpus, request: Request, settings: Settings) -> Retrieval:
    """Score everything readable, select eligible hits and their siblings.

    The record also holds the query terms' IDF weights (the composer uses them).
    """
    scores = score_collection(corpus, request, settings)
    ranked = _rank(corpus, request, settings, scores)
    notes: list[str] = []
    compared = _compare_tables(corpus, request, scores, ranked)
    if compared:
        notes.append(f"{compared[0].describe()} — the chunk holding that row is selected first")
    repeated: dict[int, int] = {}
    hits = _select(ranked, settings, lambda position: corpus.chunks[scores.rows[position]].text, repeated,
                   first=compared[1] if compared else None)
    if repeated:
        notes.append(_repeats_note(corpus, scores, repeated))
    if added := {p: what for p, what in _asked_document(corpus, request, scores, ranked).items() if p not in hits}:
        notes.append(f"the question asks about the document itself: {' and '.join(added.values())} "
                     f"{'are' if len(added) > 1 else 'is'} selected as well")
        hits = [*added, *hits]
    sibling_of = _siblings(corpus, ranked, hits, notes) if hits else {}
    chosen = hits + list(sibling_of)
    superseded = _superseded(corpus, ranked, chosen, notes)
    selected = [p for p in chosen if p not in superseded]
    rank_of = np.empty(len(ranked.order), dtype=np.int64)  # position → fused rank (1 = best)
    rank_of[ranked.order] = np.arange(1, len(ranked.order) + 1)
    shown = {int(p) for p in ranked.order[: settings.trace_limit]} | set(chosen)
    by_position = {}
    for position in sorted(shown, key=lambda p: rank_of[p]):
        by_position[position] = _candidate(
            corpus, request, scores, ranked, position, int(rank_of[position]),
            selected=position in selected,
            selected_as=("sibling" if position in sibling_of else "hit") if position in chosen else None,
            sibling_of=sibling_of.get(position),
            superseded_by=superseded.get(position),
        )
    if len(ranked.order) > len(by_position):
        notes.append(f"{len(ranked.order) - len(by_position)} lower-ranked candidates are counted but not listed")
    retrieval = Retrieval(
        candidates=tuple(by_position.values()),
        selected=tuple(by_position[p] for p in selected),
        eligibility=settings.eligibility,
        scored=len(ranked.order),
        dense_search=scores.dense_search,
        notes=tuple(notes),
        term_weights=scores.term_weights,
        comparison=compared[0] if compared else None,
    )
    return retrieval


def why_nothing_selected(retrieval: Retrieval, settings: Settings) -> str:
    """Which gate removed every candidate: nothing readable, the minimum score, or eligibility (and why)."""
    candidates = retrieval.candidates
    if not candidates:
        return "no readable document holds any text to search"
    passing = [c for c in candidates if c.passes_threshold]
    if not passing:
        best = min(candidates, key=lambda c: c.fused_rank)
        top_lexical = max(c.lexical_coverage for c in candidates)
        top_dense = max((c.dense for c in candidates if c.dense is not None), default=None)
        dense = f", best dense similarity {top_dense:.2f} < {settings.min_dense}" if top_dense is not None else ""
        where = f"p{best.parent.page}:" if best.parent.page is not None else ""
        return (f"nothing passes the minimum score: best question-term coverage {top_lexical:.2f} < "
                f"{settings.min_lexical}{dense}; the top candidate was {best.source_id} "
                f"{where}{best.parent.start_line}-{best.parent.end_line}")
    reasons: dict[str, str] = {}
    for candidate in passing:
        if not candidate.eligible and candidate.source_id not in reasons:
            reasons[candidate.source_id] = "; ".join(candidate.ineligible_reasons) or "ineligible"
    listed = "; ".join(f"{sid}: {why}" for sid, why in list(reasons.items())[:4])
    more = f" (and {len(reasons) - 4} more)" if len(reasons) > 4 else ""
    return f"relevant sources were found but none is eligible for this request — {listed}{more}"
