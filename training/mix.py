"""Pairs for a continued fine-tune: every pair of the product-shaped question folders (training/product_pairs.py)
and of the reader's recorded run-time inputs on them (training/runtime_pairs.py), with a sample of an earlier pairs
file's training pairs replayed so that what the reader learnt is kept (and, with `--keep-origin`, the questions
having one kind of pair, the echo negatives, each whole), and that file's validation pairs, so the validation curve
stays comparable.

    uv run --frozen python -m training.mix --earlier training/data/pairs.jsonl --replay 4000 \\
        --product DIR [--product DIR …] [--runtime FILE] --out training/data/mix.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from training.pair_text import sha256
from training.pairs import PairWriter
from training.product_pairs import product_pairs
from training.runtime_pairs import runtime_pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--earlier", type=Path, required=True, help="the pairs the reader was trained on")
    parser.add_argument("--replay", type=int, default=4000, help="training pairs replayed from --earlier")
    parser.add_argument("--product", type=Path, action="append", default=[])
    parser.add_argument("--keep-origin", action="append", default=[], metavar="SUFFIX",
                        help="keep the questions of --earlier having a training pair whose origin ends so (e.g. -echo), "
                             "each with all its pairs; repeatable")
    parser.add_argument("--keep-groups", type=int, default=2500, help="at most so many such questions")
    parser.add_argument("--runtime", type=Path, action="append", default=[], help="training.runtime_pairs output")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    earlier = [json.loads(line) for line in args.earlier.read_text(encoding="utf-8").splitlines() if line.strip()]
    train = [r for r in earlier if r["split"] == "train"]
    kind = tuple(args.keep_origin)  # no suffix: nothing kept
    groups = sorted({r["group"] for r in train if r["origin"].endswith(kind)})
    kept_groups = set(rng.sample(groups, min(args.keep_groups, len(groups))))
    kept = [r for r in train if r["group"] in kept_groups]
    rest = [r for r in train if r["group"] not in kept_groups and not r["origin"].endswith(kind)]  # none more replayed
    rows = kept + rng.sample(rest, min(args.replay, len(rest))) + [r for r in earlier if r["split"] == "val"]
    for folder in args.product:
        rows.extend(product_pairs(folder, rng))
    for path in args.runtime:
        rows.extend(runtime_pairs(path))
    rng.shuffle(rows)
    writer = PairWriter(args.out, args.seed)
    for row in rows:
        writer.add(**row)
    writer.close()
    counts = writer.counts
    inputs = {**{str(f): sha256(f / "questions.jsonl") for f in args.product}, **{str(f): sha256(f) for f in args.runtime}}
    manifest = {"seed": args.seed, "replay": args.replay, "keep_origin": args.keep_origin,
                "keep_groups": args.keep_groups, "counts": counts, "earlier_sha256": sha256(args.earlier),
                "inputs": inputs, "pairs_sha256": sha256(args.out)}
    args.out.with_suffix(".manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(json.dumps(counts, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
