"""The reader as a support judge: does a cited span say what a paraphrased claim says?

The same cross-encoder that picks the extractive composer's unit (`pipeline.models.reader`) reads the
claim with each sentence of the cited span (and each pair of neighbouring sentences, for
evidence that spans two); the claim is supported when the best of them reaches the threshold
chosen on the calibration claims. Before any model runs, the checks every judge shares refuse
what is certainly not support: a number or quantity the span does not state, a word the span
says the opposite of; a claim contained in the span word for word is supported outright.
"""

from __future__ import annotations

import numpy as np

from pipeline.core.contracts.verdicts import SupportVerdict
from pipeline.core.memory import release_free_memory
from pipeline.lang.text import normalized

from .features import prechecked

RUNNER_UP_MARGIN = 0.1  # a second sentence this close to the best is highlighted with it
MAX_SENTENCES = 24  # of a long span, the sentences sharing most words with the claim are read


class ReaderJudge:
    """`ReaderJudge(reader=None, threshold=None)`: the shipped reader and its calibrated support threshold."""

    def __init__(self, reader=None, threshold: float | None = None) -> None:
        if reader is None:
            from pipeline.models.reader import shipped_reader

            reader = shipped_reader()
        self.reader = reader
        self.name = f"{reader.name}-judge"
        self.threshold = reader.threshold("support") if threshold is None else threshold

    def score(self, claim: str, sentences: list[str]) -> tuple[float, np.ndarray]:
        """P(support) of the best sentence (or neighbouring pair), and each sentence's own probability."""
        texts = list(sentences) + [f"{a} {b}" for a, b in zip(sentences, sentences[1:])]
        probabilities = self.reader.probabilities("claim", claim, texts)
        release_free_memory()  # tens of MB of freed activations for a long span go back (pipeline/core/memory.py)
        singles = probabilities[: len(sentences)]
        return float(probabilities.max()), singles

    def __call__(self, claim: str, span: str) -> SupportVerdict:
        claim = claim.strip()
        verdict, units, _ = prechecked(claim, span)
        if verdict is not None:
            return verdict
        units = _most_relevant(claim, span, units)
        score, singles = self.score(claim, [span[s:e] for s, e in units])
        supported = score >= self.threshold
        best = int(singles.argmax())
        chosen = [i for i in np.argsort(-singles, kind="stable")[:2] if singles[i] >= singles[best] - RUNNER_UP_MARGIN]
        verdict = "supported" if supported else "not supported"
        detail = (f"{verdict}: the reader ({self.reader.name}) scores {score:.2f} (threshold {self.threshold:.2f}); "
                  f"best evidence: sentence {best + 1} of {len(units)}")
        return SupportVerdict(supported=supported, score=score, detail=detail,
                              sentences=tuple(sorted(units[i] for i in chosen)) if supported else ())


def _most_relevant(claim: str, span: str, units: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """At most MAX_SENTENCES sentences, in span order: those sharing most words with the claim."""
    if len(units) <= MAX_SENTENCES:
        return units
    words = set(normalized(claim).split())
    ranked = sorted(units, key=lambda u: -len(words & set(normalized(span[u[0]:u[1]]).split())))
    return sorted(ranked[:MAX_SENTENCES])

