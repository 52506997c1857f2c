"""The DOCX parser (python-docx): a Word document's body → addressable lines (`lines.BodyWriter`).

Body paragraphs and tables in order (also inside content controls): a "Heading N" or "Title" paragraph is a
heading, a numbered or bulleted paragraph a list item ("1. " when its numbering is a number format, "- " when a
bullet), a table one line per row (a merged cell once across the columns it spans, repeated down the rows it
spans; the table recorded on the page with its header rows and column names, `lines.BodyWriter.table`). Headers,
footers, footnotes, comments and text boxes are not read. The core properties (title, author, dates) are kept as
the document's info, shown and never trusted; their title is the document's title unless the upload gives one.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError, out_of_memory
from pipeline.ingest.document import text_document
from pipeline.ingest.parsers.grid import Grid
from pipeline.ingest.parsers.lines import BodyWriter, clean, header_rows, with_title
from pipeline.ingest.parsers.pdf_info import core_properties_info
from pipeline.ingest.parsers.zipped import ZippedParser, open_zip

MAX_DOCX_BYTES = 20 * 1024 * 1024
_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|título|titolo|kop)\s*(\d)$", re.IGNORECASE)
_NUMBERED = {"decimal", "decimalZero", "upperRoman", "lowerRoman", "upperLetter", "lowerLetter", "ordinal",
             "cardinalText", "ordinalText", "decimalEnclosedCircle", "decimalFullWidth", "chineseCounting",
             "ideographDigital", "japaneseCounting"}
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_NAMESPACES = {"w": _W[1:-1], "mc": "http://schemas.openxmlformats.org/markup-compatibility/2006"}
# A paragraph's text: its runs' text, tabs and breaks (inserted text too, deleted text is w:delText), not the text
# boxes drawn inside it; compiled once (python-docx's `paragraph.text` compiles its XPath per call: 2 s for 8,000).
_RUN_TEXT = ".//w:t | .//w:tab | .//w:br | .//w:cr | .//w:noBreakHyphen"
_INSIDE_BOX = "[not(ancestor::w:txbxContent) and not(ancestor::mc:Fallback)]"


@lru_cache(maxsize=1)
def _run_text():
    from lxml import etree

    return etree.XPath(" | ".join(f"{path}{_INSIDE_BOX}" for path in _RUN_TEXT.split(" | ")), namespaces=_NAMESPACES)


def _paragraph_text(paragraph) -> str:
    parts = []
    for element in _run_text()(paragraph):
        tag = element.tag
        parts.append(element.text or "" if tag == f"{_W}t" else "-" if tag == f"{_W}noBreakHyphen" else " ")
    return "".join(parts)


def _cell_text(cell) -> str:
    return " ".join(_paragraph_text(p) for p in cell.iter(f"{_W}p"))


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


def _num_pr(p_pr):
    return p_pr.numPr if p_pr is not None else None


def _list_level(num_pr) -> tuple[str, int] | None:
    """(numId, level) of a paragraph's numbering properties, or None when it is not numbered or bulleted."""
    if num_pr is None or num_pr.numId is None or num_pr.numId.val == 0:
        return None
    level = num_pr.ilvl.val if num_pr.ilvl is not None else 0
    return str(num_pr.numId.val), int(level)


class _Styles:
    """Each paragraph style's name and numbering (its own, else the style it is based on), looked up by id from
    one pass over the styles part: python-docx's `paragraph.style` scans every style per paragraph (17 s for 300
    paragraphs)."""

    def __init__(self, document) -> None:
        from docx.enum.style import WD_STYLE_TYPE

        self.styles: dict[str, tuple[str, object]] = {}
        self.default: tuple[str, object] = ("", None)
        try:
            for style in document.styles:
                if style.type == WD_STYLE_TYPE.PARAGRAPH:
                    self.styles[style.style_id] = (style.name or "", self._numbering(style))
            default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
        except (KeyError, ValueError, AttributeError):
            return
        if default is not None:
            self.default = self.styles.get(default.style_id, self.default)

    @staticmethod
    def _numbering(style):
        for _ in range(10):  # a style's numbering may come from the style it is based on
            if style is None:
                return None
            num_pr = _num_pr(style.element.pPr)
            if num_pr is not None:
                return num_pr
            style = style.base_style
        return None

    def of(self, paragraph) -> tuple[str, object]:
        """(style name, the style's numbering properties or None)."""
        p_pr = paragraph.pPr
        style_id = p_pr.pStyle.val if p_pr is not None and p_pr.pStyle is not None else None
        return self.styles.get(style_id, self.default) if style_id else self.default


def _repeats_as_header(tr) -> bool:
    """A row Word repeats at the top of each page (w:tblHeader): the table's header."""
    marker = tr.find(f"{_W}trPr/{_W}tblHeader")
    return marker is not None and marker.get(f"{_W}val", "true") not in ("0", "false")


