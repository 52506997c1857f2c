"""Scores for every readable chunk: BM25, the IDF-weighted coverage of the question's terms, the dense cosine,
and the rankings the registered question forms add of their own (`pipeline.question.forms`: a definition, a named page,
a summary, names written as code).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from pipeline.core.contracts import Request, Settings
from pipeline.index.corpus import Corpus
from pipeline.lang.page_refs import page_reference, without_page_reference
from pipeline.question.forms import Boost, boosting_forms

_BLAS = ThreadpoolController()


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
                  dense_search=dense_search, boosts=tuple(
                      boost for form in boosting_forms()
                      if (boost := form.boost(corpus, lexical.rows, request.question)) is not None))


def _named_documents(corpus: Corpus, weights: dict[str, float], rows: np.ndarray) -> dict[str, np.ndarray]:
    """For each query term that names a document ("the Apache license" of apache-2.0.txt), the rows of the documents it
    names. Credited to every chunk of them, such a term no longer ranks the chunks that happen to repeat the name (the
    title, the appendix) over the one that answers ("What does the Apache license say about patents?")."""
    names = corpus.named_sources()
    sources = corpus.chunk_source[rows]
    return {token: names[token][sources] for token in weights if token in names}


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
