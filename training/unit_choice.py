"""Measure choosing the answer unit with the scorer's and the reader's scores together (the product does not, yet).

    uv run --frozen python -m training.unit_choice collect --out F --product DIR [DIR …] [--squad N]
    uv run --frozen python -m training.unit_choice report F

`collect` asks each question through the engine at its defaults and records, for every unit the composer scores
(the scorer's first `prefilter`), the scorer's probability, the reader's probability and whether the unit holds a
gold answer; one JSON line per question, appended, so an interrupted run goes on where it stopped. Questions: the
product-shaped folders (`questions.jsonl` beside `docs/`) and the first N questions of the SQuAD 2.0 calibration
articles (never the evaluation's). `report` fits a logistic regression over both logits and their gaps to the
question's best, cross-validated by document (product) and by ten-paragraph group (SQuAD), and prints right /
wrong / false per threshold beside the scorer's own, per origin (docs/decisions.md, "combined per unit").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from pipeline import Settings, build_engine
from pipeline.evaluate import data
from pipeline.evaluate.common import request
from pipeline.evaluate.questions import contains, load_items, request_of
from pipeline.evaluate.squad import contains_gold
from pipeline.generate.extractive.answer_model import feature_matrix, shipped_model
from pipeline.generate.extractive.scoring import candidate_pairs, scored_text
from pipeline.lang.text import without_inline_markup
from pipeline.models.reader import shipped_reader

from .pairs import SQUAD2_DEV_SPLIT

THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


def unit_rows(engine, corpus, question: str, req, holds_gold) -> list[dict]:
    """The composer's scored units for one question: scorer and reader probabilities, and the gold label."""
    context = engine.ask(corpus, req, Settings()).context
    if context is None or not context.sources:
        return []
    model, reader = shipped_model(), shipped_reader()
    units, pairs, _, _ = candidate_pairs(context, corpus.tokenizer, corpus.embedder, model.prefilter)
    if not units:
        return []
    scores = model.probability(feature_matrix(pairs))
    return [{"scorer": float(score), "label": int(holds_gold(unit.quote)),
             "reader": float(reader.probabilities("question", question, [without_inline_markup(scored_text(unit))])[0])}
            for unit, score in zip(units, scores)]


def _product_questions(engine, folders: list[Path]):
    for folder in folders:
        corpora: dict = {}
        for item in load_items(folder / "questions.jsonl"):
            docs = tuple(item["docs"])
            if docs not in corpora:
                corpora[docs] = engine.corpus(engine.parse_paths([folder / d for d in docs]))
            gold = (lambda quote, i=item: any(contains(quote, g) for g in i["gold"])) if item["answerable"] else (
                lambda quote: False)
            yield (f"{folder.name}:{item['id']}", f"{folder.name}:{docs}", bool(item["answerable"]), corpora[docs],
                   item["question"], request_of(item), gold)


def _squad_questions(engine, limit: int):
    asked = 0
    for a_index, article in enumerate(data.load_squad(data.SQUAD2)):
        if SQUAD2_DEV_SPLIT.get(article.title) != "calib" or asked >= limit:
            continue
        corpus = engine.corpus([data.paragraph_document(a_index, p, t) for p, t in enumerate(article.paragraphs)])
        for question in article.questions[: limit - asked]:
            asked += 1
            gold = lambda quote, q=question: not q.impossible and contains_gold(quote, q.answers)  # noqa: E731
            yield (f"squad:{article.title}:{asked}", f"squad:{article.title}:{question.paragraph // 10}",
                   not question.impossible, corpus, question.question, request(question.question), gold)


def collect(out: Path, folders: list[Path], squad: int) -> int:
    done = {json.loads(line)["id"] for line in out.read_text("utf-8").splitlines()} if out.exists() else set()
    engine, asked = build_engine(), 0
    with out.open("a", encoding="utf-8") as handle:
        for qid, group, answerable, corpus, question, req, gold in (*_product_questions(engine, folders),
                                                                    *_squad_questions(engine, squad)):
            if qid in done:
                continue
            row = {"id": qid, "group": group, "answerable": answerable,
                   "units": unit_rows(engine, corpus, question, req, gold)}
            handle.write(json.dumps(row) + "\n")
            handle.flush()
            asked += 1
    return asked


