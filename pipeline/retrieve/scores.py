"""Scores for every readable chunk: BM25, the IDF-weighted coverage of the question's terms, the dense cosine,
and the rankings a question's form adds of its own (a definition, a named page, a summary).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from pipeline.core.contracts import Request, Settings
from pipeline.core.settings import TUNING
from pipeline.index.corpus import Corpus
from pipeline.lang.forms import asks_about_document, defined_term, defines_anywhere, opens_summary
from pipeline.lang.names import code_names, unmentioned_code_names
from pipeline.lang.page_refs import PageReference, page_reference, without_page_reference
from pipeline.text.footnotes import holds_note, marks_of

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
                      _summaries(corpus, lexical.rows, request.question),
                      _writing_code_names(corpus, lexical.rows, request.question)) if boost is not None))


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
    (weighted `Tuning.summary_weight`), else each document's opening window (`Tuning.opening_weight`)."""
    if not asks_about_document(question) or not len(rows):
        return None
    chunks = [corpus.chunks[row] for row in rows]
    first: dict[str, int] = {}  # per document, where its first window on its first page (or body) starts
    for chunk in chunks:
        if chunk.kind == "window" and chunk.parent.page in (None, 1):
            first[chunk.source_id] = min(first.get(chunk.source_id, chunk.start), chunk.start)

    def weight(chunk) -> float:
        if opens_summary(chunk.text):
            return TUNING.summary_weight
        opening = chunk.kind == "window" and chunk.parent.page in (None, 1) and chunk.start == first.get(chunk.source_id)
        return TUNING.opening_weight if opening else 0.0

    # ahead of whatever the question's words match: two first places for an opening, three for a summary
    weights = np.fromiter((weight(chunk) for chunk in chunks), dtype=np.float64, count=len(rows))
    return Boost(weights, votes=TUNING.summary_votes, passes=True)


def _writing_code_names(corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None:
    """For a question that writes names as code ("What is -F shorthand for?", "Storage="), the chunks that write them
    (an option's letter case told apart: tail's -F is not its -f): the word search reads "-F" as the letter f, found in
    every chunk of a manual page."""
    names = code_names(question)
    if not names or not len(rows):
        return None

    asked_of: dict[str, list[str]] = {}  # per document: a name it is called by ("bm25s" in bm25s-readme) points at no chunk

    def writes_them(chunk) -> bool:
        if (asked := asked_of.get(chunk.source_id)) is None:
            asked = asked_of[chunk.source_id] = unmentioned_code_names(names, chunk.source_id)
        return bool(asked) and not unmentioned_code_names(asked, chunk.text)

    # A chunk writing every one of them is relevant whatever its other words: it passes the minimum score.
    return Boost(np.fromiter((writes_them(corpus.chunks[row]) for row in rows), dtype=np.float64, count=len(rows)),
                 passes=True)


def _dense_scores(corpus: Corpus, request: Request, rows: np.ndarray, vectors: np.ndarray | None,
                  query_vector: np.ndarray) -> tuple[np.ndarray, str]:
    """Cosine per readable row: HNSW in Chroma for a large corpus (the access filter inside the
    query, `pipeline.index.dense`), else the exact matrix product."""
    if corpus.dense_search is not None:
        from pipeline.index.dense import hnsw_scores

        eligible = corpus.sources.eligible(request.date, request.topic)  # per document, as `_rank` uses it
        return hnsw_scores(corpus.dense_search, rows, query_vector, request.groups, request.date, request.topic,
                           corpus.index_settings.dense_candidates, lambda r: eligible[corpus.chunk_source[r]]), \
            "chroma-hnsw"
    # One BLAS thread: a matrix-vector product is memory-bound, and idle BLAS threads that
    # spin after it slowed the next question's embedding by half (bench, 10k chunks).
    with _BLAS.limit(limits=1, user_api="blas"):
        return vectors @ query_vector, "brute-force"
