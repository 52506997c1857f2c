"""Compare: the row of a table that holds the most or the least of what a question asks about.

"Which state had the most handgun checks?" and "What was the most expensive airfare listed?" are
answered by one row, but only a comparison over every row of the table shows which: the windows
retrieval ranks hold a few rows each, and the packed context a few windows. So retrieval compares
the whole table in the document (this module), packs the winning row first, and the composer cites
that row with the comparison stated (column, rows compared, runner-up) so it can be checked: a
cell is read by its position (from the nearer end when a PDF row is narrower than its header), a
word the question adds must select rows ("airfare"), and a question the table cannot answer (a
word in no row, no column to compare, fewer than two figures) gets no comparison; a tie is said.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from pipeline.core.cache import BoundedCache
from pipeline.core.contracts import Document, TableComparison
from pipeline.ingest.metadata import document_names
from pipeline.lang.comparisons import (
    AGGREGATE_ROW,
    DURATION_COLUMN,
    FRAME_WORDS,
    MONEY_COLUMN,
    OVERALL,
    TOTAL_COLUMN,
    Superlative,
)
from pipeline.text.tables import (
    FOOTNOTE_MARK,
    KEY_TRIM,
    WRAPPED_LINES,
    column_words,
    fields,
    is_table_row,
    is_table_rule,
    names_columns,
    widest_header_row,
)

# A figure, with its unit if it has one ("1700 MB/s", "12 ms", "3.5 kg"): rows are compared only in one unit.
_VALUE = re.compile(r"^\(?[-−]?\s*[$€£¥]?\s*(\d{1,3}(?:[,\s]\d{3})+|\d+)(\.\d+)?\s*(%|[A-Za-zµ°]{1,5}(?:/[A-Za-z]{1,3})?)?\)?$")
CAPTION_LINES = 3  # lines above a table's header that name what it counts ("NICS Firearm Background Checks")


@dataclass(frozen=True)
class Row:
    page: int | None
    line: int
    cells: tuple[str, ...]
    text: str  # the row with the cell text wrapped onto lines below it ("AIRFARE FOR …")


@dataclass(frozen=True)
class Table:
    source_id: str
    header: str
    caption: str
    rows: tuple[Row, ...]

    @cached_property
    def _extent(self) -> dict[int | None, tuple[int, int]]:
        """Per page, the first and last line of the table's rows on it."""
        extent: dict[int | None, tuple[int, int]] = {}
        for row in self.rows:
            low, high = extent.get(row.page, (row.line, row.line))
            extent[row.page] = (min(low, row.line), max(high, row.line))
        return extent

    def overlaps(self, page: int | None, start_line: int, end_line: int) -> bool:
        """Do the lines `start_line`..`end_line` of `page` reach into the table's rows?"""
        low, high = self._extent.get(page, (0, -1))
        return start_line <= high and low <= end_line

    @property
    def names(self) -> list[str]:
        """The column names of the widest header row, key column first; a cell that runs names together at their
        footnote marks ("Long Gun *Other **Multiple") names three columns."""
        return [name.strip(KEY_TRIM) for cell in widest_header_row(self.header) for name in FOOTNOTE_MARK.split(cell)
                if name.strip(KEY_TRIM)]


def document_tables(document: Document) -> list[Table]:
    """The document's tables (rows under one header, across pages), found once per document text."""
    return _TABLES.get(document.digest, lambda: _tables_of(document))


_TABLES = BoundedCache(256)  # by document digest: a document's text never changes under its digest


