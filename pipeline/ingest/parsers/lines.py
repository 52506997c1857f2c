"""The body a structured document (DOCX, HTML, EPUB, XLSX, CSV) is read into: one addressable line per paragraph,
heading, list item or table row, in reading order.

The later stages read these lines as they read Markdown and PDF text (`pipeline.text.units`, `pipeline.text.tables`):
- a heading is "# " … "###### " and its text (never an answer, kept as the section over what follows);
- a list item is "- " or "1. " and its text;
- a table row is its cells joined by TAB, header row(s) first, so the row units carry their table's header. The
  table machinery takes a line with at least two tab stops for a row, so a two-column row ends with one more TAB
  (an empty third cell): "Small boat\\t12 euros\\t". Under the rows the file marks as its header (HTML's <th>,
  a Word header row, a spreadsheet's first row of words) comes a rule, "---\\t---\\t---", as under a Markdown
  table's header: the rows below it are data, however wordy ("Small boat\\t6 to 10 m\\t12 euros").
Whitespace inside a piece of text (line breaks, tabs, runs of spaces) becomes one space, so a line is exactly what
the reader sees and a cell never splits a row.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.errors import InputError
from pipeline.core.limits import MAX_DOCUMENT_LINES

CELL = "\t"
_SPACES = re.compile(r"[\s\u00a0\u200b\u2028\u2029]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_WORDY = re.compile(r"[^\W\d_]{2,}")
_FIGURE = re.compile(r"[\d\s.,:/%$€£¥+\-–()]+")
MIN_ROW_FIELDS = 3  # `pipeline.text.tables.is_table_row` wants two tab stops


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
        self._last = ""  # the kind of the last line: heading, paragraph, item, row, code, or "" (none or blank)

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

    def item(self, text: str, number: int | None = None, depth: int = 0) -> None:
        text = clean(text)
        if text:
            if self._last in ("paragraph", "row", "code"):
                self.blank()
            self._add("  " * min(depth, 8) + (f"{number}. " if number is not None else "- ") + text, "item")

    def row(self, cells: Sequence[str]) -> None:
        """One table row; empty cells keep their place (a column's position), trailing empty ones go."""
        cleaned = [clean(cell) for cell in cells]
        while cleaned and not cleaned[-1]:
            cleaned.pop()
        if not any(cleaned):
            return
        if self._last in ("paragraph", "item", "code"):
            self.blank()
        if len(cleaned) == 1:
            self._add(cleaned[0], "paragraph")  # a one-column table is a run of paragraphs
            return
        cleaned += [""] * (MIN_ROW_FIELDS - len(cleaned))
        self._add(CELL.join(cleaned), "row")

    def table(self, rows: Sequence[Sequence[str]], header_rows: int = 0) -> None:
        """A table's rows, a rule under its first `header_rows` rows (when rows follow them), then a break."""
        rule = "\t".join(["---"] * max(MIN_ROW_FIELDS, max((len(r) for r in rows[:header_rows]), default=0)))
        for index, cells in enumerate(rows):
            self.row(cells)
            if index + 1 == header_rows and index + 1 < len(rows) and self._last == "row":
                self._add(rule, "row")
        self.blank()

    def code(self, text: str) -> None:
        """Preformatted text as a fenced block: its lines keep their indentation (tabs as four spaces)."""
        lines = [_CONTROL.sub("", line).expandtabs(4).rstrip() for line in text.split("\n")]
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


def grid_rows(rows: Sequence[Sequence[tuple[str, int, int]]], max_columns: int) -> list[list[str]]:
    """Rows of (text, colspan, rowspan) cells → rows of cell texts on the table's grid.

    A cell spanning columns is written once, in its first column (the others stay empty, so the columns below keep
    their place); a cell spanning rows is repeated in every row it covers, so each row reads whole on its own.
    """
    grid: list[list[str]] = []
    carried: dict[int, tuple[str, int]] = {}  # column → (text, rows still covered)
    for cells in rows:
        out: list[str] = []
        queue = list(cells)
        column = 0
        while (queue or any(c >= column for c in carried)) and column < max_columns:
            if column in carried:
                text, left = carried[column]
                out.append(text)
                if left > 1:
                    carried[column] = (text, left - 1)
                else:
                    del carried[column]
                column += 1
                continue
            if not queue:
                out.append("")
                column += 1
                continue
            text, colspan, rowspan = queue.pop(0)
            colspan = max(1, min(colspan, max_columns - column))
            for offset in range(colspan):
                out.append(text if offset == 0 else "")
                if rowspan > 1 and offset == 0:
                    carried[column] = (text, rowspan - 1)
            column += colspan
        grid.append(out)
    return grid


def reads_as_header(cells: Sequence[str]) -> bool:
    """A first row that names columns: at least two cells, each empty or words (not a number, a date or an amount)."""
    filled = [clean(cell) for cell in cells if clean(cell)]
    return len(filled) >= 2 and all(_WORDY.search(cell) and not _FIGURE.fullmatch(cell) for cell in filled)


def with_title(metadata: Mapping[str, Any] | None, title: str | None) -> dict[str, Any]:
    """The given metadata (upload form, sidecar), with the file's own title where none was given."""
    given = {k: v for k, v in (metadata or {}).items() if v not in (None, "")}
    title = clean(title or "")[:300]
    return {"title": title, **given} if title else given
