"""Index-time and query-time tokens for English and Chinese.

English: lowercase word tokens, bm25s' English stopwords, Snowball stemming (PyStemmer).
Chinese: jieba word segmentation (rjieba, a Rust port) of each run of Han characters, or
character bigrams; the default is chosen by measurement (README, "Tokenizer choice").
Numbers are kept whole, with thousands separators removed, so "1,000" matches "1000".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import rjieba
import Stemmer
from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_HAN}]+|\d+(?:[.,]\d+)*|[^\W\d_]+", re.UNICODE)
_HAN_RUN = re.compile(rf"[{_HAN}]+")

# Words that shape a question but never locate its answer.
QUESTION_WORDS = {
    "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "does", "did", "do",
    "can", "could", "would", "should", "many", "much", "is", "are", "was", "were", "i", "my",
    "me", "we", "our", "you", "your", "any", "there", "tell", "about", "please", "from", "have",
    "has", "had", "been", "it", "its",
    "什么", "多少", "哪", "哪里", "哪个", "哪些", "谁", "何时", "几", "吗", "呢", "怎么", "如何", "为什么",
}
# "How long is the warranty?" asks for a duration: "long" shapes the question (no document says "long"), and
# as the rarest question term it outweighed "warranty" in the word coverage of the sentence that answers.
_HOW_DEGREE = re.compile(r"\bhow\s+(?:long|often|far|big|old|soon|large|high|fast|heavy|tall|wide|deep|early|late|"
                         r"frequently|quickly|low|small|short)\b", re.IGNORECASE)
# Light verbs frame a question ("How much baggage can I take?", "What do I need to bring?", "How long did it take?"):
# the document says "carry" or "required"; the noun carries the topic.
_LIGHT_VERBS = frozenset({"get", "put", "take", "need", "want", "make", "bring", "go", "let", "know", "say", "mention", "explain"})
_QUESTION = re.compile(r"\?\s*$|^\W*(?:what|when|where|who|whom|whose|which|why|how|can|could|may|must|should|do|does|"
                       r"did|is|are|was|were|will|would|shall|has|have|had)\b", re.IGNORECASE)
# "what time does it leave?" = when; "What is the comment deadline?" asks when, too: documents write the date
# ("by September 21, 2020"), rarely the word.
_ASKS_WHEN = re.compile(r"\b(?:what|which) time\b|\bat what time\b|\bdeadlines?\b", re.IGNORECASE)
# A preposition left at the end of a question ("What license is it under?", "Who is it for?") belongs to its frame;
# inside a question it may locate the answer ("children under 12").
_STRANDED = re.compile(r"\b(?:under|over|about|for|with|from|to|in|on|at|of|by|into|onto|after|before|through|"
                       r"against|among|between|within|without|upon|like)\s*\?\s*$", re.IGNORECASE)
# Chinese question words glue onto their measure word ("几号", "多少钱", "哪一年").
_CJK_QUESTION_WORD = re.compile(r"^几|多少|什么|哪|谁|怎么|如何|为什么|何时")
CHINESE_STOPWORDS = set(STOPWORDS_CHINESE) | {"的", "了", "是", "在", "和", "与", "及", "或", "为", "于", "从", "被", "把", "对", "就", "都", "也", "还"}


def normalize_number(text: str) -> str:
    """'1,000' → '1000'; '750.00' keeps its decimals; full-width digits were NFKC-folded earlier."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", text):
        text = text.replace(",", "")
    return text


def is_cjk_char(char: str) -> bool:
    """Han characters, CJK punctuation and full-width forms: scripts written without spaces."""
    return bool(char) and ("\u3000" <= char <= "\u9fff" or "\uf900" <= char <= "\uffef")


def han_count(text: str) -> int:
    """How many Han characters `text` holds."""
    return sum(len(run) for run in _HAN_RUN.findall(text))


def has_cjk(text: str) -> bool:
    return _HAN_RUN.search(text) is not None


# One Snowball stemmer, cached, for every English word the project stems (tokens, support_direction's moves).
english_stem = lru_cache(maxsize=200_000)(Stemmer.Stemmer("english").stemWord)


