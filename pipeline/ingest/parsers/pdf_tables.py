"""Ruled tables on a PDF page, found by PyMuPDF's table finder: each row one line, its header rows named.

The line layout (`pdf_layout`) reads a table row as one line only when its cells sit closer than a gutter;
a table whose columns are wide enough to pass for text columns is read column by column, and a header
row is told from a data row only by its words. Where a page is ruled (its drawings hold enough straight
edges to form a grid), `page.find_tables()` (strategy "lines") gives the grid: rows, columns and cell
boxes. A table is taken only when its grid is trustworthy:
* every word inside the table's box falls in one cell;
* no row is a *band* of several visual rows (a table ruled only under its header, where the finder puts
  five states into one "row": then more than half of a row's cells hold several text lines). Such a
  table is left to the line layout, which reads each visual row as a line already.
On a rotated page (a landscape table in a portrait report: /Rotate 90 or 270) the finder unrotates the page
while it reads it, so its cells, like the layout's words, are where the page shows them, top-left origin.
A taken table becomes one `TableRows`: per row, per column, the cell's words in reading order, and how
many of the top rows are header rows:
* the top row is a header unless it holds figures ("12,480", "3.5%", "$85"; a year such as "2023" is a
  label);
* the rows under it stack on it as `grid.stacked_header_rows` says (the rule every parser's tables share).
`column_names` combines a stacked header per column ("2023 Spring", `grid.column_names`).

Cost: the finder reads the page's characters (0.3-4 s on a text-heavy page on this machine's shared cores),
so it runs only on a page ruled by two horizontal and two vertical rules (at most `MAX_EDGES` drawn
segments) and with at most `MAX_WORDS` words, clipped to the rules' box, and on at most `MAX_TABLE_PAGES` pages of a document
(`TableBudget`); any other page keeps the line layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from pipeline.ingest.parsers.grid import Grid, column_names, holds_figures, stacked_header_rows

pymupdf.no_recommend_layout()  # the finder would print an advertisement for another package on every parse
Word = tuple[float, float, float, float, str]

MIN_RULE = 8.0  # points: a shorter segment is no table rule
MAX_EDGES = 3000  # straight segments: a page drawn with more (a chart, a map) is not searched
MAX_WORDS = 3000  # words on the page: the finder reads every character (0.2-0.8 s of CPU for 1,000-1,500 words)
MAX_TABLE_PAGES = 16  # pages of one document searched (the parse worker has 30 s of CPU); later pages keep the line layout


@dataclass
class TableRows:
    """One table: its box, per row the words of each column's cell, and how many top rows are header rows."""

    bbox: tuple[float, float, float, float]
    rows: list[list[list[Word]]]
    header_rows: int
    spans: list[list[tuple[int, int]]] = field(default_factory=list)  # per header row: (first, last) column of each cell

    def grid(self) -> Grid:
        """The cell texts on the grid, as every parser's tables are (`grid.Grid`)."""
        return Grid([[cell_text(cell) for cell in row] for row in self.rows], self.spans)

    def column_names(self) -> list[str]:
        """One name per column: the header rows' cells over it, top to bottom ("2023 Spring")."""
        return column_names(self.grid(), self.header_rows)


@dataclass
class TableBudget:
    """How many more pages of one document may be searched for tables."""

    pages_left: int = field(default_factory=lambda: MAX_TABLE_PAGES)

    def take(self) -> bool:
        if self.pages_left <= 0:
            return False
        self.pages_left -= 1
        return True


def cell_text(words: list[Word]) -> str:
    return " ".join(word[4] for word in words)


def _segments(page: pymupdf.Page):
    """The page's straight drawn segments (lines, and the four sides of rectangles) as (x0, y0, x1, y1)."""
    for path in page.get_cdrawings():
        for item in path["items"]:
            if item[0] == "l":
                (x0, y0), (x1, y1) = item[1], item[2]
                yield x0, y0, x1, y1
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1][:4]
                yield from ((x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1))


