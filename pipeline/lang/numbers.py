"""The numbers a text states, as comparable values: what the verifier's numbers_match check compares.

A model paraphrases: it writes "two bags" for "2 bags", "8 am" for "08:00", "2 September
2024" for "2024-09-02". Compared as raw digit strings these were false drops ("2" is not in
"two"), and a claim of "three bags" against "two bags" stated no number at all, so a wrong
count could be verified. Values here are canonical: thousands separators removed, leading
zeros dropped, English number words (two to ninety-nine, hundred, thousand, dozen) and
Chinese numerals before a measure word ("两件", "十五天") read as digits, and clock times
("08:00", "8 am", "5:30 p.m.") as one 24-hour "H:MM" value; "twice" is 2. "one" counts only
before a unit ("one week"): it is a pronoun as often as a count ("one of", "no one"). A number
stated in a unit of time, money or mass is also a quantity: the same value in another unit of
its kind ("one week" against "one working day", "40 dollars" against "40 euros") is missing.
"""

from __future__ import annotations

import re
import unicodedata

from pipeline.lang.tokenize import normalize_number

# A year standing alone ("2023", not "12023" or "v2023.1"): a title page's date, a column a question asks about.
YEAR = re.compile(r"(?<![\d.])(?:19|20)\d\d(?![\d.])")

_SMALL = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
          "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
          "seventeen": 17, "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 100, "thousand": 1000, "dozen": 12}
_NUMBER_WORDS = {**_SMALL, **_TENS, "one": 1}
_LETTERS = re.compile(r"[a-z]+")
_FRACTION = re.compile(r"halves|half|thirds?|quarters?|(?:four|fif|six|seven|eigh|nin|ten)ths?")
_CLOCK = re.compile(
    r"\b(?P<hour>[01]?\d|2[0-3])(?::(?P<minute>[0-5]\d))?\s*(?P<half>[ap])\.?\s?m\b\.?"  # 8 am, 5:30 p.m.
    r"|\b(?P<hour24>[01]?\d|2[0-3]):(?P<minute24>[0-5]\d)(?!\d|[.,]\d)",  # 08:00, 17:30
    re.IGNORECASE)
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_HAN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_HAN_SCALES = {"十": 10, "百": 100, "千": 1000, "万": 10000}
# Measure words after which a Chinese numeral is a count ("两件", "三天", "十五公斤"), not part of a word ("统一").
_MEASURES = ("千克", "公斤", "小时", "分钟", *"个件次天日晚夜名位人年月周岁元块角张条项倍克秒层号座辆份间家本页种顿餐箱包%")
_HAN_NUMERAL = "零一二两三四五六七八九十百千万"
# The shortest numeral before a measure word ("二十千克" is 20 kg, not 20,000 of "克"), and per cents ("百分之五十").
_HAN_NUMBER = re.compile(rf"百分之([{_HAN_NUMERAL}]+)|([{_HAN_NUMERAL}]+?)(?:{'|'.join(_MEASURES)})")


def _han_value(numeral: str) -> int | None:
    """'十五' → 15, '二十' → 20, '一百零五' → 105, '两' → 2; None for what is not a numeral."""
    total, current = 0, 0
    for char in numeral:
        if char in _HAN_DIGITS:
            current = _HAN_DIGITS[char]
        elif char in _HAN_SCALES:
            total += (current or 1) * _HAN_SCALES[char]
            current = 0
        else:
            return None
    return total + current


def _digit_value(text: str) -> str:
    """'1,000' → '1000'; '09' → '9'; '8.30' and '0.5' keep their decimals."""
    whole, dot, rest = normalize_number(text).partition(".")
    return (whole.lstrip("0") or "0") + dot + rest


def _clock_value(match: re.Match) -> str:
    if match.group("hour24") is not None:
        return f"{int(match.group('hour24'))}:{match.group('minute24')}"
    hour = int(match.group("hour")) % 12 + (12 if match.group("half").lower() == "p" else 0)
    return f"{hour}:{match.group('minute') or '00'}"


_ONCE_WORDS = {"twice": 2, "thrice": 3}
# Units a number is stated in: the same value in another unit of the same kind is another quantity ("one week" is
# not "one working day", "40 dollars" not "40 euros").
_UNITS = {
    **dict.fromkeys(("minute", "minutes", "min", "mins"), "minute"), **dict.fromkeys(("hour", "hours", "hrs"), "hour"),
    **dict.fromkeys(("day", "days"), "day"), **dict.fromkeys(("week", "weeks"), "week"),
    **dict.fromkeys(("month", "months"), "month"), **dict.fromkeys(("year", "years"), "year"),
    **dict.fromkeys(("euro", "euros", "eur", "€"), "EUR"), **dict.fromkeys(("dollar", "dollars", "usd", "$"), "USD"),
    **dict.fromkeys(("yuan", "rmb", "cny", "元", "块"), "CNY"), **dict.fromkeys(("pound", "pounds", "gbp", "£"), "GBP"),
    **dict.fromkeys(("kg", "kilogram", "kilograms", "kilo", "kilos", "公斤", "千克"), "kg"),
    **dict.fromkeys(("天",), "day"), **dict.fromkeys(("周", "星期"), "week"), **dict.fromkeys(("个月",), "month"),
    **dict.fromkeys(("小时",), "hour"), **dict.fromkeys(("分钟",), "minute"),
}
_KINDS = {"minute": "time", "hour": "time", "day": "time", "week": "time", "month": "time", "year": "time",
          "EUR": "money", "USD": "money", "CNY": "money", "GBP": "money", "kg": "mass"}
