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

import datetime as dt
from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from .about import asks_about_document, opens_summary
from .answer_model import defined_term, defines_anywhere
from .contracts import Candidate, Document, Request, Retrieval, Settings, TableComparison
from .footnotes import holds_note, marks_of
from .index import Corpus, sibling_key
from .page_refs import PageReference, page_reference, without_page_reference
from .table_compare import compare, document_tables, superlative


_BLAS = ThreadpoolController()


@dataclass(frozen=True)
class Boost:
    """A ranking of a question's kind's own, fused with BM25 and dense: the chunks a form of question points at
    ("What is X?": those defining X) rank first in it, whatever their words' scores."""

    values: np.ndarray  # per scored row: 0, or how strongly the chunk is pointed at (1.0; a summary 1.5)
    votes: float = 1.0  # a value of 1.0 counts as this many first places in the fusion
    passes: bool = False  # a chunk pointed at passes the minimum score (its form makes it relevant)


@dataclass(frozen=True)
class Scores:
    rows: np.ndarray  # corpus chunk indices that were scored (the readable ones)
    bm25: np.ndarray
    coverage: np.ndarray
    dense: np.ndarray | None  # NaN where HNSW returned no score
    term_weights: dict[str, float]
    dense_search: str | None = None  # "brute-force" or "chroma-hnsw"
    boosts: tuple[Boost, ...] = ()  # the question's kind's own rankings: definitions, a named page, summaries


def score_collection(corpus: Corpus, request: Request, settings: Settings) -> Scores:
    """BM25, IDF-weighted query coverage and dense cosine for every readable chunk."""
    readable = corpus.readable_sources(request.groups)
    lexical = corpus.lexical_index(readable)
    question = request.question
    reference = page_reference(question)
    if reference is not None and any(document.paged for document in corpus.documents.values()):
        question = without_page_reference(question)  # "on the last page" locates; in a text, "page" may be content
    query_tokens = corpus.tokenizer.query_tokens(question)
    weights = {token: lexical.idf(token) for token in query_tokens}
    total_weight = sum(weights.values())
    bm25 = np.zeros(len(lexical.rows), dtype=np.float32)
    coverage = np.zeros(len(lexical.rows), dtype=np.float32)
    named = _named_documents(corpus, weights, lexical.rows)
    for token, weight in weights.items():
        contribution = lexical.token_scores(token)
        present = contribution > 0
        if token in named:  # a word naming the document is in every chunk of it (once, at the chunk's average length)
            credited = named[token] & ~present
            contribution = contribution + credited * np.float32(weight)
            present = present | credited
        bm25 += contribution
        if total_weight > 0:
            coverage += present * np.float32(weight / total_weight)
    dense, dense_search = None, None
    if settings.retrieval != "bm25" and len(lexical.rows):
        query_vector = corpus.embedder.embed_query(request.question)
        query_vector = query_vector / max(float(np.linalg.norm(query_vector)), 1e-12)
        dense, dense_search = _dense_scores(corpus, request, lexical.rows, lexical.vectors, query_vector)
    return Scores(rows=lexical.rows, bm25=bm25, coverage=coverage, dense=dense, term_weights=weights,
                  dense_search=dense_search, boosts=tuple(boost for boost in (
                      _defining(corpus, lexical.rows, request.question),
                      _on_named_page(corpus, lexical.rows, reference),
                      _summaries(corpus, lexical.rows, request.question)) if boost is not None))


def _named_documents(corpus: Corpus, weights: dict[str, float], rows: np.ndarray) -> dict[str, np.ndarray]:
    """For each query term that names a document ("the Apache license" of apache-2.0.txt), the rows of the documents it
    names. Credited to every chunk of them, such a term no longer ranks the chunks that happen to repeat the name (the
    title, the appendix) over the one that answers ("What does the Apache license say about patents?")."""
    names = corpus.named_sources()
    sources = corpus.chunk_source[rows]
    return {token: names[token][sources] for token in weights if token in names}


