"""The names a text gives: places (jieba's place tag, in Chinese), runs of capitalised words (in English), and
whether another text mentions them (case, accents, dashes, word endings and initials folded).
"""

from __future__ import annotations

import re
import unicodedata

import rjieba

from pipeline.lang.tokenize import HAN_RUN

_PLACE_TAG = "ns"  # jieba's tag for a place name


# jieba tags "两国" ("the two countries") as a place: a number or a quantifier before 国/地/省/市 … names none
# (多伦多 and 外滩 still do).
_COUNTED = re.compile(r"^[一二两三四五六七八九十几多各全本该此外诸邻][国地方省市州县岸]$")


def chinese_place_names(text: str) -> list[str]:
    """The place names jieba's dictionary tags in the Han runs of `text` (上海, 北京; not 两国)."""
    names = [word for run in HAN_RUN.findall(text) for word, tag in rjieba.tag(run)
             if tag == _PLACE_TAG and len(word) >= 2 and not _COUNTED.match(word)]
    return list(dict.fromkeys(names))


_CAPITALISED_RUN = re.compile(r"(?<![\w'’])[A-Z][\w]*(?:[-–][\w]+)*(?:\s+[A-Z][\w]*(?:[-–][\w]+)*)*")


# Pronouns and titles: "Senator Hawley" is named by "SEN HAWLEY", "Dr Li" by "Li".
_NOT_NAMES = frozenset("I I'm I've OK Mr Mrs Ms Dr St Sen Senator President King Queen Prince Princess Lord Lady Sir "
                       "General Captain Professor Prof Doctor Judge Governor Mayor Minister Secretary Chairman "
                       "Director Manager Officer Saint".split())


# Words that only qualify a name ("Great Britain", "New World", "North America"): the rest of it must be there.
_QUALIFIERS = frozenset("new old great north south east west northern southern eastern western upper lower united "
                        "central greater little grand holy".split())


TITLE_CASE_SHARE = 0.6  # a question with most words capitalised is in title case: capitals say nothing


_SENTENCE_END = re.compile(r"[.?!]['’\"”)]*\s+$")


def english_names(text: str) -> list[str]:
    """Runs of capitalised words past the first word of each of a question's sentences ("Beijing", "Senator Hawley",
    "Great Britain", "FAA"): the names it asks about. No tagger ships offline for English; a capital inside a sentence is
    the cue people write."""
    words = re.findall(r"[A-Za-z][\w'’-]*", text)
    if not words or (len(words) > 3 and sum(w[0].isupper() for w in words) > TITLE_CASE_SHARE * len(words)):
        return []
    first = re.match(r"\W*[A-Za-z][\w'’-]*", text)
    names = []
    for run in _CAPITALISED_RUN.finditer(text, first.end() if first else 0):
        words = run.group(0).split()
        if _SENTENCE_END.search(text, 0, run.start()):  # "My password has a slash. What …": a sentence's first word
            words = words[1:]
        kept = [w for w in words if w not in _NOT_NAMES and len(w) > 1]
        if kept:
            names.append(" ".join(kept))
    return list(dict.fromkeys(names))


# A claim's proper names: capitalised alphabetic words ("Guangzhou", "Monday"), not acronyms or gene-like codes
# ("FAA", "NLRP3", "c-Myc"), which scientific claims define and abbreviate in their own way.
_PROPER_WORD = re.compile(r"[A-Z][a-z]{2,}")


_FIRST_POSSESSIVE = re.compile(r"\W*([A-Z][a-z]{2,})['’]s\b")


def defined_abbreviation(claim: str, name: str) -> str | None:
    """The abbreviation a claim defines for a name: "Apolipoprotein E4 (APOE4)" → "APOE4"."""
    found = re.search(rf"{re.escape(name)}[\w\s-]{{0,40}}?\(([A-Za-z][\w-]{{1,12}})\)", claim)
    return found.group(1) if found else None


def proper_names(claim: str) -> list[str]:
    """The proper names a claim states: past its first word (english_names), and a first word in the possessive
    ("Guangzhou's allowance …")."""
    names = [" ".join(w for w in name.split() if _PROPER_WORD.fullmatch(w.removesuffix("'s").removesuffix("’s")))
             for name in english_names(claim)]
    first = _FIRST_POSSESSIVE.match(claim)
    # "c-Myc", "PD-1+Eomes+CD8", "β1/Ketel": a word inside a code is part of the code
    names = [n for n in names if n and not re.search(rf"[-–+/]{re.escape(n)}|{re.escape(n)}[+/]", claim)]
    return list(dict.fromkeys(([first.group(1)] if first else []) + names))


