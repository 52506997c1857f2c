"""`python -m pipeline eval {scenarios,scifact,verifier,squad2,cmrc,questions,all}`.

Each suite prints a table (ours beside seed 002's "papertrail" setup where both were run)
and, with `--json OUT`, writes the figures for tools; `--plots DIR` draws the PNG curves.
Data paths default to ../shared/eval relative to the repository root.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.evaluate import data

SUITES = ["scenarios", "scifact", "verifier", "squad2", "cmrc", "questions", "all"]


def add_eval_parser(commands) -> None:
    parser = commands.add_parser("eval", help="run an evaluation and print a table")
    parser.add_argument("suite", choices=SUITES)
    parser.add_argument("--limit", type=int, metavar="N", help="a small slice: the first N queries, pairs or questions")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")
    parser.add_argument("--plots", type=Path, metavar="DIR", help="write PNG plots here")
    parser.add_argument("--config", choices=["ours", "papertrail", "both"],
                        help="ours (default for one suite), seed 002's papertrail setup, or both (default for all)")
    parser.add_argument("--corpus", type=Path, default=data.SCIFACT_CORPUS, metavar="FILE", help="SciFact corpus.jsonl")
    parser.add_argument("--claims", type=Path, default=data.SCIFACT_CLAIMS, metavar="FILE", help="SciFact claims jsonl")
    parser.add_argument("--qrels", type=Path, default=data.SCIFACT_QRELS, metavar="FILE", help="BEIR qrels tsv")
    parser.add_argument("--data", type=Path, metavar="FILE", help="a SQuAD-format set (squad2 or cmrc), or a questions jsonl (questions)")
    parser.add_argument("--thresholds", type=lambda text: [float(t) for t in text.split(",") if t], metavar="T,T,…",
                        help="questions: also sweep the answer scorer's threshold over these values (the whole engine at each)")
    parser.add_argument("--support-judge", choices=["containment", "learned"], default="containment",
                        help="who decides claim_supported in the scenarios (the verifier suite runs both)")
    parser.add_argument("--traces", type=Path, metavar="FILE",
                        help="where the scenario traces go (default reports/rag-traces.json)")
    parser.add_argument("--results", "--readme", type=Path, metavar="PAGE", dest="results",
                        help="after writing --json, rewrite this page's results region (docs/results.md) from reports/*.json")


def run_eval(args) -> int:
    from pipeline.evaluate.runner import run

    return run(args)
