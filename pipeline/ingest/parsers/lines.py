"""The body a structured document (DOCX, HTML, EPUB, XLSX, CSV) is read into: one addressable line per paragraph,
heading, list item or table row, in reading order.

The later stages read these lines as they read Markdown and PDF text (`pipeline.text.units`, `pipeline.text.tables`):
- a heading is "# " … "###### " and its text (never an answer, kept as the section over what follows);
- a list item is "- " or "1. " and its text; its further paragraphs and listings are indented to its text after an
  empty line, as Markdown writes a loose item;
- a table row is its cells joined by TAB, one per column of the table (`grid.Grid`: a cell merged across columns
  once, in its first column; one merged down rows in each), header row(s) first. A table with a header is
  recorded on the page (`Page.tables`): which lines are its header rows (those the file marks as its header:
  HTML's <thead> or <th> rows, Word's repeated header rows; else a first row of words, with the rows stacked on
  it), which are its body rows however wordy ("Small boat\\t6 to 10 m\\t12 euros"), and its column names, a
  stacked header combined per column ("2023 Spring"); the later stages attach those names to every row and name a
  cell by its row and column, as for a ruled PDF table. A table without a header is read as TAB-separated text
  (the table machinery guesses its header from the words). A line with at least two tab stops is a row, so a
  two-column row ends with one more TAB (an empty third cell): "Small boat\\t12 euros\\t".
Whitespace inside a piece of text (line breaks, tabs, runs of spaces) becomes one space, so a line is exactly what
the reader sees and a cell never splits a row.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.contracts import PageTable
from pipeline.core.errors import InputError
from pipeline.core.limits import MAX_DOCUMENT_LINES
from pipeline.ingest.parsers.grid import HEADER_ROWS, Grid, Span, column_names, reach, stacked_header_rows

CELL = "\t"
_SPACES = re.compile(r"[\s\u00a0\u200b\u2028\u2029]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WORDY = re.compile(r"[^\W\d_]{2,}")
_FIGURE = re.compile(r"[\d\s.,:/%$€£¥+\-–()]+")
_PERIOD = re.compile(r"(?:(?:Q[1-4]|H[12]|FY)\s*'?)?(?:19|20)\d\d|(?:Q[1-4]|H[12]|FY)\s*'?\d\d", re.IGNORECASE)
MIN_ROW_FIELDS = 3  # `pipeline.text.tables.is_table_row` wants two tab stops


def _listing_lines(text: str) -> list[str]:
    """A listing's lines as they are shown: control characters dropped, tabs as four spaces, no trailing spaces."""
    return [_CONTROL.sub("", line).expandtabs(4).rstrip() for line in text.split("\n")]


def clean(text: str) -> str:
    """One line of text: control characters dropped, any run of whitespace one space, trimmed."""
    return _SPACES.sub(" ", _CONTROL.sub("", text)).strip()


class BodyWriter:
    """Collects a document's lines, refusing in one line once they pass `max_lines`.

    Paragraphs are separated by an empty line, as in Markdown, so a paragraph without a full stop (a label, a
    name) never runs into the next one's sentence; a list or a table ends before the paragraph after it.
    """

    def __init__(self, filename: str, max_lines: int | None = None) -> None:
        self.filename = filename
        self.max_lines = max_lines or MAX_DOCUMENT_LINES
        self.lines: list[str] = []
        self.tables: list[PageTable] = []  # the tables written, by line number (`Page.tables`)
        self._last = ""  # the kind of the last line: heading, paragraph, item, row, code, or "" (none or blank)
        self.item_text_at = 0  # where the last list item's text starts ("  1. " → 5), for its further paragraphs

    def _add(self, line: str, kind: str) -> None:
        if len(self.lines) >= self.max_lines:
            raise InputError(self.filename, f"has more than {self.max_lines} lines (paragraphs, list items and "
                                            f"table rows); the limit is {self.max_lines} per document")
        self.lines.append(line)
        self._last = kind

    def heading(self, level: int, text: str) -> None:
        text = clean(text)
        if text:
            self._add("#" * min(max(level, 1), 6) + " " + text, "heading")

    def paragraph(self, text: str, joined: bool = False) -> None:
        """A paragraph; `joined`: it continues the last one after a line break (no empty line between)."""
        text = clean(text)
        if not text:
            return
        if self._last in ("item", "row", "code") or (self._last == "paragraph" and not joined):
            self.blank()
        self._add(text, "paragraph")

    def description(self, text: str) -> None:
        """A definition list's description: indented right under its term, no empty line between (a text reads the
        two as one entry, as a manual page's "-k, --keep" over its description)."""
        text = clean(text)
        if text:
            self._add("    " + text, "paragraph")

    def item(self, text: str, number: int | None = None, depth: int = 0) -> None:
        text = clean(text)
        if text:
            if self._last in ("paragraph", "row", "code"):
                self.blank()
            marker = "  " * min(depth, 8) + (f"{number}. " if number is not None else "- ")
            self._add(marker + text, "item")
            self.item_text_at = len(marker)

    def item_paragraph(self, text: str) -> None:
        """A further paragraph of the list item just written, or of its last paragraph (an HTML <li> of several <p>):
        after an empty line, indented to the item's text, as Markdown writes a loose item, so the later stages read it
        as part of the item. After anything else (a table) it is a paragraph of its own."""
        text = clean(text)
        if text and self._last == "item":
            self._item_lines([text])
        elif text:
            self.paragraph(text)

    def item_listing(self, text: str) -> None:
        """A listing inside a list item (a step over its command): its non-empty lines indented to the item's text,
        after an empty line, so the item holds its command as the item's text did when it was read as one line; after
        anything else, a fenced code block."""
        lines = [line for line in _listing_lines(text) if line.strip()]
        if lines and self._last == "item":
            self._item_lines(lines)
        elif lines:
            self.code(text)

    def _item_lines(self, lines: list[str]) -> None:
        self.blank()
        for line in lines:
            self._add(" " * self.item_text_at + line, "item")

    def row(self, cells: Sequence[str], width: int = 0) -> bool:
        """One table row, padded with empty cells to `width` (the table's columns) and to `MIN_ROW_FIELDS`; empty
        cells keep their place. A row of one cell is a paragraph (a one-column table is a run of paragraphs), an
        empty row nothing. True when a row line was written."""
        cleaned = [clean(cell) for cell in cells]
        while cleaned and not cleaned[-1]:
            cleaned.pop()
        if not any(cleaned):
            return False
        if self._last in ("paragraph", "item", "code"):
            self.blank()
        if len(cleaned) == 1:
            self._add(cleaned[0], "paragraph")
            return False
        cleaned += [""] * (max(MIN_ROW_FIELDS, width) - len(cleaned))
        self._add(CELL.join(cleaned), "row")
        return True

    def table(self, grid: Grid, header_rows: int = 0) -> None:
        """A table's rows, then a break; its first `header_rows` rows are its header: the table, by line numbers, and
        its column names recorded in `tables` (none without a header)."""
        header: list[int] = []
        body: list[int] = []
        width = grid.width  # once per table: it is the widest row's length, a pass over every row
        for index, cells in enumerate(grid.rows):
            # under a header, a body row has a cell for every column (its cells line up with the column names); a
            # header row's trailing empty cells go, so a group row never reads as wide as the header row under it
            if self.row(cells, width if header and index >= header_rows else 0):
                (header if index < header_rows else body).append(len(self.lines))
        if header:  # a table without a header is left to the later stages' reading of its rows, as TAB-separated text
            self.tables.append(PageTable(header=tuple(header), rows=tuple(body),
                                         columns=tuple(column_names(grid, header_rows))))
        self.blank()

    def code(self, text: str) -> None:
        """Preformatted text as a fenced block: its lines keep their indentation (tabs as four spaces)."""
        lines = _listing_lines(text)
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
        if not lines:
            return
        self.blank()
        for line in ["```", *lines, "```"]:
            self._add(line, "code")

    def blank(self) -> None:
        """A break between blocks: never two in a row, never first."""
        if self.lines and self.lines[-1]:
            self._add("", "")

    def body(self) -> str:
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        return "\n".join(self.lines) + "\n" if self.lines else ""


