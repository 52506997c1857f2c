"""A question about one numbered thing: "level 2 headings", "version 1.2.3", "Table 3", "Python 3.9", 第 8 章.

A unit that names the same kind of thing only with other numbers ("Level 3 heading (\\subsubsection): italic …" for
"How are level 2 headings formatted?", "Dropped support for Python 3.8" for "… Python 3.9 …") speaks of another one,
however many words it shares with the question: the number is the one word that tells them apart, and neither the
answer scorer nor the reader weighs it so. A unit that does not name the kind at all, or names the asked number
among others ("Levels 1 and 2", "sections 2–4", "2.1" within "section 2", "Python 3.8 and later"), is not told
apart this way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The words that label a numbered thing in documents: a part of the text, a step of a procedure, a version or a kind.
_LABELS = ("level step table figure fig section chapter part phase stage tier type class category grade version "
           "release option item article clause rule question exercise appendix annex schedule example case lesson "
           "module week layer mode method experiment algorithm equation eq theorem lemma definition footnote "
           "paragraph volume round").split()
_NUMBER = r"v?\d+(?:\.\d+)*[a-z]?\b"
_LABEL = rf"\b(?P<label>{'|'.join(_LABELS)})(?:s|es)?\.?"
# A capitalised name followed by a dotted version: "Python 3.9", "Ubuntu 22.04", "GPL 2.0".
_NAMED_VERSION = r"\b(?P<name>[A-Z][A-Za-z]{1,20})\s+(?P<version>\d+\.\d+(?:\.\d+)*[a-z]?)\b"
_LABELLED = re.compile(rf"{_LABEL}\s+(?P<number>{_NUMBER})", re.IGNORECASE)
_NAMED = re.compile(_NAMED_VERSION)
_JOIN = r"\s*(?:,|&|and|or|to|through|[-–—~])\s*"
_OPEN_ENDED = re.compile(r"\s*(?:\+|(?:and|or)\s+(?:later|newer|above|higher|up|earlier|older|below|lower)\b)", re.IGNORECASE)

_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_ZH_KINDS = "章|节|条|款|项|步|级|部分|课|版"
_ZH_NUMBER = r"(?:\d+|[一二两三四五六七八九十])"
_ZH = re.compile(rf"第\s*(?P<number>{_ZH_NUMBER}(?:\s*(?:和|、|与|或|至|到)\s*第?\s*{_ZH_NUMBER})*)\s*(?P<label>{_ZH_KINDS})"
                 r"|(?P<label2>表|图|步骤)\s*(?P<number2>\d+)")


@dataclass(frozen=True)
class NumberedReference:
    """A kind of numbered thing ("level", "python", "章") and the numbers the question asks of it."""

    label: str
    numbers: frozenset[str]

    def named_otherwise(self, text: str) -> bool:
        """Does `text` name this kind of thing, only ever with other numbers?"""
        named = _numbers_named(self.label, text)
        if not named or None in named:
            return False
        return not any(_same(asked, number) for asked in self.numbers for number in named if number is not None)


def numbered_references(question: str) -> list[NumberedReference]:
    """The numbered things a question names, one per kind."""
    asked: dict[str, set[str]] = {}
    for found in _LABELLED.finditer(question):
        asked.setdefault(_label(found.group("label")), set()).add(_plain(found.group("number")))
    for found in _NAMED.finditer(question):
        if _label(found.group("name")) not in asked:  # "Version 2.0" is a label's
            asked.setdefault(found.group("name").casefold(), set()).add(_plain(found.group("version")))
    for found in _ZH.finditer(question):
        label, number = (found.group("label"), found.group("number")) if found.group("label") else (
            found.group("label2"), found.group("number2"))
        asked.setdefault(label, set()).update(_plain(n) for n in re.findall(_ZH_NUMBER, number))
    # "Is the Apache License 2.0 compatible with the GPL version 3?": a unit's "Version 2.0" is one the question asks
    # about, under another name; any number the question gives counts for every kind it names.
    every = frozenset(number for numbers in asked.values() for number in numbers)
    return [NumberedReference(label, every) for label in asked]


def _label(word: str) -> str:
    word = word.casefold().rstrip(".")
    return {"fig": "figure", "eq": "equation"}.get(word, word)


def _plain(number: str) -> str:
    number = number.casefold().removeprefix("v")
    if number in _ZH_DIGITS:
        return str(_ZH_DIGITS[number])
    return re.sub(r"(?:\.0)+$", "", number)


def _numbers_named(label: str, text: str) -> list[str | None]:
    """Every number `text` gives this kind of thing (a range's every integer); None for an open-ended one ("3.8 and
    later"), which may be any."""
    if not label.isascii():
        return [_plain(n) for m in _ZH.finditer(text) if (m.group("label") or m.group("label2")) == label
                for n in re.findall(_ZH_NUMBER, m.group("number") or m.group("number2"))]
    words = {"figure": "fig|figure", "equation": "eq|equation"}.get(label, re.escape(label))
    pattern = re.compile(rf"\b(?:{words})(?:s|es)?\.?\s+(?P<numbers>{_NUMBER}(?:{_JOIN}{_NUMBER})*)", re.IGNORECASE)
    named: list[str | None] = []
    for found in pattern.finditer(text):
        if _OPEN_ENDED.match(text, found.end()):
            named.append(None)
            continue
        named.extend(_expanded(found.group("numbers")))
    return named


def _expanded(numbers: str) -> list[str]:
    """"1 and 2" → 1, 2; "2–4" → 2, 3, 4 (integers only)."""
    out: list[str] = []
    for part in re.split(r"\s*(?:,|&|\band\b|\bor\b)\s*", numbers):
        bounds = re.split(r"\s*(?:\bto\b|\bthrough\b|[-–—~])\s*", part)
        if len(bounds) == 2 and all(b.isdigit() for b in bounds) and int(bounds[0]) <= int(bounds[1]) <= int(bounds[0]) + 50:
            out.extend(str(n) for n in range(int(bounds[0]), int(bounds[1]) + 1))
        else:
            out.extend(_plain(b) for b in bounds if b)
    return out


def _same(asked: str, named: str) -> bool:
    """The same number, or one within the other ("2.1" within "2", "3.9.1" within "3.9")."""
    return asked == named or named.startswith(asked + ".") or asked.startswith(named + ".")
