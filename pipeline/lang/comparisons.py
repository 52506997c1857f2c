"""The words of a comparison: a question asking which row holds the most or the least of something ("the most
expensive", "cheapest", 最多, "fastest"), a text that says which does ("the largest", "up to $10,505", 最), and the
words that name a table's totals, durations and amounts. English and Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_I = re.IGNORECASE


_MOST_COST = re.compile(r"\bthe most expensive\b|\bcostliest\b|\bpriciest\b|\bhighest[- ](?:paid|priced|cost)\b|最贵", _I)


_LEAST_COST = re.compile(r"\bcheapest\b|\bthe least expensive\b|\blowest[- ](?:paid|priced|cost)\b|最便宜", _I)


# "the most checks" compares; "most travellers" is a share.
_MOST = re.compile(r"\bthe most\b|\b(?:highest|largest|biggest|greatest)\b|最多|最高|最大", _I)


_LEAST = re.compile(r"\bthe (?:least|fewest)\b|\b(?:lowest|smallest)\b|最少|最低|最小", _I)


_FASTEST = re.compile(r"\b(?:fastest|quickest)\b|最快", _I)


_SLOWEST = re.compile(r"\bslowest\b|最慢", _I)


# A column of durations: the fastest row holds the least of it ("Time (s)", "Latency", "耗时").
DURATION_COLUMN = re.compile(r"\b(?:time|times|duration|latency|delay|seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|ms|s)\b"
                              r"|时间|耗时|延迟|秒|分钟|小时", _I)


# Not a comparison between rows: a limit ("at most"), a share ("most of"), a ranking no figure holds.
_NOT_COMPARING = re.compile(r"\bat (?:the )?(?:most|least)\b|\bmost of\b|\b(?:least|most) (?:one|recent(?:ly)?|likely|"
                            r"common|important|popular|often|frequent(?:ly)?)\b", _I)


# Words that frame a comparison question without naming what is compared ("… listed", "… that month").
FRAME_WORDS = ("list listed show shown record recorded report reported run ran had spend spent paid pay earn earned receive "
          "received cost costs amount value number figure entry entries row rows table month year week day period "
          "time overall total altogether combined ever any one single")


OVERALL = re.compile(r"\boverall\b|\bin total\b|\baltogether\b|\bcombined\b|总共|总计|合计", _I)


TOTAL_COLUMN = re.compile(r"^(?:grand\s+)?totals?\b|^合计|^总计|^总数", _I)


AGGREGATE_ROW = re.compile(r"^(?:grand\s+)?(?:totals?|sum|all|average|mean)\b|^合计|^总计|^总数|^平均", _I)


MONEY_COLUMN = re.compile(r"amount|cost|price|fee|paid|payment|expense|spend|salary|\$|€|£|¥|金额|费用|价格|工资", _I)


@dataclass(frozen=True)
class Superlative:
    highest: bool
    money: bool  # "most expensive", "cheapest": compares an amount of money
    words: str  # the words that ask for it ("most expensive")
    speed: bool = False  # "fastest", "slowest": the highest speed, or the lowest time when the column holds times


def superlative(question: str) -> Superlative | None:
    """Does the question ask which row holds the most or the least of something?"""
    if _NOT_COMPARING.search(question):
        return None
    for pattern, highest, money in ((_MOST_COST, True, True), (_LEAST_COST, False, True), (_MOST, True, False),
                                    (_LEAST, False, False), (_FASTEST, True, False), (_SLOWEST, False, False)):
        if found := pattern.search(question):
            return Superlative(highest, money, found.group(), speed=pattern in (_FASTEST, _SLOWEST))
    return None


# A unit that says which is the most or the least, or gives a bound: "the largest", "fewest", "up to $10,505", 最多.
# (Any word ending in -est counts: "forest" lets a unit through, never keeps one out.)
_EXTREME = re.compile(r"\b(?:most|least|fewest|best|worst|\w{3,}est|maximum|minimum|max|min|top|record|leading|"
                      r"up to|at most|at least|no more than|no less than|not exceed|exceeds?)\b|最|之最", _I)


def states_extreme(text: str) -> bool:
    return _EXTREME.search(text) is not None