def _tables_of(document: Document) -> list[Table]:
    """The tables the parsers recorded (`Page.tables`), and rows under a header told by their words elsewhere."""
    found: dict[str, tuple[str, list[Row]]] = {}  # header → (caption, rows), in order of first appearance
    header: list[str] = []
    rows: list[Row] | None = None
    caption, gap = "", 0
    for page in document.pages:  # a table whose rows run onto the next page (no header repeated) goes on there
        lines = [line for line in page.lines if line.text.strip() and line.number not in page.furniture]
        for index, line in enumerate(lines):
            text = line.text
            known = page.table_of(line.number) if page.tables else None
            if known is not None:  # a table the parser found: its column names and body rows, as it says
                header, rows = _known_table(found, page, known, line.number, lines[max(0, index - CAPTION_LINES):index])
                gap = 0
                continue
            if is_table_rule(text):
                continue  # the rule under the header
            if names_columns(text):
                header = header + [text] if header and rows is None and len(header) < 3 else [text]
                if len(header) == 1:
                    caption = " ".join(item.text for item in lines[max(0, index - CAPTION_LINES):index])
                rows = None
            elif header and is_table_row(text):
                key = "\n".join(header)
                rows = found.setdefault(key, (caption, []))[1]
                rows.append(Row(page.number, line.number, tuple(fields(text)), text))
                gap = 0
            elif rows and gap < WRAPPED_LINES:  # cell text wrapped onto a line of its own belongs to the row above
                gap += 1
                last = rows[-1]
                rows[-1] = Row(last.page, last.line, last.cells, f"{last.text}\n{text}")
            else:
                header, rows = [], None
    return [Table(document.source_id, key, caption, tuple(rows)) for key, (caption, rows) in found.items() if len(rows) >= 2]


def _known_table(found: dict[str, tuple[str, list[Row]]], page, table, number: int, above) -> tuple[list[str], list[Row] | None]:
    """Adds the rows of a table the parser recorded (`Page.tables`) to `found` under its column names, at its first
    line; the (header, rows) the lines after it go on under (rows told by their tabs continue it), none when it has
    no column names."""
    if not table.columns:
        return [], None
    key = "\t".join(table.columns)
    entry = found.setdefault(key, (" ".join(item.text for item in above if page.table_of(item.number) is None), []))
    if number == (table.header or table.rows)[0]:
        entry[1].extend(Row(page.number, n, tuple(fields(page.lines[n - 1].text)), page.lines[n - 1].text)
                        for n in table.rows)
    return [key], entry[1]


def figure_in_cell(cell: str) -> tuple[float, str] | None:
    """The figure a cell holds and its unit, case-folded ("1,112.00" → (1112.0, ""), "1700 MB/s" → (1700.0, "mb/s"),
    "12%" → (12.0, "%")); None for text, dates or an empty cell."""
    match = _VALUE.match(cell.strip())
    if match is None:
        return None
    value = float(re.sub(r"[,\s]", "", match.group(1)) + (match.group(2) or ""))
    value = -value if "-" in cell or "−" in cell or cell.strip().startswith("(") else value
    return value, (match.group(3) or "").casefold()


def number_in_cell(cell: str) -> float | None:
    """The figure a cell holds ("1,112.00", "98 452", "$70", "12%"); None for text, dates or an empty cell."""
    found = figure_in_cell(cell)
    return found[0] if found else None


def read_cell(row: Row, position: int, width: int) -> str | None:
    """The row's cell in column `position` of `width` named columns: by position in a row as wide as its header;
    else counted from the nearer end (a PDF row drops an empty cell, a header cell spans two columns: the cells
    between such a gap and the nearer end keep their places)."""
    if len(row.cells) == width:
        return row.cells[position]
    if position < width - position:
        return row.cells[position] if len(row.cells) > position else None
    offset = width - position
    return row.cells[-offset] if len(row.cells) >= offset else None


