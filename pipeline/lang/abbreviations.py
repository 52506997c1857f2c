"""Abbreviations a document defines ("angle of attack (AOA)", "Flight Control Computer (FCC)").

People ask in the long form ("the angle-of-attack sensor test") where a table says "AOA sensor
system test", or the other way round; word coverage sees no shared word. The document itself
says what its abbreviations stand for, so the composer may count either form as the other.

Found by the Schwartz–Hearst rule (Pac. Symp. Biocomputing 2003): a short form of 2–10
characters in parentheses, with a capital letter, whose letters occur in order in the words just
before it, its first letter starting a word. Only definitions the document writes are used: no
dictionary, nothing guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SHORT_IN_PARENS = re.compile(r"\(\s*(?:or\s+|i\.e\.,?\s+)?([A-Za-z][\w&/.-]{0,8}[A-Za-z0-9])\s*\)")
_WORD = re.compile(r"[\w'’&/-]+")
MAX_ABBREVIATIONS = 200  # per document: a bound on work, far above what real documents define


def _long_form(words: list[str], short: str) -> str | None:
    """The shortest run of trailing `words` whose characters hold `short`'s letters in order, the first
    starting a word (Schwartz–Hearst, right to left); None if there is none."""
    letters = [c.lower() for c in short if c.isalnum()]
    text = " ".join(words).lower()
    s, t = len(letters) - 1, len(text) - 1
    while s >= 0:
        wanted = letters[s]
        while t >= 0 and (text[t] != wanted or (s == 0 and t > 0 and text[t - 1].isalnum())):
            t -= 1
        if t < 0:
            return None
        s, t = s - 1, t - 1
    start = text.rfind(" ", 0, t + 1) + 1
    found = " ".join(words)[start:]
    return found if len(found.split()) >= 2 or len(found) > len(short) else None


def defined_abbreviations(texts: Iterable[str]) -> dict[str, str]:
    """Short form → long form for every abbreviation the texts define (the first definition wins)."""
    found: dict[str, str] = {}
    for text in texts:
        flat = re.sub(r"-\s*\n\s*", "-", text).replace("\n", " ")
        for match in _SHORT_IN_PARENS.finditer(flat):
            short = match.group(1)
            if short in found or not any(c.isupper() for c in short) or short.lower() == short:
                continue
            before = _WORD.findall(flat[max(0, match.start() - 200):match.start()])
            window = before[-min(len(short) + 5, 2 * len(short)):]
            long = _long_form(window, short)
            if long and long.lower() != short.lower():
                found[short] = long
                if len(found) >= MAX_ABBREVIATIONS:
                    return found
    return found


def expand_tokens(tokens: set[str], pairs: list[tuple[frozenset[str], frozenset[str]]]) -> set[str]:
    """`tokens` with each abbreviation's other form added: the long form's words where the short form
    occurs, the short form where all the long form's words do. `pairs` are (short, long) token sets."""
    expanded = set(tokens)
    for short, long in pairs:
        if short <= tokens:
            expanded |= long
        elif long and long <= tokens:
            expanded |= short
    return expanded
