"""Settings: the per-request thresholds and switches, and the index-time choices; each value validated here
and recorded in the trace."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Literal

from pydantic import Field

from pipeline.core.contracts.base import Frozen
from pipeline.models import ANSWER_MODEL, READER_RECORD


@lru_cache(maxsize=1)
def _shipped_threshold() -> float:
    """The composer's shipped answer model carries its own threshold: the default `min_support`, so a retrained
    model never runs with a stale cut. Read as data: no scorer code here."""
    return float(json.loads(ANSWER_MODEL.read_text("utf-8"))["threshold"])


@lru_cache(maxsize=1)
def _reader_threshold() -> float:
    """The reader's own calibrated answer threshold (its training record), read as data."""
    return float(json.loads(READER_RECORD.read_text("utf-8"))["thresholds"]["answer"])


class Settings(Frozen):
    """Per-request thresholds and switches; every value is validated here and recorded in the trace.

    Product defaults chosen on the natural-question dev set (docs/decisions.md): five
    hits, a low relevance gate (the calibrated answer scorer decides answerability) and a window
    that holds several whole parents. The seed scenarios keep the seed's values (scenarios.py).
    """

    top_k: int = Field(5, ge=1, le=1000)
    min_lexical: float = Field(0.3, ge=0.0, le=1.01, description="minimum IDF-weighted question-term coverage")
    min_dense: float = Field(0.8, ge=-1.0, le=1.01, description="minimum dense cosine (either threshold passes)")
    rrf_k: int = Field(60, ge=1)
    window: int = Field(6000, ge=0, le=1_000_000, description="context window in code points")
    reserve: int = Field(200, ge=0, le=1_000_000, description="code points reserved for the output")
    eligibility: Literal["before_cutoff", "after_selection"] = "before_cutoff"
    retrieval: Literal["hybrid", "bm25", "dense"] = "hybrid"
    trace_limit: int = Field(100, ge=1, description="candidates listed in the trace, best first")
    # The extractive composer abstains below this calibrated answer probability; the default is
    # pipeline/models/answer_model.json's own threshold (chosen on the public curves), so a retrained
    # model never runs with a stale cut.
    min_support: float = Field(default_factory=_shipped_threshold, ge=0.0, le=1.5,
                               description="the extractive composer's minimum answer probability")
    # The reader (a cross-encoder) reads the question with each candidate unit; the unit it reads most likely to answer
    # (its reading combined with the pre-filter's by the record's ranking weights) answers at or above this
    # probability. Default: the threshold in pipeline/models/reader-v2.json.
    min_reader: float = Field(default_factory=_reader_threshold, ge=0.0, le=1.0,
                              description="the minimum probability that the unit the reader reads best answers (0: off)")
    # A paraphrase counts as supported only if nearly all of its content words are in the span.
    support_coverage: float = Field(0.85, ge=0.0, le=1.0, description="the containment judge's word coverage")
    on_unsupported: Literal["drop", "abstain"] = Field(
        "drop", description="drop: answer with the verified claims only; abstain: any unsupported claim abstains")


class IndexSettings(Frozen):
    """Index-time choices: they shape chunks and BM25 statistics, so they are fixed per corpus and traced."""

    chunk_window: int = Field(800, ge=100, le=100_000, description="window chunk size in code points")
    chunk_overlap: int = Field(100, ge=0, le=50_000, description="overlap between consecutive windows")
    bm25_k1: float = Field(1.2, gt=0.0, le=10.0)
    bm25_b: float = Field(0.75, ge=0.0, le=1.0)
    cjk: Literal["jieba", "bigram"] = "jieba"
    dense_search_min_chunks: int = Field(
        50_000, ge=0, description="from this many chunks on, dense search runs in Chroma (HNSW, access filter in "
        "the query) when the vector store is Chroma; below it, an exact matrix product in the process "
        "(switch-over measured by `python -m pipeline bench scale --crossover`)")
    dense_candidates: int = Field(300, ge=1, le=100_000, description="chunks HNSW returns per query (twice: readable, "
                                  "and readable and eligible); brute force scores every readable chunk")
    dense_idle_days: float = Field(7.0, gt=0.0, le=3650.0, description="a Chroma chunk collection that no process "
                                   "has opened or searched for this long (an older library, a finished session) is deleted "
                                   "when another corpus is filled")
