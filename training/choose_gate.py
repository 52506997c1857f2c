"""Choose the composer's reader threshold (`min_reader`) on the SQuAD 2.0 calibration articles, whole engine.

    uv run --frozen python -m training.choose_gate [--split calib] [--out training/data/gate-calib.json]
    uv run --frozen python -m training.choose_gate --split val --product DIR [--product DIR …] --out …
    uv run --frozen python -m training.choose_gate --split all --product training/questions/pdf … --out …  (shipped)
    uv run --frozen python -m training.choose_gate --questions FILE [--questions FILE …] --out …

Every question of the split's articles is asked with the reader's check at a threshold of 1e-6, so the composer
reads the unit it would answer with exactly as in the product and records the score (`Proposal.reader_score`)
without refusing it. Then, per threshold of the grid: an answer stays if its unit was not read (a table row, a
definition chosen by its form) or scored at least the threshold. The rule: the highest threshold that keeps at
least `--keep` (90 %) of the right answers. Maximising accuracy instead chooses a threshold SQuAD's
adversarial unanswerables favour and the product's documents do not (docs/decisions.md).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from pipeline import Settings, build_engine
from pipeline.evaluate import data
from pipeline.evaluate.common import request
from pipeline.evaluate.questions import doc_path, score_item
from pipeline.evaluate.squad import contains_gold, pooled

from .pairs import SQUAD2_DEV_SPLIT
from .product_pairs import split_of
from .runtime_pairs import asked_in, asked_items

# Steps of 0.01. The rule gives 0.18 on them; the record ships 0.15, the 0.05 grid's step, because 0.18 measured worse on
# the product-like held-out sets (the reader-v1 record's threshold_rules.answer_finer_grid, in git history).
GRID = (0.0, *(round(0.05 + 0.01 * i, 2) for i in range(46)))
REPORTED = (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)  # right/wrong/false printed for --questions


def asked(split: str, min_support: float | None = None) -> list[dict]:
    """One row per question: answered, right, impossible, the scorer's and the reader's scores of the answered unit.
    `min_support`: the scorer's threshold (default the shipped one; 0 records every question's best unit)."""
    engine = build_engine()
    settings = Settings(min_reader=1e-6, **({} if min_support is None else {"min_support": min_support}))
    rows = []
    for a_index, article in enumerate(data.load_squad(data.SQUAD2)):
        if SQUAD2_DEV_SPLIT.get(article.title) != split:
            continue
        documents = [data.paragraph_document(a_index, p, text) for p, text in enumerate(article.paragraphs)]
        corpus = engine.corpus(documents)
        rows.extend(_row(engine.ask(corpus, request(question.question), settings), question)
                    for question in article.questions)
    return rows


# CMRC 2018 public-half articles from here on are neither asked by `eval cmrc --limit 150` (its questions come from the
# first articles) nor trained on by the scorer (`training.answer_model --cmrc 600` takes questions 151–750, from
# articles before this one); the reader trains on CMRC's train file only.
CMRC_CALIBRATION_FROM = 212


def asked_cmrc(limit: int, min_support: float | None = None) -> list[dict]:
    """The same rows for Chinese: the first `limit` questions of the CMRC calibration articles, their paragraphs
    pooled into one collection (as `eval cmrc` does). All answerable: the rule that keeps 90 % of right answers
    needs no unanswerable question."""
    engine = build_engine()
    settings = Settings(min_reader=1e-6, **({} if min_support is None else {"min_support": min_support}))
    article = pooled(data.load_squad(data.CMRC)[CMRC_CALIBRATION_FROM:])[0]
    documents = [data.paragraph_document(0, p, text) for p, text in enumerate(article.paragraphs)]
    corpus = engine.corpus(documents)
    return [_row(engine.ask(corpus, request(question.question), settings), question)
            for question in article.questions[:limit]]


def _row(trace, question) -> dict:
    answered = trace.answer.status == "answered" and bool(trace.answer.citations)
    quote = trace.answer.citations[0].quote if answered else ""
    return {"impossible": question.impossible, "answered": answered,
            "right": answered and not question.impossible and contains_gold(quote or "", question.answers),
            "reader_score": trace.proposal.reader_score if trace.proposal is not None else None,
            "score": trace.proposal.score if trace.proposal is not None else None}


def asked_product(folders: list[Path], split: str, min_support: float | None = None) -> list[dict]:
    """The same rows for the questions of product-shaped folders (`questions.jsonl` beside `docs/`) whose document is
    in `split` (training/product_pairs.split_of; "all": every one, for a reader trained on none of them): right is the
    evaluation's pass (a gold string in the answer)."""
    settings = Settings(min_reader=1e-6, **({} if min_support is None else {"min_support": min_support}))
    rows = []
    in_split = lambda folder, item: split in ("all", split_of(folder.name, item["docs"][0]))  # noqa: E731
    for _, item, trace in asked_items(folders, settings, in_split):
        rows.append(_product_row(item, trace))
    return rows


