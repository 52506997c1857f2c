"""What the reader reads at run time, as pairs: every question of product-shaped folders (`questions.jsonl` beside
`docs/`, the evaluation format) is asked of the product at its defaults, and each unit the composer hands the reader
is recorded with the reader's score, exactly as the reader read it (windowed units, section headings, an API entry's
signature). A unit answers when it holds a gold string of an answerable question; every unit read for an
unanswerable question, and any without a gold string, does not. These are the confusers the product meets: the units
its scorer chose.

    uv run --frozen python -m training.runtime_pairs --out training/data/runtime.jsonl DIR [DIR …]

One JSON line per question (outcome, scores, the reader's inputs as `calls`), appended as it goes: a run cut off
resumes where it stopped. `training.mix --runtime FILE` turns the calls into pairs. Documents are split as
`product_pairs` splits them, so a document's questions stay in one split.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline import Settings, build_engine
from pipeline.evaluate.questions import contains, load_items, request_of, score_item
from pipeline.generate.extractive.composer import LocalExtractive
from pipeline.generate.extractive.scoring import scored_text
from pipeline.lang.text import without_inline_markup
from training.product_pairs import split_of


@contextmanager
def _reads_recorded(calls: list[dict]):
    """Every unit the composer's reader scores, appended to `calls` while inside."""
    original = LocalExtractive._reader_score

    def recorded(self, question, unit):
        score = original(self, question, unit)
        calls.append({"text": without_inline_markup(scored_text(unit)), "quote": unit.quote, "kind": unit.kind,
                      "lines": [unit.start_line, unit.end_line], "score": round(score, 5)})
        return score

    LocalExtractive._reader_score = recorded  # type: ignore[method-assign]
    try:
        yield
    finally:
        LocalExtractive._reader_score = original  # type: ignore[method-assign]


def _record(folder: Path, item: dict, trace, calls: list[dict]) -> dict:
    row, proposal = score_item(item, trace), trace.proposal
    for call in calls:
        call["gold_in"] = bool(item["answerable"]) and any(contains(call["quote"], g) for g in item["gold"])
    return {"key": f"{folder.name}/{item['id']}", "folder": folder.name, "doc": item["docs"][0],
            "answerable": item["answerable"], "question": item["question"], "gold": item["gold"],
            "split": split_of(folder.name, item["docs"][0]), "answered": row["answered"], "passed": row["passed"],
            "reason": row.get("reason"), "score": getattr(proposal, "score", None),
            "reader": getattr(proposal, "reader_score", None), "note": (getattr(proposal, "note", None) or "")[:600],
            "calls": list(calls)}


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
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("folders", type=Path, nargs="+")
    args = parser.parse_args(argv)
    print(f"asked {collect(args.out, args.folders)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
