"""Train the answer scorer (pipeline/answer_model.json) on the public SQuAD 2.0 and CMRC halves.

`uv run python scripts/train_answer_model.py [--squad N] [--cmrc N] [--out FILE]`

For each question, the product's own retrieve → pack runs at default Settings, the composer's
candidate units and features are computed exactly as at answer time (generate.unit_features),
and a unit is labelled 1 when it contains a gold answer (0 for every unit of an unanswerable
question). A logistic regression (numpy, L2, Newton steps) is fitted; figures are
cross-validated by article (SQuAD) or paragraph group (CMRC), since those halves are also
evaluation sets. The abstention threshold is the one that maximises the cross-validated
question-level accuracy (correct answer, or abstention on an unanswerable question) pooled
over both sets. Features are cached under RAG_CACHE_DIR/../answer-features.npz.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.answer_model import FEATURES, UNTRAINED, WEIGHTS, AnswerModel  # noqa: E402
from pipeline.contracts import Settings  # noqa: E402
from pipeline.evaluate import data  # noqa: E402
from pipeline.evaluate.common import request  # noqa: E402
from pipeline.evaluate.squad import contains_gold, pooled  # noqa: E402
from pipeline.generate import unit_features  # noqa: E402
from pipeline.config import build_engine  # noqa: E402
from pipeline.pack import PackError, pack  # noqa: E402
from pipeline.retrieve import retrieve  # noqa: E402


def collect(articles, limit: int, group_offset: int, settings: Settings, label: str):
    """Feature rows, unit labels, question ids, group ids (article), answerable flags."""
    X, y, qid, groups, answerable = [], [], [], [], []
    asked, engine = 0, build_engine()
    for a_index, article in enumerate(articles):
        if asked >= limit:
            break
        documents = [data.paragraph_document(a_index, p, text) for p, text in enumerate(article.paragraphs)]
        corpus = engine.corpus(documents)
        readable = corpus.readable_documents(())
        for question in article.questions:
            if asked >= limit:
                break
            asked += 1
            req = request(question.question)
            retrieval = retrieve(corpus, req, settings)
            weights = retrieval.term_weights
            if not retrieval.selected:
                continue
            try:
                context = pack(retrieval.selected, readable, req, settings, weights)
            except PackError:
                continue
            units, features, _, _ = unit_features(context, corpus.tokenizer, corpus.embedder, UNTRAINED.prefilter)
            group = group_offset + (a_index if len(articles) > 1 else question.paragraph // 40)
            for unit, row in zip(units, features):
                X.append(row)
                y.append(int(not question.impossible and contains_gold(unit.quote, question.answers)))
                qid.append(f"{label}-{asked}")
                groups.append(group)
                answerable.append(not question.impossible)
            if asked % 100 == 0:
                print(f"{label}: {asked} questions", file=sys.stderr, flush=True)
    return np.array(X), np.array(y), np.array(qid), np.array(groups), np.array(answerable)


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 25) -> AnswerModel:
    mean, scale = X.mean(axis=0), X.std(axis=0)
    mean[0], scale[0] = 0.0, 1.0  # the bias column stays 1
    scale[scale < 1e-9] = 1.0
    Z = (X - mean) / scale
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-Z @ w))
        gradient = Z.T @ (p - y) + l2 * np.r_[0.0, w[1:]]
        hessian = (Z * (p * (1 - p))[:, None]).T @ Z + l2 * np.diag(np.r_[0.0, np.ones(len(w) - 1)])
        w -= np.linalg.solve(hessian + 1e-9 * np.eye(len(w)), gradient)
    return AnswerModel(w, mean, scale, threshold=0.5, prefilter=UNTRAINED.prefilter)


def question_outcomes(probabilities, y, qid, answerable):
    """Per question: best unit's probability, whether it holds a gold answer, answerable."""
    best: dict[str, tuple[float, int, bool]] = {}
    for p, label, q, ok in zip(probabilities, y, qid, answerable):
        if q not in best or p > best[q][0]:
            best[q] = (float(p), int(label), bool(ok))
    return list(best.values())


