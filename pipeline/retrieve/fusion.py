"""Reciprocal rank fusion (seed 001): rankings of the same items merged by the sum of 1 / (k + rank)."""

from __future__ import annotations

import numpy as np

from pipeline.core.contracts import Settings


def ranks(values: np.ndarray, include: np.ndarray) -> np.ndarray:
    """1-based rank of each included value (highest first), equal values sharing the best of their ranks (1, 2, 2,
    4); 0 where not included. A tie is no order: when a question's only matching word is the document's name, which
    every chunk of it carries, BM25 scores its chunks alike, and ranking them by position put a table of contents first
    in the fusion; tied, the dense ranking decides between them."""
    result = np.zeros(len(values), dtype=np.int64)
    if not include.any():
        return result
    descending = np.sort(-values[include])
    result[include] = np.searchsorted(descending, -values[include], side="left") + 1
    return result


def reciprocal_rank_fusion(rank_lists: list[np.ndarray], k: int = Settings.model_fields["rrf_k"].default) -> np.ndarray:
    """Sum of 1 / (k + rank) over the rankings in which an item appears (seed 001)."""
    fused = np.zeros(len(rank_lists[0]), dtype=np.float64)
    for rank_list in rank_lists:
        present = rank_list > 0
        fused[present] += 1.0 / (k + rank_list[present])
    return fused
