"""The support judge's two estimators, numpy only: the selector's conditional logit and the decision's regressions.

The decision is two logistic regressions whose probabilities multiply (verify.judges.learned.decision_score):
relevance (does the span hold evidence on the claim at all: SUPPORT and CONTRADICT against
no-evidence pairs) and polarity (given evidence, does it support the claim: SUPPORT against
CONTRADICT). One regression of SUPPORT against both kinds of negative had to weigh conflict
cues (which separate SUPPORT from CONTRADICT) against similarity (which separates evidence
from no evidence) in one linear score; out of fold on the SciFact training claims, the product
lowered the false-verification rate at recall 0.66–0.74 from 0.256 to 0.244 on average (five
fold assignments), and with the flipped claims below to 0.231.
"""

from __future__ import annotations

import numpy as np

from pipeline.verify.judges.features import selector_matrix
from pipeline.verify.judges.learned import sigmoid

RELEVANCE_L2 = 10.0  # out of fold (mean of five fold assignments): the decision's former setting, kept
POLARITY_L2 = 30.0  # polarity AUC (SUPPORT vs CONTRADICT) 3: 0.74, 10: 0.75, 30: 0.75, 100: 0.75; FVR lowest at 30
SELECTOR_L2 = 0.01


def fit_selector(rows: list[np.ndarray], answers: list[np.ndarray], l2: float = SELECTOR_L2, steps: int = 400) -> tuple:
    """Conditional logit: maximise log P(an answer sentence) under a softmax over each span's sentences.

    `rows`: per span, the sentence feature matrix; `answers`: per span, 1.0 for each gold sentence.
    """
    x = np.vstack([selector_matrix(m) for m in rows])
    positive = np.concatenate(answers)
    starts = np.cumsum([0] + [len(m) for m in rows[:-1]])
    group = np.repeat(np.arange(len(rows)), [len(m) for m in rows])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    w = np.zeros(z.shape[1])
    moment, velocity = np.zeros_like(w), np.zeros_like(w)
    for step in range(1, steps + 1):  # Adam on the mean negative log-likelihood
        logits = z @ w
        exp = np.exp(logits - np.maximum.reduceat(logits, starts)[group])
        p = exp / np.add.reduceat(exp, starts)[group]
        q = exp * positive / np.add.reduceat(exp * positive, starts)[group]
        gradient = z.T @ (p - q) / len(rows) + l2 * w
        moment = 0.9 * moment + 0.1 * gradient
        velocity = 0.999 * velocity + 0.001 * gradient**2
        w -= 0.05 * (moment / (1 - 0.9**step)) / (np.sqrt(velocity / (1 - 0.999**step)) + 1e-8)
    return mean, scale, w


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 50) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Standardised L2 logistic regression by Newton's method, classes weighted to balance."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    weight = np.where(y > 0, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(steps):
        p = sigmoid(z @ beta)
        gradient = z.T @ (weight * (p - y)) + penalty * beta
        hessian = (z * (weight * p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return mean, scale, beta[:-1], float(beta[-1])


def fit_decision(x: np.ndarray, labels: list[str], flipped_rows: np.ndarray | None = None,
                 relevance_l2: float = RELEVANCE_L2, polarity_l2: float = POLARITY_L2) -> dict[str, tuple]:
    """Relevance on every pair; polarity on the pairs with evidence, plus `flipped_rows` (supported claims turned
    into their opposites, pipeline/evaluate/judge_augment.py) as unsupported."""
    labels_array = np.asarray(labels)
    evidence = labels_array != "NOEVIDENCE"
    polarity_x, polarity_y = x[evidence], (labels_array[evidence] == "SUPPORT").astype(float)
    if flipped_rows is not None and len(flipped_rows):
        polarity_x = np.vstack([polarity_x, flipped_rows])
        polarity_y = np.concatenate([polarity_y, np.zeros(len(flipped_rows))])
    return {"relevance": fit_logistic(x, evidence.astype(float), relevance_l2),
            "polarity": fit_logistic(polarity_x, polarity_y, polarity_l2)}
