"""What the reader reads at run time, as pairs: every question of product-shaped folders (`questions.jsonl` beside
`docs/`, the evaluation format) is asked of the product at its defaults, and each unit the composer hands the reader
is recorded with the reader's score, exactly as the reader read it (windowed units, section headings, an API entry's
signature). A unit answers when it holds a gold string of an answerable question; every unit read for an
unanswerable question, and any without a gold string, does not. These are the confusers the product meets: the units
its scorer chose.

    uv run --frozen python -m training.runtime_pairs --out training/data/runtime.jsonl DIR [DIR …]

One JSON line per question (outcome, scores, the reader's inputs as `calls`, and where a gold string is: in the
packed context, at which rank among the retrieved candidates, in the best unit), appended as it goes: a run cut off
resumes where it stopped. `training.mix --runtime FILE` turns the calls into pairs. Documents are split as
`product_pairs` splits them, so a document's questions stay in one split.

    uv run --frozen python -m training.runtime_pairs --report training/data/runtime.jsonl

says where the right answers are lost: outcomes, and for each refusal the stage that refused and whether a gold
string was in what it refused.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline import Settings, build_engine
from pipeline.evaluate.questions import contains, load_items, request_of, score_item
from pipeline.generate.extractive.composer import LocalExtractive, under_heading
from pipeline.generate.extractive.scoring import reader_text
from training.product_pairs import split_of


@contextmanager
def _reads_recorded(calls: list[dict]):
    """Every unit the composer's reader reads (each ranked candidate), appended to `calls` while inside."""
    original = LocalExtractive._reader_logit

    def recorded(self, question, unit):
        logit = original(self, question, unit)
        calls.append({"text": reader_text(under_heading(unit)), "quote": unit.quote, "kind": unit.kind,
                      "lines": [unit.start_line, unit.end_line], "score": round(self._calibrated(logit), 5),
                      "logit": round(logit, 5)})
        return logit

    LocalExtractive._reader_logit = recorded  # type: ignore[method-assign]
    try:
        yield
    finally:
        LocalExtractive._reader_logit = original  # type: ignore[method-assign]


def _record(folder: Path, item: dict, trace, calls: list[dict]) -> dict:
    row, proposal = score_item(item, trace), trace.proposal
    for call in calls:
        call["gold_in"] = bool(item["answerable"]) and any(contains(call["quote"], g) for g in item["gold"])
    return {"key": f"{folder.name}/{item['id']}", "folder": folder.name, "doc": item["docs"][0],
            "answerable": item["answerable"], "question": item["question"], "gold": item["gold"],
            "split": split_of(folder.name, item["docs"][0]), "answered": row["answered"], "passed": row["passed"],
            "reason": row.get("reason"), "score": getattr(proposal, "score", None),
            "reader": getattr(proposal, "reader_score", None), "note": (getattr(proposal, "note", None) or "")[:600],
            "calls": list(calls), **_where_gold(item, trace)}


def _where_gold(item: dict, trace) -> dict:
    """Whether a gold string is in the packed context, the rank of the first retrieved candidate holding one (None:
    none does) and whether the best unit (the one answered or refused, also kept) holds one; all False/None when
    unanswerable."""
    golds = item["gold"] if item["answerable"] else []
    candidates = trace.retrieval.candidates if trace.retrieval is not None else ()
    ranks = [rank for rank, c in enumerate(candidates) if any(contains(c.text, g) for g in golds)]
    best = getattr(trace.proposal, "best_unit", None) or ""
    return {"gold_in_context": bool(trace.context) and any(contains(trace.context.text, g) for g in golds),
            "gold_rank": ranks[0] if ranks else None, "gold_in_best": any(contains(best, g) for g in golds),
            "best_unit": best[:600]}


def refused_by(record: dict) -> str:
    """Which check refused an unanswered question, from the composer's note: reader, scorer, names or other."""
    note = record.get("note") or ""
    return ("reader" if note.startswith("the reader") else "scorer" if note.startswith("the best unit")
            else "names" if "no candidate unit's source mentions" in note else "other")


