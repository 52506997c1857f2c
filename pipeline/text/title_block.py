"""The title block of a document's first page: its title, then the short lines under it that name the authors, their
institutions, addresses, a date and a version, up to where the text begins.

    Manuscript Title:                          ← title (heading lines)
    with Forced Linebreak∗
    Ann Author† and Second Author‡             ← author
    Authors' institution and/or address        ← affiliation
    (Dated: August 10, 2010)                   ← date
    An article usually includes an abstract…   ← the text begins: the block ends above it

Each line is told by its form alone (`line_role`): a date, a version, a mail or web address, an institution or
place, or a line of personal names (capitalised names with their footnote marks, "and" or commas between; a Chinese
name of two to four characters). A line that is none of these is left out of every answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.lang.names import name_words
from pipeline.lang.numbers import YEAR
from pipeline.lang.questions import holds_address
from pipeline.lang.text import SECTION_NUMBER
from pipeline.text.units import Unit

MAX_BLOCK_LINES = 24  # a title page's particulars fit well within this; a longer run is text
MAX_TITLE_LINES = 4
TITLE_WITHIN = 6  # the title opens within the page's first lines: a slide's navigation bar, a proceedings' or a
# journal's header ("Proceedings of the ASME 2023 …", "IMECE2023-XXXX") may come first
MAX_TITLE_WORDS = 20  # a title line is a heading: its small words do not make it text
MAX_LINE_WORDS = 12  # a longer line is text, not a particular

_I = re.IGNORECASE
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
          r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
FULL_DATE = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\s+\d{{4}}\b"
                        rf"|\b{_MONTH}\s+\d{{4}}\b|\b\d{{4}}\s*[./-]\s*\d{{1,2}}\s*[./-]\s*\d{{1,2}}\b"
                        r"|\b\d{1,2}\s*[./-]\s*\d{1,2}\s*[./-]\s*\d{4}\b|\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?", _I)
_VERSION = re.compile(r"\bv(?:ersion)?\.?\s*\d+(?:\.\d+)*[a-z]?\b|\brev(?:ision)?\.?\s*\d|版本|第\s*\d+\s*版", _I)
_CONTACT_LABEL = re.compile(r"\bE-?mail\b|\bTel\b|电话|邮箱", _I)
_INSTITUTION = re.compile(
    r"\b(?:universit\w*|institut\w*|college|school|department|dept|facult\w*|laborator\w*|lab|cent(?:er|re)|society|"
    r"association|inc|ltd|llc|gmbh|b\.\s?v|plc|pvt|corporation|corp|company|foundations?|academy|research|group|press|publish\w*|"
    r"council|agency|authority|office|ministry|bureau|hospital|collaboration|consortium|address|road|street|avenue|suite|box|"
    r"county|province|prefecture|district)\b"
    r"|大学|学院|研究所|研究院|实验室|公司|中心|协会|学会|出版社|委员会", _I)
# A name's own words: capitalised (with an accent, a hyphen or an apostrophe), an initial, or a particle.
_NAME_WORD = re.compile(r"(?:[A-Z][a-z\u00c0-\u024f'’]+(?:-[A-Z][a-z\u00c0-\u024f'’]+)?|[A-Z]\.(?:-?[A-Z]\.)*|"
                        r"van|von|der|den|de|da|di|du|la|le|bin|al|y)")
_INITIALS = re.compile(r"[A-Z]{2}")
_SPACING_ACCENT = re.compile("[\u00a8\u00b4\u02c6\u02dc\u02d8\u02c7`]")
_LETTER = re.compile(r"[^\W\d_]")
_MARKS = re.compile(r"[\d*∗†‡§¶‖#⋆⋄♯♭,;]+|\(\s*\)")
_LEADING_MARK = re.compile(r"^\s*(?:\d{1,2}|[*∗†‡§¶‖#⋆])(?=\D)")
_SEPARATORS = re.compile(r"\t|\s*,\s*|(?:\s+|(?<=[*∗†‡§¶‖#⋆\d]))and\s+|\s*&\s*|\s*[，、；]\s*")
_NOT_FIRST_NAMES = frozenset("The A An Of For On In And Our Your Its".split())  # "The Kumquat Consortium"
_CHINESE_NAME = re.compile(r"[\u4e00-\u9fff]{2,4}")
_NOT_CHINESE_NAMES = frozenset("目录 摘要 前言 简介 概述 引言 说明 附录 版本 日期 作者 致谢 正文 序言 译者".split())
# Where the text begins: an abstract, contents, a numbered section, 第 1 节.
# A label stands alone or before a colon: "Introduction to Algorithms" is a title.
_TEXT_BEGINS = re.compile(rf"{SECTION_NUMBER}|^\s*(?:abstract|summary|contents|table of contents|introduction|keywords|"
                          r"index terms)[ ]*(?:[:.—–\t-]|$)|^\s*(?:摘要|目录|引言|前言|第\s*\d+\s*[章节])", _I | re.MULTILINE)


def line_role(text: str) -> str:
    """What a line under a title is: "date", "version", "contact", "affiliation", "author", or "" (none of these)."""
    if _VERSION.search(text):
        return "version"
    if FULL_DATE.search(text):
        return "date"
    if _CONTACT_LABEL.search(text) or holds_address("e-mail address", text) or holds_address("web address", text):
        return "contact"
    if _INSTITUTION.search(_LEADING_MARK.sub("", text)):  # "5Universität zu Lübeck": the author's mark 5 first
        return "affiliation"
    if _names_only(text):
        return "author"
    if YEAR.search(text):
        return "date"
    return ""


def _names_only(text: str) -> bool:
    """Is the line personal names and nothing else ("Jens Gramm1<TAB>Tzvika Hartman2", "Ann Author† and Second
    Author‡", "李清")? Each name is two to five words, all of them a name's."""
    text = _SPACING_ACCENT.sub("", text)  # "Putsch¨ogl": TeX's accent over a letter, extracted beside it
    parts = [part.strip() for part in _SEPARATORS.split(text.strip()) if part and part.strip()]
    parts = [_MARKS.sub("", part).strip() for part in parts]
    parts = [part for part in parts if part]
    if not parts:
        return False
    if all(_CHINESE_NAME.fullmatch(part) and part not in _NOT_CHINESE_NAMES for part in parts):
        return True
    for part in parts:
        words = part.split()
        # "CV Radhakrishnan": initials without their full stops open a name
        if not 2 <= len(words) <= 5 or not all(_NAME_WORD.fullmatch(word) or (i == 0 and _INITIALS.fullmatch(word))
                                                for i, word in enumerate(words)):
            return False
        if not words[0][0].isupper() or not words[-1][0].isupper() or words[0] in _NOT_FIRST_NAMES:
            return False
    return True


@dataclass(frozen=True)
class TitleBlock:
    """A first page's title lines and the particulars' lines under them (each with its role)."""

    source: PackedSource
    title: tuple[PackedLine, ...]
    lines: tuple[tuple[PackedLine, str], ...]

    def units(self, role: str) -> list[Unit]:
        """The lines of a role as units to quote (the title: its lines as one), in reading order."""
        if role == "title":
            first, last = self.title[0], self.title[-1]
            return [Unit(self.source, first.number, last.number, "\n".join(line.text for line in self.title), kind="span")]
        if role != "date":
            return self._as_units([line for line, found_role in self.lines if found_role == role])
        # "2022/07/14<TAB>v3.1" is a version line that dates it; a full date beats a bare year
        dated = [line for line, found_role in self.lines if found_role in ("date", "version")
                 and FULL_DATE.search(line.text)]
        return self._as_units(dated or [line for line, found_role in self.lines if found_role == "date"])

    def affiliation_of(self, name: str) -> list[Unit]:
        """The lines that give the institution of the author `name` (as the question writes it): those opening with
        the footnote mark after the name ("Till Tantau5" → "5Universität zu Lübeck, Germany"); else the institution
        lines (each with the place line under it) between the name's line and the next line of names: all of them
        for a line of one name, the k-th for the k-th name of a line of several when there are as many; none when
        that cannot be told."""
        found = self._named(name)
        if found is None:
            return []
        index, position, parts = found
        mark = _TRAILING_MARK.search(parts[position].strip())
        marked = self._marked(mark.group()) if mark is not None else []
        if marked or (mark is not None and mark.group().isdigit() and len(parts) > 1):
            return self._as_units(marked)  # a number marks an institution: with no line of its own, none is known
        # ... unless the name stands alone on its line (elsarticle's "CV Radhakrishnan2" over his institution, the
        # number a note's): the lines under it are its own.
        groups = self._institutions_under(index)
        if len(parts) == 1 or len(groups) == 1:  # one author (with all these institutions), or one for all
            return self._as_units([line for group in groups for line in group])
        return self._as_units(groups[position]) if len(groups) == len(parts) else []

    def _named(self, name: str) -> tuple[int, int, list[str]] | None:
        """The author line naming `name`: its index among the block's lines, the name's place on it, its names."""
        asked = name_words(name)  # "John Lienhard" names "John H. Lienhard1": each word, in any case or accent
        for index, (line, role) in enumerate(self.lines):
            # ("CV Rajagopal1,3": the 3 is his second mark, not a name)
            parts = [part for part in _SEPARATORS.split(line.text) if _LETTER.search(part)] if role == "author" else []
            for position, part in enumerate(parts):
                if asked and all(word in name_words(part) for word in asked):
                    return index, position, parts
        return None

    def _marked(self, mark: str) -> list[PackedLine]:
        """The lines, not of names, that open with an author's footnote mark ("5…", not "51…")."""
        return [line for line, role in self.lines if role != "author" and line.text.lstrip().startswith(mark)
                and not line.text.lstrip()[len(mark):][:1].isdigit()]

    def _institutions_under(self, index: int) -> list[list[PackedLine]]:
        """The institution lines, each with the place lines under it, from the line after `index` to the next line
        of names, a date or a version."""
        groups: list[list[PackedLine]] = []
        for line, role in self.lines[index + 1:]:
            if role in ("author", "date", "version"):
                break
            if role == "affiliation":
                groups.append([line])
            elif groups and role == "" and _PLACE.fullmatch(line.text.strip()):
                groups[-1].append(line)
        return groups

    def _as_units(self, lines: list[PackedLine]) -> list[Unit]:
        return [Unit(self.source, line.number, line.number, line.text, kind="span") for line in lines]

    def span(self) -> tuple[int, int]:
        last = self.lines[-1][0] if self.lines else self.title[-1]
        return self.title[0].number, last.number


_TRAILING_MARK = re.compile(r"(?:\d{1,2}|[*∗†‡§¶‖#⋆]+)$")
_PLACE = re.compile(r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*(?:,\s*[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*){1,3}")  # "Christchurch, New Zealand"




def title_block(source: PackedSource) -> TitleBlock | None:
    """The title block a packed source opens with, when it opens a document's first page with a title; else None."""
    if source.page not in (None, 1) or source.start_line != 1:  # a window further down the page has no title
        return None
    lines = _first_page_lines(source)
    start = next((i for i, line in enumerate(lines[:TITLE_WITHIN]) if line.role == "heading"), None)
    if start is not None and any(_is_text(line.text) for line in lines[:start]):
        return None  # a heading under running text is a section's
    if (start is None or _TEXT_BEGINS.search(lines[start].text) or len(lines[start].text.split()) > MAX_TITLE_WORDS
            or not _WORDED.search(lines[start].text)):  # "47698": a page number set large is no title
        return None
    title = [lines[start]]
    for line in lines[start + 1 : start + MAX_TITLE_LINES]:
        # "Instructions for Using Springer's llncs Class for" / "Computer Science Proceedings Papers": a title line
        # that breaks off after a small word goes on in the next, whatever that looks like.
        goes_on = _BREAKS_OFF.search(title[-1].text) is not None
        if line.role != "heading" or (line_role(line.text) and not goes_on) or _TEXT_BEGINS.search(line.text):
            break
        title.append(line)
    particulars: list[tuple[PackedLine, str]] = []
    for line in lines[start + len(title) : start + MAX_BLOCK_LINES]:
        if _TEXT_BEGINS.search(line.text) or _is_text(line.text):
            break
        particulars.append((line, line_role(line.text)))
    return TitleBlock(source, tuple(title), tuple(particulars))


def _first_page_lines(source: PackedSource) -> list[PackedLine]:
    """The first page's lines with text, without its running heads and feet — but for a paper's title, which repeats
    as the running head of its other pages ("The Name of the Title Is Hope"): a heading among the first lines is still
    the title; and for a talk's date, which repeats in every slide's footer: on the title slide it is still the date."""
    return [line for index, line in enumerate(source.lines) if line.text.strip()
            and (not line.furniture or (index < TITLE_WITHIN and line.role == "heading")
                 or (index < MAX_BLOCK_LINES and line_role(line.text) == "date"))]


def _is_text(text: str) -> bool:
    """A line of running text: more words than a particular has, a sentence's small words ("This is the REVTEX 4.1
    Command and Options Sum-"), a word broken at its end, or in Chinese a long run ending a sentence."""
    words = text.split()
    small = sum(word.casefold() in _SMALL_WORDS for word in words)
    return (len(words) > MAX_LINE_WORDS or (len(words) >= 7 and small >= 3) or (len(words) > 5 and _WORD_BROKEN.search(text))
            or (len(text) > 30 and text.rstrip().endswith(("。", "：")))) is True


_WORDED = re.compile(r"[^\W\d_]{3}|[\u4e00-\u9fff]{2}")
_SMALL_WORDS = frozenset("a an the of for to in on at by with and or is are was be this that it its as from".split())
_BREAKS_OFF = re.compile(r"\b(?:a|an|the|of|for|to|in|on|at|by|with|and|or|from|under|into|via|using)\s*$|[:–—-]\s*$", _I)
_WORD_BROKEN = re.compile(r"[a-z]-\s*$")
