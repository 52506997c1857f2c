"""The pairs a ranking reader is fine-tuned on: public questions by quota, table rows, the product's own candidates.

    uv run --frozen python -m training.reader_mix --public training/data/pairs.jsonl \\
        --quota squad11:1800,cmrc:1000,squad2train:1000,squad2dev:1200,scifact:300 \\
        --tables training/data/tables.jsonl --table-groups 700 \\
        --product training/data/product_runtime.jsonl --product-copies 2 --keywords 0.12 --out training/data/mix.jsonl

Whole groups only (a question with all its units), for the listwise loss (`train.py --listwise`):
- `--public` (training.pairs): so many training groups per origin (`--quota`), and every validation and calibration
  pair, so the curve and the calibration stay comparable with the earlier reader's;
- `--tables` (training.table_pairs): so many training groups, and at most 800 validation pairs;
- `--product` (training.candidates pairs: what the reader chooses among at run time), each training group
  `--product-copies` times (few, and what the product meets);
- a keyword copy (`--keywords`: the share of training groups): the question cut to its content words ("Beijing
  lodging" for "What is the lodging limit in Beijing?"), because people type searches as well as questions.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from pathlib import Path

from training.pair_text import sha256

_STOP = frozenset("""a an the of in on at to for by with from and or but is are was were be been being do does did what
which who whom whose when where why how that this these those it its as into than then there their they he she his her
we you i not can could would should will may might must has have had about after before during my me our your if so""".split())
_ZH_QUESTION_WORDS = re.compile(r"[？?吗呢吧啊呀了的是什么哪些怎么如何多少几]")


def keywords(question: str) -> str:
    """A question as a search: its content words (Chinese: without its question words and particles)."""
    if re.search(r"[\u4e00-\u9fff]", question):
        return _ZH_QUESTION_WORDS.sub("", question).strip()
    return " ".join(w for w in re.findall(r"[\w.+#/-]+", question) if w.casefold() not in _STOP)


def _groups(path: Path) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            out[(row["split"], row["group"])].append(row)
    return out


def mix(public: Path, quota: dict[str, int], tables: list[Path], table_groups: int, product: list[Path],
        copies: int, keyword_share: float, seed: int) -> tuple[list[dict], int]:
    """The mix's rows (shuffled) and how many keyword copies it holds."""
    rng = random.Random(seed)
    rows: list[dict] = []
    earlier = _groups(public)
    keys = [k for k in earlier if k[0] == "train"]
    rng.shuffle(keys)
    taken: dict[str, int] = defaultdict(int)
    for key in keys:
        origin = earlier[key][0]["origin"].split("-")[0]
        if taken[origin] < quota.get(origin, 0):
            taken[origin] += 1
            rows += earlier[key]
    rows += [r for key, group in earlier.items() if key[0] != "train" for r in group]
    for path in tables:
        found = _groups(path)
        keys = [k for k in found if k[0] == "train"]
        rng.shuffle(keys)
        for key in keys[: table_groups // max(len(tables), 1)]:
            rows += found[key]
        rows += [r for key, group in found.items() if key[0] == "val" for r in group][:800]
    for path in product:
        for key, group in _groups(path).items():
            for copy in range(copies if key[0] == "train" else 1):
                rows += [dict(r, group=r["group"] + (f"#{copy}" if copy else "")) for r in group]
    by_group: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        if row["split"] == "train" and row["task"] == "question":
            by_group[row["group"]].append(row)
    extra = []
    for group, members in by_group.items():
        if rng.random() < keyword_share:
            query = keywords(members[0]["query"])
            if query and query != members[0]["query"]:
                extra += [dict(r, query=query, group=group + "-kw") for r in members]
    rows += extra
    rng.shuffle(rows)
    return rows, len(extra)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--public", type=Path, required=True)
    parser.add_argument("--quota", default="squad11:1800,cmrc:1000,squad2train:1000,squad2dev:1200,scifact:300")
    parser.add_argument("--tables", type=Path, action="append", default=[])
    parser.add_argument("--table-groups", type=int, default=700)
    parser.add_argument("--product", type=Path, action="append", default=[])
    parser.add_argument("--product-copies", type=int, default=2)
    parser.add_argument("--keywords", type=float, default=0.12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    quota = {k: int(v) for k, v in (item.split(":") for item in args.quota.split(","))}
    rows, keyword_copies = mix(args.public, quota, args.tables, args.table_groups, args.product, args.product_copies,
                               args.keywords, args.seed)
    counts: dict[str, int] = defaultdict(int)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            counts[f"{row['split']}/{row['origin'].split('-')[0]}"] += 1
    manifest = {"seed": args.seed, "quota": quota, "table_groups": args.table_groups,
                "product_copies": args.product_copies, "keywords": args.keywords, "keyword_copies": keyword_copies,
                "counts": dict(sorted(counts.items())),
                "inputs": {str(p): sha256(p) for p in [args.public, *args.tables, *args.product]},
                "pairs_sha256": sha256(args.out)}
    args.out.with_suffix(".manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(manifest["counts"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
