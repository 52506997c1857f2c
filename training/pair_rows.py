"""The reader's training pairs as rows (`training.pairs` writes them): their lengths, weights and validation subset.

Torch-free, so that packing them for a GPU machine (`training.gpu_bundle`) runs in the app's environment too.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

MAX_QUERY_TOKENS = 64
MAX_TOKENS = 160
# Origins that teach what the product needs most (real unanswerables, contradicting claims) weigh more.
ORIGIN_WEIGHTS = {"squad2dev": 2.0, "squad2dev-unanswerable": 2.0, "squad2train-unanswerable": 2.0,
                  "scifact-support": 2.0, "scifact-contradict": 3.0, "scifact-swap": 2.0, "scifact-other": 1.0,
                  # questions asked of real documents as users ask them: few, and what the product meets
                  "product": 2.0, "product-unanswerable": 2.0, "product-runtime": 2.0}


def load_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def origin_key(origin: str) -> str:
    return origin if origin in ORIGIN_WEIGHTS else origin.split("-swap")[0]


def validation_subset(rows: list[dict], per_origin: int, seed: int) -> list[dict]:
    """Whole groups (a question with all its units) per origin, up to about `per_origin` pairs each."""
    rng = random.Random(seed)
    by_origin: dict[str, dict[str, list[dict]]] = {}
    for r in rows:
        by_origin.setdefault(r["origin"].split("-swap")[0].replace("-unanswerable", ""), {}).setdefault(r["group"], []).append(r)
    out = []
    for groups in by_origin.values():
        keys = sorted(groups)
        rng.shuffle(keys)
        taken = 0
        for key in keys:
            if taken >= per_origin:
                break
            out.extend(groups[key])
            taken += len(groups[key])
    return out


def group_batches(groups: list[str], lengths: list[int], size: int, rng: random.Random) -> list[list[int]]:
    """Index batches made of whole groups (a question with all its units), about `size` pairs each, in random order:
    the listwise loss compares a question's units with each other, so they must share a batch. Within a batch the
    groups are of similar lengths (little padding); a group larger than `size` is a batch of its own."""
    members: dict[str, list[int]] = {}
    for i, group in enumerate(groups):
        members.setdefault(group, []).append(i)
    order = sorted(members.values(), key=lambda m: (sum(lengths[i] for i in m) / len(m), rng.random()))
    out, current = [], []
    for m in order:
        if current and len(current) + len(m) > size:
            out.append(current)
            current = []
        current = current + m
    if current:
        out.append(current)
    rng.shuffle(out)
    return out
