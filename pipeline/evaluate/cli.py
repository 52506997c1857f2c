"""`python -m pipeline eval {scenarios,...}`."""

from __future__ import annotations

from pathlib import Path

SUITES = ["scenarios"]


def add_eval_parser(commands) -> None:
    parser = commands.add_parser("eval", help="run an evaluation and print a table")
    parser.add_argument("suite", choices=SUITES)
    parser.add_argument("--traces", type=Path, help="write the scenario traces (JSON) here")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures as JSON")


def run_eval(args) -> int:
    from .scenarios import run_scenarios

    return run_scenarios(traces_path=args.traces, json_path=args.json)
