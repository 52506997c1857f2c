"""Index-time and query-time tokens for English, Chinese and the languages `lang.languages` recognises.

English: lowercase word tokens, bm25s' English stopwords, Snowball stemming (PyStemmer); a text whose function
words show another language (Italian, French, German, …) drops that language's and takes its Snowball stems.
Chinese: jieba word segmentation (rjieba, a Rust port) of each run of Han characters, or
character bigrams; the default is chosen by measurement (docs/decisions.md, "Tokenizer").
Numbers are kept whole, with thousands separators removed, so "1,000" matches "1000".
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import rjieba
import Stemmer
from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN

from pipeline.lang.languages import STOPWORDS, stemmer, word_language
from pipeline.lang.text import is_cjk_char, join_hyphenated  # noqa: F401 (is_cjk_char: here too, as before)

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_HAN}]+|\d+(?:[.,]\d+)*|[^\W\d_]+", re.UNICODE)
HAN_RUN = re.compile(rf"[{_HAN}]+")

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


def han_count(text: str) -> int:
    """How many Han characters `text` holds."""
    return sum(len(run) for run in HAN_RUN.findall(text))


def has_cjk(text: str) -> bool:
    return HAN_RUN.search(text) is not None


# One Snowball stemmer, cached, for every English word the project stems (tokens, direction's moves).
english_stem = lru_cache(maxsize=200_000)(Stemmer.Stemmer("english").stemWord)


# How each script is cut, as the tokenizer's name says it (the trace and the saved BM25 indexes record the name):
# English words stemmed (Snowball) without bm25s' English stopwords; Han runs segmented by jieba or cut into
# character bigrams (`IndexSettings.cjk`).
ENGLISH = "en-snowball+stopwords+joined-hyphens+latin-languages"  # a new name re-keys BM25 indexes saved before
CHINESE = {"jieba": "zh-jieba", "bigram": "zh-bigram"}


class Tokenizer:
    """One tokenizer for index and query, so both sides share one vocabulary."""

    def __init__(self, cjk: str = "jieba"):
        if cjk not in CHINESE:
            raise ValueError(f"unknown CJK mode {cjk!r}")
        self.cjk = cjk
        self.name = "|".join((ENGLISH, CHINESE[cjk]))
        self._stem = english_stem
        self._dropped = {english_stem(w) for w in QUESTION_WORDS if w.isascii()} | QUESTION_WORDS
        self._dropped_from_questions = self._dropped | _LIGHT_VERBS

    def _han_tokens(self, run: str) -> list[str]:
        if self.cjk == "bigram":
            return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        return [w for w in rjieba.cut(run) if w not in CHINESE_STOPWORDS]

    def tokens(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", join_hyphenated(text)).lower()  # "ra-\ndio" is the word "radio"
        found = _TOKEN.findall(text)
        # Words are read in the language their function words show (`lang.languages`); English without evidence.
        language = word_language([t for t in found if not t[0].isdigit() and not HAN_RUN.match(t)])
        stop, stem = (STOPWORDS[language], stemmer(language)) if language else (STOPWORDS_EN, self._stem)
        out: list[str] = []
        for token in found:
            if "\u3400" <= token[0] <= "\ufaff" and HAN_RUN.fullmatch(token):
                out.extend(self._han_tokens(token))
            elif token[0].isdigit():
                out.append(normalize_number(token))
            elif token not in stop:
                out.append(stem(token))
        return out

    def name_tokens(self, names: str) -> set[str]:
        """The tokens of a document's names (ingest.metadata.document_names), numbers left out: "2020" in a file name is not
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


@lru_cache(maxsize=1)
def default_tokenizer() -> Tokenizer:
    """One shared tokenizer of the default kind (jieba for Chinese)."""
    return Tokenizer()


def question_terms(question: str) -> list[str]:
    """What `question` asks about, as the default tokenizer's query tokens (the words that only frame a question,
    "how much", "is", "what does", left out)."""
    return default_tokenizer().query_tokens(question)
