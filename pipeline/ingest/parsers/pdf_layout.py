"""PDF bytes → a Document of pages, exact lines and word boxes (seed 000, §45.2).

How a page becomes lines
------------------------
* Words come from one MuPDF text page per page (`get_text("words")` with the text-only flags:
  no image bytes, FACTS.md) with their MuPDF block/line numbers. A MuPDF line is an *atom*.
  Boxes are turned into the displayed page's orientation (`page.rotation_matrix`), so every
  `Box` is in PDF points with a top-left origin as the page is shown (and rendered).
* Reading order is a recursive XY-cut over the atoms' boxes:
  1. a vertical cut (a gutter ≥ `_MIN_GUTTER` points that no atom crosses) splits a region
     into columns when every part is at least `_min_column_width` wide (text columns); the
     columns are read left to right, each recursively;
  2. otherwise horizontal cuts split it into bands read top to bottom. Consecutive bands whose
     columns line up (each column of one overlaps exactly one column of the other) are merged
     first, so a multi-column stretch interrupted by aligned gaps, or a column that runs longer
     than its neighbours, is still read column by column. A band whose pieces are too narrow to be
     columns by themselves (a section's number beside its heading, in both columns) is split at the
     gutters the region's bands of running text show, unless it stands apart above or below them (a
     running head); a line reaching across a gutter's middle ends a run of columns;
  3. a region with no cut is a leaf: its atoms are grouped into rows (vertical overlap ≥ half
     the smaller height) and each row is one `Line`, pieces ordered left to right.
  So narrow table cells never become "columns": a table row reads as one line.
* A ruled table the table finder reads (`pdf_tables`: a trustworthy grid) is one block in that layout,
  expanded into one line per row, its cells joined by a TAB (an empty cell too), and named on the page
  (`Page.tables`: its header rows, stacked ones too, its body rows, its combined column names).
* A short line set apart by a larger font, or wholly bold over body text (`pdf_fonts`), is a heading
  (`Page.headings`): units never join it to the sentence before it (a right column's "3.2 Swift" after a
  left column's unfinished sentence).
* Line text is the words joined by one space, or by a TAB (`CELL_SEPARATOR`) where the gap
  between two words is at least the line's height (table cells, tab stops). Whitespace inside
  a line is thus normalised; every `Word`'s `start`/`end` index its text in `Page.text`
  exactly. Page text is the lines joined with "\n".
* A page with no words keeps an empty `Page` (no lines); `pages_without_text` lists them.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pymupdf

from pipeline.core.contracts import Box, Document, Line, LineTable, Page, PageTable, WordBoxes
from pipeline.core.contracts.base import prevalidated
from pipeline.core.errors import InputError, out_of_memory
from pipeline.core.limits import PdfLimits, megabytes
from pipeline.ingest.document import sha256
from pipeline.ingest.furniture import running_lines
from pipeline.ingest.metadata import check_cards_against_pages, meta_from_mapping
from pipeline.ingest.parsers.pdf_fonts import styled_lines, uses_styled_font
from pipeline.ingest.parsers.pdf_guard import check_page_content
from pipeline.ingest.parsers.pdf_tables import TableBudget, TableRows, find_tables
from pipeline.ingest.parsers.pdf_info import document_info, with_info_title
from pipeline.ingest.parsers.pdf_ocr import OcrBudget
from pipeline.lang.text import SECTION_NUMBER, is_cjk_char

#: PyMuPDF's "dict" flags without TEXT_PRESERVE_IMAGES (320 vs 44 pages/s, FACTS.md).
TEXT_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
#: Separator between table cells / widely spaced pieces of one line.
CELL_SEPARATOR = "\t"
_MIN_GUTTER = 5.0  # points: a narrower vertical gap is never a column gutter
_SECTION_NUMBER = re.compile(SECTION_NUMBER)
_PROSE_WORDS = 5  # a line of this many words is running text, no table cell
_CELL_GAP = 1.0  # × line height: a wider gap between two words is a cell boundary
# × line height: between two figures ("13.059.880   11.600.122", "31/12/2023   31/12/2022") a narrower gap is one: two
# columns of amounts set close are cells, and no figure is written with a gap of twice a space inside it.
_FIGURE_CELL_GAP = 0.5
_FIGURE = re.compile(r"[(\-–−+]?[$€£¥]?\d[\d.,/:'’]*%?\)?")
_HEADING_SIZE = 1.15  # × the page's median line size: a line this much larger is a heading (if short)
_HEADING_WORDS = 12
_HEADING_LINES = 3  # a bold heading wraps onto at most this many lines

# Ligatures become their letters; control characters are dropped.
_CLEAN: dict[int, str | None] = {c: " " for c in [*range(0x00, 0x20), *range(0x7F, 0xA1)]}
_CLEAN.update({0xFB00: "ff", 0xFB01: "fi", 0xFB02: "fl", 0xFB03: "ffi", 0xFB04: "ffl", 0xFB05: "st", 0xFB06: "st",
               0xAD: None, 0x200B: None})
_NEEDS_CLEAN = re.compile("[\x00-\x1f\x7f-\xa0\xad\ufb00-\ufb06\u2000-\u200b\u2028\u2029\u3000]")
_SPACES = re.compile(r"\s+")


# --------------------------------------------------------------------------- input checks


def _sniff(data: bytes) -> str:
    """What a non-PDF file looks like, in words."""
    head = data[:2048]
    if not data.strip():
        return "an empty file"
    signatures = [
        (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
        (b"II*\x00", "a TIFF image"), (b"MM\x00*", "a TIFF image"), (b"PK\x03\x04", "a ZIP archive or Office document"),
        (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document"), (b"%!PS", "a PostScript file"),
        (b"{\\rtf", "an RTF document"), (b"\x7fELF", "a program"), (b"\x1f\x8b", "a gzip archive"),
    ]
    for signature, kind in signatures:
        if head.startswith(signature):
            return kind
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "a WebP image"
    lowered = head.lstrip().lower()
    if lowered.startswith((b"<!doctype html", b"<html")):
        return "an HTML page"
    if lowered.startswith(b"<?xml") or lowered.startswith(b"<svg"):
        return "an XML or SVG file"
    try:
        head.decode("utf-8")
        return "a text file"
    except UnicodeDecodeError as error:
        if error.start > len(head) - 4:  # a character cut at the sample's end
            return "a text file"
    return "a binary file of unknown type"


def _page_ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 5] → '1-3, 5'."""
    parts, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(parts)


