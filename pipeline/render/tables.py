"""The table a cited row sits in, as cells: what the Source panel draws as a table, the cited row and the asked cell
marked, so a person sees which column a figure is under instead of reading a TAB-separated line.

A parser that records its tables (`Page.tables`: spreadsheets, CSV, DOCX, HTML) gives the header and the rows by line
number; a Markdown or TAB-separated table in a text document is told by its rows and the header above them, as the
chunk stage tells it (`pipeline.text.tables.HeadingsAbove`). Only the rows around the cited ones are taken: a sheet of
100,000 rows is context, not something to draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.core.contracts import Document, Page
from pipeline.text.tables import HeadingsAbove, cells_in_place, is_table_row, is_table_rule

ROWS_AROUND = 10  # rows shown above and below the cited ones
MOST_CITED_ROWS = 20  # a citation over more rows shows its first ones


@dataclass(frozen=True)
class TableAround:
    """The column names and the shown rows ((line number, cells), in the table's order), with how many of the table's
    rows are left out above and below them."""

    columns: tuple[str, ...]
    rows: tuple[tuple[int, tuple[str, ...]], ...]
    above: int
    below: int


def table_around(document: Document, page: int | None, start_line: int, end_line: int) -> TableAround | None:
    """The table whose body holds line `start_line` of the cited page, around lines start_line..end_line; None when
    that line is no table row under a header (a sentence, a header row, a table without column names)."""
    found = document.page_for(page)
    if found is None or not 1 <= start_line <= len(found.lines):
        return None
    table = _recorded(found, start_line) or _written(found, start_line)
    if table is None:
        return None
    columns, body = table
    first = body.index(start_line)
    last = max((i for i, number in enumerate(body) if start_line <= number <= end_line), default=first)
    last = min(last, first + MOST_CITED_ROWS - 1)
    shown = body[max(0, first - ROWS_AROUND):last + ROWS_AROUND + 1]
    rows = [(number, _cells(found.lines[number - 1].text)) for number in shown]
    width = max([len(columns), *(len(cells) for _, cells in rows)])
    return TableAround(columns=_padded(columns, width),
                       rows=tuple((number, _padded(cells, width)) for number, cells in rows),
                       above=max(0, first - ROWS_AROUND), below=len(body) - body.index(shown[-1]) - 1)


def _recorded(page: Page, number: int) -> tuple[list[str], list[int]] | None:
    """The column names and body rows of the table a parser recorded line `number` as a body row of."""
    table = page.table_of(number)
    if table is None or number not in table.rows or not table.columns:
        return None
    return list(table.columns), list(table.rows)


def _written(page: Page, number: int) -> tuple[list[str], list[int]] | None:
    """A table written in the text (Markdown bars or TABs): the rows under the same header as line `number`, with the
    header's widest row as the column names."""
    texts = [line.text for line in page.lines]
    header_of = HeadingsAbove(texts)
    header = header_of(number - 1)
    if not header or not _body_row(texts[number - 1]):
        return None
    first, last = number - 1, number - 1
    while first > 0 and _body_row(texts[first - 1]) and header_of(first - 1) == header:
        first -= 1
    while last + 1 < len(texts) and _body_row(texts[last + 1]) and header_of(last + 1) == header:
        last += 1
    names = max((_cells(row) for row in header.split("\n") if not is_table_rule(row)), key=len, default=[])
    return names, list(range(first + 1, last + 2))


def _body_row(text: str) -> bool:
    return is_table_row(text) and not is_table_rule(text)


def _cells(text: str) -> list[str]:
    """A row's cells by position, empty ones kept: TAB-separated (`cells_in_place`), else between Markdown's bars. A
    spreadsheet's short row is padded with empty cells to three (`lines.MIN_ROW_FIELDS`): those past the last text go."""
    cells = cells_in_place(text) if "\t" in text else [
        part.strip() for part in text.strip().removeprefix("|").removesuffix("|").split("|")]
    while cells and not cells[-1]:
        cells.pop()
    return cells


def _padded(cells, width: int) -> tuple[str, ...]:
    return tuple(cells) + ("",) * (width - len(cells))