def features(units: list[dict]) -> np.ndarray:
    """Per unit: bias, the scorer's and the reader's logits, and each one's gap to the question's best."""
    def logit(p: np.ndarray) -> np.ndarray:
        p = np.clip(p, 1e-6, 1 - 1e-6)
        return np.log(p / (1 - p))

    scorer, reader = logit(np.array([u["scorer"] for u in units])), logit(np.array([u["reader"] for u in units]))
    return np.c_[np.ones(len(units)), scorer, reader, scorer - scorer.max(), reader - reader.max()]


def fit(X: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 30) -> np.ndarray:
    """L2-regularised logistic regression by Newton steps (the bias is not penalised)."""
    w = np.zeros(X.shape[1])
    penalty = l2 * np.diag(np.r_[0.0, np.ones(len(w) - 1)])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-X @ w))
        hessian = (X * (p * (1 - p))[:, None]).T @ X + penalty + 1e-9 * np.eye(len(w))
        w -= np.linalg.solve(hessian, X.T @ (p - y) + penalty @ w)
    return w


def outcomes(rows: list[dict], pick) -> list[dict]:
    """Per threshold: right, wrong and false answers when each question answers with `pick(row)` = (unit, score)."""
    table = []
    for threshold in THRESHOLDS:
        counts = {"threshold": threshold, "right": 0, "wrong": 0, "false": 0}
        for row in rows:
            unit, score = pick(row)
            if score >= threshold:
                key = "false" if not row["answerable"] else "right" if row["units"][unit]["label"] else "wrong"
                counts[key] += 1
        table.append(counts)
    return table


def cross_validated_picks(rows: list[dict], folds: int = 5, seed: int = 0) -> dict[str, tuple[int, float]]:
    """Each question's unit and combined probability from a model fitted without its group."""
    groups = sorted({row["group"] for row in rows})
    if len(groups) < 2:
        raise ValueError("cross-validation needs questions of at least two documents")
    order = np.random.default_rng(seed).permutation(len(groups))
    picks = {}
    for fold in np.array_split(order, min(folds, len(groups))):
        held = {groups[i] for i in fold}
        train = [row for row in rows if row["group"] not in held]
        w = fit(np.vstack([features(r["units"]) for r in train]),
                np.concatenate([[u["label"] for u in r["units"]] for r in train]))
        for row in rows:
            if row["group"] in held:
                p = 1 / (1 + np.exp(-features(row["units"]) @ w))
                picks[row["id"]] = (int(np.argmax(p)), float(p.max()))
    return picks


def report(path: Path) -> dict:
    rows = [row for row in map(json.loads, path.read_text("utf-8").splitlines()) if row["units"]]
    picks = cross_validated_picks(rows)
    out = {}
    for origin in sorted({row["id"].split(":")[0] == "squad" for row in rows}):
        part = [row for row in rows if (row["id"].split(":")[0] == "squad") == origin]
        out["squad" if origin else "product"] = {
            "questions": len(part), "answerable": sum(r["answerable"] for r in part),
            "scorer": outcomes(part, lambda r: max(enumerate(u["scorer"] for u in r["units"]), key=lambda x: x[1])),
            "combined": outcomes(part, lambda r: picks[r["id"]])}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect")
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument("--product", type=Path, nargs="*", default=[])
    gather.add_argument("--squad", type=int, default=0, help="questions of the SQuAD 2.0 calibration articles")
    show = commands.add_parser("report")
    show.add_argument("path", type=Path)
    args = parser.parse_args(argv)
    if args.command == "collect":
        print(f"asked {collect(args.out, args.product, args.squad)} questions → {args.out}")
        return 0
    for origin, part in report(args.path).items():
        print(f"{origin}: {part['questions']} questions, {part['answerable']} answerable (right / wrong / false)")
        for name in ("scorer", "combined"):
            print(f"  {name:8} " + " | ".join(f"{r['threshold']}: {r['right']}/{r['wrong']}/{r['false']}" for r in part[name]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
