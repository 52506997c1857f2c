"""Follow-up questions, resolved against the previous question for retrieval.

A follow-up ("What about Shanghai?", "And is it valid in 2027?") is short and starts with a cue or leans on the
previous question with a pronoun. It is searched as the previous question's words plus its own, where the previous
question's names and numbers are dropped when the follow-up brings its own (so "Beijing lodging" + "What about
Shanghai?" searches "lodging Shanghai"). The app resolves follow-ups only when its page's switch is on; API clients'
questions are never rewritten.
"""

from __future__ import annotations

import re

from pipeline.lang.tokenize import has_cjk, question_terms

MAX_FOLLOW_UP_WORDS = 8
CUES = ("what about", "how about", "and what about", "and for", "and in", "and", "also", "same for", "what if")
PRONOUNS = {"it", "its", "that", "this", "there", "they", "them", "those", "these", "same", "one"}
FUNCTION_WORDS = {"what", "how", "when", "where", "which", "who", "why", "is", "are", "was", "were", "does", "do",
                  "can", "may", "the", "a", "an", "in", "on", "at", "for", "of", "to", "and", "or", "about", "i",
                  "my", "our", "we", "you", "if", "also", "same"}
_TOKEN = re.compile(r"[\w'-]+|[^\w\s]", re.UNICODE)


def _is_entity(token: str, first: bool) -> bool:
    """A name or a number: capitalised and not a function word, or containing a digit."""
    if any(ch.isdigit() for ch in token):
        return True
    return token[:1].isupper() and token.lower() not in FUNCTION_WORDS and not (first and token.lower() in CUES)


# "How many checks were there in Ohio?", "Is there a fee?": an existential "there" points at nothing said before.
_EXISTENTIAL_THERE = re.compile(r"\b(?:is|are|was|were|be|been|isn't|aren't|wasn't|weren't)\s+there\b"
                                r"|\bthere\s+(?:is|are|was|were|be|been|isn't|aren't|wasn't|weren't)\b", re.I)


# "Why does the FAA want this rule?", "Who wrote this report?": "this" + a kind of document points at the
# document asked about, not at the previous question.
_THIS_DOCUMENT = re.compile(r"\b(?:this|that|these|those)\s+(?:(?:proposed|final|new|current|whole)\s+)?"
                            r"(?:rule|directive|document|doc|file|pdf|policy|proposal|report|paper|article|study|table|"
                            r"guide|guideline|manual|form|page|section|chapter|regulation|notice|act|law|standard|"
                            r"rfc|pep|readme|memo|letter|contract|agreement|book|text|list|chart|spreadsheet|"
                            r"publication|specification|spec|handbook|brochure|leaflet|statement|presentation|slide|"
                            r"website|site|post|thesis|dissertation|template|tutorial|package|class|bundle|library|module)s?\b", re.I)


def is_follow_up(question: str) -> bool:
    plain = _THIS_DOCUMENT.sub(" the document ", _EXISTENTIAL_THERE.sub(" be ", question))
    words = [w.lower() for w in re.findall(r"[\w'-]+", plain)]
    if not words or len(words) > MAX_FOLLOW_UP_WORDS:
        return False
    text = " ".join(words)
    return any(text == cue or text.startswith(cue + " ") for cue in CUES) or _leans_on_a_pronoun(plain, words)


_ITS = re.compile(r"\bits\b", re.I)


def _leans_on_a_pronoun(plain: str, words: list[str]) -> bool:
    """Does a pronoun point outside the question? "Its" after the question's own words points at them ("Can sort
    download its input from a URL?" is about sort), while "What is its price?" has nothing of its own before it;
    "one" before a word of its own counts ("… for one font?"), not as "the cheaper one (is …)"."""
    found, its = PRONOUNS & set(words), _ITS.search(plain)
    if "one" in found and all(i + 1 < len(words) and words[i + 1] not in FUNCTION_WORDS
                              for i, word in enumerate(words) if word == "one"):
        found = found - {"one"}
    if found != {"its"} or its is None:
        return bool(found)
    return not question_terms(plain[:its.start()] + "?")


def resolve_follow_up(question: str, previous: str | None) -> str:
    """The text to search for `question` given the previous question (itself when not a follow-up). A question
    in another script than the previous one starts afresh: "why does the FAA want this rule?" after
    北京的住宿标准是多少？ was searched as both glued together."""
    if not previous or has_cjk(question) != has_cjk(previous) or not is_follow_up(question):
        return question
    text = question.strip()
    for cue in sorted(CUES, key=len, reverse=True):
        if text.lower().startswith(cue + " "):
            text = text[len(cue) + 1:]
            break
    if text.split(" ", 1)[0].lower() in FUNCTION_WORDS:  # "Can" glued after other words would read as a name
        text = text[:1].lower() + text[1:]
    new_tokens = _TOKEN.findall(text)
    brings_entities = any(_is_entity(t, i == 0) for i, t in enumerate(new_tokens) if t.lower() not in PRONOUNS)
    kept = [t for i, t in enumerate(_TOKEN.findall(previous))
            if re.match(r"\w", t) and not (brings_entities and _is_entity(t, i == 0))]
    return " ".join([*kept, text]).strip()