def _ruled_areas(page: pymupdf.Page) -> list[pymupdf.Rect]:
    """The boxes of the page's ruled stretches: its rules (horizontal and vertical segments at least `MIN_RULE` long:
    a logo's strokes are not) grouped where their heights meet, each with two rules of either kind (a rule under a
    running head is none). None at all on a page of more than `MAX_EDGES` drawn segments."""
    rules = []
    for seen, (ax, ay, bx, by) in enumerate(_segments(page), 1):
        if seen > MAX_EDGES:
            return []
        flat, upright = abs(by - ay) < 1 and abs(bx - ax) >= MIN_RULE, abs(bx - ax) < 1 and abs(by - ay) >= MIN_RULE
        if flat or upright:
            rules.append((min(ay, by), max(ay, by), min(ax, bx), max(ax, bx), flat))
    areas: list[pymupdf.Rect] = []
    group: list[tuple[float, float, float, float, bool]] = []
    for rule in sorted(rules) + [None]:
        if group and (rule is None or rule[0] > max(r[1] for r in group) + 2):
            if sum(r[4] for r in group) >= 2 and sum(not r[4] for r in group) >= 2:
                areas.append(pymupdf.Rect(min(r[2] for r in group) - 2, group[0][0] - 2,
                                          max(r[3] for r in group) + 2, max(r[1] for r in group) + 2))
            group = []
        if rule is not None:
            group.append(rule)
    return areas


def find_tables(page: pymupdf.Page, words: list[Word], budget: TableBudget) -> list[TableRows]:
    """The page's trustworthy ruled tables (none when the page is not worth searching or the budget is spent)."""
    if len(words) > MAX_WORDS:
        return []
    areas = _ruled_areas(page)
    if not areas or not budget.take():
        return []
    if page.rotation:  # the drawings are unrotated; the finder and the words see the page as it is shown
        areas = [area * page.rotation_matrix for area in areas]
    tables: list[TableRows] = []
    for area in areas:
        try:
            found = page.find_tables(clip=area, strategy="lines")
        except Exception:  # a malformed drawing: the line layout reads the page as before
            continue
        tables.extend(rows for table in found.tables if (rows := _table_rows(table, words)) is not None)
    return tables


def _contains(box, x: float, y: float) -> bool:
    return box is not None and box[0] - 1 <= x <= box[2] + 1 and box[1] - 1 <= y <= box[3] + 1


def _table_rows(table, words: list[Word]) -> TableRows | None:
    grid = [list(row.cells) for row in table.rows]
    if len(grid) < 2 or table.col_count < 2:
        return None
    columns = table.col_count
    cells: list[list[list[Word]]] = [[[] for _ in range(columns)] for _ in grid]
    bbox = table.bbox
    for word in words:
        x, y = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
        if not _contains(bbox, x, y):
            continue
        place = next(((r, c) for r, row in enumerate(grid) for c, box in enumerate(row) if _contains(box, x, y)), None)
        if place is None:
            return None  # a word outside every cell: the grid is not the table's
        cells[place[0]][place[1]].append(word)
    for row in cells:
        for index, cell in enumerate(row):
            row[index] = _reading_order(cell)
    if any(_is_band(row) for row in cells):
        return None
    spans = [_spans(row, grid[r], columns) for r, row in enumerate(grid)]
    kept = [(row, span) for row, span in zip(cells, spans) if any(row)]
    if len(kept) < 2:
        return None
    rows, spans = [row for row, _ in kept], [span for _, span in kept]
    return TableRows(bbox=tuple(bbox), rows=rows, header_rows=_header_rows(rows, spans), spans=spans)


def _spans(row: list[list[Word]], boxes: list, columns: int) -> list[tuple[int, int]]:
    """(first, last) column of each cell of a row: a cell spans the columns whose boxes are None after it."""
    spans, start = [], 0
    for column in range(1, columns + 1):
        if column == columns or boxes[column] is not None:
            spans.append((start, column - 1))
            start = column
    return spans


def _lines_of(cell: list[Word]) -> list[list[Word]]:
    lines: list[list[Word]] = []
    for word in sorted(cell, key=lambda w: (w[1] + w[3], w[0])):
        if lines:
            last = lines[-1][-1]
            if min(last[3], word[3]) - max(last[1], word[1]) >= 0.5 * min(last[3] - last[1], word[3] - word[1]):
                lines[-1].append(word)
                continue
        lines.append([word])
    return [sorted(line, key=lambda w: w[0]) for line in lines]


def _reading_order(cell: list[Word]) -> list[Word]:
    return [word for line in _lines_of(cell) for word in line]


def _is_band(row: list[list[Word]]) -> bool:
    """Several visual rows the finder read as one: more than half of the filled cells hold several lines."""
    filled = [cell for cell in row if cell]
    stacked = sum(1 for cell in filled if len(_lines_of(cell)) > 1)
    return stacked > 0.5 * len(filled) and (len(filled) > 1 or len(_lines_of(filled[0])) > 3)


def _header_rows(rows: list[list[list[Word]]], spans: list[list[tuple[int, int]]]) -> int:
    grid = Grid([[cell_text(cell) for cell in row] for row in rows], spans)
    if holds_figures(grid.rows[0]) or not any(grid.rows[0]):
        return 0
    return stacked_header_rows(grid, 1)
