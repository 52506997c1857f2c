"""Spreadsheets: XLSX (openpyxl, read-only and with the values last calculated) and CSV/TSV (the standard library's
csv) → one line per row, cells separated by TAB (`lines.BodyWriter.row`), the sheet's first rows first. A sheet is
one table on the page (`Page.tables`): its first row is the header when it reads as one (words over the rows), with
the rows stacked on it under merged cells ("2023" merged over "Spring  Autumn"), so every row carries its column
names. A merged range holds its value in its first column, repeated down the rows it covers. Rows of one value
above the table (a title) are paragraphs. A workbook's sheets each open with a heading line ("# Sheet name"); empty
rows are skipped. The workbook's core properties (title, creator, dates) are its info: shown, never trusted.

A workbook may hold MAX_SHEETS sheets (counted in its workbook part first). A sheet is bounded as it is read: at most
MAX_COLUMNS columns (a value further right is refused, not dropped) and
MAX_CELLS cells up to each row's last value in the whole file, besides the document's line limit; a sheet of a
million formatted empty rows is bounded by the parsing worker's CPU limit (pipeline.engine.sandbox).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError, out_of_memory, shown
from pipeline.core.limits import megabytes
from pipeline.ingest.document import text_document
from pipeline.ingest.parsers.grid import Grid
from pipeline.ingest.parsers.lines import BodyWriter, header_rows, reads_as_header, with_title
from pipeline.ingest.parsers.pdf_info import core_properties_info
from pipeline.ingest.parsers.zipped import ZippedParser, open_zip, read_member

MAX_SHEET_BYTES = 20 * 1024 * 1024
MAX_COLUMNS = 100
MAX_CELLS = 500_000
MAX_MERGED = 10_000  # merged ranges read per sheet; more are left unmerged
MAX_SHEETS = 500  # a workbook's sheets, counted in xl/workbook.xml before openpyxl opens them (9,990 took it 3 s)
_SHEET = re.compile(rb"<(?:\w+:)?sheet\s")
_MERGE_CELL = re.compile(rb'<(?:\w+:)?mergeCell\s[^>]{0,100}?\bref="([A-Za-z]{1,3}\d{1,7}(?::[A-Za-z]{1,3}\d{1,7})?)"')


def cell_text(value: Any, number_format: str = "General") -> str:
    """A cell's value as a person reads it: whole numbers without ".0", percentages as such, dates in ISO form."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, float):
        if "%" in (number_format or ""):
            return f"{value * 100:.10g}%"
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
    if isinstance(value, int) and "%" in (number_format or ""):
        return f"{value * 100}%"
    return str(value)


class _Cells:
    """Counts the cells read across a file and refuses once they pass MAX_CELLS or a row passes MAX_COLUMNS."""

    def __init__(self, filename: str) -> None:
        self.filename, self.read = filename, 0

    def row(self, cells: list[str], where: str) -> list[str]:
        while cells and not cells[-1]:
            cells.pop()
        self.read += len(cells)  # up to the last value: a read-only sheet pads each row to the columns asked for
        if self.read > MAX_CELLS:
            raise InputError(self.filename, f"has more than {MAX_CELLS:,} cells (at {where}); the limit is "
                                            f"{MAX_CELLS:,} per file")
        if len(cells) > MAX_COLUMNS:
            raise InputError(self.filename, f"{where} has a value in column {len(cells)}; the limit is "
                                            f"{MAX_COLUMNS} columns")
        return cells


def _grid(rows: list[list[str]], merged: Iterable[tuple[int, int, int, int]] = ()) -> Grid:
    """A sheet's rows on its grid: each cell its own column, a merged range ((first row, first column, last row, last
    column), 0-based) holding its value in its first column of each row it covers (`grid.Grid`)."""
    spans: list[dict[int, int]] = [{} for _ in rows]  # per row: first column → last column of a merged range
    budget = MAX_CELLS  # cells the merges may spread over (a range over a million empty rows spreads over none more)
    for top, left, bottom, right in merged:
        if top >= len(rows) or left >= MAX_COLUMNS:
            continue
        right = min(right, MAX_COLUMNS - 1)
        budget -= (min(bottom, len(rows) - 1) - top + 1) * (right - left + 1)
        if budget < 0:
            break
        value = rows[top][left] if left < len(rows[top]) else ""
        for row, covered in zip(rows[top:bottom + 1], spans[top:bottom + 1]):
            row.extend([""] * (right + 1 - len(row)))
            row[left:right + 1] = [value] + [""] * (right - left)
            covered[left] = right
    grid = Grid()
    for row, covered in zip(rows, spans):
        cells, column = [], 0
        while column < len(row):
            cells.append((column, covered.get(column, column)))
            column = cells[-1][1] + 1
        grid.rows.append(row)
        grid.spans.append(cells)
    return grid