def _product_row(item: dict, trace) -> dict:
    row = score_item(item, trace)
    return {"impossible": not item["answerable"], "answered": row["answered"],
            "right": bool(item["answerable"] and row["passed"]),
            "reader_score": trace.proposal.reader_score if trace.proposal is not None else None,
            "score": trace.proposal.score if trace.proposal is not None else None}


def asked_questions(files: list[Path], min_support: float | None = None) -> list[dict]:
    """The same rows for evaluation-format question files (`eval questions --data`: documents named relative to the
    file's folder's parent), each row tagged with its file's name. For measuring a reader on held-out sets (the
    curve at every threshold from one pass), never for choosing its threshold."""
    engine = build_engine()
    settings = Settings(min_reader=1e-6, **({} if min_support is None else {"min_support": min_support}))
    return [{"set": path.stem, **_product_row(item, trace)} for path in files
            for item, trace in asked_in(engine, path, settings, lambda name, path=path: doc_path(name, path.parent))]


def curve(rows: list[dict], min_support: float) -> list[dict]:
    """Per reader threshold, the answers kept among those whose unit the scorer passes at `min_support`."""
    out = []
    for threshold in GRID:
        kept = [r for r in rows if r["answered"] and (r["score"] is None or r["score"] >= min_support)
                and (r["reader_score"] is None or r["reader_score"] >= threshold)]
        right = sum(r["right"] for r in kept)
        false = sum(r["impossible"] for r in kept)
        refused = sum(r["impossible"] for r in rows) - false
        out.append({"threshold": threshold, "right": right, "wrong": len(kept) - right - false, "false": false,
                    "accuracy": round((right + refused) / len(rows), 4)})
    return out


def choose(table: list[dict], keep: float) -> float:
    everything = table[0]["right"]
    allowed = [row["threshold"] for row in table if row["right"] >= keep * everything]
    return max(allowed)


def choose_weighted(table: list[dict]) -> float:
    """The threshold of the most right answers less twice the wrong and false ones (a wrong answer weighs double)."""
    return max(table, key=lambda row: (row["right"] - 2 * (row["wrong"] + row["false"]), row["threshold"]))["threshold"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="calib")
    parser.add_argument("--keep", type=float, default=0.9)
    parser.add_argument("--out", type=Path, default=Path("training/data/gate-calib.json"))
    parser.add_argument("--min-support", type=float, default=None, help="the scorer's threshold (default: shipped)")
    parser.add_argument("--product", type=Path, action="append", default=[],
                        help="ask these product-shaped folders' questions of the split's documents instead of SQuAD's; "
                             "the rule is then the most right answers less twice the wrong and false ones")
    parser.add_argument("--questions", type=Path, action="append", default=[],
                        help="measure only: evaluation-format question files (held-out sets); the curve per file "
                             "and over all, at every threshold of the grid, from one pass")
    parser.add_argument("--cmrc", type=int, default=0, metavar="N",
                        help="choose the Chinese threshold instead: the first N questions of the CMRC calibration "
                             "articles, same rule (keep 90 %% of right answers)")
    args = parser.parse_args(argv)
    started = time.time()
    if args.questions:
        rows = asked_questions(args.questions, args.min_support)
    elif args.product:
        rows = asked_product(args.product, args.split, args.min_support)
    elif args.cmrc:
        rows = asked_cmrc(args.cmrc, args.min_support)
    else:
        rows = asked(args.split, args.min_support)
    min_support = Settings().min_support if args.min_support is None else args.min_support
    table = curve(rows, min_support)
    if args.questions:  # measured at every threshold from one pass; nothing is chosen on held-out questions
        per_set = {name: curve([r for r in rows if r["set"] == name], min_support) for name in sorted({r["set"] for r in rows})}
        result = {"questions": len(rows), "curve": table, "curve_per_set": per_set, "rows": rows,
                  "seconds": round(time.time() - started, 1)}
        for name, rows_of_set in [*per_set.items(), ("all", table)]:
            print(name, *[f"{r['threshold']}: {r['right']}/{r['wrong']}/{r['false']}" for r in rows_of_set
                          if r["threshold"] in REPORTED], sep="\n  ")
    else:
        chosen = choose_weighted(table) if args.product else choose(table, args.keep)
        result = {"split": f"cmrc articles {CMRC_CALIBRATION_FROM}+" if args.cmrc else args.split, "questions": len(rows),
                  "keep": args.keep, "threshold": chosen, "curve": table, "seconds": round(time.time() - started, 1),
                  "rows": rows}
        for row in table:
            print(row)
        print(f"chosen min_reader: {chosen} (keeps >= {args.keep:.0%} of {table[0]['right']} right answers)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
