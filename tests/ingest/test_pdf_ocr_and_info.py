"""Scanned pages read by OCR (when Tesseract is installed; CI installs it) and a PDF's own document info."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pymupdf
import pytest

from pipeline import Request
from pipeline.ingest.document import document_warnings
from pipeline.ingest.parsers import pdf_ocr
from pipeline.ingest.parsers.pdf_layout import parse_pdf

ENGLISH = "The harbour fee is 12 euros per boat per day."
SECOND = "Boats must leave the quay by 6 pm."
CHINESE = "会议室每天开放到晚上九点。"
TOP = 100  # points: where the first line is drawn

def skip_or_fail_without_ocr(why: str) -> None:
    """Skips with `why`; fails instead under REQUIRE_OCR=1, which CI's .ci/run sets after installing Tesseract."""
    if os.environ.get("REQUIRE_OCR") == "1":
        pytest.fail(why + " (REQUIRE_OCR=1)", pytrace=False)
    pytest.skip(why)


@pytest.fixture
def tesseract():
    """Skips (with how to install it) where Tesseract's English and Chinese data are missing; fails instead under
    REQUIRE_OCR=1, which CI's .ci/run sets after installing them."""
    tessdata, languages = pdf_ocr.ocr_languages()
    if tessdata is None or "chi_sim" not in languages:
        skip_or_fail_without_ocr("Tesseract with English and simplified Chinese data is not installed (apt-get install "
                                 "tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim, as .ci/run does)")
    return tessdata


@pytest.fixture(autouse=True)
def whole_cpu(monkeypatch):
    """These tests are not about OCR's time: the first scanned page is judged at a whole CPU whatever this machine's
    load (tests/ingest/test_ocr_first_page_time.py judges it at measured shares)."""
    monkeypatch.setattr(pdf_ocr, "cpu_share", lambda *since: 1.0)


def scanned_pdf(pages: int = 1, text_page: bool = False) -> bytes:
    """A PDF whose pages are images of text (a scan): text drawn on a page, rendered to a grey pixmap, and that
    image put on a new page, so no text layer exists. With `text_page`, a first page with real text."""
    out = pymupdf.open()
    if text_page:
        out.new_page().insert_text((72, 72), "This first page has a text layer about the marina.")
    for _ in range(pages):
        src = pymupdf.open()
        page = src.new_page(width=595, height=842)
        for i, (text, font) in enumerate([(ENGLISH, "helv"), (SECOND, "helv"), (CHINESE, "china-s")]):
            page.insert_text((60, TOP + 32 * i), text, fontsize=14, fontname=font)
        pixmap = page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
        scan = out.new_page(width=595, height=842)
        scan.insert_image(scan.rect, stream=pixmap.tobytes("png"))
    out.set_metadata({"title": "Harbour rules (scanned)", "author": "Harbour <Office>",
                      "creationDate": "D:20240301101500+01'00'", "modDate": "D:20250102"})
    return out.tobytes()


def test_a_scanned_page_is_read_by_ocr_with_word_boxes_and_said_so(tesseract):
    document = parse_pdf(scanned_pdf(text_page=True), "scan.pdf")
    page = document.pages[1]
    assert page.ocr and not document.pages[0].ocr
    texts = [line.text for line in page.lines]
    assert ENGLISH in texts and SECOND in texts
    assert any(CHINESE.rstrip("。") in text.replace(" ", "") for text in texts)
    fee = page.lines[texts.index(ENGLISH)]
    for word in fee.words:  # the highlight boxes sit where the words were drawn
        assert page.text[word.start:word.end] in ENGLISH
        assert TOP - 20 < word.y0 < word.y1 < TOP + 10 and 50 < word.x0 < word.x1 < 545
    warnings = document_warnings(document)
    assert any("page(s) 2 had no text layer and were read by OCR (eng+chi_sim)" in w for w in warnings)


@pytest.mark.slow  # the real engine
def test_an_ocr_answer_cites_the_scanned_page_and_the_trace_names_it(tesseract, engine):
    document = parse_pdf(scanned_pdf(), "harbour-scan.pdf")
    corpus = engine.corpus([document])
    trace = engine.ask(corpus, Request(question="What is the harbour fee per boat?", date=dt.date(2026, 9, 14)))
    assert trace.answer.status == "answered", trace.explanation
    cited = trace.answer.citations[0]
    assert cited.page == 1 and "12 euros" in cited.quote
    record = trace.documents[0]
    assert record.ocr_pages == [1] and record.info["title"] == "Harbour rules (scanned)"


