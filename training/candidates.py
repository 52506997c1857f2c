"""What the reader chooses among: every candidate unit the product puts before it, per question, labelled.

    uv run --frozen python -m training.candidates collect --out F QUESTIONS.jsonl …   (resumable)
    uv run --frozen python -m training.candidates rescore --model M.onnx --key r2 F OUT
    uv run --frozen python -m training.candidates pairs --out PAIRS.jsonl F …
    uv run --frozen python -m training.candidates report F … [--key r2] [--thresholds …]

`collect` asks each question (a file in the evaluation format: `../shared/eval/realdocs/questions_a.jsonl`, a training
folder's `questions.jsonl`, a held-out set's `questions/*.jsonl`) through the engine at its defaults and records the
engine's answer and outcome, and every candidate the composer's pre-filter of words and type keeps (its first
`--top`), as the reader reads it, with the scorer's and the shipped reader's probabilities and whether the unit holds
a gold answer; one JSON line per question, appended. `rescore` reads the same candidates with another reader file.
`pairs` turns the candidates into the reader's training pairs (origin `product-runtime`; one question's candidates are
one group; one document in five is validation, by a hash of its path). `report` says, per set (realdocs by half: the
documents' hash order puts six of each part's twelve in the "tune" half), how often the gold is among the candidates,
how often the reader's best unit holds it, and right / wrong / false when the reader's best unit answers at each
threshold — the composer's choice without its checks and extensions, a quick measure before the whole engine is asked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from pipeline.evaluate.questions import realdocs_half

THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


def _paths(question_file: Path, docs: tuple[str, ...]) -> list[Path]:
    from pipeline.evaluate.questions import doc_path

    return [question_file.parent / d if (question_file.parent / d).exists() else doc_path(d, question_file.parent)
            for d in docs]


class _NoMeaning:
    """A stand-in embedder for a words-only collection: every vector is zero (the scorer's meaning features are then
    blank; which units are candidates is decided by words and type alone, as in the product)."""

    def __init__(self, embedder) -> None:
        self.name, self.dim = embedder.name, embedder.dim

    def embed_query(self, text: str):
        import numpy as np

        return np.ones(self.dim, dtype=np.float32)

    def embed_passages(self, texts: list[str]):
        import numpy as np

        return np.zeros((len(texts), self.dim), dtype=np.float32)


def _words_only_corpus(engine, documents):
    """A corpus ranked by BM25 alone, no vector computed (the app's corpus while its vectors are being embedded)."""
    from pipeline.index.background import _KnownOnly
    from pipeline.index.corpus import build_corpus

    corpus = build_corpus(documents, engine.embedder, _KnownOnly(engine.vector_store, engine.embedder.dim),
                          tokenizer=engine.tokenizer, index_settings=engine.config.index)
    return corpus.pending_dense(frozenset(d.source_id for d in documents), lambda source: "not embedded")


def collect(out: Path, files: list[Path], top: int, words_only: bool = False) -> int:
    """`words_only`: retrieval by BM25 alone and candidates without the scorer's meaning features, no engine answer
    (a fast collection for training pairs: the vectors of a document collection take hours on two cores)."""
    from pipeline import Settings, build_engine
    from pipeline.core.contracts import Proposal
    from pipeline.evaluate.questions import contains, load_items, request_of, score_item
    from pipeline.generate.extractive.answer_model import feature_matrix, shipped_model
    from pipeline.generate.extractive.scoring import candidate_pairs, reader_text
    from pipeline.models.reader import shipped_reader

    done = {json.loads(line)["id"] for line in out.read_text("utf-8").splitlines()} if out.exists() else set()
    engine, model, reader, asked = build_engine(), shipped_model(), shipped_reader(), 0
    with out.open("a", encoding="utf-8") as handle:
        for question_file in files:
            corpora: dict = {}
            for item in load_items(question_file):
                qid = f"{question_file.parent.name}:{item['id']}"
                if qid in done:
                    continue
                docs = tuple(item["docs"])
                if docs not in corpora:
                    documents = engine.parse_paths(_paths(question_file, docs))
                    corpora[docs] = _words_only_corpus(engine, documents) if words_only else engine.corpus(documents)
                corpus = corpora[docs]
                started = time.perf_counter()
                trace = engine.ask(corpus, request_of(item), Settings(), generator=(lambda context: Proposal(
                    abstain_reason="insufficient_evidence", note="words-only collection")) if words_only else None)
                row = score_item(item, trace) | {
                    "id": qid, "question": item["question"], "answer": trace.answer.answer, "lang": item.get("lang"),
                    "doc": docs[0], "gold": item.get("gold"), "ask_s": round(time.perf_counter() - started, 3)}
                gold = item.get("gold") or []
                units = []
                if trace.context is not None and trace.context.sources:
                    embedder = _NoMeaning(corpus.embedder) if words_only else corpus.embedder
                    found, pairs, lexical, _ = candidate_pairs(trace.context, corpus.tokenizer, embedder, top)
                    scores = model.probability(feature_matrix(pairs)) if found else []
                    for rank, (unit, score) in enumerate(zip(found, scores)):
                        text = reader_text(unit)
                        units.append({"rank": rank, "kind": unit.kind, "sid": unit.source.source_id,
                                      "start": unit.start_line, "end": unit.end_line, "quote": unit.quote, "text": text,
                                      "scorer": float(score), "label": bool(item["answerable"]) and any(
                                          contains(unit.quote, g) for g in gold),
                                      "reader": float(reader.probabilities("question", item["question"], [text])[0])})
                row["units"] = units
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                handle.flush()
                asked += 1
                print(qid, row["passed"], file=sys.stderr, flush=True)
    return asked


def rescore(model: Path, key: str, source: Path, out: Path) -> None:
    from pipeline.models.reader import Reader

    reader = Reader(model)
    done = {json.loads(line)["id"] for line in out.read_text("utf-8").splitlines()} if out.exists() else set()
    with out.open("a", encoding="utf-8") as handle:
        for line in source.read_text("utf-8").splitlines():
            row = json.loads(line)
            if row["id"] in done:
                continue
            for unit in row["units"]:
                unit[key] = float(reader.probabilities("question", row["question"], [unit["text"]])[0])
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def to_pairs(out: Path, files: list[Path], per_question: int = 32) -> dict[str, int]:
    """Training pairs from collected candidates: a question whose gold is not among its candidates is left out (as
    a group without an answering unit it would teach that nothing answers)."""
    counts: dict[str, int] = defaultdict(int)
    with out.open("w", encoding="utf-8") as handle:
        for path in files:
            for line in path.read_text("utf-8").splitlines():
                row = json.loads(line)
                units = row["units"][:per_question]
                if not units or (row["answerable"] and not any(u["label"] for u in units)):
                    continue
                split = "val" if int(hashlib.sha256(row["doc"].encode()).hexdigest()[:8], 16) % 5 == 0 else "train"
                origin = "product-runtime" if row["answerable"] else "product-runtime-unanswerable"
                seen = set()
                for unit in units:
                    if unit["text"] in seen:
                        continue
                    seen.add(unit["text"])
                    handle.write(json.dumps({"task": "question", "query": row["question"], "unit": unit["text"],
                                             "label": int(unit["label"]), "origin": origin, "group": row["id"],
                                             "split": split}, ensure_ascii=False) + "\n")
                    counts[f"{split}/{origin}/{int(unit['label'])}"] += 1
    return dict(counts)


def set_of(row: dict) -> str:
    """The set a question belongs to in a report: realdocs by part and half, others by folder."""
    folder = row["id"].split(":")[0]
    if folder == "realdocs":
        return f"realdocs-{row['id'].split(':')[1][0]}-{realdocs_half(row['doc'])}"
    return folder


def outcome(row: dict, unit: dict | None, score: float, threshold: float) -> str:
    if unit is None or score < threshold:
        return "refused" if not row["answerable"] else "missed"
    if not row["answerable"]:
        return "false"
    return "right" if unit["label"] and len(unit["quote"]) <= 600 else "wrong"


def report(files: list[Path], key: str, thresholds: tuple[float, ...] = THRESHOLDS) -> dict:
    rows = [json.loads(line) for path in files for line in path.read_text("utf-8").splitlines()]
    by_set: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_set[set_of(row)].append(row)
    out = {}
    for name, part in sorted(by_set.items()):
        answerable = [r for r in part if r["answerable"]]
        best = {r["id"]: max(r["units"], key=lambda u: u[key]) if r["units"] else None for r in part}
        curve = []
        for threshold in thresholds:
            counts = Counter(outcome(r, best[r["id"]], best[r["id"]][key] if best[r["id"]] else 0.0, threshold)
                             for r in part)
            curve.append({"threshold": threshold, **{k: counts.get(k, 0) for k in ("right", "wrong", "false",
                                                                                    "missed", "refused")}})
        out[name] = {"questions": len(part), "answerable": len(answerable),
                     "gold_among_candidates": sum(any(u["label"] for u in r["units"]) for r in answerable),
                     "best_holds_gold": sum(bool(best[r["id"]] and best[r["id"]]["label"]) for r in answerable),
                     "curve": curve}
    return out


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def _fit_logistic(X: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """L2-regularised logistic regression by Newton steps (the bias is not penalised)."""
    w = np.zeros(X.shape[1])
    penalty = l2 * np.diag(np.r_[0.0, np.ones(X.shape[1] - 1)])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-X @ w))
        hessian = (X * (p * (1 - p))[:, None]).T @ X + penalty + 1e-9 * np.eye(len(w))
        w -= np.linalg.solve(hessian, X.T @ (p - y) + penalty @ w)
    return w


