"""A table on its grid, whatever file it came from (a ruled PDF table, a Word, HTML or EPUB table, a sheet): each
row's cell texts by column, each cell's column span, how many top rows are its header, and one name per column.

* A cell spanning columns holds its text in its first column ("" in the others), so the columns below keep their
  place; a cell spanning rows is repeated in each row it covers, so a row reads whole on its own.
* A row under a header row is a header row too (a stacked, two-level header) when it holds no figures and either
  the row above has a cell spanning several columns right of the first ("2023" over "Spring  Autumn") or its own
  first cell is empty (the stub column's corner); at most `HEADER_ROWS` rows, and at least one row stays a body row.
* `column_names` combines a stacked header per column ("2023 Spring"); a cell spanning every column is the table's
  title, not a column's name, a cell repeated down the header rows ("Region" over two rows) names once, and a group
  row that does not say which columns it groups names none.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

HEADER_ROWS = 3  # at most this many stacked header rows (as `pipeline.text.tables.HEADER_ROWS`)
# A figure: "12,480", "3.5%", "$85", "(1,200)"; a year such as "2023" or a plain count is a label.
_FIGURE = re.compile(r"^[(\-–+]?[$€£¥]?\s*\d[\d\s]*(?:[.,]\d+)+\s*%?\)?$|^[(\-–+]?[$€£¥]\s*\d+\)?$|^[\-–+]?\d+(?:[.,]\d+)?\s*%$")
Span = tuple[int, int]  # (first, last) column of a cell


@dataclass
class Grid:
    """A table's rows on its grid: per row, per column, the cell text; per row, each cell's (first, last) column."""

    rows: list[list[str]] = field(default_factory=list)
    spans: list[list[Span]] = field(default_factory=list)

    @property
    def width(self) -> int:
        return max((len(row) for row in self.rows), default=0)


def is_figure(text: str) -> bool:
    return bool(_FIGURE.match(text.strip()))


def holds_figures(row: Sequence[str]) -> bool:
    return any(is_figure(cell) for cell in row if cell)


def stacked_header_rows(grid: Grid, known: int) -> int:
    """How many top rows are the header, given that the first `known` are: the rows under them that stack on them
    (see the module's rule); 0 stays 0."""
    count = min(known, len(grid.rows) - 1)
    if count <= 0:
        return 0
    while count < min(HEADER_ROWS, len(grid.rows) - 1):
        row = grid.rows[count]
        # a group name over several columns right of the stub ("2023" over "Spring  Autumn"); a cell spanning the
        # stub column ("Season" over the first two) groups no columns of figures
        above_spans = any(last > first > 0 for first, last in grid.spans[count - 1])
        if holds_figures(row) or not (above_spans or not (row[0] if row else "")):
            break
        count += 1
    return count


def reach(row: Sequence[str]) -> int:
    """How many columns a row reaches: up to its last filled cell (a group row over a wider header row reaches
    fewer)."""
    return next((len(row) - index for index, cell in enumerate(reversed(row)) if cell), 0)


def column_names(grid: Grid, header_rows: int) -> list[str]:
    """One name per column: the header rows' cells over it, top to bottom ("2023 Spring"); "" for an unnamed one.
    A group row that names fewer columns than the header row under it without saying which (no cell spans columns:
    "Pre-Pawn  Redemption" over "State  Permit  Handgun  Long Gun …") names none: which columns it groups is unknown."""
    width = grid.width
    names: list[list[str]] = [[] for _ in range(width)]
    rows = list(zip(grid.rows[:header_rows], grid.spans[:header_rows]))
    for index, (row, spans) in enumerate(rows):
        below = rows[index + 1][0] if index + 1 < len(rows) else None
        if below is not None and reach(row) < reach(below) and all(first == last for first, last in spans):
            continue
        for first, last in spans:
            text = row[first] if first < len(row) else ""
            if not text or (first == 0 and last >= width - 1 and width > 1):
                continue  # an empty cell, or the table's title across every column
            for column in range(first, min(last, width - 1) + 1):
                if not names[column] or names[column][-1] != text:
                    names[column].append(text)
    return [" ".join(parts) for parts in names]
