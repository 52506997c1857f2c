"""The DOCX parser (python-docx): a Word document's body → addressable lines (`lines.BodyWriter`).

Body paragraphs and tables in order (also inside content controls): a "Heading N" or "Title" paragraph is a
heading, a numbered or bulleted paragraph a list item ("1. " when its numbering is a number format, "- " when a
bullet), a table one line per row (a merged cell once across the columns it spans, repeated down the rows it
spans). Headers, footers, footnotes, comments and text boxes are not read. The core properties' title is the
document's title unless the upload gives one.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.ingest.document import text_document
from pipeline.ingest.parsers.lines import BodyWriter, clean, reads_as_header, with_title
from pipeline.ingest.parsers.zipped import open_zip, zip_kind

MAX_DOCX_BYTES = 20 * 1024 * 1024
_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título|titolo|kop)\s*(\d)$", re.IGNORECASE)
_NUMBERED = {"decimal", "decimalZero", "upperRoman", "lowerRoman", "upperLetter", "lowerLetter", "ordinal",
             "cardinalText", "ordinalText", "decimalEnclosedCircle", "decimalFullWidth", "chineseCounting",
             "ideographDigital", "japaneseCounting"}
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


class _Numbering:
    """Which list levels count (1., 2., …) rather than bullet, and each list's running counters."""

    def __init__(self, document) -> None:
        self.formats: dict[tuple[str, str], str] = {}
        self.counters: dict[str, list[int]] = {}
        try:
            numbering = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            return
        abstract = {a.get(f"{_W}abstractNumId"): a for a in numbering.iter(f"{_W}abstractNum")}
        for num in numbering.iter(f"{_W}num"):
            ref = num.find(f"{_W}abstractNumId")
            levels = abstract.get(ref.get(f"{_W}val")) if ref is not None else None
            for level in levels.iter(f"{_W}lvl") if levels is not None else ():
                fmt = level.find(f"{_W}numFmt")
                self.formats[(num.get(f"{_W}numId"), level.get(f"{_W}ilvl"))] = (
                    fmt.get(f"{_W}val", "") if fmt is not None else "")

    def number(self, num_id: str, level: int) -> int | None:
        """The item's number when its level counts, else None (a bullet); deeper levels restart under it."""
        if self.formats.get((num_id, str(level))) not in _NUMBERED:
            return None
        counters = self.counters.setdefault(num_id, [])
        del counters[level + 1:]
        counters.extend([0] * (level + 1 - len(counters)))
        counters[level] += 1
        return counters[level]


def _list_level(paragraph) -> tuple[str, int] | None:
    """(numId, level) of a numbered or bulleted paragraph (its own numbering, else its style's), else None."""
    num_pr = _num_pr(paragraph._p.pPr)
    style = paragraph.style if num_pr is None else None
    for _ in range(10):  # a style's numbering may come from the style it is based on
        if style is None or num_pr is not None:
            break
        num_pr = _num_pr(style.element.pPr)
        style = style.base_style
    if num_pr is None or num_pr.numId is None or num_pr.numId.val == 0:
        return None
    level = num_pr.ilvl.val if num_pr.ilvl is not None else 0
    return str(num_pr.numId.val), int(level)


def _num_pr(p_pr):
    return p_pr.numPr if p_pr is not None else None


def _repeats_as_header(row) -> bool:
    """A row Word repeats at the top of each page (w:tblHeader): the table's header."""
    tr_pr = row._tr.trPr
    marker = tr_pr.find(f"{_W}tblHeader") if tr_pr is not None else None
    return marker is not None and marker.get(f"{_W}val", "true") not in ("0", "false")


def _style_name(paragraph) -> str:
    try:
        return paragraph.style.name or "" if paragraph.style is not None else ""
    except (KeyError, ValueError):
        return ""


class _DocxReader:
    def __init__(self, document, writer: BodyWriter) -> None:
        self.document, self.writer = document, writer
        self.numbering = _Numbering(document)

    def read(self) -> None:
        self.blocks(self.document.element.body)

    def blocks(self, container) -> None:
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        for child in container.iterchildren():
            if child.tag == f"{_W}p":
                self.paragraph(Paragraph(child, self.document._body))
            elif child.tag == f"{_W}tbl":
                self.table(Table(child, self.document._body))
            elif child.tag == f"{_W}sdt":
                content = child.find(f"{_W}sdtContent")
                if content is not None:
                    self.blocks(content)

    def paragraph(self, paragraph) -> None:
        text = paragraph.text
        if not clean(text):
            return
        style = _style_name(paragraph)
        heading = _HEADING_STYLE.match(style.strip())
        if heading or style.strip().lower() == "title":
            self.writer.heading(int(heading.group(1)) if heading else 1, text)
            return
        listed = _list_level(paragraph)
        if listed is not None:
            self.writer.item(text, self.numbering.number(*listed), listed[1])
        elif style.lower().startswith("list"):
            self.writer.item(text)
        else:
            self.writer.paragraph(text)

    def table(self, table) -> None:
        rows, marked = [], 0
        for row in table.rows:
            cells: list[str] = [""] * row.grid_cols_before
            previous = None
            for cell in row.cells:
                cells.append("" if cell._tc is previous else cell.text)  # a horizontal merge: once
                previous = cell._tc
            rows.append(cells)
            marked += 1 if marked == len(rows) - 1 and _repeats_as_header(row) else 0
        # Without rows Word repeats as a header, a first row of words is one (as the table machinery would read it).
        self.writer.table(rows, marked or (1 if rows and reads_as_header(rows[0]) else 0))


def parse_docx(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
    import docx

    max_bytes = min(getattr(limits, "max_bytes", MAX_DOCX_BYTES) or MAX_DOCX_BYTES, MAX_DOCX_BYTES)
    open_zip(data, filename, "docx", "a DOCX file", max_bytes)
    try:
        document = docx.Document(io.BytesIO(data))
    except InputError:
        raise
    except Exception as error:  # python-docx raises KeyError, ValueError, lxml and package errors for a damaged file
        raise InputError(filename, f"is corrupt and cannot be opened ({type(error).__name__}: "
                                   f"{str(error)[:100]})") from None
    writer = BodyWriter(filename, getattr(limits, "max_lines", None))
    try:
        _DocxReader(document, writer).read()
    except InputError:
        raise
    except (IndexError, KeyError, ValueError) as error:
        raise InputError(filename, f"has a damaged table or list and cannot be read ({str(error)[:100]})") from None
    return text_document(writer.body(), data, filename, "docx", with_title(metadata, document.core_properties.title))


class DocxParser:
    """Word documents: headings, paragraphs, list items and table rows as lines; the core properties' title."""

    name = "docx"
    suffixes: tuple[str, ...] = (".docx",)
    media_types: tuple[str, ...] = ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",)
    front_matter = False  # its metadata comes from a sidecar NAME.docx.yaml or the upload form

    def sniff(self, data: bytes) -> bool:
        return zip_kind(data) == "docx"

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_docx(data, filename, metadata, limits)