def _defining(corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None:
    """For a definition question, which readable chunks define its term ("RapidFuzz is a fast string matching
    library …"): when the term is the document's subject, every chunk names it and neither BM25 nor meaning
    picks out the one that says what it is."""
    term = defined_term(question)
    if term is None or not len(rows):
        return None
    # A name marked in a table's header ("*Other") is defined by its document's note with that mark.
    marks: dict[str, frozenset[str]] = {}
    for row in rows:
        chunk = corpus.chunks[row]
        if found := marks_of(term, chunk.search_text):
            marks[chunk.source_id] = marks.get(chunk.source_id, frozenset()) | found
    return Boost(np.fromiter((defines_anywhere(term, (chunk := corpus.chunks[row]).text)
                              or (chunk.source_id in marks and holds_note(marks[chunk.source_id], chunk.text)) for row in rows),
                             dtype=np.float64, count=len(rows)), passes=True)


def _on_named_page(corpus: Corpus, rows: np.ndarray, reference: PageReference | None) -> Boost | None:
    """For a question that names a page ("the proposal on the last page"), the chunks on that page of each PDF."""
    if reference is None or not len(rows):
        return None
    pages: dict[str, int | None] = {}  # per document met, its named page (a question costs one pass per document)

    def on_page(chunk) -> bool:
        if chunk.source_id not in pages:
            pages[chunk.source_id] = reference.page_of(corpus.documents[chunk.source_id])
        return chunk.parent.page is not None and chunk.parent.page == pages[chunk.source_id]

    return Boost(np.fromiter((on_page(corpus.chunks[row]) for row in rows), dtype=np.float64, count=len(rows)))


def _summaries(corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None:
    """For a question about a document as a whole, the chunks that say what it is about: a summary or abstract
    (1.5), else each document's opening window (1.0)."""
    if not asks_about_document(question) or not len(rows):
        return None
    chunks = [corpus.chunks[row] for row in rows]
    first: dict[str, int] = {}  # per document, where its first window on its first page (or body) starts
    for chunk in chunks:
        if chunk.kind == "window" and chunk.parent.page in (None, 1):
            first[chunk.source_id] = min(first.get(chunk.source_id, chunk.start), chunk.start)

    def weight(chunk) -> float:
        if opens_summary(chunk.text):
            return 1.5
        opening = chunk.kind == "window" and chunk.parent.page in (None, 1) and chunk.start == first.get(chunk.source_id)
        return 1.0 if opening else 0.0

    # ahead of whatever the question's words match: two first places for an opening, three for a summary
    return Boost(np.fromiter((weight(chunk) for chunk in chunks), dtype=np.float64, count=len(rows)), votes=2.0, passes=True)


def _dense_scores(corpus: Corpus, request: Request, rows: np.ndarray, vectors: np.ndarray | None,
                  query_vector: np.ndarray) -> tuple[np.ndarray, str]:
    """Cosine per readable row: HNSW in Chroma for a large corpus (the access filter inside the
    query, `pipeline.dense`), else the exact matrix product."""
    if corpus.dense_search is not None:
        from .dense import hnsw_scores

        eligible = corpus.sources.eligible(request.date, request.topic)  # per document, as `_rank` uses it
        return hnsw_scores(corpus.dense_search, rows, query_vector, request.groups, request.date, request.topic,
                           corpus.index_settings.dense_candidates, lambda r: eligible[corpus.chunk_source[r]]), \
            "chroma-hnsw"
    # One BLAS thread: a matrix-vector product is memory-bound, and idle BLAS threads that
    # spin after it slowed the next question's embedding by half (bench, 10k chunks).
    with _BLAS.limit(limits=1, user_api="blas"):
        return vectors @ query_vector, "brute-force"


def ranks(values: np.ndarray, include: np.ndarray) -> np.ndarray:
    """1-based rank of each included value (highest first); 0 where not included."""
    order = np.argsort(-values, kind="stable")
    order = order[include[order]]
    result = np.zeros(len(values), dtype=np.int64)
    result[order] = np.arange(1, len(order) + 1)
    return result


def reciprocal_rank_fusion(rank_lists: list[np.ndarray], k: int = 60) -> np.ndarray:
    """Sum of 1 / (k + rank) over the rankings in which an item appears (seed 001)."""
    fused = np.zeros(len(rank_lists[0]), dtype=np.float64)
    for rank_list in rank_lists:
        present = rank_list > 0
        fused[present] += 1.0 / (k + rank_list[present])
    return fused


def ineligibility(document: Document, request: Request) -> tuple[str, ...]:
    """Why a readable document may not answer this request (empty if it may)."""
    meta, reasons = document.meta, []
    if meta.valid_to is not None and request.date > meta.valid_to:
        reasons.append(f"expired: valid to {meta.valid_to}, request date {request.date}")
    if meta.valid_from is not None and request.date < meta.valid_from:
        reasons.append(f"not yet valid: valid from {meta.valid_from}, request date {request.date}")
    if request.topic and (meta.topic or "").casefold() != request.topic.casefold():
        reasons.append(f"out of topic: {meta.topic or 'no topic'} is not {request.topic}")
    return tuple(reasons)


def _undated(document: Document) -> bool:
    return document.meta.valid_from is None and document.meta.valid_to is None


def _updated_ordinal(document: Document) -> int:
    return (document.meta.updated or dt.date.min).toordinal()


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


def _select(ranked: _Ranked, settings: Settings, first: int | None = None) -> list[int]:
    """The top-k passing chunks (eligibility before or after the cut); `first`, a compared table's row, leads."""
    order, passes = ranked.order, ranked.passes
    if first is not None:  # selected for the comparison, whatever its scores
        order = np.concatenate(([first], order[order != first]))
        passes = passes.copy()
        passes[first] = True
    if settings.eligibility == "before_cutoff":
        pool = order[(passes & ranked.eligible)[order]]
        return [int(p) for p in pool[: settings.top_k]]
    # The baseline (seed 000, ch. 46): cut first, then drop what is ineligible.
    top = order[passes[order]][: settings.top_k]
    return [int(p) for p in top if ranked.eligible[p]]


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
        newer = [
            other for p, other in docs.items()
            if p != position and sibling_key(document) is not None and sibling_key(other) == sibling_key(document)
            and _undated(document) and _undated(other)
            and _updated_ordinal(other) > _updated_ordinal(document)
        ]
        if newer:
            newest = max(newer, key=_updated_ordinal)
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
    hits = _select(ranked, settings, compared[1] if compared else None)
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
