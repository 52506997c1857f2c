"""The titles of the sections a line sits in: "Building Node.js on supported platforms / Unix and macOS / Building
Node.js" over the line "To build Node.js:".

A window of text rarely repeats the titles above it, and a question names its topic in their words ("How do I build
Node.js on Linux?"): the chunk stage indexes a window's titles with it for word search (`Chunk.section`). Titles are
Markdown's ATX headings ("## Usage", one level per "#") and underlined titles (reStructuredText, setext Markdown; one
level per adornment, in the order a document first uses them), never a "#" comment inside a fenced code block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.text.adornments import FENCE, adornment_lines

_ATX = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
SEPARATOR = " / "
DEPTH = 2  # the innermost titles kept: a document's own title over every line says nothing about one window


def section_titles(texts: Sequence[str]) -> list[str]:
    """For each line of `texts`, the titles of the (at most `DEPTH` innermost) sections it sits in, outermost first,
    joined by `SEPARATOR` ("" before the first title). A title's own line sits in its section."""
    adornments = adornment_lines(texts)
    levels: dict[str, int] = {}  # an underline's character → its level, in the order the text uses them
    open_titles: list[tuple[int, str]] = []  # (level, title) from the outermost
    in_code = False
    out: list[str] = []
    for index, text in enumerate(texts):
        found = None
        if index not in adornments and FENCE.match(text):
            in_code = not in_code
        elif not in_code and (atx := _ATX.match(text)):
            found = (len(atx.group(1)), atx.group(2))
        elif not in_code and index + 1 < len(texts) and index + 1 in adornments and text.strip() and index not in adornments:
            rule = texts[index + 1].strip()[0]
            overlined = index >= 1 and index - 1 in adornments
            level = levels.setdefault(("over" if overlined else "") + rule, 10 + len(levels))
            found = (level, text.strip())
        if found is not None:
            open_titles = [(level, title) for level, title in open_titles if level < found[0]] + [found]
        out.append(SEPARATOR.join(title for _, title in open_titles[-DEPTH:]))
    return out