def _notes_above(grid: Grid, kept: list[int]) -> int:
    """How many of the first kept rows are notes above the table, not its header: the header is the row that reads as
    one right above the first two rows of values (a figure or a date among two filled cells each); the rows above it
    that merge no cells (a stacked header's "2023" spans its columns) and fill fewer cells than it are notes."""
    rows = [grid.rows[index] for index in kept]
    first = next((i for i in range(1, len(rows) - 1) if _holds_values(rows[i]) and _holds_values(rows[i + 1])), None)
    if first is None or first < 2 or not reads_as_header(rows[first - 1]):
        return 0
    header = sum(1 for cell in rows[first - 1] if cell.strip())
    notes = 0
    while notes < first - 1 and sum(1 for cell in rows[notes] if cell.strip()) < header and not any(
            last > start for start, last in grid.spans[kept[notes]]):
        notes += 1
    return notes


# A cell of a value: a number, an amount, a percentage, a date or time, a truth value.
_VALUE = re.compile(r"[(\-–+]?[$€£¥]?\s*\d[\d\s.,:/\-–]*%?\)?|true|false", re.IGNORECASE)


def _holds_values(row: list[str]) -> bool:
    filled = [cell.strip() for cell in row if cell.strip()]
    return len(filled) >= 2 and any(_VALUE.fullmatch(cell) for cell in filled)


def _write_table(writer: BodyWriter, grid: Grid) -> None:
    """A sheet's non-empty rows: the rows of one value above the table (its title) as paragraphs, then the table,
    whose first row is its header when it reads as one (with the rows stacked on it: `lines.header_rows`)."""
    kept = [index for index, row in enumerate(grid.rows) if any(cell.strip() for cell in row)]
    if len(kept) > writer.max_lines:
        raise InputError(writer.filename, f"has {len(kept)} rows; the limit is {writer.max_lines} lines per document")
    while kept and sum(1 for cell in grid.rows[kept[0]] if cell.strip()) == 1:
        writer.paragraph(next(cell for cell in grid.rows[kept.pop(0)] if cell.strip()))
    for note in range(_notes_above(grid, kept)):
        writer.paragraph(" ".join(cell.strip() for cell in grid.rows[kept.pop(0)] if cell.strip()))
    table = Grid([grid.rows[index] for index in kept], [grid.spans[index] for index in kept])
    writer.table(table, header_rows(table))


# --------------------------------------------------------------------------- XLSX


def _merged_ranges(archive: zipfile.ZipFile, sheet) -> list[tuple[int, int, int, int]]:
    """The sheet's merged ranges, 0-based (first row, first column, last row, last column): a read-only sheet does not
    read them, so its part's <mergeCell ref="B2:C2"/> elements are found here, in a scan of the part a chunk at a time
    (an XML parser would build the whole sheet's tree in memory; the part is bounded by `open_zip`). `archive` is the
    workbook's, opened once: opened per sheet, its directory was read again for each (9,990 one-cell sheets: 42 s)."""
    from openpyxl.utils.cell import range_boundaries

    path = getattr(sheet, "_worksheet_path", None)  # the sheet's part in the archive (openpyxl keeps no public name)
    if not path:
        return []
    ranges: list[tuple[int, int, int, int]] = []
    tail = b""
    with archive.open(path.lstrip("/")) as part:
        while len(ranges) < MAX_MERGED and (chunk := part.read(1 << 20)):
            text, end = tail + chunk, 0
            for match in _MERGE_CELL.finditer(text):
                end = match.end()
                try:
                    left, top, right, bottom = range_boundaries(match.group(1).decode("ascii"))
                except (TypeError, ValueError):
                    continue
                ranges.append((top - 1, left - 1, bottom - 1, right - 1))
            tail = text[max(end, len(text) - 200):]  # an element cut at the chunk's end is read with the next one
    return ranges[:MAX_MERGED]


def _sheet_rows(sheet) -> Iterable[list[str]]:
    """Each row up to its last cell: the declared dimension is not trusted (some writers declare A1, and rows
    padded to it cost a cell object each: 20,000 rows padded to 101 columns took 16 s)."""
    sheet.reset_dimensions()
    for row in sheet.iter_rows():
        yield [cell_text(getattr(cell, "value", None), getattr(cell, "number_format", "General")) for cell in row]


