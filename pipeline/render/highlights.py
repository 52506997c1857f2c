"""Highlights: the cited span on the PDF page image, or in the text as HTML.

A highlight is span-level: the quote is located within its cited lines (tolerant to line
breaks, spacing, curly quotes and dashes), and only the words that span covers are filled —
one rectangle per line segment, table cells kept apart. Verified citations are green, dropped
ones orange-red, and each carries a text label with a ✓/✗ mark so colour is never the only cue.

Inside a cited span, the sentence(s) the support judge found to say the claim are marked apart
from the rest of the span: on a PDF page a second (deeper) green fill, a solid dark frame and an
underline around their words; in text a deeper green <mark class="support"> with an underline and a
title — a shape, not only a colour, so the difference survives greyscale and colour blindness, and
still green, so "verified" keeps its one colour.
"""

from __future__ import annotations

from bisect import bisect_right

from pydantic import BaseModel, ConfigDict

from pipeline.core.contracts import Box, Page

DEFAULT_ZOOM = 1.5
VERIFIED_RGB = (0.0, 0.62, 0.23)
DROPPED_RGB = (0.87, 0.27, 0.0)
CHUNK_RGB = (0.35, 0.45, 0.85)
SUPPORT_RGB = (0.0, 0.30, 0.12)  # the supporting sentence's frame and underline: dark green over the span's fill
FILL_OPACITY = 0.35


class Highlight(BaseModel):
    model_config = ConfigDict(frozen=True)

    page: int | None = None
    start_line: int
    end_line: int
    quote: str | None = None
    verified: bool
    label: str
    short_label: str = ""  # what a tight page has room for beside the highlight ("3-4 verified")
    chunk_start: int | None = None
    chunk_end: int | None = None
    support: tuple[tuple[int, int], ...] = ()  # the supporting sentences' code-point spans in the page text


def highlight_for(citation) -> Highlight:
    """The highlight of one answer citation (verified or dropped), labelled in words."""
    status = "verified" if citation.verified else "dropped: " + ", ".join(citation.failed_checks)
    lines = f"{citation.start_line}" if citation.start_line == citation.end_line else f"{citation.start_line}-{citation.end_line}"
    return Highlight(
        page=citation.page, start_line=citation.start_line, end_line=citation.end_line,
        quote=citation.quote or None, verified=citation.verified, label=f"{citation.source_id} {lines} {status}",
        short_label=f"{lines} {'verified' if citation.verified else 'dropped'}",
        support=tuple((s.start, s.end) for s in getattr(citation, "support", ()) or ()),
    )


# --------------------------------------------------------------------------- spans


_QUOTES = {"‘": "'", "’": "'", "‚": "'", "‛": "'", "`": "'", "´": "'", "′": "'",
           "“": "''", "”": "''", "„": "''", "‟": "''", '"': "''", "″": "''",
           "–": "-", "—": "-", "‐": "-", "‑": "-", "‒": "-", "−": "-", "\u00ad": ""}


def _canon(text: str, base: int, fold: bool, drop_hyphens: bool) -> tuple[str, list[int]]:
    """Text without whitespace, quotes/dashes unified; with each output char's source offset."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        ch = _QUOTES.get(ch, ch)
        if drop_hyphens and ch == "-":
            continue
        if fold:
            ch = ch.casefold()
        for c in ch:
            out.append(c)
            where.append(base + i)
    return "".join(out), where


def line_range_span(page: Page, start_line: int, end_line: int) -> tuple[int, int]:
    """Code-point span of lines start_line..end_line (1-based, clamped to the page)."""
    if not page.lines:
        return 0, 0
    first = min(max(start_line, 1), len(page.lines))
    last = min(max(end_line, first), len(page.lines))
    return page.lines[first - 1].start, page.lines[last - 1].end


def quote_span(page: Page, start_line: int, end_line: int, quote: str | None) -> tuple[int, int]:
    """Where `quote` lies within the cited lines, as a code-point span of `page.text`.

    Whitespace (spaces, line breaks, tabs) is ignored on both sides, curly and straight quotes
    and dashes compare equal; then case is ignored; then hyphens (a word broken across lines).
    Falls back to the whole line range when the quote is None or not found there.
    """
    start, end = line_range_span(page, start_line, end_line)
    if not quote or not quote.strip() or start == end:
        return start, end
    region = page.text[start:end]
    for fold, drop_hyphens in ((False, False), (True, False), (True, True)):
        hay, where = _canon(region, start, fold, drop_hyphens)
        needle, _ = _canon(quote, 0, fold, drop_hyphens)
        if not needle:
            break
        found = hay.find(needle)
        if found >= 0:
            return where[found], where[found + len(needle) - 1] + 1
    return start, end


def span_boxes(page: Page, start: int, end: int, split_cells: bool = True) -> list[Box]:
    """Boxes of the words overlapping [start, end), one rectangle per line segment.

    A word only partly inside the span is cut in proportion to its characters; a line's words
    are merged into one rectangle, except across a table-cell separator (TAB).
    """
    boxes: list[Box] = []
    if end <= start or not page.lines:
        return boxes
    starts = [line.start for line in page.lines]
    index = max(bisect_right(starts, start) - 1, 0)
    for line in page.lines[index:]:
        if line.start >= end:
            break
        if line.end <= start:
            continue
        segment: list[float] | None = None
        previous_end = None
        for word in line.words:
            if word.end <= start or word.start >= end:
                continue
            lo, hi = max(word.start, start), min(word.end, end)
            length = word.end - word.start
            b = word  # a Word carries its box coordinates
            x0 = b.x0 + (b.x1 - b.x0) * (lo - word.start) / length
            x1 = b.x0 + (b.x1 - b.x0) * (hi - word.start) / length
            broken = split_cells and previous_end is not None and "\t" in page.text[previous_end:word.start]
            if segment is None or broken:
                if segment is not None:
                    boxes.append(Box(x0=segment[0], y0=segment[1], x1=segment[2], y1=segment[3]))
                segment = [x0, b.y0, x1, b.y1]
            else:
                segment = [min(segment[0], x0), min(segment[1], b.y0), max(segment[2], x1), max(segment[3], b.y1)]
            previous_end = word.end
        if segment is not None:
            boxes.append(Box(x0=segment[0], y0=segment[1], x1=segment[2], y1=segment[3]))
    return boxes


def _blocks(boxes: list[Box]) -> list[Box]:
    """Union consecutive line boxes that stack in one column (never across columns)."""
    blocks: list[list[float]] = []
    for b in boxes:
        if blocks:
            last = blocks[-1]
            height = b.y1 - b.y0
            stacked = b.y0 - last[3] < 1.5 * height and min(last[2], b.x1) - max(last[0], b.x0) > 0
            if stacked:
                blocks[-1] = [min(last[0], b.x0), min(last[1], b.y0), max(last[2], b.x1), max(last[3], b.y1)]
                continue
        blocks.append([b.x0, b.y0, b.x1, b.y1])
    return [Box(x0=a, y0=b, x1=c, y1=d) for a, b, c, d in blocks]


# --------------------------------------------------------------------------- text HTML


