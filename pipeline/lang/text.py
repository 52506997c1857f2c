"""Comparing text, not typography.

Both join a word broken at a line end ("ra-\ndio"), as an answer shows it.
`normalized`: NFKC, case-folded, whitespace collapsed (the learned judge's and the highlight's comparisons).
`normalize`: also quotes unified, a hyphen inside a word dropped (an answer shows a compound broken at its own
hyphen, "well-\nknown", as "well-known": `compound_kept`) and the spaces between Chinese characters dropped, since
Chinese has no spaces between sentences or lines and a line break there is not a word gap (the containment judge's
comparison).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable

_SPACE = re.compile(r"\s+")
# A word broken at a line end by a hyphen ("ra-" over "dio"): a letter, "-", the line break, a lower-case letter.
LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=[a-zà-öø-ÿ])")


# A section's number before the wide gap a PDF sets after it ("2.1<TAB>General Information", "IV.<TAB>…", "第3 节<TAB>…"):
# no value and no sentence of the heading it numbers (the PDF parser's headings, the value checks).
SECTION_NUMBER = r"^\s*(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.|[A-Z]\.|第\s*\d{1,2}\s*[章节])\t"


# The same break with the word parts around it: the letters before the hyphen, the letters after the line break.
_BREAK = re.compile(r"([^\W\d_]+)-[ \t]*\n[ \t]*([a-zà-öø-ÿ][^\W\d_]*)")
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


def join_hyphenated(text: str) -> str:
    """The text with words broken at line ends joined ("ra-\ndio" → "radio"): for comparing and tokenizing, never
    for quoting (a quote keeps the source's exact text). A compound broken at its own hyphen ("well-\nknown") loses
    it too: `normalize` compares a word with and without its hyphen alike; an answer shows it (`keeps_hyphen`)."""
    return LINE_END_HYPHEN.sub("", text) if "-" in text and "\n" in text else text


_LAST_WORD = re.compile(r"([^\W\d_]+)-$")
_FIRST_WORD = re.compile(r"[^\W\d_]+")


def keeps_hyphen(line: str, next_line: str, compounds: Collection[str]) -> bool:
    """Does the word broken at the end of `line` ("… well-") and the start of `next_line` keep its hyphen when the
    lines are joined (it is one of `compounds`)?"""
    before = _LAST_WORD.search(line.rstrip()) if compounds else None
    after = _FIRST_WORD.match(next_line.lstrip()) if before else None
    return before is not None and after is not None and f"{before[1]}-{after[0]}".casefold() in compounds


def line_end_breaks(text: str) -> list[tuple[str, str]]:
    """The words broken at a line end by a hyphen, as (before, after): "well-\nknown" → ("well", "known")."""
    return [(m[1], m[2]) for m in _BREAK.finditer(text)] if "-" in text and "\n" in text else []


def compound_kept(before: str, after: str, texts: Iterable[str]) -> bool:
    """Is a word broken at a line end ("well-" over "known") a compound broken at its own hyphen, as the document's
    other words (`texts`, its pages) say? It is when the joined form ("wellknown") occurs nowhere in them, and
    either the compound occurs unbroken ("well-known") or the first part leads another hyphenated compound
    ("well-kept") and the second is a word of its own. A syllable break ("ra-" over "dio") has neither; a closed
    compound split where both halves are words ("some-" over "thing") is joined unless the document hyphenates
    its first part elsewhere."""
    def word(pattern: str) -> re.Pattern[str]:
        return re.compile(rf"(?<![^\W_]){pattern}(?![^\W_])", re.IGNORECASE)

    texts = list(texts)
    first, second = re.escape(before), re.escape(after)
    if any(word(first + second).search(text) for text in texts):
        return False
    if any(word(f"{first}-{second}").search(text) for text in texts):
        return True
    leads = re.compile(rf"(?<![^\W_]){first}-(?=[^\W\d_])", re.IGNORECASE)
    return any(leads.search(text) for text in texts) and any(word(second).search(text) for text in texts)
_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}]) (?=[{_CJK}\d])|(?<=[{_CJK}\d]) (?=[{_CJK}])")


def normalized(text: str) -> str:
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", join_hyphenated(text)).casefold()).strip()


def normalize(text: str) -> str:
    # A hyphen inside a word is typography here: a compound broken at a line end may be shown with its hyphen
    # ("well-known") or without it, and the source's "well-\nknown" is the same words either way.
    text = _WORD_HYPHEN.sub("", unicodedata.normalize("NFKC", join_hyphenated(text))).casefold()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return _CJK_GAP.sub("", " ".join(text.split()))


def strip_edges(text: str) -> str:
    """The text without surrounding spaces and sentence punctuation."""
    return text.strip(" \t\n.,;:!?。，；：！？")


# Inline markup of Markdown, reStructuredText and MyST, as a reader of the rendered page would not see it.
_INLINE_MARKUP = [
    # Sphinx renders a version note as words: ".. versionadded:: 3.19" reads "Added in version 3.19."
    (re.compile(r"(?:^|(?<=\s))\.\.\s+versionadded::[ \t]*(\S+)"), r"Added in version \1."),
    (re.compile(r"(?:^|(?<=\s))\.\.\s+versionchanged::[ \t]*(\S+)"), r"Changed in version \1:"),
    (re.compile(r"(?:^|(?<=\s))\.\.\s+deprecated::[ \t]*(\S+)"), r"Deprecated since version \1:"),
    (re.compile(r"(?:^|(?<=\s))\.\.\s+versionremoved::[ \t]*(\S+)"), r"Removed in version \1:"),
    (re.compile(r"(?:^|(?<=\s))\.\.\s+(?:[a-z]+:)?[\w-]+::[ \t]*"), ""),  # ".. function:: f(x)" renders as "f(x)"
    (re.compile(r"\\(?=['\"*`_|])"), ""),  # reST's escape: *dictionary*\'s
    (re.compile(r"(?:\{[\w:-]+\}|:[\w:.-]+:)`([^`<]*?)\s*<[^`>]*>`"), r"\1"),  # :meth:`iter_lines() <Response.iter_lines>`
    (re.compile(r"(?:\{[\w:-]+\}|:[\w:.-]+:)`([^`]*)`"), r"\1"),  # :ref:`x`, {ref}`pip freeze`
    (re.compile(r"`([^`\n]+?)\s*<[^`>\n]*>`__?"), r"\1"),  # `Requests <https://…>`_
    (re.compile(r"``([^`\n]+)``"), r"\1"),
    (re.compile(r"`([^`\n]+)`_{0,2}"), r"\1"),
    (re.compile(r"!?\[([^\]\n]+)\]\([^)\n]*\)"), r"\1"),  # [text](url)
    (re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]"), r"\1"),  # [text][ref]
    (re.compile(r"(\*\*|__)(?=\S)([^*\n]+?)(?<=\S)\1"), r"\2"),
    (re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])"), r"\1"),
]


def without_inline_markup(text: str) -> str:
    """`text` without inline markup (roles, literals, links, emphasis): what a reader of the rendered page reads.
    For the reader model only; quotes keep the source's characters."""
    for pattern, replacement in _INLINE_MARKUP:
        text = pattern.sub(replacement, text)
    return text


def is_cjk_char(char: str) -> bool:
    """Han characters, CJK punctuation and full-width forms: scripts written without spaces. (Here, not in
    `tokenize`, which loads jieba's dictionary: a parse worker needs this test alone, and 33 MiB less.)"""
    return bool(char) and ("\u3000" <= char <= "\u9fff" or "\uf900" <= char <= "\uffef")