def _compared_column(table: Table, asked: set[str], wanted: Superlative, question: str,
                     tokens: Callable[[str], list[str]]) -> tuple[int, str, str] | None:
    """(position, column name, why) of the column to compare; None when the question names none the table has."""
    columns = list(enumerate(table.names))[1:]  # the first column holds each row's key
    # "the quickest to pack" asks about the time (or the speed) of packing: a column so named is named by it.
    asked = column_words(asked | (set(tokens("time speed")) if wanted.speed else set()))
    named = [(i, name) for i, name in columns if (words := set(tokens(name))) and words <= asked]
    if named:
        index, name = named[0]
        same = sum(1 for _, other in named if other == name)
        return index, name, f"the question names the column {name!r}" + (
            f" (the first of {same} columns so named)" if same > 1 else "")
    if wanted.money:
        money = [(i, name) for i, name in columns if MONEY_COLUMN.search(name)]
        return (*money[-1], f"{wanted.words!r} compares amounts of money") if money else None
    totals = [(i, name) for i, name in columns if TOTAL_COLUMN.match(name)]
    if totals:
        why = "the question asks for the overall figure" if OVERALL.search(question) else "it names no column"
        return (*totals[-1], f"{why}: the column {totals[-1][1]!r} holds each row's total")
    width = len(table.names)
    numeric = [(i, name) for i, name in columns
               if sum(1 for row in table.rows if number_in_cell(read_cell(row, i, width) or "") is not None) >= 0.8 * len(table.rows)]
    if len(numeric) == 1:
        return (*numeric[0], f"the column {numeric[0][1]!r} is the table's only column of figures")
    return None


def compare(question: str, wanted: Superlative, tables: Sequence[Table], tokens: Callable[[str], list[str]],
            query_tokens: Callable[[str], list[str]], documents: dict[str, Document]) -> TableComparison | None:
    """The first table (in the order given: the best-ranked first) that answers the superlative question
    (`wanted`: `superlative(question)`), compared."""
    asked = set(query_tokens(question)) - set(tokens(wanted.words)) - set(tokens(FRAME_WORDS))
    for table in tables:
        found = _compare_table(table, question, wanted, asked, tokens, documents)
        if found is not None:
            return found
    return None


def _compare_table(table: Table, question: str, wanted: Superlative, asked: set[str], tokens, documents) -> TableComparison | None:
    column = _compared_column(table, asked, wanted, question, tokens)
    if column is None:
        return None
    index, name, why = column
    key_name = table.names[0] if table.names else ""
    placed = set(tokens(name)) | set(tokens(key_name)) | set(tokens(table.caption))
    placed |= set(tokens(document_names(documents[table.source_id]))) if table.source_id in documents else set()
    selecting = asked - placed
    # Rows are tokenized only when the question's words must select them (a long table costs one pass).
    kept = [row for row in table.rows if selecting <= set(tokens(row.text))] if selecting else table.rows
    if not kept:
        return None  # the question asks about something no row lists ("the most expensive hotel" of a list of airfares)
    width = len(table.names)
    values, units = [], set()
    for row in kept:
        key = row.cells[0].strip(KEY_TRIM) if row.cells else ""
        if AGGREGATE_ROW.match(key):
            continue
        cell = read_cell(row, index, width)
        found = figure_in_cell(cell) if cell is not None else None
        if found is not None:
            values.append((found[0], row, key, cell))
            units.add(found[1])
    if len(values) < (1 if selecting else 2) or len(units) > 1:  # one row the words select is the only one;
        return None  # figures in different units ("1.2 GB", "900 MB") are not compared
    highest = wanted.highest != (wanted.speed and bool(DURATION_COLUMN.search(name)))  # the fastest takes least time
    values.sort(key=lambda item: item[0], reverse=highest)
    best, row, key, cell = values[0]
    second_key, second_cell = (values[1][2], values[1][3]) if len(values) > 1 else ("none", "-")
    tied = [other_key for figure, _, other_key, _ in values[1:] if figure == best]
    if tied:  # no one row holds the most: the runner-up is the next figure, the tie is said
        second_key, second_cell = next(((k, c) for figure, _, k, c in values if figure != best), ("none", "-"))
    return TableComparison(
        source_id=table.source_id, page=row.page, line=row.line, key=key, column=name, value=cell,
        highest=highest, rows_compared=len(values), runner_up=f"{second_key} ({second_cell})",
        selected_by=tuple(sorted(selecting)), why=why, tied_with=tuple(tied))