def _open(data: bytes, filename: str, limits: PdfLimits) -> pymupdf.Document:
    if len(data) > limits.max_bytes:
        raise InputError(filename, f"is {megabytes(len(data))}; the limit is {megabytes(limits.max_bytes)}")
    if b"%PDF-" not in data[:1024]:
        raise InputError(filename, f"is not a PDF (it looks like {_sniff(data)})")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:  # MuPDF raises FileDataError / RuntimeError subclasses
        if out_of_memory(error):
            raise  # the worker says the file needs more memory than it may have: it is not corrupt
        raise InputError(filename, f"is corrupt and cannot be opened ({_short(error)})") from None
    if doc.needs_pass:
        doc.close()
        raise InputError(filename, "is password-protected; remove the password and upload it again")
    if doc.is_repaired and b"%%EOF" not in data[-2048:]:
        # MuPDF rebuilt a file whose end is missing: whatever it recovered may be partial.
        doc.close()
        raise InputError(filename, "is truncated (the end of the file is missing); upload the complete file")
    if doc.page_count == 0:
        doc.close()
        raise InputError(filename, "has no pages")
    if doc.page_count > limits.max_pages:
        count = doc.page_count
        doc.close()
        raise InputError(filename, f"has {count} pages; the limit is {limits.max_pages}")
    return doc


def _short(error: Exception) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:160]


# --------------------------------------------------------------------------- reading order


class _Atom:
    """One MuPDF line: its words [(x0, y0, x1, y1, text)] and their union box."""

    __slots__ = ("x0", "y0", "x1", "y1", "words", "vertical", "table", "bold", "mono")

    def __init__(self, words: list[tuple[float, float, float, float, str]], table: TableRows | None = None,
                 bold: bool = False, mono: bool = False):
        self.words = words
        self.bold = bold  # every word set in a bold font (`pdf_fonts`)
        self.mono = mono  # every word set in a typewriter font
        self.table = table  # a ruled table the finder read: laid out as one block, expanded into its rows
        if table is not None:
            self.x0, self.y0, self.x1, self.y1 = table.bbox
            self.vertical = False
            return
        if len(words) == 1:
            self.x0, self.y0, self.x1, self.y1 = words[0][:4]
        else:
            xs0, ys0, xs1, ys1, _ = zip(*words)
            self.x0, self.y0, self.x1, self.y1 = min(xs0), min(ys0), max(xs1), max(ys1)
        if len(words) > 1:
            first, last = words[0], words[-1]
            dx = abs((last[0] + last[2]) - (first[0] + first[2]))
            dy = abs((last[1] + last[3]) - (first[1] + first[3]))
            self.vertical = dy > dx
        else:  # one word: tall and narrow reads vertically
            self.vertical = len(words[0][4]) >= 3 and (self.y1 - self.y0) > 1.5 * (self.x1 - self.x0)


def _cuts(atoms: list[_Atom], lo: str, hi: str, min_gap: float) -> list[list[_Atom]]:
    """Split atoms at gaps ≥ min_gap in their projection on one axis (lo/hi: attribute names)."""
    ordered = sorted(atoms, key=lambda a: getattr(a, lo))
    groups, current = [], [ordered[0]]
    reach = getattr(ordered[0], hi)
    for atom in ordered[1:]:
        if getattr(atom, lo) - reach >= min_gap:
            groups.append(current)
            current = []
        current.append(atom)
        reach = max(reach, getattr(atom, hi))
    groups.append(current)
    return groups


def _extent(atoms: list[_Atom]) -> tuple[float, float]:
    return min(a.x0 for a in atoms), max(a.x1 for a in atoms)


