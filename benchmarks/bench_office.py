"""Benchmark the DOCX, XLSX, CSV, HTML and EPUB parsers on big generated files, in the app's parsing worker.

    .venv/bin/python benchmarks/bench_office.py [--scale N] [--reps N]
    .venv/bin/python benchmarks/bench_office.py --worst     files built for each reader's worst case, at two sizes

Each file is generated here (python-docx, openpyxl, the csv module, a small EPUB writer) at `--scale` rows or
paragraphs, then parsed `--reps` times: in this process (median seconds), and once in a fresh process for its
peak resident memory (VmHWM, reset before the parse, minus the resident memory then, libraries imported), and
once by the app's sandboxed worker (pipeline.engine.sandbox: its memory, CPU and time limits) to show it passes.

With --worst, the files that cost the readers most per byte (issue 50: a CSV built for csv.Sniffer, an EPUB whose
spine lists one chapter over and over, a workbook of one-cell sheets) are parsed at a size and at twice that size:
a reader is linear when the time about doubles with the size (the CPU seconds of this process, median of --reps).
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


def worst_files(size: int) -> list[tuple[str, bytes, str]]:
    """Each reader's worst case at `size` (1 or 2): the crafted CSV's repeats, the spine's entries, the sheets."""
    from tests.costly_files import epub_repeating_one_chapter, sniffer_worst_csv, xlsx_of_sheets

    quoted = ('"Boat ' + ',"a' * 30 + '",8\n').encode()  # a row of quoted cells full of delimiters and quotes
    return [("csv", sniffer_worst_csv(13_500 * size), f"csv.Sniffer's worst, {27 * size} KB"),
            ("csv", b"Boat,Dues\n" + quoted * (5_000 * size), f"{5_000 * size} quoted rows"),
            ("epub", epub_repeating_one_chapter(10_000 * size), f"spine of one chapter x {10_000 * size}"),
            ("xlsx", xlsx_of_sheets(250 * size), f"{250 * size} one-cell sheets"),
            ("html", b"<html><body>" + b"<div><p>a</p>" * (100 * size) + b"</body></html>",
             f"{100 * size} unclosed divs")]


def worst(reps: int) -> int:
    print(f"{'type':5} {'content':34} {'file KB':>8} {'CPU s':>7} {'at 2x':>7} {'ratio':>6}  outcome")
    for (kind, small, what), (_, large, _) in zip(worst_files(1), worst_files(2)):
        seconds, outcome = [], ""
        for data in (small, large):
            times = []
            for _ in range(reps):
                start = time.process_time()
                try:
                    parse(data, f"worst.{kind}")
                    outcome = "read"
                except Exception as error:  # a refusal is an outcome too: one line
                    outcome = str(error)[:60]
                times.append(time.process_time() - start)
            seconds.append(statistics.median(times))
        ratio = seconds[1] / seconds[0] if seconds[0] > 0.001 else float("nan")
        print(f"{kind:5} {what[:34]:34} {len(small) / 1024:8.0f} {seconds[0]:7.3f} {seconds[1]:7.3f} {ratio:6.1f}  "
              f"{outcome}")
    print("ratio: the time at twice the size over the time at the size (2 for a linear reader; csv.Sniffer was 4)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=20_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--worst", action="store_true", help="each reader's worst case at two sizes")
    args = parser.parse_args(argv)
    if args.worst:
        return worst(args.reps)
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