def curve(outcomes, total_questions: int, total_unanswerable: int):
    """Accuracy, answered-correct rate and precision at each threshold (questions never packed abstain)."""
    answerable_total = total_questions - total_unanswerable
    points = []
    for t in np.round(np.arange(0.05, 0.96, 0.025), 3):
        answered = [(p, good, ok) for p, good, ok in outcomes if p >= t]
        good = sum(g for _, g, _ in answered)
        false = sum(1 for _, _, ok in answered if not ok)
        points.append({"threshold": float(t), "answered_correct": good / max(answerable_total, 1),
                       "accuracy": (good + total_unanswerable - false) / max(total_questions, 1),
                       "precision": good / len(answered) if answered else 1.0})
    return points


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--squad", type=int, default=1200, help="SQuAD 2.0 questions (file order)")
    parser.add_argument("--cmrc", type=int, default=800, help="CMRC 2018 questions (file order, pooled paragraphs)")
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    args = parser.parse_args()
    cache = Path(os.environ.get("RAG_CACHE_DIR", str(ROOT / ".cache"))).parent / "answer-features.npz"
    settings = Settings()
    if cache.exists():
        saved = np.load(cache)
        parts = [tuple(saved[f"{name}_{k}"] for k in ("X", "y", "qid", "groups", "answerable")) + (int(saved[f"{name}_n"]), int(saved[f"{name}_u"]))
                 for name in ("squad", "cmrc")]
    else:
        squad_articles = data.load_squad(data.SQUAD2)
        cmrc_articles = pooled(data.load_squad(data.CMRC)[: args.cmrc])
        squad = collect(squad_articles, args.squad, 0, settings, "squad")
        cmrc = collect(cmrc_articles, args.cmrc, 100, settings, "cmrc")
        counts = []
        for articles, limit in ((squad_articles, args.squad), (cmrc_articles, args.cmrc)):
            questions = [q for a in articles for q in a.questions][:limit]
            counts.append((len(questions), sum(q.impossible for q in questions)))
        parts = [squad + counts[0], cmrc + counts[1]]
        np.savez(cache, **{f"{name}_{k}": v for name, part in zip(("squad", "cmrc"), parts)
                           for k, v in zip(("X", "y", "qid", "groups", "answerable", "n", "u"), part)})
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    qid = np.concatenate([p[2] for p in parts])
    groups = np.concatenate([p[3] for p in parts])
    answerable = np.concatenate([p[4] for p in parts])
    # Cross-validated probabilities: each group's units scored by a model fitted without it.
    held_out = np.zeros(len(y))
    unique = np.unique(groups)
    folds = np.array_split(unique, min(5, len(unique)))
    for fold in folds:
        test = np.isin(groups, fold)
        held_out[test] = fit(X[~test], y[~test]).probability(X[test])
    report = {"features": list(FEATURES), "units": int(len(y)), "positives": int(y.sum()), "sets": {}}
    pooled_points = None
    for name, part in zip(("squad2", "cmrc"), parts):
        mask = np.isin(qid, part[2])
        outcomes = question_outcomes(held_out[mask], y[mask], qid[mask], answerable[mask])
        points = curve(outcomes, part[5], part[6])
        report["sets"][name] = {"questions": part[5], "unanswerable": part[6], "curve": points}
        pooled_points = points if pooled_points is None else [
            {**a, "accuracy": a["accuracy"] + b["accuracy"]} for a, b in zip(pooled_points, points)]
    best = max(pooled_points, key=lambda point: point["accuracy"])
    model = fit(X, y)
    model = AnswerModel(model.weights, model.mean, model.scale, best["threshold"], model.prefilter)
    payload = model.to_json()
    payload["training"] = {"command": "uv run python scripts/train_answer_model.py"
                                      f" --squad {args.squad} --cmrc {args.cmrc}",
                           "units": report["units"], "positives": report["positives"],
                           "cross_validated_at_threshold": {
                               name: next(p for p in s["curve"] if p["threshold"] == best["threshold"])
                               for name, s in report["sets"].items()}}
    args.out.write_text(json.dumps(payload, indent=1), "utf-8")
    for name, s in report["sets"].items():
        print(f"{name}: {s['questions']} questions ({s['unanswerable']} unanswerable)")
        for p in s["curve"][::4]:
            print(f"  t={p['threshold']:.3f} acc={p['accuracy']:.3f} answered_correct={p['answered_correct']:.3f} P={p['precision']:.3f}")
    print(f"threshold {best['threshold']} (max pooled cross-validated accuracy); weights → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
