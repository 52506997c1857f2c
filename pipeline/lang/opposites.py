"""A claim that says the opposite of its span: "lower deck" citing "upper deck", "must pay" citing "travel free".

An embedding puts "Pets travel free on the upper deck" and "… on the lower deck" side by side
(the learned judge scored the second 0.49, over its threshold), and SciFact, which the judge
learned from, hardly uses such categorical opposites (its contradictions move amounts: the
judge's direction features cover those). The rule is narrow on purpose. Words come in small
classes of one meaning ("allowed", "permitted", "may") facing the opposite class ("prohibited",
"forbidden", "not allowed"); a claim contradicts its span when it uses a word of one class, the
span says nothing of that class (a negated mention does not count: "not allowed" is not
"allowed") and the span uses the opposite class, not negated ("not required" agrees with
"optional"). A span that states both sides ("at least 14 …; at most 64") never triggers it.
"non-"/"un" forms are opposites too ("refundable" against "non-refundable").

For a question that is not yes/no, the composer also asks WordNet (`antonym_instead`, its antonym pairs without
function words and common words): a unit that uses only the antonym of a question word ("uploads" for "How do I
download …?") does not answer it, nor does one that only negates or sets aside a question word ("does not exist"
for "… already exists?", `negated_instead`); `question_opposite` asks all three.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from pipeline.lang.negation import NEGATED_QUESTION, NEGATED_VERB, NEGATION_BEFORE, REMOVABLE_NEGATION
from pipeline.lang.tokenize import english_stem

_CLASSES = (
    ({"upper"}, {"lower"}),
    ({"free", "free of charge", "no charge", "complimentary"}, {"paid", "pay", "pays", "charged", "fee", "fare"}),
    ({"allowed", "permitted", "may"}, {"prohibited", "forbidden", "banned", "not allowed", "not permitted"}),
    ({"required", "mandatory", "compulsory", "must"}, {"optional", "voluntary"}),
    ({"included", "includes"}, {"excluded", "excludes", "not included"}),
    ({"minimum", "at least", "no fewer than", "no less than"}, {"maximum", "at most", "up to", "no more than"}),
    ({"domestic"}, {"international"}),
    ({"inbound", "arrival", "arrivals", "arrives", "arrive"}, {"outbound", "departure", "departures", "departs", "depart"}),
    ({"weekdays", "weekday", "monday to friday", "working days", "business days"},
     {"weekends", "weekend"}),
    ({"accepted"}, {"rejected", "declined"}),
    # comparisons count only before an amount ("above 100 yuan"), not in "under the policy"
    ({"above #", "over #", "more than #", "exceeding #", "greater than #"}, {"below #", "under #", "less than #", "fewer than #"}),
    ({"during"}, {"after"}),
    ({"上层"}, {"下层"}),
    ({"免费"}, {"收费", "付费"}),
    ({"允许", "可以"}, {"禁止", "不允许", "不得"}),
    ({"必须", "须"}, {"可选", "自愿"}),
    ({"最低", "至少", "不少于"}, {"最高", "至多", "不超过", "最多"}),
    ({"国内"}, {"国际"}),
)
_PREFIXED = re.compile(r"\b(non-?|un)([a-z]{4,})\b")


@lru_cache(maxsize=4096)
def _phrase_pattern(phrase: str) -> re.Pattern:
    """Compiled once per phrase: the phrases a composer checks are more than `re`'s own cache of 512 keeps."""
    if phrase.endswith(" #"):  # the phrase, then an amount
        return re.compile(rf"(?<![\w-]){re.escape(phrase[:-2])}\s+[$€£]?\d")
    if phrase.isascii():
        return re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])")
    return re.compile(re.escape(phrase))


def _occurrences(phrase: str, text: str) -> list[int]:
    return [m.start() for m in _phrase_pattern(phrase).finditer(text)]


def _says(words: set[str], text: str) -> str | None:
    """A word of `words` that `text` uses without a negation just before it."""
    for word in sorted(words):
        if any(not NEGATION_BEFORE.search(text[max(0, at - 30) : at]) for at in _occurrences(word, text)):
            return word.removesuffix(" #")
    return None


def opposed_word(question: str, text: str) -> tuple[str, str] | None:
    """(the question's word, the text's opposite) when `text` speaks only of the opposite of a word the question
    uses ("… on weekdays?" of a sentence about weekends). Class words only: no negation, which is how a text
    answers a yes/no question."""
    question, text = question.lower().replace("’", "'"), text.lower().replace("’", "'")
    for one, two in _CLASSES:
        in_question, in_text = (_says(one, question), _says(two, question)), (_says(one, text), _says(two, text))
        for side in (0, 1):
            # naming both sides ("optional, but you must book"), or a text naming the asked side, is no conflict
            asked, opposite = in_question[side], in_text[1 - side]
            if asked and opposite and not in_question[1 - side] and not in_text[side]:
                return asked, opposite
    return None