def _fold(text: str) -> str:
    """Case, accents and dash kinds folded: "Möngke" is "Mongke", "PC–12" is "PC-12"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return re.sub(r"[‐‑‒–—−]", "-", "".join(ch for ch in decomposed if not unicodedata.combining(ch)))


def name_words(text: str) -> list[str]:
    """A person's name as compared word by word: case, accents and dashes folded, footnote marks and punctuation apart
    ("John H. Lienhard1,†" → john, h, lienhard; "Hernández" → hernandez)."""
    return re.findall(r"[^\W\d_]+", _fold(text))


_INNER_STOP = re.compile(r"(?<=\w)\.(?=\w)")  # "Ph.D." is how a text writes "PhD"
_LETTERS_DASH_DIGITS = re.compile(r"([^\W\d_])-(\d)")  # "SHA-512" is how another text writes "SHA512"


def unmentioned_names(names: list[str], text: str) -> list[str]:
    """The names of `names` that `text` does not mention. A name is mentioned when one of its words (not a
    mere qualifier like "Great" or "New") starts a word of the text, its last letters free: "Normans" by
    "Norman", "European" by "Europe", "Hawley's" by "HAWLEY", "Great Britain" by "Britain", "CAs" by "CA"."""
    folded = _fold(text)
    folded = f"{folded}\n{_INNER_STOP.sub('', folded)}" if _INNER_STOP.search(folded) else folded
    if _LETTERS_DASH_DIGITS.search(folded):
        folded = folded + "\n" + _LETTERS_DASH_DIGITS.sub(r"\1\2", folded)
    missing = []
    for name in names:
        words = [w for w in _fold(name).replace("'s", "").replace("’s", "").split() if w not in _QUALIFIERS] or _fold(name).split()
        words = [_LETTERS_DASH_DIGITS.sub(r"\1\2", w) for w in words]
        if not any(re.search(rf"(?<![\w-]){re.escape(w[: max(4, len(w) - 3)])}", folded) for w in words) \
                and not _initials_in(name, text) and not _acronym_part_in(name, text) \
                and not ((plural := _PLURAL_ACRONYM.fullmatch(name)) and _acronym_written(plural.group(1), text)):
            missing.append(name)
    return missing


# An acronym's plural ("CAs", "APIs") names what its singular names.
_PLURAL_ACRONYM = re.compile(r"([A-Z]{2,})s")


def _acronym_written(acronym: str, text: str) -> bool:
    """Is the acronym written, as such (its case kept: "CA" is not "can") or by its stops ("U.S.")?"""
    return _initials_in(acronym, text) or re.search(rf"\b{acronym}\b", text) is not None


def _acronym_part_in(name: str, text: str) -> bool:
    """A hyphenated name led by an acronym ("US-registered", "EU-funded") names what the acronym names."""
    head = re.match(r"([A-Z]{2,5})[-–]\w", name)
    return bool(head) and _acronym_written(head.group(1), text)


def _initials_in(name: str, text: str) -> bool:
    """Is a name of several words written by its capitals ("United States" as "U.S." or "US", "European Union"
    as "EU"), or an acronym with stops ("US" as "U.S.")? Case counts: "us" is not the United States."""
    words = name.split()
    if len(words) == 1 and 2 <= len(name) <= 5 and name.isalpha() and name.isupper():
        capitals = list(name)  # "US" written "U.S.", "UK" written "U.K."
    else:
        capitals = [w[0] for w in words if w[:1].isupper()]
        if len(capitals) < 2 or len(capitals) != len(words):
            return False
    return re.search(r"(?<![\w.])" + r"\.?\s?".join(capitals) + r"\.?(?!\w)", text) is not None


# What a question writes as code: an option ("--color", "-s"), a setting ("Storage="), a TeX macro ("\noBreakRoute"), an
# environment variable ("$XDG_RUNTIME_DIR", "ZSTD_CLEVEL"), a snake_case or camelCase name ("use_rich",
# "routeResponseItem"), a name with digits ("k1", "x86_64").
# An option starts a word of its own (after a space, a bracket or a quote): the "-registered" of "U.S.-registered" is
# the end of a word, not an option (it leaked into a refusal as "the question names -registered").
_CODE_NAME = re.compile(r"(?<![\w-])(?:(?<![^\s(\[{'\"`“‘])--?[A-Za-z][\w-]*|\\[A-Za-z@]+|\$[A-Za-z_]\w*"
                        r"|[A-Za-z]\w*(?==)|[A-Za-z][A-Za-z0-9]*_\w+|[a-z]+[A-Z]\w*|[A-Za-z]+\d+[A-Za-z0-9]*)(?![\w-])")


def code_names(question: str) -> list[str]:
    """The names a question writes as code (`_CODE_NAME`): each names one thing a document defines."""
    return list(dict.fromkeys(_CODE_NAME.findall(question)))


def unmentioned_code_names(names: list[str], text: str) -> list[str]:
    """The code names of `names` that `text` does not write: case folded ("Storage=" is written by "storage"), but for
    a one-letter option, whose case tells it apart (tail's "-F" is not its "-f")."""
    folded = text.casefold()
    return [name for name in names if not (
        re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) if len(name) == 2 and name[0] == "-"
        else re.search(rf"(?<![\w-]){re.escape(name.casefold())}(?![\w])", folded))]