class Tokenizer:
    """One tokenizer for index and query, so both sides share one vocabulary."""

    def __init__(self, cjk: str = "jieba"):
        if cjk not in {"jieba", "bigram"}:
            raise ValueError(f"unknown CJK mode {cjk!r}")
        self.cjk = cjk
        self.name = f"en-snowball+stopwords|zh-{cjk}"
        self._stem = english_stem
        self._dropped = {english_stem(w) for w in QUESTION_WORDS if w.isascii()} | QUESTION_WORDS
        self._dropped_from_questions = self._dropped | _LIGHT_VERBS

    def _han_tokens(self, run: str) -> list[str]:
        if self.cjk == "bigram":
            return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        return [w for w in rjieba.cut(run) if w not in CHINESE_STOPWORDS]

    def tokens(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).lower()
        out: list[str] = []
        for match in _TOKEN.finditer(text):
            token = match.group()
            if "\u3400" <= token[0] <= "\ufaff" and _HAN_RUN.fullmatch(token):
                out.extend(self._han_tokens(token))
            elif token[0].isdigit():
                out.append(normalize_number(token))
            elif token not in STOPWORDS_EN:
                out.append(self._stem(token))
        return out

    def name_tokens(self, names: str) -> set[str]:
        """The tokens of a document's names (index.document_names), numbers left out: "2020" in a file name is not
        what a question names."""
        return {token for token in self.tokens(names) if not token[:1].isdigit()}

    def query_tokens(self, question: str) -> list[str]:
        """Distinct query tokens, without the words that only shape a question."""
        seen: dict[str, None] = {}
        framed = _STRANDED.sub("?", _ASKS_WHEN.sub("when", _HOW_DEGREE.sub("how", question)))
        # In a statement ("Taking aspirin lowers …") a light verb is content.
        dropped = self._dropped_from_questions if _QUESTION.search(framed) else self._dropped
        for token in self.tokens(framed):
            if token not in dropped and not _CJK_QUESTION_WORD.search(token):
                seen.setdefault(token, None)
        return list(seen)


_PLACE_TAG = "ns"  # jieba's tag for a place name


# jieba tags "两国" ("the two countries") as a place: a number or a quantifier before 国/地/省/市 … names none
# (多伦多 and 外滩 still do).
_COUNTED = re.compile(r"^[一二两三四五六七八九十几多各全本该此外诸邻][国地方省市州县岸]$")


def chinese_place_names(text: str) -> list[str]:
    """The place names jieba's dictionary tags in the Han runs of `text` (上海, 北京; not 两国)."""
    names = [word for run in _HAN_RUN.findall(text) for word, tag in rjieba.tag(run)
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


def english_names(text: str) -> list[str]:
    """Runs of capitalised words past a question's first word ("Beijing", "Senator Hawley", "Great Britain",
    "FAA"): the names it asks about. No tagger ships offline for English; a capital inside a sentence is
    the cue people write."""
    words = re.findall(r"[A-Za-z][\w'’-]*", text)
    if not words or (len(words) > 3 and sum(w[0].isupper() for w in words) > TITLE_CASE_SHARE * len(words)):
        return []
    first = re.match(r"\W*[A-Za-z][\w'’-]*", text)
    names = []
    for run in _CAPITALISED_RUN.finditer(text, first.end() if first else 0):
        kept = [w for w in run.group(0).split() if w not in _NOT_NAMES and len(w) > 1]
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


def unmentioned_names(names: list[str], text: str) -> list[str]:
    """The names of `names` that `text` does not mention. A name is mentioned when one of its words (not a
    mere qualifier like "Great" or "New") starts a word of the text, its last letters free: "Normans" by
    "Norman", "European" by "Europe", "Hawley's" by "HAWLEY", "Great Britain" by "Britain"."""
    folded = _fold(text)
    missing = []
    for name in names:
        words = [w for w in _fold(name).replace("'s", "").replace("’s", "").split() if w not in _QUALIFIERS] or _fold(name).split()
        if not any(re.search(rf"(?<![\w-]){re.escape(w[: max(4, len(w) - 3)])}", folded) for w in words) \
                and not _initials_in(name, text) and not _acronym_part_in(name, text):
            missing.append(name)
    return missing


def _acronym_part_in(name: str, text: str) -> bool:
    """A hyphenated name led by an acronym ("US-registered", "EU-funded") names what the acronym names."""
    head = re.match(r"([A-Z]{2,5})[-–]\w", name)
    return bool(head) and (_initials_in(head.group(1), text) or re.search(rf"\b{head.group(1)}\b", text) is not None)


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
