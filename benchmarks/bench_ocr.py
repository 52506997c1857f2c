"""`python -m pipeline bench ocr`: one scanned page's OCR by font size and resolution, as one table.

    python -m pipeline bench ocr [--sizes 6,8,11] [--dpis 200,150] [--languages eng+chi_sim] [--json OUT]

A page of prose at each font size is typeset, scanned at 300 dpi to an image-only PDF (benchmarks/scanned.py), then
recognised as the app does (PyMuPDF's OCR text page) at each resolution, each in a fresh process so its peak is its
own: CPU seconds, the share of the typeset words recognised, and what the OCR added to the process at its peak
(VmHWM growth, the baseline taken after the page is opened). These figures set pdf_ocr's OCR_DPIS and page_memory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_ONE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import pymupdf
import benchmarks.scanned as scanned
from pipeline.ingest.parsers.pdf_ocr import ocr_languages

size, dpi, language = float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
scanned.FONT_SIZE = size
data, truth = scanned.scanned_pdf(1, scan_dpi=300)
page = pymupdf.open(stream=data)[0]

def status(key):
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith(key))

with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # the peak (VmHWM) from here
before, cpu = status("VmRSS:"), time.process_time()
textpage = page.get_textpage_ocr(language=language, dpi=dpi, full=True, tessdata=ocr_languages()[0])
words = [w[4] for w in page.get_text("words", textpage=textpage)]
print(json.dumps({"size_pt": size, "dpi": dpi, "words": len(truth[0]), "cpu_s": time.process_time() - cpu,
                  "recognised": scanned.recognised(truth[0], words), "peak_growth_mb": (status("VmHWM:") - before) / 2**20,
                  "pixels": page.rect.width * page.rect.height * (dpi / 72) ** 2}))
"""


def measure(size: float, dpi: int, language: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _ONE, str(ROOT), str(size), str(dpi), language], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def render(rows: list[dict], language: str) -> str:
    lines = [f"OCR of one A4 page ({language}), scanned at 300 dpi",
             f"{'font':>5} {'words':>6} {'dpi':>4} {'CPU s':>6} {'recognised':>10} {'peak +MiB':>9}"]
    lines += [f"{r['size_pt']:>4g}pt {r['words']:>6} {r['dpi']:>4} {r['cpu_s']:>6.1f} {r['recognised']:>10.3f} "
              f"{r['peak_growth_mb']:>9.0f}" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline bench ocr", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="6,8,11", help="font sizes in points")
    parser.add_argument("--dpis", default="200,150", help="OCR resolutions")
    parser.add_argument("--languages", default="", help="Tesseract languages (default: those the app uses)")
    parser.add_argument("--json", type=Path, metavar="OUT")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from pipeline.ingest.parsers.pdf_ocr import ocr_languages

    language = args.languages or ocr_languages()[1]
    if not language:
        print("error: Tesseract's language data is not installed (tesseract-ocr-eng, tesseract-ocr-chi-sim)",
              file=sys.stderr)
        return 2
    rows = [measure(float(size), int(dpi), language) for size in args.sizes.split(",") for dpi in args.dpis.split(",")]
    table = render(rows, language)
    print(table)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows, "table": table, "command": "python -m pipeline bench ocr "
                                         + " ".join(argv or [])}, indent=1) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
