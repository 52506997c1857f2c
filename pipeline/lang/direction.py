"""Which way a text moves what: direction words together with the words around them.

The learned judge's direction cues (verify.judges.features) count increase/decrease words over a whole sentence, so
"decreases telomere fragility in BRCA2-deficient cells" and "increases telomere fragility in
BRCA2-deficient cells" both come out neutral ("deficient" cancels the verb). Here each
direction word keeps its sign (flipped by a negation just before it) and the content words
within a few words of it: what it moves. A claim and a sentence that move the same thing the
same way agree; the opposite way, conflict. On SciFact training claims (out of fold) this
raised the decision's AUC from 0.78 to about 0.80 (training/support_judge.py).
English only: a Chinese text has no moves, and the features stay 0.
"""

from __future__ import annotations

import re

from bm25s.stopwords import STOPWORDS_EN

from pipeline.lang.negation import NEGATION_WORD
from pipeline.lang.tokenize import english_stem

_UP = re.compile(
    r"^(?:increas\w*|higher|more|greater|rais\w*|rise|rises|rising|rose|elevat\w*|enhanc\w*|promot\w*|activat\w*|"
    r"up-?regulat\w*|induc\w*|stimulat\w*|improv\w*|gain\w*|accelerat\w*|augment\w*|boost\w*|larger|longer|"
    r"faster|exceed\w*|overexpress\w*|encourag\w*|exacerbat\w*|worsen\w*|aggravat\w*|amplif\w*|potentiat\w*|"
    r"facilitat\w*|strengthen\w*|expand\w*|enrich\w*|dependent|capable|able|required|requires|require|necessary|"
    r"essential|causes|caused|cause|leads|led|results)$")
_DOWN = re.compile(
    r"^(?:decreas\w*|lower\w*|less|fewer|smaller|reduc\w*|diminish\w*|declin\w*|fell|fall\w*|inhibit\w*|"
    r"suppress\w*|attenuat\w*|down-?regulat\w*|impair\w*|block\w*|prevent\w*|loss|lose|lost|deplet\w*|"
    r"slow\w*|shorter|delay\w*|deactivat\w*|discourag\w*|ameliorat\w*|alleviat\w*|abolish\w*|abrogat\w*|"
    r"reversed?|protect\w*|weaken\w*|independent|incapable|unable|unnecessary|dispensable|unrelated|"
    r"uncorrelated|unaffected|unchanged)$")
_WORD = re.compile(r"[a-z0-9][a-z0-9\-]*(?:'t)?")  # hyphenated names ("BRCA2-deficient") stay one word
_FILLER = frozenset(STOPWORDS_EN) | {"also", "been", "its", "markedly", "significantly", "substantially", "than", "were",
                                     "which"}
BEFORE, AFTER = 4, 6  # the window: chosen out of fold on SciFact training claims (2–6 before, 4–8 after all helped)
NEGATION_REACH = 3  # "did not significantly increase": a negation up to three words before the direction word

Move = tuple[int, frozenset[str]]  # +1 or -1, and the stems of what moves


def _sign(word: str) -> int:
    return 1 if _UP.match(word) else -1 if _DOWN.match(word) else 0


def _is_content(word: str) -> bool:
    return len(word) > 2 and word not in _FILLER and not _sign(word) and not NEGATION_WORD.match(word)


def moves(text: str) -> tuple[Move, ...]:
    """Every direction word of `text` with its sign and the content-word stems around it."""
    words = _WORD.findall(text.lower())
    found = []
    for index, word in enumerate(words):
        sign = _sign(word)
        if not sign:
            continue
        if any(NEGATION_WORD.match(w) for w in words[max(0, index - NEGATION_REACH) : index]):
            sign = -sign
        near = words[max(0, index - BEFORE) : index + AFTER]
        found.append((sign, frozenset(english_stem(w) for w in near if _is_content(w))))
    return tuple(found)


def move_match(claim: tuple[Move, ...], sentence: tuple[Move, ...]) -> tuple[float, float]:
    """(agree, conflict): the largest share of a claim move's words that a sentence moves the same / other way."""
    agree = conflict = 0.0
    for sign, what in claim:
        for other_sign, other_what in sentence:
            shared = len(what & other_what) / max(len(what), 1)
            if shared and sign * other_sign > 0:
                agree = max(agree, shared)
            elif shared:
                conflict = max(conflict, shared)
    return agree, conflict


# Direction words, by axis: a claim and a sentence that move the same thing opposite ways disagree.
_AXES = {
    "amount": (
        r"\b(?:increas\w*|higher|more|greater|rais\w*|ris\w*|rose|elevat\w*|enhanc\w*|promot\w*|activat\w*|"
        r"up-?regulat\w*|induc\w*|stimulat\w*|improv\w*|gain\w*|accelerat\w*|augment\w*|boost\w*|larger|longer|"
        r"faster|exceed\w*|overexpress\w*|positive\w*)|增加|增高|升高|提高|上升|增强|促进|激活|更多|更高",
        r"\b(?:decreas\w*|lower\w*|less|fewer|smaller|reduc\w*|diminish\w*|declin\w*|fell|fall\w*|inhibit\w*|"
        r"suppress\w*|attenuat\w*|down-?regulat\w*|impair\w*|block\w*|prevent\w*|loss|lose|lost|deplet\w*|"
        r"slow\w*|shorter|worse\w*|negative\w*|deficien\w*)|减少|降低|下降|减弱|抑制|阻断|更少|更低",
    ),
    "time": (r"\b(?:before|prior|earlier|precede\w*)\b|之前|以前|早于", r"\b(?:after|later|following|follow\w*)\b|之后|以后|晚于"),
    "risk": (r"\b(?:risk\w*|harm\w*|toxic\w*|adverse)\b|风险|有害", r"\b(?:protect\w*|benefi\w*|safe\w*)\b|保护|有益|安全"),
}


_AXIS_PATTERNS = {axis: (re.compile(up, re.IGNORECASE), re.compile(down, re.IGNORECASE)) for axis, (up, down) in _AXES.items()}


def directions(text: str) -> dict[str, int]:
    signs = {}
    for axis, (up, down) in _AXIS_PATTERNS.items():
        sign = len(up.findall(text)) - len(down.findall(text))
        signs[axis] = (sign > 0) - (sign < 0)
    return signs
