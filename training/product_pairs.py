"""Pairs from questions asked of real documents the way the product's users ask them (product-shaped data).

Input: folders of questions in the evaluation format (`questions.jsonl` beside a `docs/` folder; see
`pipeline/evaluate/questions.py`), each answerable question with `gold` strings and the `lines` that answer it.
Each document is parsed and cut into units by the product itself, and each unit is shown to the reader as the
composer shows it (`scored_text` without inline markup), so the reader learns on what it reads at run time:

- an answerable question: the sentences and items inside its `lines` that hold a gold string answer (when the gold
  is in a code block, the sentence that introduces the code answers); the units of the document sharing most of the
  question's words, and one other, do not;
- an unanswerable question: the units sharing most of its words do not answer.

A question written with a `lines_hint` (the answer's text as its writer copied it) instead of `lines` gets the lines
where that text stands in the document (`hinted_lines`).

Documents, not questions, are split: a document's questions are all "train" or all "val" (one in `val_every`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from rapidfuzz import fuzz

from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.evaluate.questions import norm
from pipeline.generate.extractive.scoring import scored_text
from pipeline.ingest.parsers import parse
from pipeline.lang.text import without_inline_markup
from pipeline.text.units import Unit, introduces, units_of
from training.pair_text import bucket, overlap

READ_KINDS = ("sentence", "item")
NEGATIVES = 3


def _sources(path: Path) -> list[PackedSource]:
    """Each page of the document as one packed source (a text file is one page without a number)."""
    document = parse(path.read_bytes(), path.name)
    sources = []
    for page in document.pages:
        lines = tuple(PackedLine(number=line.number, text=line.text, furniture=line.number in page.furniture)
                      for line in page.lines)
        if lines:
            sources.append(PackedSource(
                n=len(sources) + 1, source_id=document.source_id, version=None, page=page.number,
                start_line=lines[0].number, end_line=lines[-1].number, support_span=False, dated="",
                sibling_group="", lines=lines))
    return sources


_ELLIPSIS = re.compile(r"\.\.\.|…")
MIN_HINT_SCORE = 90


def hinted_lines(sources: list[PackedSource], hint: str) -> list[int] | None:
    """The first and last line numbers of the document where the hint's longest fragment (cut at "...") stands, the
    hint and the document compared as the evaluation compares gold strings (`questions.norm`); a near match (rapidfuzz's partial ratio ≥ 90)
    counts when no exact one is found. None when it is nowhere."""
    fragment = norm(max(_ELLIPSIS.split(hint), key=len))
    if not fragment:
        return None
    text, starts = "", []  # the document's lines joined by a space, and where each line starts in it
    for line in (line for source in sources for line in source.lines):
        starts.append((len(text), line.number))
        text += norm(line.text) + " "
    begin = text.find(fragment)
    end = begin + len(fragment)
    if begin < 0:
        found = fuzz.partial_ratio_alignment(fragment, text, score_cutoff=MIN_HINT_SCORE)
        if found is None:
            return None
        begin, end = found.dest_start, found.dest_end
    numbers = [number for start, number in starts if start < end]
    first = max((number for start, number in starts if start <= begin), default=numbers[0])
    return [first, numbers[-1]]


def _read(unit: Unit) -> str:
    return without_inline_markup(scored_text(unit))


def _positives(units: list[Unit], item: dict) -> list[Unit]:
    start, end = item["lines"]
    inside = [u for u in units if u.kind in READ_KINDS and u.start_line <= end and u.end_line >= start]
    gold = [g.lower() for g in item["gold"]]
    holding = [u for u in inside if any(g in u.quote.lower() for g in gold)]
    return holding or [u for u in inside if introduces(u)]


def _ranked_others(units: list[Unit], question: str, excluded: set[int]) -> list[Unit]:
    """The readable units no answer, those sharing most of the question's words first."""
    others = [u for u in units if u.kind in READ_KINDS and id(u) not in excluded]
    return sorted(others, key=lambda u: (-overlap(question, u.quote), u.start_line))


def split_of(folder: str, document: str, val_every: int = 6) -> str:
    """"val" for one document in `val_every` (by a hash of its folder and name), else "train"."""
    return "val" if bucket(f"{folder}/{document}", val_every) == 0 else "train"


def _excluded(units: list[Unit], item: dict, positives: list[Unit]) -> set[int]:
    """Units no negative may be: the answer's, any inside its lines, any holding a gold string."""
    gold = [g.lower() for g in item["gold"]]
    start, end = item["lines"] if item.get("lines") else (0, -1)
    return {id(u) for u in units if u in positives or (u.start_line <= end and u.end_line >= start)
            or any(g in u.quote.lower() for g in gold)}


def product_pairs(folder: Path, rng, val_every: int = 6) -> Iterator[dict]:
    """(query, unit, label, origin, group, split) rows for every question of `folder/questions.jsonl` (documents
    named relative to `folder`)."""
    items = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    units_by_doc: dict[str, list[Unit]] = {}
    sources_by_doc: dict[str, list[PackedSource]] = {}
    for item in items:
        doc = item["docs"][0]
        if doc not in units_by_doc:
            sources_by_doc[doc] = _sources(folder / doc)
            units_by_doc[doc] = [u for source in sources_by_doc[doc] for u in units_of(source)]
        units = units_by_doc[doc]
        if item["answerable"] and not item.get("lines") and item.get("lines_hint"):
            item = {**item, "lines": hinted_lines(sources_by_doc[doc], item["lines_hint"])}
        split, group = split_of(folder.name, doc, val_every), f"{folder.name}/{item['id']}"
        question = item["question"].strip()
        positives = _positives(units, item) if item["answerable"] and item.get("lines") else []
        if item["answerable"] and not positives:
            continue  # its answer is no unit the reader reads (a table cell, a bare command): nothing to learn
        for unit in positives:
            yield {"task": "question", "query": question, "unit": _read(unit), "label": 1, "origin": "product",
                   "group": group, "split": split}
        others = _ranked_others(units, question, _excluded(units, item, positives))
        chosen = others[: NEGATIVES + (0 if positives else 1)]
        if len(others) > len(chosen):
            chosen.append(rng.choice(others[len(chosen):]))
        origin = "product" if positives else "product-unanswerable"
        for unit in chosen:
            yield {"task": "question", "query": question, "unit": _read(unit), "label": 0, "origin": origin,
                   "group": group, "split": split}