ANTONYMS_FILE = Path(__file__).with_name("antonyms.tsv")  # WordNet 3.0's, built by scripts/build_antonyms.py
_WORD = re.compile(r"[a-z]{3,}")
_HOW = re.compile(r"\bhow\s+([a-z]+)")  # "how long", "how far": the question's frame, not what it asks about


@lru_cache(maxsize=1)
def _antonym_stems() -> dict[str, frozenset[str]]:
    """Each stem's antonyms' stems ("upload" → {"download"})."""
    found: dict[str, set[str]] = {}
    for line in ANTONYMS_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            one, two = (english_stem(word) for word in line.split("\t"))
            found.setdefault(one, set()).add(two)
            found.setdefault(two, set()).add(one)
    return {stem: frozenset(opposites) for stem, opposites in found.items()}


def antonym_instead(question: str, text: str) -> tuple[str, str] | None:
    """(the question's word, the text's antonym of it) when the text uses the antonym and never the word, nor the
    question the antonym ("How do I download a big file?" of "Requests supports streaming uploads"). WordNet's
    antonyms, compared by stem; the word after "how" frames the question and is not compared."""
    question, text = question.lower(), text.lower()
    framing = {english_stem(match.group(1)) for match in _HOW.finditer(question)}
    asked = {english_stem(word): word for word in _WORD.findall(question)}
    said = {english_stem(word): word for word in _WORD.findall(text)}
    antonyms = _antonym_stems()
    for stem, word in asked.items():
        if stem in framing or stem in said:
            continue
        opposite = next((o for o in sorted(antonyms.get(stem, ())) if o in said and o not in asked), None)
        if opposite is not None:
            return word, said[opposite]
    return None


# A clause that negates with an exception ("cannot be installed without libfoo") may still say how the asked thing
# happens; it is not read as the opposite.
_DOUBLE_NEGATIVE = re.compile(r"\b(?:without|unless|except|until|only\s+if|only\s+when)\b")


# The alternative a text sets aside ("create a host certificate instead of a user certificate").
_INSTEAD_OF = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+(?:(?:an?|the)\s+)?(?:[\w-]+\s+)?$")


def negated_instead(question: str, text: str) -> tuple[str, str] | None:
    """(the question's word, the text's negated phrase) when a plain question ("What happens if the home directory
    already exists?") uses a content word the text only ever negates ("If the directory does not exist, it is
    created") or sets aside ("a host certificate instead of a user certificate"): the text speaks of the other case.
    Compared by stem; None for a negated question; a negated clause with an exception ("not … without", "not …
    unless") is not the opposite."""
    question, text = question.lower().replace("’", "'"), text.lower().replace("’", "'")
    if NEGATED_QUESTION.search(question):
        return None
    framing = {english_stem(match.group(1)) for match in _HOW.finditer(question)}
    asked = {english_stem(word): word for word in _CONTENT.findall(question) if word not in _FUNCTION}
    found: dict[str, list[re.Match]] = {}
    for match in _CONTENT.finditer(text):
        found.setdefault(english_stem(match.group()), []).append(match)
    for stem, word in asked.items():
        if stem in framing or not (places := found.get(stem)):
            continue
        phrases = [_set_aside(text, place) for place in places]
        if all(phrases) and (first := phrases[0]):
            return word, first
    return None


def _set_aside(text: str, place: re.Match) -> str | None:
    """The phrase that negates or sets aside the word at `place` ("not exist", "instead of a user"), or None when it
    is stated plainly or its clause holds an exception."""
    at, said = place.start(), place.group()
    before = text[max(0, at - 40) : at]
    aside = _INSTEAD_OF.search(before)
    if not (NEGATED_VERB.search(before[-30:]) or aside) \
            or _DOUBLE_NEGATIVE.search(re.split(r"[,;.:!?]", text[at:], maxsplit=1)[0]):
        return None
    return (aside.group() + said).strip() if aside else _span_phrase(text, at, said)


def question_opposite(question: str, text: str) -> tuple[str, str] | None:
    """(the question's word, what the text says instead) when the text speaks only of the opposite of what a
    question asks: a class opposite, a WordNet antonym, or the asked word only negated or set aside."""
    return opposed_word(question, text) or antonym_instead(question, text) or negated_instead(question, text)


def said_opposite(claim: str, span: str) -> tuple[str, str] | None:
    """(the claim's word, the span's opposite) when the span says the opposite of what the claim says."""
    opposed = opposed_word(claim, span)
    if opposed:
        return opposed
    claim, span = claim.lower().replace("’", "'"), span.lower().replace("’", "'")
    flipped = _negation_flip(claim, span)
    if flipped:
        return flipped
    # "non-refundable" claimed and "refundable" said, or the other way; a text naming both ("teaching and
    # non-teaching hospitals") compares them and opposes neither
    for said, other in ((claim, span), (span, claim)):
        for match in _PREFIXED.finditer(said):
            prefixed, bare = match.group(), match.group(2)
            if not _says({bare}, said.replace(prefixed, " ")) and _says({bare}, other) \
                    and not _says({prefixed}, other):
                return (prefixed, bare) if said is claim else (bare, prefixed)
    return None


