"""Where a document states its own particulars under a label, other than in a title block: a manual page's AUTHOR
section ("Written by Padraig Brady."), a README's "## Authors", a policy's "Authors:" over its list of names, a
manual's "Version: 3.3" or "Date:" over "November 23, 2020" (elsarticle's sidebar), "Author: Ann Author".

The label stands alone on its line (or ends in a colon before the value); "the author of the package" or "this
version" in a sentence is no label. A version's value holds a number and a date's a date. What a section says of the
manual page itself ("This manual page was written by …") answers only a question about the page.
"""

from __future__ import annotations

import re

from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.text.title_block import FULL_DATE
from pipeline.text.units import Unit

_LABELS = {
    "author": r"(?:authors?|written\s+by|authored\s+by|作者)",
    "version": r"(?:version|release|revision|版本)",
    "date": r"(?:date|dated|last\s+(?:updated|modified|revised)|published|日期)",
}
_VALUE = {"version": re.compile(r"\d"), "date": FULL_DATE}
_OPEN, _CLOSE = r"[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*|__)?", r"(?:\*\*|__)?"
# "AUTHOR", "## Authors", "**Authors:**", "  Authors:", "Authors¶", "Version:"
# (A version or a date needs its colon: "Date" alone heads a table's column.)
_ALONE = {field: re.compile(rf"^{_OPEN}{label}[ \t]*[:：]{'?' if field == 'author' else ''}{_CLOSE}[ \t]*¶?[ \t]*$",
                            re.IGNORECASE | re.MULTILINE)
          for field, label in _LABELS.items()}
# "Author: Ann Author", "- **Version**: 3.3", "Date: 2020-11-23"
_INLINE = {field: re.compile(rf"^[ \t]*(?:[-*][ \t]+)?(?:\*\*|__)?{label}{_CLOSE}[ \t]*[:：][ \t]*{_CLOSE}[ \t]*(?P<value>\S.*)$",
                             re.IGNORECASE)
           for field, label in _LABELS.items()}
_ABOUT_THE_PAGE = re.compile(r"\b(?:manual|man)\s+page\b|\bthis\s+(?:page|manual)\b|手册页", re.IGNORECASE)
_ASKS_OF_THE_PAGE = re.compile(r"\bpage\b|\bmanual\b|手册", re.IGNORECASE)
MAX_LINES = 15  # a list of authors; longer is a section of something else


def labels_field(text: str, field: str) -> re.Match | None:
    """Where `text` (a chunk) labels the field ("author", "version", "date"), or None."""
    return _ALONE[field].search(text) or next((m for line in text.splitlines() if (m := _INLINE[field].match(line))), None)


def labelled_units(source: PackedSource, field: str, question: str) -> list[Unit]:
    """The source's first labelled value of the field, as one unit to quote: an author label's lines under it (or its
    own line, "Author: Ann"); a version's or a date's label with its value; [] when there is none."""
    lines = source.lines
    for index, line in enumerate(lines):
        inline = _INLINE[field].match(line.text)
        if inline and not _ALONE[field].match(line.text):
            body, label = [line], None
            if field in _VALUE and not _VALUE[field].search(inline.group("value")):
                continue
        elif _ALONE[field].match(line.text):
            body, label = _under(lines[index + 1:], 1 if field in _VALUE else MAX_LINES), line
            if field in _VALUE and not (body and _VALUE[field].search(body[0].text)):
                continue
        else:
            continue
        text = "\n".join(line.text for line in body)
        if not body or (_ABOUT_THE_PAGE.search(text) and not _ASKS_OF_THE_PAGE.search(question)):
            continue
        quoted = body if field == "author" or label is None else [label, *body]  # "Version:" over "3.3"
        return [Unit(source, quoted[0].number, quoted[-1].number, "\n".join(line.text for line in quoted),
                     kind="list" if len(quoted) > 1 else "span")]
    return []


def _under(lines: tuple[PackedLine, ...], most: int) -> list[PackedLine]:
    """The lines a label heads: after any blank lines, up to the next blank line, heading or label."""
    body: list[PackedLine] = []
    for line in lines:
        if not line.text.strip():
            if body:
                break
            continue
        if line.role == "heading" or any(alone.match(line.text) for alone in _ALONE.values()) or len(body) == most:
            break
        body.append(line)
    return body
