"""Scanned PDFs made here for the OCR benchmarks: prose typeset on A4 pages, each page drawn to a grey image at a
scanner's resolution, and the images put on new pages, so the PDF has no text layer (as a scan has none).

The prose is the public eval PDF's text (a Federal Register notice, ../shared/eval) when it is there, else generated
sentences; 11 pt Helvetica in one column, about 450 words a page, the density of a typed letter or report. The words
typeset on each page are returned with it, so what OCR recognised can be counted against them.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVAL_PDF = ROOT.parent / "shared" / "eval" / "pdfs" / "federal-register-2020-17221.pdf"
A4 = (595, 842)
MARGIN = 60
FONT_SIZE = 11


def _prose() -> list[str]:
    """Words of real prose (the eval PDF's), or generated sentences where the shared data is missing."""
    import pymupdf

    if EVAL_PDF.exists():
        with pymupdf.open(EVAL_PDF) as doc:
            text = " ".join(page.get_text() for page in doc)
        words = [w for w in re.sub(r"-\n", "", text).split() if w.isprintable()]
        if len(words) > 1000:
            return words
    return " ".join(f"Notice {n}: the harbour office reviews berth {n % 90} applications within {n % 30 + 2} working "
                    f"days, and boats longer than {n % 40 + 8} metres pay the wider tariff." for n in range(4000)).split()


def _typeset(page, words: list[str], start: int) -> int:
    """Fill the page's text box with words from `start`; returns how many were set."""
    import pymupdf

    box = pymupdf.Rect(MARGIN, MARGIN, A4[0] - MARGIN, A4[1] - MARGIN)
    low, high = 1, min(len(words) - start, 2000)
    while low < high:  # the most words that fit (insert_textbox draws nothing when they do not)
        middle = (low + high + 1) // 2
        with pymupdf.open() as scratch:
            fits = scratch.new_page(width=A4[0], height=A4[1]).insert_textbox(
                box, " ".join(words[start:start + middle]), fontsize=FONT_SIZE, fontname="helv") >= 0
        low, high = (middle, high) if fits else (low, middle - 1)
    page.insert_textbox(box, " ".join(words[start:start + low]), fontsize=FONT_SIZE, fontname="helv")
    return low


def scanned_pdf(pages: int, scan_dpi: int = 200, stamp: str = "") -> tuple[bytes, list[list[str]]]:
    """An image-only PDF of `pages` A4 pages of prose, scanned at `scan_dpi`, and the words on each page."""
    import pymupdf

    words = _prose()
    out, truth, at = pymupdf.open(), [], 0
    for number in range(pages):
        sheet = pymupdf.open()
        page = sheet.new_page(width=A4[0], height=A4[1])
        if at >= len(words) - 2000:
            at = 0
        count = _typeset(page, words, at)
        truth.append(words[at:at + count])
        at += count
        if stamp and number == 0:
            page.insert_text((MARGIN, MARGIN / 2), stamp, fontsize=9)
        image = page.get_pixmap(dpi=scan_dpi, colorspace=pymupdf.csGRAY).tobytes("png")
        scan = out.new_page(width=A4[0], height=A4[1])
        scan.insert_image(scan.rect, stream=image)
        sheet.close()
    data = out.tobytes(garbage=3, deflate=True)
    out.close()
    return data, truth


def recognised(truth: list[str], found: list[str]) -> float:
    """The share of the typeset words that OCR found on the page (each word counted as often as it was set)."""
    from collections import Counter

    have = Counter(found)
    hits = 0
    for word in truth:
        if have[word] > 0:
            have[word] -= 1
            hits += 1
    return hits / len(truth) if truth else 0.0