def parse_xlsx(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
    import openpyxl

    max_bytes = min(getattr(limits, "max_bytes", MAX_SHEET_BYTES) or MAX_SHEET_BYTES, MAX_SHEET_BYTES)
    archive = open_zip(data, filename, "xlsx", "an XLSX workbook", max_bytes)
    sheets = len(_SHEET.findall(read_member(archive, "xl/workbook.xml", filename)))
    if sheets > MAX_SHEETS:
        raise InputError(filename, f"has {sheets:,} sheets; the limit is {MAX_SHEETS} per workbook")
    try:
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises KeyError, ValueError, zip and XML errors for a damaged file
        if out_of_memory(error):
            raise  # the worker says the file needs more memory than it may have: it is not corrupt
        raise InputError(filename, f"is corrupt and cannot be opened ({type(error).__name__}: "
                                   f"{str(error)[:100]})") from None
    writer, counter = BodyWriter(filename, getattr(limits, "max_lines", None)), _Cells(filename)
    try:
        for sheet in workbook.worksheets:
            writer.heading(1, sheet.title)
            rows = [counter.row(row, f"sheet {shown(sheet.title)} row {number}")
                    for number, row in enumerate(_sheet_rows(sheet), start=1)]
            _write_table(writer, _grid(rows, _merged_ranges(archive, sheet)))
        info = core_properties_info(workbook.properties)
    except InputError:
        raise
    except Exception as error:
        if out_of_memory(error):
            raise
        raise InputError(filename, f"has a damaged sheet and cannot be read ({type(error).__name__}: "
                                   f"{str(error)[:100]})") from None
    finally:
        workbook.close()
    if not any(line and not line.startswith("# ") for line in writer.lines):
        raise InputError(filename, "the document body is empty (its sheets hold no values)")
    return text_document(writer.body(), data, filename, "xlsx", with_title(metadata, info.title if info else None),
                         tables=writer.tables, info=info)


class XlsxParser(ZippedParser):
    """Excel workbooks: a heading per sheet, then one line per row (cells separated by TAB)."""

    name = "xlsx"
    suffixes: tuple[str, ...] = (".xlsx",)
    media_types: tuple[str, ...] = ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",)

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_xlsx(data, filename, metadata, limits)


# --------------------------------------------------------------------------- CSV


def decode_csv(data: bytes, filename: str) -> str:
    """UTF-8 (with or without a byte-order mark) or UTF-16 with one, as spreadsheet programs save it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data[:4096]:
        raise InputError(filename, "looks like a binary file, not CSV text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(filename, f"is not UTF-8 text (byte {error.start}); save it as \"CSV UTF-8\"") from None


SNIFF_CHARS = 64 * 1024  # the delimiter is decided on this much of the text
SNIFF_ROWS = 100
_DELIMITERS = ",;\t|"  # in order of preference when two fit the rows equally


def delimiter_of(text: str) -> str:
    """The delimiter a CSV text uses, decided by counting: each candidate's count outside quotes on each of the first
    rows of a bounded prefix; the one with the same non-zero count on the most rows wins (then the larger count, then
    the order of `_DELIMITERS`); a comma when none occurs. One pass over at most SNIFF_CHARS characters: the standard
    library's `csv.Sniffer` runs patterns that take quadratic time on crafted text (an 80 KB file took 23-42 s)."""
    rows: list[dict[str, int]] = []
    row, quoted, filled = dict.fromkeys(_DELIMITERS, 0), False, False
    for char in text[:SNIFF_CHARS]:
        if char == '"':
            quoted = not quoted  # a doubled quote inside a quoted cell toggles twice
            filled = True
        elif quoted:
            continue
        elif char in row:
            row[char] += 1
        elif char in "\r\n":
            if filled or any(row.values()):
                rows.append(row)
                if len(rows) >= SNIFF_ROWS:
                    break
            row, filled = dict.fromkeys(_DELIMITERS, 0), False
        elif not char.isspace():
            filled = True
    if len(text) <= SNIFF_CHARS and (filled or any(row.values())):
        rows.append(row)  # the last row, when it is whole (not cut at the prefix's end)
    best, best_score = ",", (0, 0)
    for delimiter in _DELIMITERS:
        counts = Counter(r[delimiter] for r in rows if r[delimiter])
        if counts:
            count, rows_with_it = max(counts.items(), key=lambda item: (item[1], item[0]))
            if (rows_with_it, count) > best_score:
                best, best_score = delimiter, (rows_with_it, count)
    return best


def _delimiter(text: str, filename: str) -> str:
    return "\t" if Path(filename).suffix.lower() == ".tsv" else delimiter_of(text)


def parse_csv(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
    max_bytes = min(getattr(limits, "max_bytes", MAX_SHEET_BYTES) or MAX_SHEET_BYTES, MAX_SHEET_BYTES)
    if len(data) > max_bytes:
        raise InputError(filename, f"is {megabytes(len(data))}; the limit is {megabytes(max_bytes)}")
    text = decode_csv(data, filename)
    writer, counter = BodyWriter(filename, getattr(limits, "max_lines", None)), _Cells(filename)
    reader = csv.reader(io.StringIO(text, newline=""), csv.excel, delimiter=_delimiter(text, filename))
    try:
        rows = [counter.row(row, f"row {number}") for number, row in enumerate(reader, 1)]
    except csv.Error as error:
        raise InputError(filename, f"is not valid CSV ({str(error)[:100]})") from None
    _write_table(writer, _grid(rows))
    return text_document(writer.body(), data, filename, "csv", with_title(metadata, None), tables=writer.tables)


class CsvParser:
    """CSV and TSV tables: one line per row (cells separated by TAB), the first row as the header."""

    name = "csv"
    suffixes: tuple[str, ...] = (".csv", ".tsv")
    media_types: tuple[str, ...] = ("text/csv", "text/tab-separated-values")
    front_matter = False  # its metadata comes from a sidecar NAME.csv.yaml or the upload form

    def sniff(self, data: bytes) -> bool:
        return False  # CSV has no signature; it is chosen by its name

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_csv(data, filename, metadata, limits)
