"""Benchmark the PDF parse against PyMuPDF's own text extraction, plus chunking and rendering.

    .venv/bin/python benchmarks/bench_pdf.py [PDF ...] [--reps N] [--zoom Z]

Default PDF: the three-column Federal Register file in ../shared/eval/pdfs. Each measurement
is repeated (interleaved, so background load hits all columns alike) and the median is shown.
The floor is `page.get_text("dict", flags=TEXT_FLAGS)` — lines with boxes, no image bytes.
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

import pymupdf  # noqa: E402

from pipeline.ingest.parsers.pdf_layout import TEXT_FLAGS, parse_pdf  # noqa: E402
from pipeline.render.highlights import DEFAULT_ZOOM, Highlight  # noqa: E402
from pipeline.render.pdf import render_pdf_page  # noqa: E402

DEFAULT_PDF = ROOT.parent / "shared" / "eval" / "pdfs" / "federal-register-2020-17221.pdf"


def _floor(data: bytes) -> None:
    doc = pymupdf.open(stream=data, filetype="pdf")
    for page in doc:
        page.get_text("dict", flags=TEXT_FLAGS)
    doc.close()


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure_pdf(path: Path, reps: int = 7, zoom: float = DEFAULT_ZOOM) -> dict:
    """Medians of interleaved runs: the floor, our parse, parse + chunk, and render per page."""
    from pipeline.index.chunk import retrieval_chunks

    data = path.read_bytes()
    document = parse_pdf(data, path.name)
    pages = len(document.pages)
    floor, ours, chunked = [], [], []
    for _ in range(reps):
        floor.append(_timed(lambda: _floor(data)))
        ours.append(_timed(lambda: parse_pdf(data, path.name)))
        chunked.append(_timed(lambda: retrieval_chunks(parse_pdf(data, path.name))))
    # render every page (up to 10) with one verified and one dropped highlight
    render = []
    for page in document.pages[:10]:
        n = len(page.lines)
        highlights = [] if not n else [
            Highlight(page=page.number, start_line=1, end_line=min(3, n), quote=None, verified=True,
                      label="[1] verified", chunk_start=0, chunk_end=page.lines[min(8, n) - 1].end),
            Highlight(page=page.number, start_line=max(n - 2, 1), end_line=n, quote=None, verified=False,
                      label="[2] dropped: numbers_match")]
        times = [_timed(lambda p=page.number, h=highlights: render_pdf_page(data, document, p, h, zoom=zoom))
                 for _ in range(max(1, reps // 2))]
        render.append(statistics.median(times))
    f, o, c = statistics.median(floor), statistics.median(ours), statistics.median(chunked)
    return {"file": path.name, "pages": pages, "floor_pages_per_s": pages / f, "parse_pages_per_s": pages / o,
            "parse_ratio": o / f, "parse_chunk_pages_per_s": pages / c, "ratio": c / f,
            "render_ms_per_page": 1000 * statistics.median(render), "zoom": zoom}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdfs", nargs="*", type=Path, default=[DEFAULT_PDF])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--zoom", type=float, default=DEFAULT_ZOOM)
    args = parser.parse_args(argv)

    print(f"pymupdf {pymupdf.__version__} (MuPDF {pymupdf.mupdf_version}), {os.cpu_count()} cores, "
          f"{args.reps} repetitions, medians; render zoom {args.zoom}")
    header = f"{'file':40} {'pages':>5} {'floor p/s':>10} {'parse p/s':>10} {'ratio':>6} {'+chunk p/s':>11} {'render ms/page':>15}"
    print(header)
    print("-" * len(header))
    for path in args.pdfs:
        m = measure_pdf(path, args.reps, args.zoom)
        print(f"{path.name[:40]:40} {m['pages']:5d} {m['floor_pages_per_s']:10.1f} {m['parse_pages_per_s']:10.1f} "
              f"{m['parse_ratio']:6.2f} {m['parse_chunk_pages_per_s']:11.1f} {m['render_ms_per_page']:15.1f}")
    print("ratio = our parse time / floor time (lower is better; the target is ≤ 2)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
