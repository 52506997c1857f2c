"""Negation, in English and Chinese: one pattern per question the pipeline asks of a text, each named for it.

They differ on purpose, and each was measured where it is used (docs/results.md): unifying any two would
change what that check answers.

- `NEGATES`: does a claim or a cited span negate at all? The containment judge refuses a claim whose negation
  differs from its span's. "prohibited" is left to the words (a ban is stated, not negated).
- `SAYS_NO`: does a sibling policy's unit say no where the cited unit does not? Here a rule and its ban are a
  conflict, so "prohibited" and "forbidden" count; "n't" and "cannot" do not (policies write "must not").
- `NEGATED_STATEMENT`: is a sentence negated, for the learned judge's features (absence and failure words too,
  as abstracts write them: "lacking", "failed to", 未).
- `NO_EFFECT`: the "no effect" wording an abstract contradicts an effect with ("did not significantly reduce").
- `NEGATION_WORD`: one word that negates the direction word after it (the learned judge's moves).
- `NEGATION_BEFORE`: a negation within two words before a word, so "not allowed" does not say "allowed"
  (the opposites rule).
- `NEGATED_VERB`: the verb or adjective right after "not"/"never" (an auxiliary or "always" between): what is
  negated; objects further on are not ("does not prevent prostate cancer" negates preventing, not the prostate).
- `NEGATED_QUESTION` and `ANSWER_NEGATES`: a question asked in the negative ("Which fees are not refunded?"), and
  any negation a unit may answer it with (exclusions, refusals and bans too).
- `REMOVABLE_NEGATION`: the negation a claim's mechanical opposite removes (`opposites.flipped`).
"""

from __future__ import annotations

import re

_I = re.IGNORECASE

NEGATES = re.compile(r"\b(?:not|no|never|none|without|cannot)\b|n't|不|没有|禁止|无", _I)

SAYS_NO = re.compile(r"\b(?:not|no|never|none|without|prohibited|forbidden)\b|不|没有|禁止|无", _I)

NEGATED_STATEMENT = re.compile(
    r"\b(?:not|no|never|none|neither|nor|without|cannot|lack|lacks|lacking|absence|absent|fail|fails|failed|unable)\b"
    r"|n't|不|没有|未|无|非", _I)

NO_EFFECT = re.compile(
    r"\b(?:no|not|nor|neither)\b(?:\s+\w+){0,3}\s+(?:significant|significantly|associat\w*|effect\w*|differ\w*|"
    r"change\w*|correlat\w*|affect\w*|alter\w*|impact\w*|increas\w*|decreas\w*|improv\w*|reduc\w*|influenc\w*|"
    r"relat\w*|link\w*|benefit\w*)"
    r"|\b(?:unchanged|unaffected|unrelated|independent of|similar|comparable|did not|does not|do not|was not|were not)\b"
    r"|无(?:显著|明显)?(?:影响|差异|关联|变化)|没有(?:显著|明显)?(?:影响|差异|关联|变化)|不相关",
    _I)

NEGATION_WORD = re.compile(r"^(?:not|no|never|without|neither|nor|cannot|fail\w*|n't|lack\w*|absence|absent)$")

NEGATION_BEFORE = re.compile(r"\b(?:not|no|never|without|nor|cannot)\s+(?:\w+\s+){0,2}$|n't\s+(?:\w+\s+){0,2}$|[不非没无未]$")

NEGATED_VERB = re.compile(r"\b(?:not|never|cannot)\s+(?:(?:be|been|being|always|ever|fully|yet)\s+)?$|n't\s+(?:be\s+)?$")

NEGATED_QUESTION = re.compile(r"\b(?:not|never|no|none|nothing|nobody|neither|nor)\b|\b(?:did|was|were|does|do|is|are|"
                              r"has|have|had|won)n't\b|不是|没有|并非|从未|不会|不得", _I)

ANSWER_NEGATES = re.compile(r"\b(?:not|never|no|none|nothing|nobody|neither|nor|without|cannot|fail(?:s|ed)?|lack\w*|"
                            r"non-\w+|ex(?:clud|cept)\w*|refus\w*|den(?:y|ied|ies)|prohibit\w*|forbid\w*)\b|n't\b"
                            r"|[不没未非无禁]", _I)

REMOVABLE_NEGATION = re.compile(r"\b(?:not|no|never)\s+|n't\b|不|没有", _I)
