"""Reciprocal rank fusion (seed 001): rankings of the same items merged by the sum of 1 / (k + rank)."""

from __future__ import annotations

import numpy as np

from pipeline.core.contracts import Settings


def ranks(values: np.ndarray, include: np.ndarray) -> np.ndarray:
    """1-based rank of each included value (highest first); 0 where not included."""
    order = np.argsort(-values, kind="stable")
    order = order[include[order]]
    result = np.zeros(len(values), dtype=np.int64)
    result[order] = np.arange(1, len(order) + 1)
    return result


def reciprocal_rank_fusion(rank_lists: list[np.ndarray], k: int = Settings.model_fields["rrf_k"].default) -> np.ndarray:
    """Sum of 1 / (k + rank) over the rankings in which an item appears (seed 001)."""
    fused = np.zeros(len(rank_lists[0]), dtype=np.float64)
    for rank_list in rank_lists:
        present = rank_list > 0
        fused[present] += 1.0 / (k + rank_list[present])
    return fused
