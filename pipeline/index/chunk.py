"""Chunk: lines and authored cards → addressed pieces with a parent span (seed 000, §45.2).

- Line chunks: one per source line, for diagnosing bad boundaries.
- Card chunks: the authored cards; their parent is the annotated support span.
- Window chunks: at most 800 code points, ending at a paragraph or sentence boundary where
  one is near, with about 100 of overlap (a whole sentence where possible) over the lines no
  card covers, never crossing a page (seed 002). Each window keeps its own code-point offsets into the
  page text, so the overlap carried from the previous window keeps its address (and boxes).
"""

from __future__ import annotations

import bisect
import hashlib
import re

from pipeline.core.contracts import Chunk, Document, IndexSettings, Line, Page, Span
from pipeline.lang.tokenize import is_cjk_char
from pipeline.text.adornments import underline_at
from pipeline.text.sections import section_titles
from pipeline.text.tables import HeadingsAbove, known_header

WINDOW_SIZE = IndexSettings.model_fields["chunk_window"].default
WINDOW_OVERLAP = IndexSettings.model_fields["chunk_overlap"].default
_SENTENCE_END = re.compile(r"[.!?。！？；;](?=\s|$)|[。！？；]")


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _page_tag(page: int | None) -> str:
    return f"p{page}" if page is not None else ""


def line_chunks(document: Document) -> list[Chunk]:
    return [
        Chunk(
            chunk_id=f"{document.source_id}#{_page_tag(page.number)}L{line.number}",
            source_id=document.source_id,
            kind="line",
            text=line.text,
            parent=Span(page=page.number, start_line=line.number, end_line=line.number),
            start=line.start,
            end=line.end,
            content_hash=content_hash(line.text),
        )
        for page in document.pages
        for line in page.lines
    ]


def card_chunks(document: Document) -> list[Chunk]:
    return [
        Chunk(
            chunk_id=f"{document.source_id}#card:{card.id}",
            source_id=document.source_id,
            kind="card",
            text=card.text,
            parent=Span(page=card.page, start_line=card.start_line, end_line=card.end_line),
            card_id=card.id,
            content_hash=content_hash(card.text),
        )
        for card in document.meta.cards
    ]


def _uncovered_runs(document: Document, page: Page) -> list[list[Line]]:
    """Consecutive non-empty lines of `page` that no card covers."""
    covered = set()
    for card in document.meta.cards:
        if card.page == page.number:
            covered.update(range(card.start_line, card.end_line + 1))
    runs: list[list[Line]] = [[]]
    for line in page.lines:
        if line.number in covered:
            runs.append([])
        elif line.text.strip():
            runs[-1].append(line)
    return [run for run in runs if run]


def _cut_point(text: str, start: int, limit: int, hard_end: int, size: int) -> int:
    """Best end for a window starting at `start`: a paragraph break, a sentence end, a line
    break, then a space — so a window rarely ends mid-sentence (PDF lines are visual lines)."""
    if limit >= hard_end:
        return hard_end
    floor = start + size // 2
    paragraph = text.rfind("\n\n", floor, limit)
    if paragraph > floor:
        return paragraph
    sentence_ends = [m.end() for m in _SENTENCE_END.finditer(text, floor, limit)]
    if sentence_ends:
        return sentence_ends[-1]
    for separator in ("\n", " "):
        position = text.rfind(separator, floor, limit)
        if position > floor:
            return position
    return limit


def _next_start(text: str, end: int, start: int, overlap: int) -> int:
    """Where the next window starts: about `overlap` before `end`, at a sentence start if
    one is near, otherwise at a word start, so no word is cut in two."""
    earliest = max(end - 2 * overlap, start + 1)
    sentence_ends = [m.end() for m in _SENTENCE_END.finditer(text, earliest, max(end - 10, earliest))]
    line_start = text.rfind("\n", earliest, max(end - 10, earliest)) + 1
    if sentence_ends:
        position = sentence_ends[-1]
    elif line_start > earliest:  # a line start: a table row or a PDF line is not cut in two
        position = line_start
    else:
        position = max(end - overlap, start + 1)
        while position < end and not text[position - 1].isspace() and not is_cjk_char(text[position]):
            position += 1
    while position < end and text[position].isspace():
        position += 1
    return _not_under_a_title(text, position, start) if position < end else end


def _not_under_a_title(text: str, position: int, start: int) -> int:
    """`position`, or the start of the title above it when it opens a title's underline ("SOCKS Proxies" over
    "~~~~~~~~~~~~~"): a window that opened on the rule would read it as a code fence, without its title."""
    if position == 0 or text[position - 1] != "\n":
        return position
    title_start = text.rfind("\n", 0, position - 1) + 1
    above_start = text.rfind("\n", 0, max(title_start - 1, 0)) + 1 if title_start else title_start
    line_end = text.find("\n", position)
    lines = [text[above_start:max(title_start - 1, above_start)], text[title_start:position - 1],
             text[position:line_end if line_end >= 0 else len(text)]]
    return title_start if title_start > start and underline_at(lines, 2) else position