def grid_rows(rows: Sequence[Sequence[tuple[str, int, int]]], max_columns: int) -> Grid:
    """Rows of (text, colspan, rowspan) cells → the table's `Grid`: a cell spanning columns once, in its first column
    (the others stay empty, so the columns below keep their place); a cell spanning rows repeated in every row it
    covers, over the same columns, so each row reads whole on its own."""
    grid = Grid()
    carried: dict[int, tuple[str, int, int]] = {}  # first column → (text, last column, rows still covered)
    for cells in rows:
        out: list[str] = []
        spans: list[Span] = []
        queue = list(cells)
        column = 0
        while (queue or any(c >= column for c in carried)) and column < max_columns:
            if column in carried:
                text, last, left = carried.pop(column)
                if left > 1:
                    carried[column] = (text, last, left - 1)
            elif queue:
                text, colspan, rowspan = queue.pop(0)
                room = min((c for c in carried if c > column), default=max_columns) - column
                last = column + max(1, min(colspan, room)) - 1
                if rowspan > 1:
                    carried[column] = (text, last, rowspan - 1)
            else:
                text, last = "", column
            out += [text] + [""] * (last - column)
            spans.append((column, last))
            column = last + 1
        grid.rows.append(out)
        grid.spans.append(spans)
    return grid


def header_rows(grid: Grid, marked: int = 0) -> int:
    """How many top rows of a table are its header: the `marked` rows its file marks as the header (HTML's <thead>
    or <th> rows, Word's repeated header rows), else a first row that reads as one with the rows stacked on it:
    under a cell merged across columns (`grid.stacked_header_rows`: "2023" over "Spring  Autumn"), or a row of words
    reaching further right than the group row above it ("State  Permit  Handgun …" under "Pre-Pawn  Redemption"). At
    least one row stays a body row."""
    if marked:
        return max(0, min(marked, len(grid.rows) - 1))
    if not grid.rows or not reads_as_header(grid.rows[0]):
        return 0
    count = stacked_header_rows(grid, 1)
    while (count < min(HEADER_ROWS, len(grid.rows) - 1) and reads_as_header(grid.rows[count])
           and reach(grid.rows[count]) > reach(grid.rows[count - 1])):
        count = stacked_header_rows(grid, count + 1)
    return count


def reads_as_header(cells: Sequence[str]) -> bool:
    """A first row that names columns: at least two cells, each empty, words (not a number, a date or an amount) or a
    period's label ("2023", "Q1 2024", "FY2023": columns of figures by year), at least one of them words."""
    filled = [clean(cell) for cell in cells if clean(cell)]
    words = [cell for cell in filled if _WORDY.search(cell) and not _FIGURE.fullmatch(cell)]
    return len(filled) >= 2 and bool(words) and all(cell in words or _PERIOD.fullmatch(cell) for cell in filled)


def with_title(metadata: Mapping[str, Any] | None, title: str | None) -> dict[str, Any]:
    """The given metadata (upload form, sidecar), with the file's own title where none was given."""
    given = {k: v for k, v in (metadata or {}).items() if v not in (None, "")}
    title = clean(title or "")[:300]
    return {"title": title, **given} if title else given