_CONTENT = re.compile(r"[a-z]{4,}")
_FUNCTION = frozenset(
    "that this these those there their than then with from have been were will would should could which what when "
    "where only also more most less such each other some into over under about after before".split())


def _negation_flip(claim: str, span: str) -> tuple[str, str] | None:
    """A content word the claim states plainly and the span only ever negates ("Alcohol is reimbursed" against
    "Alcohol is never reimbursed"), or the other way round."""
    for match in _CONTENT.finditer(claim):
        word = match.group()
        if word in _FUNCTION:
            continue
        in_span = _occurrences(word, span)
        if not in_span:
            continue
        claim_negated = bool(NEGATED_VERB.search(claim[max(0, match.start() - 30) : match.start()]))
        span_negated = [bool(NEGATED_VERB.search(span[max(0, at - 30) : at])) for at in in_span]
        if all(negated != claim_negated for negated in span_negated):
            said = _span_phrase(span, in_span[0], word)
            return (word if not claim_negated else _span_phrase(claim, match.start(), word)), said
    return None


def _span_phrase(text: str, at: int, word: str) -> str:
    """The negation and the word as the text writes them ("never reimbursed")."""
    before = text[max(0, at - 30) : at]
    negation = NEGATED_VERB.search(before)
    return (before[negation.start() :] + word).strip() if negation else word


# --------------------------------------------------------------------------- the claim's opposite
# An embedding puts "X raises Y" and "X lowers Y" close together, but a sentence that supports
# one should still be a little closer to it than to its opposite. The judge embeds the claim
# and a mechanically flipped claim and feeds the difference of the two cosines to the model.
_SWAPS = (
    ("increases", "decreases"), ("increased", "decreased"), ("increase", "decrease"), ("increasing", "decreasing"),
    ("higher", "lower"), ("more", "less"), ("greater", "smaller"), ("raises", "lowers"), ("raised", "lowered"),
    ("promotes", "inhibits"), ("promote", "inhibit"), ("promoted", "inhibited"), ("enhances", "reduces"),
    ("enhance", "reduce"), ("enhanced", "reduced"), ("activates", "suppresses"), ("activate", "suppress"),
    ("improves", "worsens"), ("improve", "worsen"), ("improved", "worsened"), ("positive", "negative"),
    ("positively", "negatively"), ("before", "after"), ("upregulates", "downregulates"), ("induces", "prevents"),
    ("induce", "prevent"), ("larger", "smaller"), ("longer", "shorter"), ("faster", "slower"), ("gain", "loss"),
    ("benefit", "harm"), ("protects", "harms"),
    ("增加", "减少"), ("提高", "降低"), ("升高", "降低"), ("上升", "下降"), ("促进", "抑制"), ("之前", "之后"),
)


_SWAP = {a: b for a, b in _SWAPS} | {b: a for a, b in _SWAPS}


_SWAP_WORD = re.compile(r"\b(?:" + "|".join(sorted((w for w in _SWAP if w.isascii()), key=len, reverse=True)) + r")\b"
                        r"|" + "|".join(w for w in _SWAP if not w.isascii()), re.IGNORECASE)




_AUXILIARY = re.compile(r"\b(?:is|are|was|were|can|could|does|do|did|has|have|had|will|may|might|should|must)\b", re.IGNORECASE)


def flip_kind(claim: str) -> str:
    """How flipped() turns the claim over: "swap" (antonyms), "negation" (removed), "auxiliary" or "prefix" (added)."""
    if _SWAP_WORD.search(claim):
        return "swap"
    if REMOVABLE_NEGATION.search(claim):
        return "negation"
    return "auxiliary" if _AUXILIARY.search(claim) else "prefix"


def flipped(claim: str) -> str:
    """The claim's opposite, mechanically: antonyms swapped, else a negation removed or added."""
    kind = flip_kind(claim)
    if kind == "swap":
        return _SWAP_WORD.sub(lambda m: _match_case(m.group(), _SWAP[m.group().lower()]), claim)
    if kind == "negation":
        return REMOVABLE_NEGATION.sub("", claim, count=1)
    if kind == "auxiliary":
        auxiliary = _AUXILIARY.search(claim)
        return claim[: auxiliary.end()] + " not" + claim[auxiliary.end() :]
    return "It is not true that " + claim[:1].lower() + claim[1:]


def _match_case(original: str, replacement: str) -> str:
    return replacement.capitalize() if original[:1].isupper() else replacement
