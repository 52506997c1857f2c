"""The first scanned page is begun only if it is expected to end within the document's OCR time: its CPU estimated
from its pixels (`pdf_ocr.page_cpu`), its wall time from the share of a CPU the task has been getting
(`pdf_ocr.cpu_share`). On a slow host (Render's 0.1 CPU) the page is left unread and named, or the scan refused whole
with the reason, instead of running the parse worker into its own limit ("… is too large to read safely"). Tesseract
runs for real."""

from __future__ import annotations

import types

import pymupdf
import pytest

from pipeline.core.errors import InputError
from pipeline.ingest.parsers import pdf_ocr
from pipeline.ingest.parsers.pdf_layout import parse_pdf
from tests.ingest.test_pdf_ocr_and_info import ENGLISH, scanned_pdf, tesseract  # noqa: F401 (the fixture)

pytestmark = pytest.mark.usefixtures("tesseract")
_A4 = pymupdf.open().new_page(width=595, height=842)  # scanned_pdf's pages


def _cpu_share_of(monkeypatch, share: float) -> list[int]:
    """A clock on which this process gets `share` of a CPU (each reading of the wall clock moves it 50 ms); returns the
    list of pages OCR is run on from now on."""
    wall = [1000.0]

    def monotonic() -> float:
        wall[0] += 0.05
        return wall[0]

    monkeypatch.setattr(pdf_ocr, "time", types.SimpleNamespace(monotonic=monotonic,
                                                               process_time=lambda: wall[0] * share))
    recognised: list[int] = []
    original = pymupdf.Page.get_textpage_ocr

    def recorded(page, *args, **kwargs):
        recognised.append(page.number + 1)
        return original(page, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_textpage_ocr", recorded)
    return recognised


def _expected_seconds(share: float) -> int:
    return round(pdf_ocr.page_cpu(_A4) / share)


def test_the_cpu_share_is_the_tasks_cpu_over_its_wall_time_judged_over_a_window(monkeypatch):
    _cpu_share_of(monkeypatch, 0.1)
    started = pdf_ocr.time.process_time(), pdf_ocr.time.monotonic()
    assert pdf_ocr.cpu_share(*started) == pytest.approx(0.1)
    assert pdf_ocr.time.monotonic() - started[1] >= pdf_ocr.SHARE_WINDOW_S  # a young task waited for its window


def test_a_first_page_this_server_would_read_too_slowly_is_not_begun_and_named(monkeypatch):
    recognised = _cpu_share_of(monkeypatch, 0.1)  # Render's free instance
    seconds = _expected_seconds(0.1)
    assert seconds > pdf_ocr.OCR_WALL_S
    document = parse_pdf(scanned_pdf(pages=2, text_page=True), "mixed.pdf")
    assert recognised == [] and [page.ocr for page in document.pages] == [False, False, False]
    assert (f"page(s) 2, 3 were not read by OCR: this server reads about one scanned page in {seconds} s, more than "
            f"the {pdf_ocr.OCR_WALL_S:.0f} s left of OCR's {pdf_ocr.OCR_WALL_S:g} s per document") in document.warnings

    with pytest.raises(InputError) as refused:
        parse_pdf(scanned_pdf(pages=2), "scan.pdf")
    assert recognised == []
    assert (f"scan.pdf: has no text layer (pages 1-2: scanned or image-only); OCR was not started: this server reads "
            f"about one scanned page in {seconds} s") in str(refused.value)
    assert "try again when the server is less busy" in str(refused.value) and "too large" not in str(refused.value)


def test_a_first_page_within_the_time_left_is_read(monkeypatch):
    recognised = _cpu_share_of(monkeypatch, 1.0)
    assert _expected_seconds(1.0) < pdf_ocr.OCR_WALL_S
    document = parse_pdf(scanned_pdf(pages=1), "scan.pdf")
    assert recognised == [1] and document.pages[0].ocr and ENGLISH in document.pages[0].text
    assert not any("were not read by OCR" in warning for warning in document.warnings)


def test_a_first_page_past_the_cpu_left_is_not_begun(monkeypatch):
    recognised = _cpu_share_of(monkeypatch, 1.0)
    monkeypatch.setattr(pdf_ocr, "OCR_CPU_S", pdf_ocr.page_cpu(_A4) - 1)
    document = parse_pdf(scanned_pdf(pages=1, text_page=True), "mixed.pdf")
    assert recognised == [] and not document.pages[1].ocr
    assert any(w.startswith(f"page(s) 2 were not read by OCR: a scanned page takes about {pdf_ocr.page_cpu(_A4):.0f} "
                            "s of CPU here") for w in document.warnings), document.warnings


@pytest.mark.slow  # starts a worker process
def test_the_parse_worker_refuses_a_first_page_it_cannot_finish_with_the_reason(monkeypatch):
    """A worker with 4 s of wall time (2 s for OCR) cannot read an A4 page however fast it is: the scan is refused with
    the reason, not by the worker's own limit."""
    from pipeline.engine.sandbox import Sandbox

    monkeypatch.setenv("RAG_WORKER_WALL_S", "4")  # the worker reads its limits from the environment
    sandbox = Sandbox(workers=1)
    try:
        with pytest.raises(InputError, match=r"scan\.pdf: has no text layer \(page 1: scanned or image-only\); OCR was "
                                             r"not started: this server reads about one scanned page in \d+ s, more "
                                             r"than the 2 s left of OCR's 2 s per document"):
            sandbox.parse("pdf", scanned_pdf(), "scan.pdf")
    finally:
        sandbox.close()