_UNIT_AFTER = re.compile(r"\s*(?:(?:working|business|calendar|full|whole|more|extra|further)\s+)?"
                         r"(个月|星期|小时|分钟|公斤|千克|[天周元块€$£]|[a-z]+)", re.IGNORECASE)
_UNIT_BEFORE = re.compile(r"([€$£])\s*$")
_UNIT_REACH = 40  # code points after a number where its unit may stand ("one working day"): never the rest of a span


def _word_numbers(text: str) -> list[tuple[str, int, int]]:
    """Runs of number words as values with their place: 'twenty-five' 25, 'three hundred and one' 301, 'a dozen'
    12, 'twice' 2; 'one' only before a unit ('one week')."""
    lowered = text.lower()
    found, run, first, previous_end = [], [], 0, 0

    def close(end: int) -> None:
        value = _run_value(run, lowered[end : end + _UNIT_REACH])
        if value is not None:
            found.append((value, first, end))

    for match in _LETTERS.finditer(lowered):
        word = match.group()
        adjacent = not lowered[previous_end : match.start()].strip(" -")
        if run and adjacent and _FRACTION.fullmatch(word):
            run = []  # "two-thirds", "three quarters": a share, not a count
        elif run and not (adjacent and _extends(run[-1], word)):
            close(previous_end)
            run = []
        if word in _ONCE_WORDS and not run:
            found.append((str(_ONCE_WORDS[word]), match.start(), match.end()))
        elif run or word in _NUMBER_WORDS or word == "a":  # "a" may open "a hundred", "a dozen"
            first = match.start() if not run else first
            run.append(word)
        previous_end = match.end()
    if run:
        close(previous_end)
    return found


def _extends(last: str, word: str) -> bool:
    """May `word` continue a number whose last word is `last`?"""
    if word in _SCALES:
        return last in _NUMBER_WORDS or last == "a" or last == "hundred" and word == "thousand"
    if word == "and":
        return last in _SCALES
    return word in _NUMBER_WORDS and (last in _SCALES or last == "and" or last in _TENS and _NUMBER_WORDS[word] < 10)


def _run_value(run: list[str], after: str) -> str | None:
    while run and run[-1] == "and":
        run = run[:-1]
    if run in ([], ["a"]) or run == ["one"] and _unit_after(after) is None:
        return None  # "one of", "no one": a pronoun as often as a count, unless a unit follows ("one week")
    total, current = 0, 0
    for word in run:
        if word == "thousand":
            total, current = total + (current or 1) * 1000, 0
        elif word in _SCALES:
            current = (current or 1) * _SCALES[word]
        elif word != "and":
            current += _NUMBER_WORDS.get(word, 1)  # "a" hundred
    return str(total + current)


def _unit_after(text: str) -> str | None:
    match = _UNIT_AFTER.match(text)
    return _UNITS.get(match.group(1).lower()) if match else None


def _numbers(text: str) -> list[tuple[str, int, int]]:
    """(value, start, end) of every number in NFKC `text`: clock times, digits, number words, Chinese counts."""
    found = [(_clock_value(m), m.start(), m.end()) for m in _CLOCK.finditer(text)]
    rest = _CLOCK.sub(lambda m: " " * len(m.group()), text)
    found += [(_digit_value(m.group()), m.start(), m.end()) for m in _DIGITS.finditer(rest)]
    found += _word_numbers(rest)
    for match in _HAN_NUMBER.finditer(rest):
        value = _han_value(match.group(1) or match.group(2))
        if value is not None:
            group = 1 if match.group(1) else 2
            found.append((str(value), match.start(group), match.end(group)))
    return sorted(found, key=lambda item: item[1])


def without_numbers(text: str) -> str:
    """NFKC `text` with every number blanked ("七百五十元" → " 元", "one hundred and fifty yuan" → "  yuan"): word
    coverage is then about words, and numbers_match compares the numbers as values."""
    text = unicodedata.normalize("NFKC", text)
    for _, start, end in reversed(_numbers(text)):
        text = text[:start] + " " + text[end:]
    return text


def _stated(text: str) -> list[tuple[str, str | None]]:
    """(value, unit or None) of every number `text` states, in order of place: one pass for both uses."""
    text = unicodedata.normalize("NFKC", text)
    found = []
    for value, start, end in _numbers(text):
        before = _UNIT_BEFORE.search(text[max(0, start - 3) : start])
        found.append((value, _UNITS.get(before.group(1)) if before else _unit_after(text[end : end + _UNIT_REACH])))
    return found


def stated_numbers(text: str) -> list[str]:
    """The numbers `text` states, canonical, in order of place."""
    return [value for value, _, _ in _numbers(unicodedata.normalize("NFKC", text))]


def numbers_missing(claim: str, span: str) -> list[str]:
    """The claim's numbers the span does not state (a bare hour is stated by a clock time at that hour), and its
    quantities the span states only in another unit of the same kind ("40 USD (the span: 40 EUR)")."""
    in_claim, in_span = _stated(claim), _stated(span)
    stated = {value for value, _ in in_span}
    stated |= {value.split(":")[0] for value in stated if ":" in value}
    missing = [value for value in dict.fromkeys(value for value, _ in in_claim) if value not in stated]
    for value, unit in dict.fromkeys((v, u) for v, u in in_claim if u):
        others = [u for v, u in in_span if u and v == value and _KINDS[u] == _KINDS[unit]]
        if others and unit not in others:
            missing.append(f"{value} {unit} (the span: {value} {others[0]})")
    return missing
