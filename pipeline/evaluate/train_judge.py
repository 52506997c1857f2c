"""Train the learned support judge on SciFact training claims; write its weights into the repository.

    uv run --frozen python -m pipeline.evaluate.train_judge [--mode query|passage] [--write]

Rows are (claim, sentence) pairs from the training side of the fixed split (judge_data.py):
a rationale sentence of a SUPPORT pair is positive; every other sentence (CONTRADICT rationales,
the rest of the abstract, the title, abstracts with no evidence) is negative. A logistic
regression (numpy, Newton steps, L2) is fitted on the features of support_features.py; a pair's
score is its best sentence's probability. The operating threshold is chosen on out-of-fold pair
scores of the training claims (5 folds by claim), never on the held-out claims. Embeddings come
from /work/cache/judge (judge_cache.py), computed on first use. Deterministic: no sampling.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from ..support_features import FEATURE_NAMES, Profiler, features
from ..support_model import DEFAULT_WEIGHTS, sigmoid
from .judge_cache import EmbeddingCache
from .judge_data import Pair, load_pairs

L2 = 1.0
L2_PRODUCTS = 100.0
TARGET_RECALL = 0.72  # the rule to beat verifies 0.68 of SUPPORT pairs; keep a margin above it


def pair_matrices(pairs: list[Pair], mode: str) -> list[np.ndarray]:
    """One feature matrix per pair, rows = [title, *sentences]."""
    profiler = Profiler()
    if mode != "none":
        claims = EmbeddingCache("query").embed([p.claim for p in pairs])
        sentence_cache = EmbeddingCache(mode)
    out = []
    for index, pair in enumerate(pairs):
        units = [pair.abstract.title or "(untitled)", *pair.abstract.sentences]
        # "none": an ablation without the embedding model (cosine fixed at 0).
        vectors = np.zeros((len(units), 384)) if mode == "none" else sentence_cache.embed(units)
        products = vectors * (np.zeros(384) if mode == "none" else claims[index])
        claim_profile = profiler.profile(pair.claim)
        hand = np.vstack([features(claim_profile, profiler.profile(u), float(c)) for u, c in zip(units, products.sum(1))])
        out.append(np.hstack([hand, products]))
    return out


def columns(matrices: list[np.ndarray], interaction: bool) -> list[np.ndarray]:
    """Hand features only, or with the 384 claim×sentence embedding products (a learned, weighted cosine)."""
    return matrices if interaction else [m[:, : len(FEATURE_NAMES)] for m in matrices]


def sentence_labels(pair: Pair, kind: str = "support") -> np.ndarray:
    """Per row: 1 for a rationale sentence of a SUPPORT pair ("support") or of any labelled pair ("relevance")."""
    labels = np.zeros(len(pair.abstract.sentences) + 1)
    if pair.label == "SUPPORT" or (kind == "relevance" and pair.label == "CONTRADICT"):
        for index in pair.rationale:
            labels[index + 1] = 1.0
    return labels


def fit_model(pairs: list[Pair], matrices: list[np.ndarray], two_stage: bool, **fit) -> list[tuple]:
    """One stage (P(sentence supports claim)), or two: P(sentence is evidence) x P(it supports | evidence).

    The second stage is fitted on rationale sentences only, SUPPORT against CONTRADICT, so the
    polarity cues are not drowned by the many sentences that are merely off topic.
    """
    x = np.vstack(matrices)
    if not two_stage:
        return [fit_logistic(x, np.concatenate([sentence_labels(p) for p in pairs]), **fit)]
    relevance = np.concatenate([sentence_labels(p, "relevance") for p in pairs])
    support = np.concatenate([sentence_labels(p) for p in pairs])
    evidence = relevance > 0
    return [fit_logistic(x, relevance, **fit), fit_logistic(x[evidence], support[evidence], **fit)]


def sentence_probabilities(stages: list[tuple], matrix: np.ndarray) -> np.ndarray:
    probability = np.ones(len(matrix))
    for mean, scale, coef, intercept in stages:
        probability = probability * sigmoid(((matrix - mean) / scale) @ coef + intercept)
    return probability


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 50,
                 l2_products: float = L2_PRODUCTS) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Standardised L2 logistic regression by Newton's method, classes weighted to balance.

    Columns past the hand features (embedding products) get their own, stronger penalty.
    """
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    weight = np.where(y > 0, 0.5 / max(y.mean(), 1e-9), 0.5 / max(1 - y.mean(), 1e-9))
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[len(FEATURE_NAMES) : -1] = l2_products
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


def score_pairs(stages: list[tuple], matrices: list[np.ndarray]) -> tuple[np.ndarray, list[int]]:
    scores, best = [], []
    for matrix in matrices:
        probabilities = sentence_probabilities(stages, matrix)
        scores.append(float(probabilities.max()))
        best.append(int(probabilities.argmax()))
    return np.asarray(scores), best


