"""Comparing text, not typography.

`normalized`: NFKC, case-folded, whitespace collapsed (the learned judge's and the highlight's comparisons).
`normalize`: also quotes unified and the spaces between Chinese characters dropped, since Chinese has no spaces
between sentences or lines and a line break there is not a word gap (the containment judge's comparison).
"""

from __future__ import annotations

import re
import unicodedata

_SPACE = re.compile(r"\s+")
_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}]) (?=[{_CJK}\d])|(?<=[{_CJK}\d]) (?=[{_CJK}])")


def normalized(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return _CJK_GAP.sub("", " ".join(text.split()))


def strip_edges(text: str) -> str:
    """The text without surrounding spaces and sentence punctuation."""
    return text.strip(" \t\n.,;:!?。，；：！？")
