"""Which MuPDF lines of a PDF page are set wholly in a bold font: a heading can be told by its weight alone
("3.2 Swift" in bold 10 pt over 10 pt body text), which the word list does not carry; and which wholly in a
typewriter font: a listing of code or commands ("\\documentclass{llncs}", "pdflatex MyInvention"), which the units
then read as code, not as sentences.

A span is bold when MuPDF flags it bold (from the font's descriptor or name) or its font's name says so
("Helvetica-Bold", "ABCDEF+Arial-BoldMT", "…-Black", "…-Semibold", TeX's "CMBX12"). The span dictionary costs a
few times the word list, so it is read only on a page whose fonts include one named bold or typewriter. Typewriter
is told by the name (TeX's "CMTT10", "SFTT1000", "LMMono10", "CMUTypewriter", "Courier", "DejaVuSansMono",
"Consolas"): TeX's Type 1 fonts do not set the fixed-pitch flag.
"""

from __future__ import annotations

import re

import pymupdf

# "Semibold" and "Demibold" too; TeX's bold extended fonts say it as "bx": "ABCDEF+CMBX12", "CMSSBX10", "SFBX1200".
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|(?:^|\+)(?:cm|sf|ec|lm)[a-z]{0,3}bx(?:ti|sl)?\d", re.IGNORECASE)
_BOLD_FLAG = pymupdf.TEXT_FONT_BOLD
_MONO_NAME = re.compile(r"(?:^|\+)(?:cm|sf|ec|tc|lm|tx|px)?tt\d|typewriter|courier|mono|consol|menlo|inconsolata|pcrr"
                        r"|nimbusmon", re.IGNORECASE)
_MONO_FLAG = pymupdf.TEXT_FONT_MONOSPACED


def uses_styled_font(page: pymupdf.Page) -> bool:
    """Does the page's resources name a bold or a typewriter font? (Cheap: no text is read.)"""
    return any(_BOLD_NAME.search(font[3] or "") or _MONO_NAME.search(font[3] or "") for font in page.get_fonts())


def styled_lines(textpage: pymupdf.TextPage) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """(block, line) numbers, as `get_text("words")` numbers them, of the lines whose every visible span is bold, and
    of those whose every visible span is typewriter."""
    bold: set[tuple[int, int]] = set()
    mono: set[tuple[int, int]] = set()
    for block_number, block in enumerate(textpage.extractDICT()["blocks"]):
        for line_number, line in enumerate(block.get("lines", ())):
            spans = [span for span in line["spans"] if span["text"].strip()]
            if not spans:
                continue
            if all(span["flags"] & _BOLD_FLAG or _BOLD_NAME.search(span["font"]) for span in spans):
                bold.add((block_number, line_number))
            if all(span["flags"] & _MONO_FLAG or _MONO_NAME.search(span["font"]) for span in spans):
                mono.add((block_number, line_number))
    return bold, mono