def rates(scores: np.ndarray, labels: list[str], threshold: float) -> dict:
    labels_array = np.asarray(labels)
    accepted = scores >= threshold

    def share(mask):
        return float(accepted[mask].mean()) if mask.any() else 0.0

    negative = labels_array != "SUPPORT"
    return {"threshold": threshold, "recall": share(labels_array == "SUPPORT"), "fvr": share(negative),
            "fvr_contradict": share(labels_array == "CONTRADICT"), "fvr_no_evidence": share(labels_array == "NOEVIDENCE")}


def auc(scores: np.ndarray, positive: np.ndarray) -> float:
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    n_pos, n_neg = positive.sum(), (~positive).sum()
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)) if n_pos and n_neg else 0.0


def fold_of(claim_id: str, folds: int = 5) -> int:
    return int(hashlib.sha256(f"scifact-judge-fold:{claim_id}".encode()).hexdigest()[:8], 16) % folds


def out_of_fold_scores(pairs: list[Pair], matrices: list[np.ndarray], folds: int = 5, **fit) -> np.ndarray:
    scores = np.zeros(len(pairs))
    fold = np.array([fold_of(p.claim_id, folds) for p in pairs])
    for k in range(folds):
        train = [i for i in range(len(pairs)) if fold[i] != k]
        model = fit_model([pairs[i] for i in train], [matrices[i] for i in train], **fit)
        test = [i for i in range(len(pairs)) if fold[i] == k]
        scores[test] = score_pairs(model, [matrices[i] for i in test])[0]
    return scores


def choose_threshold(scores: np.ndarray, labels: list[str], target_recall: float = TARGET_RECALL) -> float:
    """The highest threshold whose recall on these (out-of-fold) pairs reaches `target_recall`."""
    support = np.sort(scores[np.asarray(labels) == "SUPPORT"])[::-1]
    index = min(int(np.ceil(target_recall * len(support))) - 1, len(support) - 1)
    return float(support[index])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", choices=["query", "passage", "none"], default="passage",
                        help="embed sentences as e5 queries (like the claim) or as passages; none = ablation")
    parser.add_argument("--interaction", action="store_true",
                        help="add the 384 claim x sentence embedding products as features")
    parser.add_argument("--two-stage", action="store_true",
                        help="P(evidence) x P(supports | evidence) instead of one P(supports)")
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--l2-products", type=float, default=L2_PRODUCTS)
    parser.add_argument("--write", action="store_true", help=f"write the weights to {DEFAULT_WEIGHTS}")
    parser.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS)
    args = parser.parse_args(argv)

    pairs = load_pairs(split="train")
    labels = [p.label for p in pairs]
    matrices = columns(pair_matrices(pairs, args.mode), args.interaction)
    fit = {"l2": args.l2, "l2_products": args.l2_products, "two_stage": args.two_stage}
    oof = out_of_fold_scores(pairs, matrices, **fit)
    threshold = choose_threshold(oof, labels)
    chosen = rates(oof, labels, threshold)
    print(f"training pairs {len(pairs)}; mode {args.mode}; interaction {args.interaction}; l2 {args.l2}/{args.l2_products}; "
          f"out-of-fold pair AUC (SUPPORT vs rest) {auc(oof, np.asarray(labels) == 'SUPPORT'):.3f}; "
          f"at recall {chosen['recall']:.3f}: fvr {chosen['fvr']:.3f}")
    for t in sorted({round(x, 2) for x in np.linspace(0.3, 0.95, 14)} | {round(threshold, 3)}):
        r = rates(oof, labels, t)
        print(f"  oof t={t:.3f} recall {r['recall']:.3f} fvr {r['fvr']:.3f} "
              f"(contradict {r['fvr_contradict']:.3f}, no evidence {r['fvr_no_evidence']:.3f})")
    stages = fit_model(pairs, matrices, **fit)
    for stage_name, (mean, scale, coef, intercept) in zip(("first", "second"), stages):
        top = sorted(zip(FEATURE_NAMES, coef / scale), key=lambda item: -abs(item[1]))[:8]
        print(f"  {stage_name} stage: " + ", ".join(f"{name} {value:+.2f}" for name, value in top))
    weights = {
        "model": "logistic regression over (claim, sentence) features; a pair scores its best sentence",
        "features": list(FEATURE_NAMES),
        "stages": [{"mean": m.tolist(), "scale": sc.tolist(), "coef": c.tolist(), "intercept": i} for m, sc, c, i in stages], "threshold": round(threshold, 4), "embedding_mode": args.mode,
        "interaction": args.interaction, "two_stage": args.two_stage, "l2": args.l2, "l2_products": args.l2_products,
        "threshold_rule": f"highest threshold with out-of-fold recall >= {TARGET_RECALL} on the training claims",
        "trained_on": f"SciFact claims_train.jsonl, training side of the claim-id split ({len(pairs)} pairs, "
                      f"{len({p.claim_id for p in pairs})} claims); SciFact is CC BY 4.0 (Wadden et al., 2020)",
    }
    if args.write and args.mode == "none":
        parser.error("--mode none is an ablation; its weights are not shipped")
    if args.write:
        args.out.write_text(json.dumps(weights, indent=1) + "\n", "utf-8")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
