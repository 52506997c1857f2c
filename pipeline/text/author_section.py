"""Where a document says who wrote it, other than under its title: a manual page's AUTHOR section ("Written by Padraig
Brady."), a README's "## Authors", a policy's "Authors:" over its list of names, an "Author: Ann Author" line.

The label stands alone on its line (or ends in a colon before the names); "the author of the package" in a sentence
is no label. What a section says of the manual page itself ("This manual page was written by …") answers only a
question about the page.
"""

from __future__ import annotations

import re

from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.text.units import Unit

_LABEL = r"(?:authors?|written\s+by|authored\s+by|作者)"
# "AUTHOR", "## Authors", "**Authors:**", "  Authors:", "Authors¶"
_ALONE = re.compile(rf"^[ \t]*(?:#{{1,6}}[ \t]*)?(?:\*\*|__)?{_LABEL}[ \t]*[:：]?(?:\*\*|__)?[ \t]*¶?[ \t]*$", re.IGNORECASE | re.MULTILINE)
# "Author: Ann Author", "- **Authors**: Ann and Bob"
_INLINE = re.compile(rf"^[ \t]*(?:[-*][ \t]+)?(?:\*\*|__)?{_LABEL}(?:\*\*|__)?[ \t]*[:：][ \t]*(?:\*\*|__)?[ \t]*\S", re.IGNORECASE)
_ABOUT_THE_PAGE = re.compile(r"\b(?:manual|man)\s+page\b|\bthis\s+(?:page|manual)\b|手册页", re.IGNORECASE)
_ASKS_OF_THE_PAGE = re.compile(r"\bpage\b|\bmanual\b|手册", re.IGNORECASE)
MAX_LINES = 15  # a list of authors; longer is a section of something else


def labels_authors(text: str) -> re.Match | None:
    """Where `text` (a chunk) labels its authors, or None."""
    return _ALONE.search(text) or next((m for line in text.splitlines() if (m := _INLINE.match(line))), None)


def author_units(source: PackedSource, question: str) -> list[Unit]:
    """The lines under (or after) the source's author label, as one unit to quote; [] when there is none."""
    lines = source.lines
    for index, line in enumerate(lines):
        if _INLINE.match(line.text) and not _ALONE.match(line.text):
            body = [line]
        elif _ALONE.match(line.text):
            body = _under(lines[index + 1:])
        else:
            continue
        text = "\n".join(line.text for line in body)
        if not body or (_ABOUT_THE_PAGE.search(text) and not _ASKS_OF_THE_PAGE.search(question)):
            continue
        return [Unit(source, body[0].number, body[-1].number, text, kind="list" if len(body) > 1 else "span")]
    return []


def _under(lines: tuple[PackedLine, ...]) -> list[PackedLine]:
    """The lines a label heads: after any blank lines, up to the next blank line, heading or label."""
    body: list[PackedLine] = []
    for line in lines:
        if not line.text.strip():
            if body:
                break
            continue
        if line.role == "heading" or _ALONE.match(line.text) or len(body) == MAX_LINES:
            break
        body.append(line)
    return body
