"""Plain, dependency-free metrics: nDCG, recall, precision/recall of a binary decision."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k with graded gains as given (BEIR/pytrec_eval's linear gain); 0 if nothing is relevant."""
    if not relevant:
        return 0.0
    gains = [float(relevant.get(doc, 0)) for doc in ranked[:k]]
    ideal = sorted((float(v) for v in relevant.values()), reverse=True)[:k]
    best = dcg(ideal)
    return dcg(gains) / best if best > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 100) -> float:
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & {d for d, v in relevant.items() if v > 0}) / sum(1 for v in relevant.values() if v > 0)


def reciprocal_rank(ranked: Sequence[str], relevant: Mapping[str, int] | set[str]) -> float:
    for position, doc in enumerate(ranked, start=1):
        if doc in relevant:
            return 1.0 / position
    return 0.0


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def binary_scores(predicted: Sequence[bool], actual: Sequence[bool]) -> dict[str, float]:
    """Precision and recall of `predicted` against `actual` (both sequences of booleans)."""
    tp = sum(1 for p, a in zip(predicted, actual) if p and a)
    fp = sum(1 for p, a in zip(predicted, actual) if p and not a)
    fn = sum(1 for p, a in zip(predicted, actual) if not p and a)
    return {
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "tp": tp, "fp": fp, "fn": fn,
    }


def rounded(value, digits: int = 4):
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, digits) for v in value]
    return value


def share(count: float, total: int) -> float:
    """count / total, 0.0 for an empty total."""
    return count / total if total else 0.0
