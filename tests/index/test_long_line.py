"""One long line chunks with linear work (issue 24, finding 4): each line's table test runs once per page, not
once per window."""

from __future__ import annotations

import pytest

from tests.costly_files import one_long_line


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_one_long_line_is_chunked_with_linear_work(monkeypatch, separator):
    """`heading_above` ran the table-row patterns over the whole line once per window: 400 KiB took 60 s
    (with tabs the line is one huge table row, and the patterns do run over it: once)."""
    import pipeline.text.tables as tables
    from pipeline.index.chunk import retrieval_chunks
    from pipeline.ingest.parsers import parse

    examined = [0]
    real = tables.is_table_row

    def counting(text: str) -> bool:
        examined[0] += len(text)
        return real(text)

    monkeypatch.setattr(tables, "is_table_row", counting)
    work, chunks = [], []
    for size in (100_000, 200_000):
        document = parse(one_long_line(size).replace(b"night. ", b"night." + separator.encode()), "long.md")
        examined[0] = 0
        chunks.append(len(retrieval_chunks(document)))
        work.append(examined[0])
    assert chunks[1] > 1.8 * chunks[0] > 200
    assert work[1] <= 2 * 200_000 and work[0] <= 2 * 100_000  # each character is looked at a bounded number of times