class _Layout:
    def __init__(self, page_width: float):
        self.min_column_width = max(72.0, 0.12 * page_width)

    def columns(self, atoms: list[_Atom]) -> list[list[_Atom]] | None:
        """Text columns (≥2, all wide), left to right; None when the region has none."""
        parts = _cuts(atoms, "x0", "x1", _MIN_GUTTER)
        if len(parts) < 2:
            return None
        for part in parts:
            x0, x1 = _extent(part)
            if x1 - x0 < self.min_column_width:
                return None
        return parts

    def order(self, atoms: list[_Atom]) -> list[list[_Atom]]:
        """Rows of atoms in reading order."""
        if len(atoms) <= 1:
            return [atoms] if atoms else []
        columns = self.columns(atoms)
        if columns:
            return [row for column in columns for row in self.order(column)]
        bands = _cuts(atoms, "y0", "y1", 0.01)
        if len(bands) < 2:
            return _rows(atoms)
        rows: list[list[_Atom]] = []
        for group, intervals in self._merge_bands(bands):
            if intervals is None or len(intervals) < 2:
                rows.extend(self.order(group) if len(group) < len(atoms) else _rows(group))
                continue
            buckets: list[list[_Atom]] = [[] for _ in intervals]
            for atom in group:
                best = max(range(len(intervals)),
                           key=lambda i: min(atom.x1, intervals[i][1]) - max(atom.x0, intervals[i][0]))
                buckets[best].append(atom)
            if any(len(bucket) == len(atoms) for bucket in buckets):
                rows.extend(_rows(group))
                continue
            for bucket in buckets:
                rows.extend(self.order(bucket))
        return rows

    def _merge_bands(self, bands: list[list[_Atom]]):
        """Join consecutive bands whose columns line up; yield (atoms, column intervals|None)."""
        merged: list[tuple[list[_Atom], list[tuple[float, float]]]] = []
        found = [self.columns(band) for band in bands]
        prose_columns = [parts if parts and all(map(_prose, parts)) else [] for parts in found]
        gutters = _narrowest([(_extent(left)[1], _extent(right)[0])
                              for parts in prose_columns for left, right in zip(parts, parts[1:])])
        splittable = _within_columns(bands, [bool(parts) for parts in prose_columns])
        for band, parts, split in zip(bands, found, splittable):
            parts = parts or (_split_at_gutters(band, gutters) if split else None)
            intervals = [_extent(p) for p in parts] if parts else [_extent(band)]
            if merged:
                previous_atoms, previous = merged[-1]
                spans = [_crosses(*iv[0], gutter) for iv in (previous, intervals) if len(iv) == 1 for gutter in gutters]
                if (len(previous) >= 2 or len(intervals) >= 2) and not any(spans):  # a full-width line ends columns
                    wide, narrow = (previous, intervals) if len(previous) >= len(intervals) else (intervals, previous)
                    mapping = _match(narrow, wide)
                    if mapping is not None:
                        joined = list(wide)
                        for n_index, w_index in enumerate(mapping):
                            joined[w_index] = (min(joined[w_index][0], narrow[n_index][0]),
                                               max(joined[w_index][1], narrow[n_index][1]))
                        merged[-1] = (previous_atoms + band, joined)
                        continue
            merged.append((band, intervals))
        return [(atoms, intervals if len(intervals) >= 2 else None) for atoms, intervals in merged]


def _prose(part: list[_Atom]) -> bool:
    """Running text: a line of several words. Table columns of labels ("[aps]", "[10pt], [11pt]") beside their
    descriptions show no gutter of the page's text columns."""
    return any(len(atom.words) >= _PROSE_WORDS for atom in part)


