"""In a real browser: a scanned PDF and a Jekyll page uploaded together; the scan's answer is highlighted on the page
image and the Source panel says the page was read by OCR, and what the PDF and the page say about themselves."""

from __future__ import annotations

import pytest

from tests.app.test_app_browser import ask, browser, page, shot  # noqa: F401 (the fixtures)
from tests.ingest.test_pdf_ocr_and_info import scanned_pdf, tesseract  # noqa: F401 (the fixture)

pytestmark = pytest.mark.browser


def test_a_scanned_page_is_answered_highlighted_and_marked_as_read_by_ocr(page, tesseract, tmp_path):  # noqa: F811
    scan = tmp_path / "harbour-scan.pdf"
    scan.write_bytes(scanned_pdf())
    jekyll = tmp_path / "kayak-terms.md"
    jekyll.write_text("---\ntitle: Kayak Club Terms\nredirect_from:\n  - /old-terms\nversions: {fpt: '*'}\n---\n"
                      "Members must wear a life jacket on every kayak trip.\n", "utf-8")
    page.get_by_text("Upload documents (only you see them)").click()
    page.locator("#upload-files input[type=file]").set_input_files([str(scan), str(jekyll)])
    page.locator("#upload").click()
    status = page.locator("#upload-status")
    status.get_by_text("added harbour-scan").wait_for()
    status.get_by_text("added kayak-terms").wait_for()
    assert "read by OCR" in status.inner_text() and "redirect_from, versions" in status.inner_text()

    ask(page, "What is the harbour fee per boat?", topic="")
    answer = page.locator("#answer")
    answer.get_by_text("✓ answered").wait_for()
    assert "12 euros" in answer.inner_text()
    page.get_by_role("tab", name="5 Source").click()
    page.wait_for_function("() => { const i = document.querySelector('#source-image img');"
                           " return i && i.complete && i.naturalWidth > 500; }")
    details = page.locator(".rag-details")
    details.first.wait_for()
    shown = " ".join(details.all_inner_texts())
    assert "Page(s) 1 were read by OCR" in shown and "Document info: title Harbour rules (scanned)" in shown
    assert "author Harbour <Office>" in shown  # shown as text (escaped), never as markup
    shot(page, "ocr-source-highlight.png")

    ask(page, "What must members wear on a kayak trip?", topic="")
    answer.get_by_text("✓ answered").wait_for()
    page.get_by_role("tab", name="5 Source").click()
    page.locator("#source-text").get_by_text("life jacket", exact=False).wait_for()
    page.get_by_text("Other metadata (not used for access or dates): redirect_from").wait_for()
    shot(page, "jekyll-source-details.png")
