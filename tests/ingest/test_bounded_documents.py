"""What one uploaded document may cost (issue 24, findings 1-3): its lines are counted (a text's on its bytes,
before parsing), a PDF page's content is counted once decompressed before MuPDF reads it, and a document is priced
by what it will hold against a per-session and a process-wide memory budget. Each test reproduces one way around
the limits an attack probe found, with a file it generates; nothing here times a unit of work (speed and memory:
`python -m pipeline bench load` and `bench chunking`)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from pipeline import InputError, PdfLimits
from tests.costly_files import inflating_pdf, pdf_of_lines, short_lines


def test_a_text_of_many_short_lines_is_refused_by_its_line_count_before_it_is_parsed():
    """18 MB of 9 million lines took the server from 259 to 6,476 MiB; the limits counted bytes only."""
    from pipeline import limits
    from pipeline.ingest.parsers import parse

    data = short_lines(500_000)  # 1 MiB, far under the 20 MB file limit
    with pytest.raises(InputError, match=r"has 500001 lines; the limit is 200000 per document$"):
        parse(data, "lines.txt")
    assert limits.MAX_DOCUMENT_LINES == 200_000
    parse(short_lines(1000), "fine.txt")  # a small file of short lines is still a document


def test_a_pdf_is_refused_past_the_lines_of_one_document():
    from pipeline.ingest.parsers.pdf_layout import parse_pdf

    data = pdf_of_lines(pages=3, lines_per_page=100)
    assert sum(len(p.lines) for p in parse_pdf(data, "ok.pdf").pages) == 300
    with pytest.raises(InputError, match=r"has more than 250 lines \(at page 3\); the limit is 250 per document"):
        parse_pdf(data, "many.pdf", limits=PdfLimits(max_lines=250))


def test_what_a_document_holds_grows_linearly_with_its_lines_and_the_estimate_covers_it():
    """The budget prices a document by lines, characters and word boxes; the price is never below what the
    parsed document really holds (traced allocations), and both grow in proportion to the lines."""
    from pipeline.ingest.budgets import document_cost
    from pipeline.ingest.parsers import parse
    from pipeline.ingest.budgets import document_size

    held, priced = [], []
    for count in (10_000, 20_000):
        gc.collect()
        tracemalloc.start()
        document = parse(short_lines(count), "lines.txt")
        held.append(tracemalloc.get_traced_memory()[0])
        tracemalloc.stop()
        priced.append(document_cost(document_size(document)))
        del document
    assert 1.8 < held[1] / held[0] < 2.2 and 1.8 < priced[1] / priced[0] < 2.2
    assert all(p > h for p, h in zip(priced, held))


def test_the_memory_budget_refuses_past_a_session_and_past_the_server_and_frees_with_the_session():
    from pipeline.ingest.budgets import MemoryBudget

    class Owner:
        pass

    budget = MemoryBudget(capacity=100, per_owner=60)
    alice, bob, carol = Owner(), Owner(), Owner()
    budget.reserve(alice, {"a": 50}, "a.md")
    with pytest.raises(InputError, match="one session's uploads may hold"):
        budget.reserve(alice, {"b": 20}, "b.md")
    budget.reserve(alice, {"a": 55}, "a.md")  # a replacement replaces the item's reservation
    budget.reserve(bob, {"c": 40}, "c.md")
    with pytest.raises(InputError, match="the server is full: every session's uploads together may hold"):
        budget.reserve(carol, {"d": 10}, "d.md")
    budget.release(alice, ["a"])
    budget.reserve(carol, {"d": 10}, "d.md")
    del bob
    gc.collect()  # a session dropped without clear() gives its reservations back too
    assert budget.held() == 10


def test_a_pdf_whose_content_inflates_past_the_cap_is_refused_before_mupdf_reads_it():
    """A 3 MB PDF inflating to 3 GiB held MuPDF, and the GIL, for a minute; here 40 MB from ~80 KB."""
    from pipeline.ingest.parsers.pdf_layout import parse_pdf

    data = inflating_pdf(40)
    assert len(data) < 200_000
    with pytest.raises(InputError, match=r"page 1's content is over 32 MB once decompressed; this PDF's content is "
                                         r"too large to read safely$"):
        parse_pdf(data, "bomb.pdf")
    import pymupdf

    from pipeline.ingest.parsers.pdf_guard import page_content_size

    doc = pymupdf.open(stream=data, filetype="pdf")
    counted = [page_content_size(doc, doc[0], cap) for cap in (2**20, 4 * 2**20)]
    assert 2**20 < counted[0] <= 2**20 + 65536 and 4 * 2**20 < counted[1] <= 4 * 2**20 + 65536  # stops at the cap
    with pytest.raises(InputError, match=r"its pages' content is over 0.5 MB once decompressed \(at page 1\)"):
        parse_pdf(inflating_pdf(0.6) , "two.pdf", limits=PdfLimits(max_page_content=2**20, max_content=2**20 // 2))


def test_a_flate_stream_with_bytes_after_its_end_is_counted_and_the_count_ends():
    """A writer's padding after a content stream's end (the 2007 IRS 1040-NR instructions carry such a stream):
    zlib keeps the extra bytes as an unconsumed tail that decompresses to nothing, and the count looped forever."""
    import zlib

    from pipeline.ingest.parsers.pdf_guard import _inflated_size

    content = b"BT /F1 12 Tf 72 712 Td (padded) Tj ET\n" * 2000
    padded = zlib.compress(content) + b"\r\n\x00"
    assert _inflated_size(padded, 2**25) == len(content)
    assert _inflated_size(padded, 100) <= 100 + 65536  # still stops at the cap
