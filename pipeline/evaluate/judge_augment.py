"""Training-time augmentation for the support judge: a supported claim, turned over, is not supported.

SciFact's CONTRADICT claims are mostly true claims reversed ("increases" for "decreases") or
negated, so contradictions are few (138 training pairs) next to what the polarity regression
must learn. Each training SUPPORT pair whose claim flipped() turns over by swapping antonyms or
by removing a negation gives one more unsupported pair: the flipped claim against the same
abstract. Flips that add a negation ("… is not …", "It is not true that …") are left out: out
of fold on the training claims (one regression, five fold assignments) swaps and removed
negations lowered the false-verification rate at recall 0.66–0.74 from 0.256 to 0.242, adding
the others gave 0.255 and 0.266. Only the training side of the split is ever flipped.
"""

from __future__ import annotations

from pipeline.evaluate.judge_data import Pair
from pipeline.lang.opposites import flip_kind, flipped

FLIP_KINDS = ("swap", "negation")


def flippable(pairs: list[Pair]) -> list[int]:
    """Indices of the SUPPORT pairs whose claim turns over cleanly."""
    return [i for i, p in enumerate(pairs) if p.label == "SUPPORT" and flip_kind(p.claim) in FLIP_KINDS]


def flipped_claims(pairs: list[Pair], indices: list[int]) -> list[str]:
    return [flipped(pairs[i].claim) for i in indices]
