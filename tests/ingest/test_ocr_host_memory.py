"""OCR within the host's memory and the document's time (the 512 MiB free host): a scanned page is recognised only
while the server and its workers, with the page's estimated OCR memory, stay out of the host's reserve (at 150 dpi
where 200 does not fit); the pages left are named in one warning, and a scan with no page read is refused whole
(nothing half-added). A page is begun only if one as costly as the costliest so far ends within the document's
bounds. Tesseract runs for real."""

from __future__ import annotations

import sys
import types

import pymupdf
import pytest

from pipeline.core.errors import InputError
from pipeline.ingest.budgets import HostMemory, mib
from pipeline.ingest.parsers import pdf_ocr
from pipeline.ingest.parsers.pdf_layout import parse_pdf
from tests.ingest.test_pdf_ocr_and_info import (  # noqa: F401 (the fixtures; whole_cpu is autouse)
    ENGLISH,
    scanned_pdf,
    tesseract,
    whole_cpu,
)

MiB = 2**20
RESERVE = 64 * MiB
_A4 = pymupdf.open().new_page(width=595, height=842)  # scanned_pdf's pages
AT_200, AT_150 = pdf_ocr.page_memory(_A4, 200), pdf_ocr.page_memory(_A4, 150)

pytestmark = [pytest.mark.usefixtures("tesseract"),
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PSS is read from Linux's /proc")]


def _host(monkeypatch, limit: int, measured) -> None:
    """Each document's OCR sees a host of `limit` bytes in which `measured()` is in use (measured for every page)."""
    monkeypatch.setattr(pdf_ocr, "HostMemory",
                        lambda: HostMemory(limit=limit, reserve=RESERVE, measure=measured, interval_s=0))


def _resolutions(monkeypatch) -> list[int]:
    """The dpi of every OCR call from now on."""
    seen: list[int] = []
    original = pymupdf.Page.get_textpage_ocr

    def recorded(page, *args, **kwargs):
        seen.append(kwargs["dpi"])
        return original(page, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_textpage_ocr", recorded)
    return seen


def test_a_scan_is_read_at_the_resolution_the_host_has_room_for_or_refused_whole(monkeypatch):
    used = 400 * MiB
    dpis = _resolutions(monkeypatch)
    _host(monkeypatch, used + RESERVE + AT_150 - MiB, lambda: used)
    with pytest.raises(InputError, match=r"scan\.pdf: has no text layer \(pages 1-2: scanned or image-only\); the "
                                         r"server is short of memory for OCR now \(try again later\)"):
        parse_pdf(scanned_pdf(pages=2), "scan.pdf")
    assert dpis == []

    for room, dpi in ((AT_150, 150), (AT_200, 200)):
        _host(monkeypatch, used + RESERVE + room + MiB, lambda: used)
        document = parse_pdf(scanned_pdf(pages=2), "scan.pdf")
        assert [page.ocr for page in document.pages] == [True, True] and dpis[-2:] == [dpi, dpi]
        assert all(ENGLISH in page.text for page in document.pages)
        assert not any("short of memory" in warning for warning in document.warnings)


def test_pages_past_the_hosts_room_are_left_unread_and_named(monkeypatch):
    readings = iter([100 * MiB, 300 * MiB])  # the first scanned page fits; then the host fills (other sessions)
    limit = 200 * MiB + RESERVE + AT_200
    _host(monkeypatch, limit, lambda: next(readings, 300 * MiB))
    document = parse_pdf(scanned_pdf(pages=3, text_page=True), "mixed.pdf")
    assert [page.ocr for page in document.pages] == [False, True, False, False]
    assert ENGLISH in document.pages[1].text and document.pages[2].lines == document.pages[3].lines == ()
    assert (f"page(s) 3, 4 were not read by OCR: the server is short of memory for OCR (300 MiB of {mib(limit)} in "
            "use); delete the document and upload it again later to read them") in document.warnings


def test_a_page_is_begun_only_if_it_can_end_within_the_documents_ocr_time(monkeypatch):
    clock = [0.0]  # each page takes 10 s of CPU and of wall time on this clock
    monkeypatch.setattr(pdf_ocr, "time", types.SimpleNamespace(process_time=lambda: clock[0],
                                                               monotonic=lambda: clock[0]))
    original = pymupdf.Page.get_textpage_ocr

    def ten_seconds(page, *args, **kwargs):
        clock[0] += 10
        return original(page, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_textpage_ocr", ten_seconds)
    monkeypatch.setattr(pdf_ocr, "OCR_CPU_S", 25)  # a third page would end at 30 s, past the bound
    document = parse_pdf(scanned_pdf(pages=3), "three.pdf")
    assert [page.ocr for page in document.pages] == [True, True, False]
    assert ("page(s) 3 were not read by OCR: a scanned page takes about 10 s of CPU here, more than the 5 s left of "
            "OCR's 25 s of CPU per document") in document.warnings

    monkeypatch.setattr(pdf_ocr, "OCR_CPU_S", 1000)
    monkeypatch.setattr(pdf_ocr, "OCR_WALL_S", 25)  # the same for wall time
    clock[0] = 0.0
    document = parse_pdf(scanned_pdf(pages=3), "three.pdf")
    assert [page.ocr for page in document.pages] == [True, True, False]
    assert ("page(s) 3 were not read by OCR: this server reads about one scanned page in 10 s, more than the 5 s left "
            "of OCR's 25 s per document") in document.warnings


@pytest.mark.slow  # starts a worker process
def test_the_parse_worker_counts_the_servers_memory_before_each_pages_ocr(monkeypatch):
    """The worker measures its server's process tree (itself included), not itself alone: here the server holds
    300 MiB more than the worker could, so a host with room for the page beside the server alone refuses the scan."""
    from pipeline.engine.sandbox import Sandbox
    from pipeline.ingest.budgets import process_tree_pss

    held = bytearray(300 * MiB)
    held[::4096] = b"x" * len(held[::4096])  # touched: resident, so measured
    limit = process_tree_pss() + RESERVE + AT_200  # no room once a worker (50-150 MiB) runs too
    monkeypatch.setenv("RAG_HOST_MEMORY_MB", str(limit // MiB))  # the worker reads its limits from the environment
    monkeypatch.setenv("RAG_WORKER_WALL_S", "900")  # OCR's time is not judged here, whatever this machine's load
    sandbox = Sandbox(workers=1)
    try:
        with pytest.raises(InputError, match=r"short of memory for OCR now"):
            sandbox.parse("pdf", scanned_pdf(), "scan.pdf")
        monkeypatch.setenv("RAG_HOST_MEMORY_MB", str((limit + 1024 * MiB) // MiB))  # a larger host: read
        sandbox.close()
        sandbox = Sandbox(workers=1)
        document = sandbox.parse("pdf", scanned_pdf(), "scan.pdf")
    finally:
        sandbox.close()
    assert document.pages[0].ocr and ENGLISH in document.pages[0].text
    del held