class _DocxReader:
    def __init__(self, document, writer: BodyWriter) -> None:
        self.document, self.writer = document, writer
        self.numbering = _Numbering(document)
        self.styles = _Styles(document)

    def read(self) -> None:
        self.blocks(self.document.element.body)

    def blocks(self, container) -> None:
        for child in container.iterchildren():
            if child.tag == f"{_W}p":
                self.paragraph(child)
            elif child.tag == f"{_W}tbl":
                self.table(child)
            elif child.tag == f"{_W}sdt":
                content = child.find(f"{_W}sdtContent")
                if content is not None:
                    self.blocks(content)

    def paragraph(self, paragraph) -> None:
        text = _paragraph_text(paragraph)
        if not clean(text):
            return
        style, style_numbering = self.styles.of(paragraph)
        heading = _HEADING_STYLE.match(style.strip())
        if heading or style.strip().lower() == "title":
            self.writer.heading(int(heading.group(1)) if heading else 1, text)
            return
        own = _num_pr(paragraph.pPr)
        listed = _list_level(own if own is not None and len(own) else style_numbering)  # an empty numPr: the style's
        if listed is not None:
            self.writer.item(text, self.numbering.number(*listed), listed[1])
        elif style.lower().startswith("list"):
            self.writer.item(text)
        else:
            self.writer.paragraph(text)

    def table(self, table) -> None:
        """One line per row on the table's grid (`grid.Grid`): a cell spanning columns (w:gridSpan) once, in its first
        column; a cell spanning rows (w:vMerge) repeated in each row it covers. Its header: the rows Word repeats on
        each page (w:tblHeader), else a first row of words and the rows stacked on it."""
        grid = Grid()
        marked = 0
        above: dict[int, str] = {}  # grid column → the text of a vertically merged cell that starts above
        for tr in table.iterchildren(f"{_W}tr"):
            before = min(_int_value(tr.find(f"{_W}trPr/{_W}gridBefore"), 0), 256)
            cells, spans, column = [""] * before, [(c, c) for c in range(before)], before
            for tc in tr.iterchildren(f"{_W}tc"):
                span = max(1, min(_int_value(tc.find(f"{_W}tcPr/{_W}gridSpan"), 1), 256))
                merge = tc.find(f"{_W}tcPr/{_W}vMerge")
                continues = merge is not None and merge.get(f"{_W}val", "continue") == "continue"
                text = above.get(column, "") if continues else _cell_text(tc)
                if merge is not None:
                    above[column] = text
                else:
                    above.pop(column, None)
                cells += [text] + [""] * (span - 1)
                spans.append((column, column + span - 1))
                column += span
            grid.rows.append(cells)
            grid.spans.append(spans)
            marked += 1 if marked == len(grid.rows) - 1 and _repeats_as_header(tr) else 0
        self.writer.table(grid, header_rows(grid, marked))


def _int_value(element, default: int) -> int:
    try:
        return int(element.get(f"{_W}val")) if element is not None else default
    except (TypeError, ValueError):
        return default


def parse_docx(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
    import docx

    max_bytes = min(getattr(limits, "max_bytes", MAX_DOCX_BYTES) or MAX_DOCX_BYTES, MAX_DOCX_BYTES)
    open_zip(data, filename, "docx", "a DOCX file", max_bytes)
    try:
        document = docx.Document(io.BytesIO(data))
    except InputError:
        raise
    except Exception as error:  # python-docx raises KeyError, ValueError, lxml and package errors for a damaged file
        if out_of_memory(error):
            raise  # the worker says the file needs more memory than it may have: it is not corrupt
        raise InputError(filename, f"is corrupt and cannot be opened ({type(error).__name__}: "
                                   f"{str(error)[:100]})") from None
    writer = BodyWriter(filename, getattr(limits, "max_lines", None))
    try:
        _DocxReader(document, writer).read()
    except InputError:
        raise
    except (IndexError, KeyError, ValueError) as error:
        raise InputError(filename, f"has a damaged table or list and cannot be read ({str(error)[:100]})") from None
    info = _info(document)
    return text_document(writer.body(), data, filename, "docx", with_title(metadata, info.title if info else None),
                         tables=writer.tables, info=info)


def _info(document):
    """The core properties as the document's info; none when they cannot be read (they are optional)."""
    try:
        return core_properties_info(document.core_properties)
    except Exception:  # python-docx raises lxml, KeyError or ValueError errors for a damaged docProps/core.xml
        return None


class DocxParser(ZippedParser):
    """Word documents: headings, paragraphs, list items and table rows as lines; the core properties' title."""

    name = "docx"
    suffixes: tuple[str, ...] = (".docx",)
    media_types: tuple[str, ...] = ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",)

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_docx(data, filename, metadata, limits)
