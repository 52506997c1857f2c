"""Which MuPDF lines of a PDF page are set wholly in a bold font: a heading can be told by its weight alone
("3.2 Swift" in bold 10 pt over 10 pt body text), which the word list does not carry.

A span is bold when MuPDF flags it bold (from the font's descriptor or name) or its font's name says so
("Helvetica-Bold", "ABCDEF+Arial-BoldMT", "…-Black", "…-Semibold", TeX's "CMBX12"). The span dictionary costs a
few times the word list, so it is read only on a page whose fonts include one named bold.
"""

from __future__ import annotations

import re

import pymupdf

# "Semibold" and "Demibold" too; TeX's bold extended fonts say it as "bx": "ABCDEF+CMBX12", "CMSSBX10", "SFBX1200".
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|(?:^|\+)(?:cm|sf|ec|lm)[a-z]{0,3}bx(?:ti|sl)?\d", re.IGNORECASE)
_BOLD_FLAG = pymupdf.TEXT_FONT_BOLD


def uses_bold_font(page: pymupdf.Page) -> bool:
    """Does the page's resources name a bold font? (Cheap: no text is read.)"""
    return any(_BOLD_NAME.search(font[3] or "") for font in page.get_fonts())


def bold_lines(textpage: pymupdf.TextPage) -> set[tuple[int, int]]:
    """(block, line) numbers, as `get_text("words")` numbers them, of the lines whose every visible span is bold."""
    found: set[tuple[int, int]] = set()
    for block_number, block in enumerate(textpage.extractDICT()["blocks"]):
        for line_number, line in enumerate(block.get("lines", ())):
            spans = [span for span in line["spans"] if span["text"].strip()]
            if spans and all(span["flags"] & _BOLD_FLAG or _BOLD_NAME.search(span["font"]) for span in spans):
                found.add((block_number, line_number))
    return found
