"""`python -m pipeline bench chunking`: parse + chunk time by text size, as prose and as one line (both must
grow linearly).

    python -m pipeline bench chunking [--sizes 1,2,5]   (megabytes of policy-like prose)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def prose(megabytes: float) -> str:
    """Policy-like prose: ~70-character lines of sentences, a blank line between paragraphs of eight
    (the bench and tests/app/test_security.py use the same text)."""
    lines, size, n = [], 0, 0
    while size < megabytes * 1_000_000:
        line = f"Staff travelling to city {n} may book lodging up to {300 + n % 700} yuan per night."
        lines.append(line)
        if n % 8 == 7:
            lines.append("")
        size += len(line) + 1
        n += 1
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipeline bench chunking", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,5", help="megabytes, comma-separated (at most 20 each)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from pipeline.index.chunk import retrieval_chunks
    from pipeline.ingest.parsers import parse

    print(f"{'text':<9}  {'MB':>4}  {'parse s':>8}  {'chunk s':>8}  {'chunks':>7}  {'chunk s per MB':>14}")
    for shape, make in (("prose", prose), ("one line", one_line)):
        for size in [float(s) for s in args.sizes.split(",") if s]:
            data = make(min(size, 20)).encode()
            started = time.perf_counter()
            document = parse(data, "bench.md")
            parsed = time.perf_counter()
            chunks = retrieval_chunks(document)
            chunked = time.perf_counter()
            print(f"{shape:<9}  {size:>4g}  {parsed - started:>8.2f}  {chunked - parsed:>8.2f}  {len(chunks):>7}  "
                  f"{(chunked - parsed) / size:>14.2f}")
    return 0


def one_line(megabytes: float) -> str:
    """The same prose as one line (no newline at all): each window's table test once scanned the whole line."""
    return prose(megabytes).replace("\n", " ")


if __name__ == "__main__":
    raise SystemExit(main())
