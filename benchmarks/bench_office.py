"""Benchmark the DOCX, XLSX, CSV, HTML and EPUB parsers on big generated files, in the app's parsing worker.

    .venv/bin/python benchmarks/bench_office.py [--scale N] [--reps N]

Each file is generated here (python-docx, openpyxl, the csv module, a small EPUB writer) at `--scale` rows or
paragraphs, then parsed `--reps` times: in this process (median seconds), and once in a fresh process for its
peak resident memory (VmHWM, reset before the parse, minus the resident memory then, libraries imported), and
once by the app's sandboxed worker (pipeline.engine.sandbox: its memory, CPU and time limits) to show it passes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.core.limits import WORKER_CPU_S, WORKER_MEMORY_BYTES  # noqa: E402
from pipeline.ingest.parsers import parse  # noqa: E402
from tests.office_files import make_csv, make_docx, make_epub, make_html, make_xlsx  # noqa: E402

_PEAK = """
import sys
from pipeline.ingest.parsers import parse
import docx, openpyxl, lxml.html  # the libraries, imported before the baseline

def status(key):
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(key))

data = open(sys.argv[1], "rb").read()
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # reset the peak (VmHWM): a child starts with its parent's peak
before = status("VmRSS:")
document = parse(data, sys.argv[2])
print(status("VmHWM:") - before, status("VmHWM:"))
"""


def files(scale: int) -> list[tuple[str, bytes, str]]:
    rows = [(f"Boat {n}", f"{n % 40} m", f"{n % 97} euros") for n in range(scale)]
    sheet_rows = [(f"Boat {n}", n % 97, (n % 20) / 100, f"Berth {n % 300}", n * 1.5, "harbour", n % 7, "paid")
                  for n in range(scale)]
    chapters = [(f"Chapter {c}", "".join(f"<p>Chapter {c} paragraph {p} says boats keep {p % 50} metres from the "
                                         "ferry ramp at all times.</p>" for p in range(scale // 50)))
                for c in range(50)]
    return [("docx", make_docx(rows=rows[: scale // 2], paragraphs=scale // 2), f"{scale // 2} paragraphs + "
             f"{scale // 2}-row table"),
            ("xlsx", make_xlsx(sheet_rows), f"{scale} rows x 8 columns"),
            ("csv", make_csv(rows), f"{scale} rows x 3 columns"),
            ("html", make_html(rows), f"{scale}-row table"),
            ("epub", make_epub(chapters), f"50 chapters, {50 * (scale // 50)} paragraphs")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    from pipeline.engine.sandbox import Sandbox

    sandbox = Sandbox(workers=1)
    print(f"{os.cpu_count()} cores, scale {args.scale}, {args.reps} repetitions (median); worker limits "
          f"{WORKER_MEMORY_BYTES >> 20} MiB address space, {WORKER_CPU_S} s CPU")
    header = (f"{'type':5} {'content':34} {'file MB':>8} {'lines':>7} {'parse s':>8} {'lines/s':>8} "
              f"{'peak +MB':>9} {'worker':>8}")
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as folder:
        for kind, data, what in files(args.scale):
            name = f"big.{kind}"
            path = Path(folder) / name
            path.write_bytes(data)
            times, document = [], None
            for _ in range(args.reps):
                start = time.perf_counter()
                document = parse(data, name)
                times.append(time.perf_counter() - start)
            lines = len(document.pages[0].lines)
            peak = subprocess.run([sys.executable, "-c", _PEAK, str(path), name], cwd=ROOT, capture_output=True,
                                  text=True, check=True).stdout.split()
            try:
                sandbox.parse(kind, data, name)
                worker = "ok"
            except Exception as error:  # the worker's refusal, in one line
                worker = str(error)[:60]
            median = statistics.median(times)
            print(f"{kind:5} {what[:34]:34} {len(data) / 1e6:8.2f} {lines:7d} {median:8.2f} {lines / median:8.0f} "
                  f"{int(peak[0]) / 1024:9.0f} {worker:>8}")
    sandbox.close()
    print("peak +MB: the parse's peak resident memory (VmHWM) over the process's before it, libraries loaded first")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
