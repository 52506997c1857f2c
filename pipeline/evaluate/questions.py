"""Natural questions with gold answers (../shared/eval/questions/dev.jsonl) as cited QA.

Scored exactly as the set's README says: an answerable item passes when the engine answered
and a gold alternative occurs (normalised, on ASCII letter/digit boundaries) in the answer
text without its citation markers, or in the quote of a *verified* citation of at most 600
characters. An unanswerable or expired item passes only when the engine abstained. Each item
is asked with its own documents, request date, topic and access groups, at default Settings.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

from pipeline.core.citations import strip_markers
from pipeline.core.contracts import Request, Settings
from pipeline.engine.config import build_engine
from pipeline.evaluate import data
from pipeline.evaluate.common import Progress
from pipeline.evaluate.metrics import share

QUESTIONS = data.EVAL_DIR / "questions" / "dev.jsonl"
REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_QUOTE = 600
UNANSWERABLE_KINDS = ("unanswerable", "expired")


def norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[\u2010-\u2015\u2212]", "-", text)
    text = re.sub(r"(?<=[-@/])\s+", "", text)
    return re.sub(r"\s+", " ", text).strip()


def contains(text: str, gold: str) -> bool:
    pattern = r"(?<![a-z0-9])" + re.escape(norm(gold)) + r"(?![a-z0-9])"
    return re.search(pattern, norm(text)) is not None


def load_items(path: Path) -> list[dict]:
    items = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                items.append(json.loads(line))
    return items


REALDOCS = data.EVAL_DIR / "realdocs" / "docs"
HALF_SIZE = 6  # documents of each realdocs part (a_, b_) in the tune half


def realdocs_half(name: str) -> str | None:
    """For a document of ../shared/eval/realdocs: "tune" when it is one of the first six of its part (a_ or b_) in the
    order of the SHA-256 of the documents' names, else "report" (thresholds are chosen on one half and reported on
    the other); None for any other document."""
    name = Path(name).name
    if not (REALDOCS / name).exists():
        return None
    ordered = sorted((hashlib.sha256(p.name.encode()).hexdigest(), p.name) for p in REALDOCS.glob(f"{name[:2]}*"))
    return "tune" if name in [n for _, n in ordered[:HALF_SIZE]] else "report"


def doc_path(name: str, data_dir: Path) -> Path:
    """`pdfs/...` is relative to the eval folder, `sample_docs/...` to the repository root."""
    return REPO_ROOT / name if name.startswith("sample_docs") else data_dir.parent / name


def _collection_label(docs: list[str]) -> str:
    if len(docs) == 1:
        return Path(docs[0]).stem if docs[0].endswith(".pdf") else docs[0]
    return str(Path(docs[0]).parent)


def score_item(item: dict, trace) -> dict:
    """Pass/fail for one item, with the stricter source/page checks recorded beside it."""
    answered = trace.answer.status == "answered"
    row = {"id": item["id"], "kind": item["kind"], "answerable": bool(item["answerable"]), "answered": answered,
           "collection": _collection_label(item["docs"]), "reason": trace.answer.reason_code}
    if not item["answerable"]:
        row["passed"] = not answered
        return row
    text = strip_markers(trace.answer.answer or "") if answered else ""
    quotes = [c for c in trace.answer.citations if c.verified and len(c.quote) <= MAX_QUOTE] if answered else []
    in_text = any(contains(text, g) for g in item["gold"])
    hits = [c for c in quotes if any(contains(c.quote, g) for g in item["gold"])]
    row["passed"] = answered and (in_text or bool(hits))
    cited = hits or quotes
    row["right_source"] = row["passed"] and any(c.source_id == item["source"] for c in cited)
    if item.get("page") is not None:
        row["right_place"] = row["passed"] and any(c.source_id == item["source"] and c.page == item["page"] for c in cited)
    elif item.get("lines"):
        wanted = set(item["lines"])
        row["right_place"] = row["passed"] and any(
            c.source_id == item["source"] and wanted & set(range(c.start_line, c.end_line + 1)) for c in cited)
    else:
        row["right_place"] = row["right_source"]
    return row


def request_of(item: dict) -> Request:
    date = dt.date.fromisoformat(item["date"]) if item.get("date") else dt.date.today()
    return Request(question=item["question"], date=date, date_given=bool(item.get("date")), topic=item.get("topic"),
                   groups=tuple(item.get("groups") or ()))


def evaluate(path: Path = QUESTIONS, limit: int | None = None, settings: Settings | None = None,
             generator_factory=None) -> dict:
    """Ask every item (the first `limit`) at `settings` (default: the product defaults)."""
    items = load_items(path)[:limit] if limit else load_items(path)
    settings = settings or Settings()
    engine = build_engine()
    corpora: dict[tuple[str, ...], object] = {}
    rows, latencies = [], []
    progress = Progress("questions", len(items))
    for index, item in enumerate(items, 1):
        key = tuple(item["docs"])
        if key not in corpora:
            corpora[key] = engine.corpus(engine.parse_paths([doc_path(d, path.parent) for d in key]))
        corpus = corpora[key]
        generator = generator_factory(corpus) if generator_factory else None
        started = time.perf_counter()
        trace = engine.ask(corpus, request_of(item), settings, generator=generator)
        latencies.append(time.perf_counter() - started)
        row = score_item(item, trace)
        if (half := realdocs_half(key[0])) is not None:
            row["half"] = half
        row["answer"] = trace.answer.answer
        row["score"] = trace.proposal.score if trace.proposal is not None else None
        rows.append(row)
        progress(index)
    return summarize(rows, latencies)


def threshold_curve(path: Path, thresholds: list[float], limit: int | None = None, model=None) -> list[dict]:
    """The whole engine asked again at each answer threshold (with `model`'s weights, default the shipped ones):
    the value, name and table checks act before the threshold and a definition or table lookup below it, so the
    scorer's probabilities alone do not give this curve."""
    from pipeline.generate.extractive.composer import LocalExtractive
    from pipeline.models.reader import shipped_reader

    points = []
    reader, reader_threshold = shipped_reader(), Settings().min_reader  # the product's check of the chosen unit
    for threshold in thresholds:
        figures = evaluate(path, limit, generator_factory=lambda corpus, t=threshold: LocalExtractive(
            min_support=t, model=model, reader=reader, reader_threshold=reader_threshold).for_corpus(corpus))
        points.append({"threshold": threshold, "answered_correct": figures["answerable"]["passed"],
                       "answerable": figures["answerable"]["total"], "refused": figures["unanswerable"]["passed"],
                       "unanswerable": figures["unanswerable"]["total"], "wrong": figures["answered_wrong"],
                       "false": figures["answered_false"]})
    return points


def _rate(rows: list[dict]) -> dict:
    return {"passed": sum(r["passed"] for r in rows), "total": len(rows)}


def summarize(rows: list[dict], latencies: list[float] | None = None) -> dict:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    latencies = sorted(latencies or [])
    return {
        **_figures(rows),
        "answerable_correct": share(sum(r["passed"] for r in answerable), len(answerable)),
        "answerable_right_place": share(sum(r.get("right_place", False) for r in answerable), len(answerable)),
        "table_aggregate": _rate([r for r in answerable if r["kind"] == "table-aggregate"]),
        "unanswerable_refused": share(sum(r["passed"] for r in unanswerable), len(unanswerable)),
        **_grouped(rows),
        "latency_p50_ms": round(1000 * latencies[len(latencies) // 2], 1) if latencies else None,
        "rows": rows,
    }


def _grouped(rows: list[dict]) -> dict:
    """The figures per kind of question, per collection and per realdocs half."""
    by_kind, by_collection = defaultdict(list), defaultdict(list)
    for r in rows:
        by_kind[r["kind"]].append(r)
        by_collection[r["collection"]].append(r)
    return {
        "by_kind": {k: _rate(v) for k, v in sorted(by_kind.items())},
        "by_collection": {k: {"answerable": _rate([r for r in v if r["answerable"]]),
                              "unanswerable": _rate([r for r in v if not r["answerable"]])}
                          for k, v in sorted(by_collection.items())},
        "by_half": {half: _figures([r for r in rows if r.get("half") == half])
                    for half in sorted({r["half"] for r in rows if "half" in r})},
    }


def _figures(rows: list[dict]) -> dict:
    """The headline figures of some rows (a realdocs half)."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    wrong = sum(r["answered"] and not r["passed"] for r in answerable)
    false = sum(r["answered"] for r in unanswerable)
    return {"items": len(rows), "answerable": _rate(answerable), "unanswerable": _rate(unanswerable),
            "answered_wrong": wrong, "answered_false": false, "wrong_plus_false_rate": share(wrong + false, len(rows))}


def rows_for_table(figures: dict) -> list[tuple[str, object, object]]:
    def frac(rate: dict) -> str:
        return f"{rate['passed']}/{rate['total']}"

    rows = [
        ("answerable answered correctly", f"{frac(figures['answerable'])} ({figures['answerable_correct']:.3f})", None),
        ("  of which citing the gold source/page or lines", f"{figures['answerable_right_place']:.3f}", None),
        ("  table-aggregate (which row holds the most: a comparison over the table)", frac(figures["table_aggregate"]), None),
        ("unanswerable refused", f"{frac(figures['unanswerable'])} ({figures['unanswerable_refused']:.3f})", None),
        ("wrong + false answers / items",
         f"{figures['answered_wrong']} + {figures['answered_false']} = {figures['wrong_plus_false_rate']:.3f}", None),
    ]
    for half, part in figures.get("by_half", {}).items():
        rows.append((f"realdocs {half} half ({part['items']} items)",
                     f"answerable {frac(part['answerable'])}, unanswerable refused {frac(part['unanswerable'])}, "
                     f"wrong + false {part['answered_wrong']} + {part['answered_false']} = {part['wrong_plus_false_rate']:.3f}",
                     None))
    rows += [(f"kind {k}", frac(v), None) for k, v in figures["by_kind"].items()]
    for name, parts in figures["by_collection"].items():
        rows.append((f"doc {name}", f"answerable {frac(parts['answerable'])}, unanswerable {frac(parts['unanswerable'])}", None))
    rows.append(("ask latency p50 (ms, this machine)", figures["latency_p50_ms"], None))
    return rows
