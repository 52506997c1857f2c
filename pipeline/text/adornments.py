"""Section adornments: the rules reStructuredText and setext Markdown draw under (and over) a title.

A rule of tildes or backticks under a title ("SOCKS Proxies" over "~~~~~~~~~~~~~") is also how Markdown opens a
fenced code block, so a reader that takes every such line for a fence reads the rest of a reST document as code.
A rule is an adornment when it sits directly under one line of text at least as long as the rule requires (reST:
the rule is no shorter than the title), that line opening a paragraph; or directly over such a title whose
underline repeats it. A Markdown fence opens after an empty line or under a sentence longer than itself, so it
is not taken for one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

RULE = re.compile(r"^\s{0,3}([=\-~^*+#`])\1{2,}\s*$")
FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")  # a Markdown code fence (when it is no adornment: `adornment_lines`)


def _rule_char(text: str) -> str | None:
    match = RULE.match(text)
    return match.group(1) if match else None


def _is_title(text: str, rule: str) -> bool:
    title = text.strip()
    return bool(title) and RULE.match(text) is None and len(title) <= len(rule.strip())


def _underlines(texts: Sequence[str], index: int) -> bool:
    """Is line `index` a rule under a one-line title (the line above it opens a paragraph, or sits under an
    overline of the same character)?"""
    if index < 1 or _rule_char(texts[index]) is None or not _is_title(texts[index - 1], texts[index]):
        return False
    if index < 2 or not texts[index - 2].strip():
        return True
    return _rule_char(texts[index - 2]) == _rule_char(texts[index])


def adornment_lines(texts: Sequence[str]) -> frozenset[int]:
    """The indices of the lines of `texts` that are a title's underline or overline, not a code fence."""
    found: set[int] = set()
    for index in range(1, len(texts)):
        if _underlines(texts, index):
            found.add(index)
            if index >= 2 and _rule_char(texts[index - 2]) == _rule_char(texts[index]):
                found.add(index - 2)
    return frozenset(found)


def underline_at(texts: Sequence[str], index: int) -> bool:
    """Is line `index` the underline of the title on the line above it? (A window must not start there.)"""
    return 0 <= index < len(texts) and _underlines(texts, index)
