"""How a reader file tells answers from their echoes on the validation pairs (`training.pairs --echo`).

    uv run --frozen python -m training.echo_check --pairs training/data/pairs.jsonl [--model F.onnx --record F.json]

Per source (SQuAD 2.0 validation articles, CMRC's public half, SQuAD 1.1's validation articles), over up to 400
questions having an echo: how often the answering sentence scores above its echo, and the share of echoes, answers
and the paragraph's other sentences at or above each threshold (calibrated probabilities).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from pipeline.models.reader import Reader

SOURCES = ("squad2dev", "cmrcdev", "squad11")
THRESHOLDS = (0.2, 0.3, 0.35, 0.45)


def echo_report(reader: Reader, rows: list[dict], per_source: int = 400) -> dict:
    groups: dict[str, list[dict]] = {}
    for row in rows:
        if row["split"] == "val":
            groups.setdefault(row["group"], []).append(row)
    report = {}
    for source in SOURCES:
        wins, echoes, answers, others = [], [], [], []
        chosen = [g for g in groups.values() if any(r["origin"] == source + "-echo" for r in g)][:per_source]
        for group in chosen:
            p = reader.probabilities("question", group[0]["query"], [r["unit"] for r in group])
            answer = [p[i] for i, r in enumerate(group) if r["label"] == 1]
            echo = [p[i] for i, r in enumerate(group) if r["origin"] == source + "-echo"]
            if answer and echo:
                wins.append(max(answer) > echo[0])
                echoes.append(echo[0])
                answers.append(max(answer))
                others.extend(p[i] for i, r in enumerate(group) if r["label"] == 0 and r["origin"] == source)
        if wins:
            e, a, o = np.array(echoes), np.array(answers), np.array(others)
            report[source] = {"questions": len(wins), "answer_above_echo": round(float(np.mean(wins)), 3),
                              "passing": {str(t): {"echo": round(float((e >= t).mean()), 3),
                                                   "answer": round(float((a >= t).mean()), 3),
                                                   "other": round(float((o >= t).mean()), 3) if len(o) else None}
                                          for t in THRESHOLDS}}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, required=True)
    parser.add_argument("--model", type=Path, default=None, help="an exported reader (default: the shipped one)")
    parser.add_argument("--record", type=Path, default=None)
    args = parser.parse_args(argv)
    reader = Reader(args.model, args.record) if args.model else Reader()
    rows = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(json.dumps(echo_report(reader, rows), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