def fit_ranking(rows: list[dict], key: str, calibration: tuple[float, float]) -> dict[str, float]:
    """(bias, reader, scorer) of a candidate's answer probability: a logistic regression of "holds the gold" on the
    reader's raw logit (recovered from its calibrated probability `key` by the record's `calibration`) and the
    pre-filter scorer's logit, over every candidate of `rows` (collected with the scorer's meaning features)."""
    a, b = calibration
    X, y = [], []
    for row in rows:
        for unit in row["units"]:
            X.append([1.0, (_logit(unit[key]) - b) / a, _logit(unit["scorer"])])
            y.append(float(unit["label"]))
    bias, reader, scorer = _fit_logistic(np.array(X), np.array(y))
    return {"bias": float(bias), "reader": float(reader), "scorer": float(scorer)}


def combined(unit: dict, key: str, calibration: tuple[float, float], ranking: dict[str, float]) -> float:
    a, b = calibration
    z = ranking["bias"] + ranking["reader"] * (_logit(unit[key]) - b) / a + ranking["scorer"] * _logit(unit["scorer"])
    return 1 / (1 + math.exp(-z))


def choose_threshold(rows: list[dict], score, grid: tuple[float, ...]) -> tuple[float, list[dict]]:
    """The threshold of `grid` with the most right answers less twice the wrong and false ones when each question
    answers with its best-scored unit (the highest such threshold on a tie), and the curve."""
    curve = []
    for threshold in grid:
        counts = Counter()
        for row in rows:
            best = max(row["units"], key=score) if row["units"] else None
            counts[outcome(row, best, score(best) if best else 0.0, threshold)] += 1
        curve.append({"threshold": threshold, **{k: counts.get(k, 0) for k in ("right", "wrong", "false", "missed",
                                                                                  "refused")}})
    best = max(curve, key=lambda c: (c["right"] - 2 * (c["wrong"] + c["false"]), c["threshold"]))
    return best["threshold"], curve


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gather = commands.add_parser("collect")
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument("--top", type=int, default=48)
    gather.add_argument("--words-only", action="store_true", help="BM25 retrieval, no vectors, no engine answer (fast)")
    gather.add_argument("files", type=Path, nargs="+")
    again = commands.add_parser("rescore")
    again.add_argument("--model", type=Path, required=True)
    again.add_argument("--key", default="r2")
    again.add_argument("source", type=Path)
    again.add_argument("out", type=Path)
    make = commands.add_parser("pairs")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("files", type=Path, nargs="+")
    show = commands.add_parser("report")
    show.add_argument("--key", default="reader")
    show.add_argument("--thresholds", default=",".join(map(str, THRESHOLDS)))
    show.add_argument("files", type=Path, nargs="+")
    ranked = commands.add_parser("fit-ranking", help="fit the combination of reader and scorer, and its threshold, "
                                                     "on the realdocs tune half of collected candidates")
    ranked.add_argument("--key", default="reader")
    ranked.add_argument("--record", type=Path, required=True, help="the reader's record: its calibration is read, "
                                                                    "its ranking and answer threshold written")
    ranked.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "fit-ranking":
        record = json.loads(args.record.read_text("utf-8"))
        rows = [json.loads(line) for path in args.files for line in path.read_text("utf-8").splitlines()]
        tune = [r for r in rows if r["id"].startswith("realdocs:") and realdocs_half(r["doc"]) == "tune"]
        calibration = tuple(record["calibration"]["question"])
        ranking = fit_ranking(tune, args.key, calibration)
        grid = tuple(round(0.05 * i, 2) for i in range(2, 17))
        threshold, curve = choose_threshold(tune, lambda u: combined(u, args.key, calibration, ranking), grid)
        record["ranking"] = ranking | {"fitted_on": f"{len(tune)} realdocs tune-half questions' candidates"}
        record["thresholds"]["answer"] = threshold
        record.setdefault("threshold_rules", {})["answer"] = (
            "the most right answers less twice the wrong and false ones on the realdocs tune half, each question "
            "answering with its candidate of highest combined probability (training.candidates fit-ranking)")
        record["answer_curve_realdocs_tune"] = curve
        args.record.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(json.dumps({"ranking": ranking, "answer": threshold}))
    elif args.command == "collect":
        print(f"asked {collect(args.out, args.files, args.top, args.words_only)} questions → {args.out}")
    elif args.command == "rescore":
        rescore(args.model, args.key, args.source, args.out)
    elif args.command == "pairs":
        print(json.dumps(to_pairs(args.out, args.files), sort_keys=True))
    else:
        thresholds = tuple(float(t) for t in args.thresholds.split(","))
        for name, part in report(args.files, args.key, thresholds).items():
            print(f"{name}: {part['questions']} questions, {part['answerable']} answerable, gold among candidates "
                  f"{part['gold_among_candidates']}, the best unit holds it {part['best_holds_gold']}")
            print("  " + " | ".join(f"{c['threshold']}: {c['right']}/{c['wrong']}/{c['false']}" for c in part["curve"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