def _narrowest(gutters: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Overlapping gaps between columns narrowed to what they share: the gutter is where no band's text reaches (a
    left column's short last line leaves a wider gap than its full lines)."""
    narrowed: list[tuple[float, float]] = []
    for g0, g1 in sorted(gutters):
        if narrowed and g0 < narrowed[-1][1]:
            narrowed[-1] = (max(narrowed[-1][0], g0), min(narrowed[-1][1], g1))
        else:
            narrowed.append((g0, g1))
    return narrowed


def _crosses(x0: float, x1: float, gutter: tuple[float, float]) -> bool:
    """Reaches across the gutter's middle (a ragged line of a column may end inside the gutter)."""
    middle = (gutter[0] + gutter[1]) / 2
    return x0 < middle - 1 and x1 > middle + 1


def _within_columns(bands: list[list[_Atom]], in_prose: list[bool]) -> list[bool]:
    """The bands from the first with columns of running text to the last, and those that close up to them (a gap
    less than a line's height): a page's running head over its columns ("Proposed Rules" … "Federal Register") sits
    apart from them, and must stay whole to be known as the running head."""
    with_columns = [i for i, prose in enumerate(in_prose) if prose]
    inside = [bool(with_columns) and with_columns[0] <= i <= with_columns[-1] for i in range(len(bands))]
    if not with_columns:
        return inside
    line = sorted(atom.y1 - atom.y0 for band in bands for atom in band)[sum(map(len, bands)) // 2]
    tops = [min(atom.y0 for atom in band) for band in bands]
    bottoms = [max(atom.y1 for atom in band) for band in bands]
    for i in range(with_columns[0] - 1, -1, -1):  # upwards from the first band with columns
        if tops[i + 1] - bottoms[i] >= line:
            break
        inside[i] = True
    for i in range(with_columns[-1] + 1, len(bands)):  # downwards from the last
        if tops[i] - bottoms[i - 1] >= line:
            break
        inside[i] = True
    return inside


def _split_at_gutters(band: list[_Atom], gutters: list[tuple[float, float]]) -> list[list[_Atom]] | None:
    """A band that is no columns by itself ("I.  FIRST-LEVEL HEADING:" beside "A.  Second-level heading": the
    numbers are narrow parts) split at the gutters other bands of the region show, where none of its atoms crosses
    one; None when it has no such gutter."""
    free = sorted({(gutter[0] + gutter[1]) / 2 for gutter in gutters
                   if not any(_crosses(atom.x0, atom.x1, gutter) for atom in band)})
    if not free:
        return None
    parts: list[list[_Atom]] = [[] for _ in range(len(free) + 1)]
    for atom in band:
        parts[bisect.bisect(free, atom.x0)].append(atom)
    parts = [part for part in parts if part]
    return parts if len(parts) >= 2 else None


def _match(narrow, wide) -> list[int] | None:
    """Each interval of `narrow` overlaps exactly one of `wide`, all distinct; else None."""
    used, mapping = set(), []
    for x0, x1 in narrow:
        hits = [i for i, (w0, w1) in enumerate(wide) if min(x1, w1) - max(x0, w0) > 0]
        if len(hits) != 1 or hits[0] in used:
            return None
        used.add(hits[0])
        mapping.append(hits[0])
    return mapping


def _rows(atoms: list[_Atom]) -> list[list[_Atom]]:
    """Group a leaf's atoms into rows by vertical overlap; each row's pieces left to right."""
    rows: list[list[_Atom]] = []
    top = bottom = 0.0
    for atom in sorted(atoms, key=lambda a: (a.y0 + a.y1, a.x0)):
        if (rows and not atom.vertical and not rows[-1][0].vertical and atom.table is None
                and rows[-1][0].table is None):
            overlap = min(bottom, atom.y1) - max(top, atom.y0)
            if overlap >= 0.5 * min(bottom - top, atom.y1 - atom.y0):
                rows[-1].append(atom)
                top, bottom = min(top, atom.y0), max(bottom, atom.y1)
                continue
        rows.append([atom])
        top, bottom = atom.y0, atom.y1
    for row in rows:
        if len(row) > 1:
            row.sort(key=lambda a: a.x0)
    return rows


def _order_page(atoms: list[_Atom], width: float) -> list[list[_Atom]]:
    """Rows in reading order. Rotated (vertical) lines — margin stamps, sideways labels — are
    kept out of the layout, which they would block, and come last, left to right. A note in the left margin
    (`_margin_notes`) opens the paragraph it sits beside."""
    vertical = [a for a in atoms if a.vertical]
    flowing = [a for a in atoms if not a.vertical] if vertical else atoms
    notes = _margin_notes(flowing, width)
    if notes:
        noted = {id(note) for note in notes}
        flowing = [a for a in flowing if id(a) not in noted]
    rows = _Layout(width).order(flowing) if flowing else []
    if notes:
        row_of = {id(atom): i for i, row in enumerate(rows) for atom in row}
        placed = _ByHeight([atom for row in rows for atom in row])
        for note in sorted(notes, key=lambda a: a.y0):
            _open_paragraph_with(rows, note, placed, row_of)
    rows.extend([a] for a in sorted(vertical, key=lambda a: (a.x0, a.y0)))
    return rows


class _ByHeight:
    """Atoms sorted by their top, to find those on one row with another (`_level`) without testing every atom: a page
    of many notes and lines stays linear-logarithmic."""

    def __init__(self, atoms: list[_Atom]):
        self.atoms = sorted(atoms, key=lambda a: a.y0)
        self.tops = [a.y0 for a in self.atoms]
        self.tallest = max((a.y1 - a.y0 for a in self.atoms), default=0.0)

    def level_with(self, atom: _Atom) -> list[_Atom]:
        low = bisect.bisect_left(self.tops, atom.y0 - self.tallest)
        high = bisect.bisect_right(self.tops, atom.y1)
        return [other for other in self.atoms[low:high] if other is not atom and _level(atom, other)]


def _open_paragraph_with(rows: list[list[_Atom]], note: _Atom, placed: _ByHeight, row_of: dict[int, int]) -> None:
    """Put a margin note first in the row that opens the paragraph beside it: the row level with it, or the rows above
    while they run on into it (no sentence end, no wider gap than a line's), so "\\keywords" labels "Many journals …
    request authors to provide keywords for" rather than cutting that sentence at its second line."""
    beside = [(atom.x0, row_of[id(atom)]) for atom in placed.level_with(note) if atom.x0 > note.x1]
    at = min(beside)[1] if beside else None
    if at is None:
        rows.append([note])
        return
    while at > 0 and _runs_on(rows[at - 1], rows[at]):
        at -= 1
    row = rows[at]
    row.insert(next((i for i, atom in enumerate(row) if atom.x0 > note.x1), len(row)), note)  # after notes above it


def _runs_on(above: list[_Atom], row: list[_Atom]) -> bool:
    """Does `row` continue the sentence of the running text above it (no sentence end, at most a line's gap between
    them; not a heading or a line of code, which a few words make)?"""
    height = max(a.y1 - a.y0 for a in row)
    gap = min(a.y0 for a in row) - max(a.y1 for a in above)
    text = " ".join(word[4] for atom in above for word in atom.words)
    return (gap <= height and not _ends_sentence(text) and above[0].table is None
            and sum(_words(atom) for atom in above) >= _PROSE_WORDS)


MARGIN_NOTE_WORDS = 3  # a note in the margin ("\keywords", "draftfirst") is a label of a few words
MARGIN_EDGE_SHARE = 0.2  # the body's left edge: the leftmost start this share of the page's lines have in common
MARGIN_NOTE_SHARE = 0.5  # every body line with a note beside it: a reference page, a macro name by each description
_NUMBERING = re.compile(r"[(\[]?(?:\d+|[ivxlc]+|[A-Z])(?:\.\d+)*[.)\]]?", re.IGNORECASE)  # "4.4", "iv.", "(3)": a number, no note


def _margin_notes(atoms: list[_Atom], width: float) -> list[_Atom]:
    """Labels set in the left margin beside the text (LaTeX's margin notes: a manual's "\\keywords" beside the
    paragraph that explains it). Left in the layout they share a row with the body line beside them and end up
    inside its sentence ("… provide keywords for \\keywords their manuscripts …"). A note: a few words, not only
    figures (a manuscript's line numbers stay where they are), the first thing on its row, ending left of the body's
    left edge, with a body line beside it."""
    lines = [a for a in atoms if a.table is None]
    edge = _body_edge(lines)
    if edge is None:
        return []
    left = [a for a in lines if a.x1 < edge]
    if any(len(a.words) > MARGIN_NOTE_WORDS or a.x1 - a.x0 > 0.2 * width for a in left):
        return []  # a column of text, not a margin
    by_height = _ByHeight(left)
    notes = [a for a in left if not all(_NUMBERING.fullmatch(w[4]) for w in a.words)
             and not any(b.x1 <= a.x0 for b in by_height.level_with(a))]  # the leftmost on its row: "2 Installation"
    notes = _beside_text(notes, _ByHeight([b for b in lines if b.x0 >= edge]))
    return notes if len(notes) <= MARGIN_NOTE_SHARE * len(lines) else []


def _beside_text(notes: list[_Atom], body: _ByHeight) -> list[_Atom]:
    """The notes with a line of `body` text beside them, if most of them sit beside running text: an index's entries
    ("\\ . . . 5, 6, 7") are no notes beside their page numbers."""
    beside = {id(note): [b for b in body.level_with(note) if _words(b)] for note in notes}
    notes = [note for note in notes if beside[id(note)]]
    prose = sum(any(_words(b) >= _PROSE_WORDS for b in beside[id(note)]) for note in notes)
    return notes if 2 * prose >= len(notes) else []


def _body_edge(lines: list[_Atom]) -> float | None:
    """Where the body text begins on a page of at least 10 lines: the leftmost start a share of its lines have in
    common (`MARGIN_EDGE_SHARE`), less a gutter; None for a page too short to tell."""
    if len(lines) < 10:
        return None
    starts: dict[int, int] = {}
    for atom in lines:
        starts[round(atom.x0)] = starts.get(round(atom.x0), 0) + 1
    common = [x for x, n in starts.items() if n >= MARGIN_EDGE_SHARE * len(lines)]
    return min(common) - _MIN_GUTTER if common else None


def _words(atom: _Atom) -> int:
    """How many words of text an atom holds: its words with a letter; a Han run counts a word per two characters."""
    return sum(max(1, sum(map(is_cjk_char, word[4])) // 2) for word in atom.words if any(c.isalpha() for c in word[4]))


def _level(a: _Atom, b: _Atom) -> bool:
    """Do two atoms sit on one row (share half the height of the smaller, as `_rows` joins them)?"""
    return min(b.y1, a.y1) - max(b.y0, a.y0) >= 0.5 * min(a.y1 - a.y0, b.y1 - b.y0)


def _split_rows(words: list) -> list[list]:
    """Split one MuPDF line whose words sit on different rows (MuPDF sometimes joins stacked
    table cells into one line) into one piece per row."""
    pieces = [[words[0]]]
    for word in words[1:]:
        last = pieces[-1][-1]
        overlap = min(last[3], word[3]) - max(last[1], word[1])
        if overlap < 0.5 * min(last[3] - last[1], word[3] - word[1]):
            pieces.append([word])
        else:
            pieces[-1].append(word)
    return pieces


# --------------------------------------------------------------------------- page assembly


def _clean(text: str) -> str:
    return _SPACES.sub(" ", text.translate(_CLEAN)).strip()


def _page_atoms(page: pymupdf.Page, textpage: pymupdf.TextPage | None = None) -> list[_Atom]:
    bold: set[tuple[int, int]] = set()
    mono: set[tuple[int, int]] = set()
    if textpage is None and uses_styled_font(page):  # (an OCR text page has no fonts to weigh)
        textpage = page.get_textpage(flags=TEXT_FLAGS)
        bold, mono = styled_lines(textpage)
    raw = page.get_text("words", flags=TEXT_FLAGS, textpage=textpage)
    if not raw:
        return []
    if _NEEDS_CLEAN.search("".join(w[4] for w in raw)):
        raw = [(*w[:4], _clean(w[4]), *w[5:]) for w in raw]
    transform = page.rotation_matrix if page.rotation else None
    lines: dict[tuple[int, int], list] = {}
    for x0, y0, x1, y1, text, block, line, _ in raw:
        if not text:
            continue
        if transform is not None:
            r = pymupdf.Rect(x0, y0, x1, y1) * transform
            x0, y0, x1, y1 = r.x0, r.y0, r.x1, r.y1
        key = (block, line)
        words = lines.get(key)
        if words is None:
            lines[key] = [(x0, y0, x1, y1, text)]
        else:
            words.append((x0, y0, x1, y1, text))
    atoms = []
    for key, words in lines.items():
        atom = _Atom(words, bold=key in bold, mono=key in mono)
        # Taller than 1.5 of its first word: the words may sit on different rows.
        if len(words) > 1 and not atom.vertical and atom.y1 - atom.y0 > 1.5 * (words[0][3] - words[0][1]):
            pieces = _split_rows(words)
            if len(pieces) > 1:
                atoms.extend(_Atom(piece, bold=atom.bold, mono=atom.mono) for piece in pieces)
                continue
        atoms.append(atom)
    return _with_drop_caps(atoms)


DROP_CAP_LINES = 2.5  # a drop cap is at least this many body lines tall


def _with_drop_caps(atoms: list[_Atom]) -> list[_Atom]:
    """A paragraph's drop cap ("T" three lines tall beside "HIS is the documentation …", as IEEE papers open) joined
    to the word it begins. Left apart, the letter's height made one row of the three lines beside it."""
    caps = [a for a in atoms if len(a.words) == 1 and len(a.words[0][4]) == 1 and a.words[0][4].isupper()]
    if not caps:
        return atoms
    body = sorted(a.y1 - a.y0 for a in atoms if len(a.words) > 1) or [0.0]
    line = body[len(body) // 2]
    for cap in caps:
        if line <= 0 or cap.y1 - cap.y0 < DROP_CAP_LINES * line:
            continue
        # The first line beside it: a line of words (not a formula's "S12" or "g" beside a large summation sign)
        # starting right of the letter, its top level with the letter's top.
        beside = [a for a in atoms if a is not cap and a.table is None and 0 <= a.x0 - cap.x1 <= 3 * line
                  and abs(a.y0 - cap.y0) <= line and len(a.words) >= 3 and a.words[0][4].rstrip(",.;:").isalpha()]
        if not beside:
            continue
        first = min(beside, key=lambda a: a.y0)
        x0, y0, x1, y1, text = first.words[0]
        first.words[0] = (cap.x0, y0, x1, y1, cap.words[0][4] + text)
        first.x0 = min(first.x0, cap.x0)
        atoms = [a for a in atoms if a is not cap]
    return atoms


# The parse builds tens of thousands of frozen models from values it has just computed: pydantic's validation is
# skipped (`contracts.base.prevalidated`).
_make_box, _make_line, _make_page = (prevalidated(c) for c in (Box, Line, Page))


def _with_tables(page: pymupdf.Page, atoms: list[_Atom], budget: TableBudget) -> list[_Atom]:
    """The atoms with each ruled table the finder read (`pdf_tables`) as one table atom in place of its words."""
    tables = find_tables(page, [w for atom in atoms for w in atom.words], budget) if atoms else []
    if not tables:
        return atoms

    def inside(word) -> bool:
        x, y = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
        return any(t.bbox[0] - 1 <= x <= t.bbox[2] + 1 and t.bbox[1] - 1 <= y <= t.bbox[3] + 1 for t in tables)

    kept: list[_Atom] = []
    for atom in atoms:
        outside = [w for w in atom.words if not inside(w)]
        if len(outside) == len(atom.words):
            kept.append(atom)
        elif outside:
            kept.append(_Atom(outside, bold=atom.bold, mono=atom.mono))
    return kept + [_Atom([], table=table) for table in tables]


def _short_title(text: str) -> bool:
    text = _SECTION_NUMBER.sub("", text, count=1)  # "2.1<TAB>General Information": LaTeX sets a quad after the number
    return (len(text.split()) <= _HEADING_WORDS and CELL_SEPARATOR not in text
            and not text.rstrip().endswith((".", ",", ";", "?", "!")))


def _ends_sentence(text: str) -> bool:
    return text.rstrip().endswith((".", "?", "!", ":"))


def _build_page(number: int, width: float, height: float, rows: list[list[_Atom]], ocr: bool = False) -> Page:
    builder = _PageBuilder()
    for row in rows:
        if row[0].table is not None:
            builder.add_table(row[0].table)
        else:
            builder.add_row(row)
    return _make_page({"number": number, "text": "\n".join(builder.texts), "lines": LineTable(builder.lines),
                       "width": width, "height": height, "furniture": (), "tables": tuple(builder.tables),
                       "headings": (headings := builder.headings()), "code": builder.code(headings), "ocr": ocr})


class _PageBuilder:
    """A page's lines, one at a time: exact text, offsets into the page text, word boxes."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.lines: list[Line] = []
        self.tables: list[PageTable] = []
        self.offset = 0
        self.sizes: list[float] = []  # per line of text (not of a table): its words' median height, ~ its font size
        self.size_lines: list[int] = []
        self.bold: set[int] = set()  # lines of text set wholly in a bold font
        self.mono: set[int] = set()  # lines of text set wholly in a typewriter font
        self.boxes: dict[int, tuple[float, float, float, float]] = {}  # per line of text: its box

    def add_row(self, row: list[_Atom]) -> None:
        """A row of atoms: words joined by a space, or by a TAB where the gap is a cell boundary."""
        words = row[0].words if len(row) == 1 else [w for atom in row for w in atom.words]
        height = max(a.y1 - a.y0 for a in row)
        gap, figure_gap = _CELL_GAP * height, _FIGURE_CELL_GAP * height
        parts: list[str] = []
        line_words = array("d")  # start, end, x0, y0, x1, y1 per word (contracts.WordBoxes)
        pos = offset = self.offset
        previous, previous_text = None, ""
        for x0, y0, x1, y1, text in words:
            if previous is not None:
                cell = x0 - previous >= (figure_gap if _FIGURE.fullmatch(previous_text) and _FIGURE.fullmatch(text) else gap)
                parts.append(CELL_SEPARATOR if cell else " ")
                pos += 1
            parts.append(text)
            end = pos + len(text)
            line_words.extend((pos, end, x0, y0, x1, y1))
            pos = end
            previous, previous_text = x1, text
        box = _make_box({"x0": min(a.x0 for a in row), "y0": min(a.y0 for a in row),
                         "x1": max(a.x1 for a in row), "y1": max(a.y1 for a in row)})
        self._append("".join(parts), offset, pos, box, line_words)
        if not row[0].vertical:
            heights = sorted(w[3] - w[1] for w in words)
            self.sizes.append(heights[len(heights) // 2])
            self.size_lines.append(len(self.lines))
            self.boxes[len(self.lines)] = (box.x0, box.y0, box.x1, box.y1)
            if all(atom.bold for atom in row):
                self.bold.add(len(self.lines))
            if all(atom.mono for atom in row):
                self.mono.add(len(self.lines))

    def headings(self) -> tuple[int, ...]:
        """Short lines, not ending a sentence, set apart by their font: a heading, never part of the sentence before
        or after it (a right column's "3.2 Swift" after a left column's unfinished sentence). Set apart means
        * larger: words ≥ `_HEADING_SIZE` × the page's usual height; or
        * bold at any size, on up to `_HEADING_LINES` lines (`_stands_apart_in_bold`): whole lines, over body text."""
        if len(self.sizes) < 3:
            return ()
        body = sorted(self.sizes)[len(self.sizes) // 2]
        larger = {number for number, size in zip(self.size_lines, self.sizes)
                  if size >= _HEADING_SIZE * body and _short_title(self.texts[number - 1])}
        bold = {number for run in self._bold_runs() if len(run) <= _HEADING_LINES
                and all(_short_title(self.texts[number - 1]) for number in run)
                and self._stands_apart_in_bold(run[0], run[-1], larger) for number in run}
        return tuple(sorted(larger | bold))

    def code(self, headings: tuple[int, ...]) -> tuple[int, ...]:
        """Lines set wholly in a typewriter font, not headings: a listing, unless its first line goes on with a
        sentence the line above it leaves unfinished (a URL or a command wrapped onto a line of its own inside a
        paragraph: "… available at http://authors.aps.org/" over "revtex4/.")."""
        code: list[int] = []
        for number in sorted(self.mono.difference(headings)):
            if code and code[-1] == number - 1:
                code.append(number)
                continue
            above = self._line_above(number)
            if (above is None or above in self.mono or above in headings
                    or self.texts[above - 1].rstrip().endswith((".", "?", "!", ":", "。", "：", "？", "！"))):
                code.append(number)
        return tuple(code)

    def _bold_runs(self) -> list[list[int]]:
        """The bold lines of text in runs of lines one under the other (a heading wrapped onto two lines)."""
        runs: list[list[int]] = []
        for number in sorted(self.bold):
            if runs and runs[-1][-1] == number - 1 and self._line_above(number) == number - 1:
                runs[-1].append(number)
            else:
                runs.append([number])
        return runs

    def _stands_apart_in_bold(self, first: int, last: int, headings: set[int]) -> bool:
        """Bold lines are a heading only over body text: the next line is not bold, not a table row and does not go
        on with a lower-case word ("the **first rule**" wrapped onto a line of its own, "is …"); and the line above
        them in their column, if any, is not an unfinished sentence running into them (a bold phrase inside a
        paragraph) but a heading set larger ("2.1 General Information" under "2 Working with the llncs Document
        Class", whose typewriter "llncs" is not bold) or a sentence's end. A bold lead-in on a paragraph's own line
        ("Note: …") is not wholly bold; a table's bold header row is split into cells or is a found table's row."""
        if last >= len(self.lines) or last + 1 in self.bold or not self._is_text_line(last + 1):
            return False
        following = self.texts[last]
        if CELL_SEPARATOR in following or following[:1].islower():
            return False
        above = self._line_above(first)
        return above is None or above in self.bold or above in headings or _ends_sentence(self.texts[above - 1])

    def _is_text_line(self, number: int) -> bool:
        return number in self.boxes

    def _line_above(self, number: int) -> int | None:
        """The nearest line of text above `number` in its column (overlapping it across), within two line heights."""
        x0, y0, x1, y1 = self.boxes[number]
        best, bottom = None, y0 - 2 * (y1 - y0)
        for other, (ox0, _, ox1, oy1) in self.boxes.items():  # (tight leading: boxes overlap by up to half a line)
            if other < number and bottom < oy1 <= y0 + 0.5 * (y1 - y0) and min(ox1, x1) > max(ox0, x0):
                best, bottom = other, oy1
        return best

    def add_table(self, table: TableRows) -> None:
        """A found table: each row one line, its cells joined by a TAB (an empty cell too, so that cells line up
        with the columns), a cell's words by a space; the header rows and column names kept on the page."""
        numbers = []
        for cells, spans in zip(table.rows, table.spans):
            pieces: list[tuple[str, list]] = []
            for index, (first, _) in enumerate(spans):  # a cell spanning columns is one cell
                if index:
                    pieces.append((CELL_SEPARATOR, []))
                for position, word in enumerate(cells[first]):
                    if position:
                        pieces.append((" ", []))
                    pieces.append((word[4], [word]))
            self._add(pieces)
            numbers.append(len(self.lines))
        self.tables.append(PageTable(header=tuple(numbers[:table.header_rows]), rows=tuple(numbers[table.header_rows:]),
                                     columns=tuple(table.column_names()) if table.header_rows else ()))

    def _add(self, pieces: list[tuple[str, list]]) -> None:
        """A table row's line from its pieces: (text, [its word]) for a word, (separator, []) between."""
        line_words = array("d")  # start, end, x0, y0, x1, y1 per word (contracts.WordBoxes)
        pos = start = self.offset
        boxes = []
        for text, words in pieces:
            if words:
                x0, y0, x1, y1 = words[0][:4]
                line_words.extend((pos, pos + len(text), x0, y0, x1, y1))
                boxes.append(words[0])
            pos += len(text)
        box = _make_box({"x0": min(w[0] for w in boxes), "y0": min(w[1] for w in boxes),
                         "x1": max(w[2] for w in boxes), "y1": max(w[3] for w in boxes)})
        self._append("".join(piece for piece, _ in pieces), start, pos, box, line_words)

    def _append(self, text: str, start: int, end: int, box: Box, line_words: array) -> None:
        self.lines.append(_make_line({"number": len(self.lines) + 1, "start": start, "end": end, "text": text,
                                      "box": box, "words": WordBoxes.packed(line_words)}))
        self.texts.append(text)
        self.offset = end + 1


def parse_pdf(
    data: bytes,
    filename: str,
    metadata: Mapping[str, Any] | None = None,
    limits: PdfLimits | None = None,
) -> Document:
    """Parse a PDF's bytes into pages of ordered lines with word boxes; bad PDFs raise InputError."""
    limits = limits or PdfLimits()
    meta = meta_from_mapping(metadata, default_id=Path(filename).stem, filename=filename)
    doc = _open(data, filename, limits)
    info = document_info(doc.metadata)
    meta = with_info_title(meta, info)
    ocr = OcrBudget()
    pages: list[Page] = []
    content = lines = 0
    budget = TableBudget()
    try:
        for index in range(doc.page_count):
            number = index + 1
            try:
                page = doc.load_page(index)
                content += check_page_content(doc, page, number, filename, limits.max_page_content,
                                              limits.max_content, content)
                atoms = _page_atoms(page)
                textpage = None if atoms else ocr.textpage(page, number)  # a scanned page
                if textpage is not None:
                    atoms = _page_atoms(page, textpage)
                if len(atoms) <= limits.max_lines_per_page:
                    atoms = _with_tables(page, atoms, budget)
            except InputError:
                raise
            except Exception as error:
                if out_of_memory(error):
                    raise
                raise InputError(filename, f"page {number} is damaged and cannot be read ({_short(error)})") from None
            if len(atoms) > limits.max_lines_per_page:
                raise InputError(
                    filename,
                    f"page {number} has {len(atoms)} lines; the limit is {limits.max_lines_per_page} per page",
                )
            rect = page.rect
            rows = _order_page(atoms, rect.width)
            lines += len(rows)
            if lines > limits.max_lines:
                raise InputError(filename, f"has more than {limits.max_lines} lines (at page {number}); "
                                           f"the limit is {limits.max_lines} per document")
            pages.append(_build_page(number, rect.width, rect.height, rows, ocr=textpage is not None and bool(rows)))
    finally:
        doc.close()
    empty = [p.number for p in pages if not p.lines]
    if len(empty) == len(pages):
        raise InputError(
            filename,
            f"has no text layer (page{'s' if len(empty) > 1 else ''} {_page_ranges(empty)}: scanned or image-only); "
            f"{ocr.why_no_text()} — upload a PDF with selectable text",
        )
    pages_tuple = tuple(_make_page({**page.__dict__, "furniture": marks})
                        for page, marks in zip(pages, running_lines(pages)))
    check_cards_against_pages(meta, pages_tuple, filename)
    return Document(meta=meta, kind="pdf", filename=filename, digest=sha256(data), pages=pages_tuple, info=info,
                    warnings=ocr.warnings(pages))


