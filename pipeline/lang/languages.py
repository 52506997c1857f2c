"""Which language a run of Latin-script (or Cyrillic) words is written in, so that its words are stemmed and its
function words dropped as that language does.

The tokenizer was English-only for these scripts: an Italian question ("Quanti dipendenti ha in media la società?")
kept "ha", "la" and "in" as terms and matched "media" against nothing in "numero medio dei dipendenti". A text is
read as another language only on evidence: at least two of that language's own function words (bm25s' stopword
lists, less every word English also uses as one) and more of them than English function words, or, in a short text
with no English function word, one that English text never writes ("dell'" in a statement's row "Utile (perdita)
dell'esercizio"). A text without such evidence (a heading, a number, a code line, any English sentence) keeps the
English reading, so English tokens are what they were.
"""

from __future__ import annotations

from functools import lru_cache

import Stemmer
from bm25s import stopwords

# language code → (Snowball algorithm, bm25s' stopword list)
_LANGUAGES = {
    "it": ("italian", stopwords.STOPWORDS_ITALIAN),
    "fr": ("french", stopwords.STOPWORDS_FRENCH),
    "de": ("german", stopwords.STOPWORDS_GERMAN),
    "es": ("spanish", stopwords.STOPWORDS_SPANISH),
    "pt": ("portuguese", stopwords.STOPWORDS_PORTUGUESE),
    "nl": ("dutch", stopwords.STOPWORDS_DUTCH),
    "da": ("danish", stopwords.STOPWORDS_DANISH),
    "sv": ("swedish", stopwords.STOPWORDS_SWEDISH),
    "no": ("norwegian", stopwords.STOPWORDS_NORWEGIAN),
    "ru": ("russian", stopwords.STOPWORDS_RUSSIAN),
    "tr": ("turkish", stopwords.STOPWORDS_TURKISH),
}
# The words a question is asked with that bm25s' lists leave out: dropped like the lists' words.
_QUESTION_WORDS = {
    "it": {"qual", "quando", "cosa"},
    "fr": {"combien", "quand", "pourquoi", "comment", "quel", "quelle", "quels", "quelles", "où", "lequel", "laquelle"},
    "de": {"wann", "warum", "wieso", "weshalb", "wieviel", "wieviele", "viel", "viele", "wo", "woher", "wohin", "wer",
           "wen", "wem", "welche", "welcher", "welches", "welchen"},
    "es": {"cuánto", "cuánta", "cuántos", "cuántas", "cuándo", "dónde", "quién", "quiénes", "cuál", "cuáles", "qué",
           "cómo", "porqué"},
    "pt": {"quanto", "quanta", "quantos", "quantas", "quando", "onde", "quem", "qual", "quais", "porquê", "como"},
    "ru": {"сколько", "почему", "какой", "какая", "какое", "какие", "каков"},
}
# English function words, for the evidence only: bm25s' short English list would let "in", "was" or "die" tip an
# English text into another language.
_ENGLISH_EVIDENCE = frozenset(stopwords.STOPWORDS_EN_PLUS) | frozenset(stopwords.STOPWORDS_EN)
MIN_EVIDENCE = 2  # function words of its own a text needs to be read as another language than English
# Function words of those languages that English text writes in lower case too (a word, or a particle of a quoted
# name: "war", "per", "come", "de la"): those found in at least 5 of 18,891 SQuAD 1.1 train paragraphs. Alone they
# do not make a short text foreign; "dell'" or "della" does ("Utile (perdita) dell'esercizio", a statement's row).
_COMMON_IN_ENGLISH = frozenset(
    "ad al also ante au aura aux bare ben bile bin c com come comment da das de dei del der des di die dies dog door "
    "dos du e ed el en end era eras es est et für ha hat il inn ins j ja l la las le les los man men met mi mine n "
    "na non nous nun op ou par per pour reeds se sea seas sen sin sine sit son sur te till ton u un und ut van ville "
    "von want war à".split())

STOPWORDS = {code: frozenset(words) | _QUESTION_WORDS.get(code, set()) for code, (_, words) in _LANGUAGES.items()}
# word → the languages it is a function word of, that English does not use as one
_EVIDENCE: dict[str, tuple[str, ...]] = {}
for _code, _words in STOPWORDS.items():
    for _word in _words - _ENGLISH_EVIDENCE:
        _EVIDENCE[_word] = (*_EVIDENCE.get(_word, ()), _code)


def word_language(words: list[str]) -> str | None:
    """The language other than English that lowercase `words` are written in, or None (English, or no evidence):
    at least MIN_EVIDENCE of its function words and more than English ones, or, with no English one, one function
    word English text does not write (a short row, a heading)."""
    hits: dict[str, int] = {}
    distinct: dict[str, int] = {}
    english = 0
    for word in words:
        if word in _ENGLISH_EVIDENCE:
            english += 1
        for code in _EVIDENCE.get(word, ()):
            hits[code] = hits.get(code, 0) + 1
            if word not in _COMMON_IN_ENGLISH:
                distinct[code] = distinct.get(code, 0) + 1
    if not hits:
        return None
    code, count = max(hits.items(), key=lambda item: item[1])
    if count >= MIN_EVIDENCE and count > english:
        return code
    return max(distinct, key=distinct.__getitem__) if distinct and not english else None


@lru_cache(maxsize=None)
def stemmer(code: str):
    """The language's Snowball stemmer's stemWord, cached per word."""
    return lru_cache(maxsize=100_000)(Stemmer.Stemmer(_LANGUAGES[code][0]).stemWord)