def _windows(page: Page, run: list[Line], size: int, overlap: int) -> list[tuple[int, int]]:
    text, start, hard_end = page.text, run[0].start, run[-1].end
    spans = []
    while start < hard_end:
        end = _cut_point(text, start, start + size, hard_end, size)
        trimmed_start, trimmed_end = start, end
        while trimmed_start < trimmed_end and text[trimmed_start].isspace():
            trimmed_start += 1
        while trimmed_end > trimmed_start and text[trimmed_end - 1].isspace():
            trimmed_end -= 1
        if trimmed_end > trimmed_start:
            spans.append((trimmed_start, trimmed_end))
        if end >= hard_end:
            break
        start = _next_start(text, end, start, overlap)
    return spans


class _LineFinder:
    """The lines a span touches, by binary search over the page's line offsets (ascending):
    scanning every line for every window would make chunking quadratic."""

    def __init__(self, page: Page) -> None:
        self.lines = page.lines
        self.starts = [line.start for line in page.lines]
        self.ends = [line.end for line in page.lines]

    def touching(self, start: int, end: int) -> tuple[int, int]:
        """First and last line number with line.start < end and line.end > start."""
        first = bisect.bisect_right(self.ends, start)
        last = bisect.bisect_left(self.starts, end) - 1
        return self.lines[first].number, self.lines[last].number


CONTINUATION_CHARS = 300  # at most this much of the previous page's unfinished sentence is carried as context
MIN_BODY_LINES = 10


def _body_lines(page: Page) -> list[Line]:
    """The page's lines of text, running heads, feet and page numbers aside."""
    return [line for line in page.lines if line.text.strip() and line.number not in page.furniture]


def continued_sentence(document: Document, page: Page) -> str:
    """The start of the sentence a PDF page's first line finishes, from the end of the previous page ("… a Boeing
    Model 737–8 airplane operated by Lion Air … after takeoff from Soekarno-" before "Hatta International Airport …,
    resulting in 189 fatalities."); "" when the previous page ends its sentence. Context, never cited: a chunk
    never crosses a page, so without it the page's first window does not say what its first sentence is about."""
    previous = document.page_for(page.number - 1) if document.paged and page.number else None
    if previous is None:
        return ""
    body = _body_lines(previous)
    if len(body) < MIN_BODY_LINES:  # a scanned page's text layer holds little but stamps: nothing to continue
        return ""
    # A line that runs across columns ("methods:\treference …\taccident after takeoff from Soekarno-") ends, in
    # reading order, with its last column's cell.
    tail = " ".join(line.text.split("\t")[-1].strip() for line in body[-6:])
    if not tail or _SENTENCE_END.search(tail[-1:]) or tail.endswith((":", "：")):
        return ""
    ends = [m.end() for m in _SENTENCE_END.finditer(tail)]
    return tail[ends[-1]:].strip()[-CONTINUATION_CHARS:] if ends else tail[-CONTINUATION_CHARS:]


def _first_body_line(page: Page) -> int:
    """The number of the page's first line of body text (running heads aside); 0 for a page without any."""
    body = _body_lines(page)
    return body[0].number if body else 0


def opens_page(page: Page, line_number: int) -> bool:
    """Does `line_number` open the page's body text (no body line before it; running heads aside)?"""
    return line_number <= _first_body_line(page)


def window_chunks(document: Document, size: int = WINDOW_SIZE, overlap: int = WINDOW_OVERLAP) -> list[Chunk]:
    chunks = []
    for page in document.pages:
        lines = _LineFinder(page)
        heading_above = HeadingsAbove([line.text for line in page.lines])  # one pass per page, not per window
        sections = section_titles([line.text for line in page.lines])
        index_of = {line.number: i for i, line in enumerate(page.lines)}
        continued = continued_sentence(document, page)
        body_start = _first_body_line(page) if continued else 0  # once per page: a 5 MB text has one page
        for run in _uncovered_runs(document, page):
            for start, end in _windows(page, run, size, overlap):
                first, last = lines.touching(start, end)
                text = page.text[start:end]
                known = known_header(page, first) if page.tables else None
                heading = (known if known is not None else heading_above(index_of[first])) or (
                    continued if first <= body_start else "")
                chunks.append(
                    Chunk(
                        chunk_id=f"{document.source_id}#{_page_tag(page.number)}w{start}-{end}",
                        source_id=document.source_id,
                        kind="window",
                        text=text,
                        parent=Span(page=page.number, start_line=first, end_line=last),
                        start=start,
                        end=end,
                        content_hash=content_hash(text),
                        heading=heading,
                        section=sections[index_of[first]],
                    )
                )
    return chunks


def retrieval_chunks(document: Document, size: int = WINDOW_SIZE, overlap: int = WINDOW_OVERLAP) -> list[Chunk]:
    """Cards where authored, windows over every line no card covers."""
    return card_chunks(document) + window_chunks(document, size, overlap)


class Chunker:
    """The chunk stage with its index settings: document → retrieval chunks (cards and windows)."""

    def __init__(self, size: int = WINDOW_SIZE, overlap: int = WINDOW_OVERLAP):
        if not 0 <= overlap < size:
            raise ValueError(f"chunk overlap {overlap} must be smaller than the window {size}")
        self.size, self.overlap = size, overlap

    def __call__(self, document: Document) -> list[Chunk]:
        return retrieval_chunks(document, self.size, self.overlap)
