"""Latency of the support judges per (claim, cited span), on held-out SciFact pairs.

    .venv/bin/python benchmarks/bench_judge.py [--pairs N]

Each pair is judged three ways: containment (today's verifier rule), the learned judge on a
span it has never seen (cold: every sentence is embedded), and the same pair again (warm: the
sentence vectors are remembered, as when one span is cited by several claims). Prints a table
of median and p90 milliseconds per claim; the mean number of sentences per span is shown.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from pipeline.evaluate.judge_data import load_pairs  # noqa: E402
from pipeline.lang.sentences import sentence_units  # noqa: E402
from pipeline.verify.judges.containment import ContainmentJudge  # noqa: E402
from pipeline.verify.judges.learned import LearnedJudge  # noqa: E402


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.9 * (len(ordered) - 1))] * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=40, help="held-out pairs to time (distinct abstracts)")
    args = parser.parse_args(argv)
    seen, spans = set(), []
    for pair in load_pairs(split="held_out")[::7]:  # spread over the file (claims are sorted, numbers first)
        if pair.abstract.doc_id not in seen:
            seen.add(pair.abstract.doc_id)
            spans.append((pair.claim, "\n".join([pair.abstract.title, *pair.abstract.sentences])))
        if len(spans) == args.pairs:
            break
    containment, judge = ContainmentJudge(), LearnedJudge()
    judge.embedder.embed_query("warm up")  # model load is not a per-claim cost
    timings = {"containment": [], "learned, cold": [], "learned, warm": []}
    for claim, span in spans:
        for name, call in (("containment", lambda c=claim, s=span: containment(c, s)),
                           ("learned, cold", lambda c=claim, s=span: judge(c, s)),
                           ("learned, warm", lambda c=claim, s=span: judge(c, s))):
            started = time.perf_counter()
            call()
            timings[name].append(time.perf_counter() - started)
    # Pairs settled before the model (a claim number missing from the span, or a verbatim claim) cost no embedding.
    settled = sum(1 for claim, span in spans if judge(claim, span).detail.startswith(("the span does not state", "contained")))
    sentences = statistics.mean(len(sentence_units(span)) for _, span in spans)
    print(f"support judges, {len(spans)} held-out SciFact (claim, abstract) pairs, {sentences:.1f} sentences per span, "
          f"{os.cpu_count()} cores; {settled} settled before the model (number not in span, or verbatim)")
    print(f"{'judge':16s} {'median ms':>10s} {'p90 ms':>8s}")
    for name, samples in timings.items():
        median, p90 = _ms(samples)
        print(f"{name:16s} {median:10.1f} {p90:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
