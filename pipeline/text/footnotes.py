"""Footnote marks: a name marked in a table's header ("Long Gun *Other **Multiple") is defined by the note that opens
with the same mark ("*Refers to frames, receivers and other firearms …"), wherever the note sits on the page."""

from __future__ import annotations

import re
from functools import lru_cache

_MARK = r"[*†‡§]+"


@lru_cache(maxsize=256)
def _marked(term: str) -> re.Pattern:
    escaped = re.escape(term).replace(r"\ ", r"\s+")
    # "*Other" or "Other*", but not emphasis ("*Other*") nor a mark inside a word.
    return re.compile(rf"(?<![\w*†‡§])({_MARK}){escaped}(?![\w*†‡§])|(?<![\w*†‡§]){escaped}({_MARK})(?![\w*†‡§])", re.I)


def marks_of(term: str, text: str) -> frozenset[str]:
    """The footnote marks `text` attaches to `term` ("*" for "*Other")."""
    return frozenset(m.group(1) or m.group(2) for m in _marked(term).finditer(text))


# A note opens a line with its mark and no space after it ("*Refers to …"; "* item" is a bullet).
NOTE_OPENING = re.compile(rf"^[ \t]*{_MARK}(?=[^\s*†‡§])")


def _note(mark: str) -> re.Pattern:
    """A line opened as the note of exactly this mark ("*Refers …" for "*", not "**Multiple …")."""
    return re.compile(rf"(?m)^[ \t]*{re.escape(mark)}(?![*†‡§\s])")


def holds_note(marks: frozenset[str], text: str) -> bool:
    """Does a line of `text` open as the footnote of one of `marks`?"""
    return any(_note(mark).search(text) for mark in marks)


def opens_note(marks: frozenset[str], quote: str) -> bool:
    """Does `quote` itself open as the footnote of one of `marks`?"""
    return any(_note(mark).match(quote) for mark in marks)
