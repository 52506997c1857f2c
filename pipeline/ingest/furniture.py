"""Running heads, running feet and page numbers: lines a paged document repeats on most pages.

"Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules 47699" tops
every page of a Federal Register issue; a journal repeats its title and a page number. Such a
line is layout, not content: read as prose it glues itself into the sentence that continues from
the previous page ("… Rules 47699 Hatta International Airport …"). The lines stay in the page
and keep their numbers (citations and highlights stay exact); the page only records which they
are, so that evidence units never quote them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from pipeline.core.contracts import Line, Page

ZONE = 2  # lines at the top and at the bottom of a page where running lines sit
MIN_PAGES = 3  # fewer pages than this repeat nothing reliably
SHARE = 0.5  # a running line appears in the zone of at least this share of the pages
_DIGITS = re.compile(r"\d+")


def _key(text: str) -> str:
    """The line with its numbers blanked and its cells in a fixed order: the page number moves
    from the right to the left cell on facing pages, and changes on every page."""
    cells = [" ".join(_DIGITS.sub("#", cell).casefold().split()) for cell in text.split("\t")]
    return " | ".join(sorted(cell for cell in cells if cell))


def _zone(page: Page):
    lines = [line for line in page.lines if line.text.strip()]  # an RFC page pads its head with blank lines
    return lines if len(lines) <= 2 * ZONE else (*lines[:ZONE], *lines[-ZONE:])


def running_lines(pages: Sequence[Page]) -> list[tuple[int, ...]]:
    """For each page, the numbers of its lines that repeat in the top or bottom zone of most pages."""
    if len(pages) < MIN_PAGES:
        return [() for _ in pages]
    zones = [{line.number: _key(line.text) for line in _zone(page)} for page in pages]
    counts = Counter(key for keys in zones for key in set(keys.values()) if key)
    needed = max(MIN_PAGES, math.ceil(SHARE * len(pages)))
    running = {key for key, count in counts.items() if count >= needed}
    pieces = {piece for key in running for piece in _PIECE_SEPARATOR.split(key) if len(piece.split()) >= 2} - {""}
    return [tuple(sorted({number for number, key in keys.items() if key in running}
                         | {line.number for line in page.lines if _key(line.text) in pieces}))
            for page, keys in zip(pages, zones)]


# A running head's pieces ("Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules"): a
# page that prints its head in separate blocks (a first page's masthead) may set one of them, alone on its line,
# into the middle of a column ("… The most helpful comments / Thursday, August 6, 2020 / proposal, explain …").
_PIECE_SEPARATOR = re.compile(r"\s+/\s+| \| ")


def running_lines_of_text(lines: Sequence[Line]) -> tuple[int, ...]:
    """A text file paged with form feeds (an RFC: "RFC 7519   JSON Web Token   May 2015" atop each
    page, "Jones, et al.   Standards Track   [Page 3]" below it): the running lines of its pages."""
    pages, current = [], []
    for line in lines:
        if "\f" in line.text and current:
            pages.append(Page(text="", lines=tuple(current)))
            current = []
        current.append(line)
    pages.append(Page(text="", lines=tuple(current)))
    return tuple(number for marks in running_lines(pages) for number in marks)