def report(path: Path) -> str:
    """Outcomes of a collected file, and where each refused answerable question's gold was."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    answerable = [r for r in records if r["answerable"]]
    right = sum(r["passed"] for r in answerable)
    wrong = sum(r["answered"] and not r["passed"] for r in answerable)
    false = sum(r["answered"] for r in records if not r["answerable"])
    lines = [f"{len(records)} questions, {len(answerable)} answerable: right {right}, wrong {wrong}, refused "
             f"{len(answerable) - right - wrong}; unanswerable answered (false) {false}",
             f"answerable with a gold string in the packed context: {sum(r['gold_in_context'] for r in answerable)}; "
             f"among the retrieved candidates: {sum(r['gold_rank'] is not None for r in answerable)}"]
    refused = [r for r in answerable if not r["answered"]]
    for stage in ("reader", "scorer", "names", "other"):
        mine = [r for r in refused if refused_by(r) == stage]
        lines.append(f"refused by {stage}: {len(mine)}, with a gold string in its best unit: "
                     f"{sum(r['gold_in_best'] for r in mine)}")
    return "\n".join(lines)


def asked_in(engine, path: Path, settings: Settings, doc_path: Callable[[str], Path],
             wanted: Callable[[dict], bool] = lambda item: True) -> Iterator[tuple[dict, object]]:
    """(item, trace) for each `wanted` question of one questions file, asked of `engine` at `settings`; each set of
    documents (named as `doc_path` resolves them) is parsed and indexed once."""
    corpora: dict[tuple[str, ...], object] = {}
    for item in load_items(path):
        if not wanted(item):
            continue
        docs = tuple(item["docs"])
        if docs not in corpora:
            corpora[docs] = engine.corpus(engine.parse_paths([doc_path(d) for d in docs]))
        yield item, engine.ask(corpora[docs], request_of(item), settings)


def asked_items(folders: list[Path], settings: Settings, wanted: Callable[[Path, dict], bool]) -> Iterator[tuple]:
    """(folder, item, trace) for each `wanted` question of the folders (`questions.jsonl` beside `docs/`)."""
    engine = build_engine()
    for folder in folders:
        for item, trace in asked_in(engine, folder / "questions.jsonl", settings, folder.joinpath,
                                    lambda item, folder=folder: wanted(folder, item)):
            yield folder, item, trace


def collect(out: Path, folders: list[Path]) -> int:
    """Ask every question not yet in `out`; returns how many were asked."""
    done = {json.loads(line)["key"] for line in out.read_text(encoding="utf-8").splitlines()} if out.exists() else set()
    calls: list[dict] = []
    asked = 0
    with out.open("a", encoding="utf-8") as handle, _reads_recorded(calls):
        for folder, item, trace in asked_items(folders, Settings(), lambda f, i: f"{f.name}/{i['id']}" not in done):
            handle.write(json.dumps(_record(folder, item, trace, calls), ensure_ascii=False) + "\n")
            handle.flush()
            calls.clear()
            asked += 1
    return asked


def runtime_pairs(path: Path) -> Iterator[dict]:
    """(query, unit, label, origin, group, split) rows of a collected file, one per distinct unit read."""
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        seen = set()
        for call in record["calls"]:
            if call["text"] in seen:
                continue
            seen.add(call["text"])
            yield {"task": "question", "query": record["question"].strip(), "unit": call["text"],
                   "label": int(call["gold_in"]), "origin": "product-runtime", "group": record["key"],
                   "split": record["split"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--report", type=Path, metavar="FILE", help="say where a collected file loses right answers")
    parser.add_argument("folders", type=Path, nargs="*")
    args = parser.parse_args(argv)
    if args.report:
        print(report(args.report))
        return 0
    if not args.out or not args.folders:
        parser.error("--out and at least one folder are needed to collect")
    print(f"asked {collect(args.out, args.folders)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
