"""Comparing text, not typography.

Both join a word broken at a line end ("ra-\ndio"), as an answer shows it.
`normalized`: NFKC, case-folded, whitespace collapsed (the learned judge's and the highlight's comparisons).
`normalize`: also quotes unified and the spaces between Chinese characters dropped, since Chinese has no spaces
between sentences or lines and a line break there is not a word gap (the containment judge's comparison).
"""

from __future__ import annotations

import re
import unicodedata

_SPACE = re.compile(r"\s+")
# A word broken at a line end by a hyphen ("ra-" over "dio"): a letter, "-", the line break, a lower-case letter.
LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=[a-zà-öø-ÿ])")


def join_hyphenated(text: str) -> str:
    """The text with words broken at line ends joined ("ra-\ndio" → "radio"): for comparing and showing, never
    for quoting (a quote keeps the source's exact text). A compound broken at its own hyphen ("well-\nknown")
    loses it too: both sides of a comparison are joined alike."""
    return LINE_END_HYPHEN.sub("", text) if "-" in text and "\n" in text else text
_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}]) (?=[{_CJK}\d])|(?<=[{_CJK}\d]) (?=[{_CJK}])")


def normalized(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", join_hyphenated(text)).casefold()).strip()


def normalize(text: str) -> str:
    text = unicodedata.normalize("NFKC", join_hyphenated(text)).casefold()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return _CJK_GAP.sub("", " ".join(text.split()))


def strip_edges(text: str) -> str:
    """The text without surrounding spaces and sentence punctuation."""
    return text.strip(" \t\n.,;:!?。，；：！？")