@pytest.mark.slow  # starts a worker process
def test_ocr_fits_the_parse_workers_limits_and_its_page_bound(tesseract):
    from pipeline.engine.sandbox import Sandbox

    sandbox = Sandbox(workers=1)  # the app's limits: 384 MiB of address space, 30 s CPU, 120 s per task
    try:
        document = sandbox.parse("pdf", scanned_pdf(pages=2), "two.pdf")
    finally:
        sandbox.close()
    assert [page.ocr for page in document.pages] == [True, True]
    assert all(ENGLISH in page.text for page in document.pages)

    data = scanned_pdf(pages=3)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pdf_ocr, "MAX_OCR_PAGES", 2)  # as RAG_MAX_OCR_PAGES=2 sets it
        document = parse_pdf(data, "three.pdf")
    assert [page.ocr for page in document.pages] == [True, True, False] and document.pages[2].lines == ()
    assert any("page(s) 3 were not read by OCR: the limit is 2 pages per document" in w for w in document.warnings)


def test_without_tesseract_a_scan_gets_the_clear_refusal_and_a_mixed_pdf_keeps_its_text(monkeypatch):
    from pipeline.core.errors import InputError

    monkeypatch.setattr(pdf_ocr, "ocr_languages", lambda: (None, ""))
    with pytest.raises(InputError, match=r"scan\.pdf: has no text layer \(page 1: scanned or image-only\); "
                                         r"OCR is not installed on this server \(the administrator can install Tesseract"):
        parse_pdf(scanned_pdf(), "scan.pdf")
    document = parse_pdf(scanned_pdf(text_page=True), "mixed.pdf")
    assert not any(page.ocr for page in document.pages) and document.pages[1].lines == ()
    assert document_warnings(document) == [
        f"mixed.pdf: page(s) 2 have no text layer and were not read: {pdf_ocr.NOT_INSTALLED}",
        "mixed.pdf: page(s) 2 have no text layer (scanned or image-only); they cannot be searched or cited"]


def test_a_pdfs_document_info_is_kept_bounded_and_names_it_unless_a_sidecar_does(monkeypatch):
    monkeypatch.setattr(pdf_ocr, "ocr_languages", lambda: (None, ""))
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The marina opens at 7.")
    doc.set_metadata({"title": "Marina guide", "author": "<b>Port</b> " + "x" * 500, "subject": "",
                      "creationDate": "D:20240301101500+01'00'", "modDate": "D:2025"})
    data = doc.tobytes()
    document = parse_pdf(data, "guide.pdf")
    info = document.info
    assert document.meta.title == info.title == "Marina guide"
    assert info.created == "2024-03-01T10:15:00+01:00" and info.modified == "2025-01-01"
    assert info.author.startswith("<b>Port</b>") and len(info.author) == 200 and info.subject is None
    assert parse_pdf(data, "guide.pdf", {"title": "From the form"}).meta.title == "From the form"
    from ui.source import document_details_html

    shown = document_details_html(document)
    assert "&lt;b&gt;Port&lt;/b&gt;" in shown and "<b>" not in shown and "created 2024-03-01" in shown

    doc.set_metadata({"title": "Microsoft Word - draft-7.docx", "author": ""})
    untitled = parse_pdf(doc.tobytes(), "draft.pdf")
    assert untitled.meta.title is None and untitled.info.title is None and untitled.info.author is None


def test_tesseract_installed_while_the_server_runs_is_found_by_the_next_scan(monkeypatch, tmp_path, tesseract):
    """Issue 51: "not installed" was remembered for a worker's whole life, so installing Tesseract changed nothing
    until a restart. Its language folder is looked up again at each scan until it is found."""
    from pipeline.core.errors import InputError

    folder = tmp_path / "tessdata"
    folder.mkdir()
    monkeypatch.setenv("TESSDATA_PREFIX", str(folder))  # a server whose Tesseract has no language data yet
    with pytest.raises(InputError, match="OCR is not installed on this server"):
        parse_pdf(scanned_pdf(), "scan.pdf")
    (folder / "eng.traineddata").symlink_to(Path(tesseract) / "eng.traineddata")  # installed meanwhile
    document = parse_pdf(scanned_pdf(), "scan.pdf")
    assert document.pages[0].ocr and "12 euros" in document.pages[0].text
