"""What a question asks for, and whether a text holds it: the answer types (a number or amount, a date or time, a
person or organisation, a place, a reason, a yes/no rule, a default), a value of the wanted kind (not an identifier, a list
number or a year alone when a day is asked), a count, money, a frequency, a procedure, and a question asked in the
negative. English and Chinese; the question words of Italian, French, German, Spanish and Portuguese.
"""

from __future__ import annotations

import re

from pipeline.lang.negation import ANSWER_NEGATES, NEGATED_QUESTION
from pipeline.lang.text import SECTION_NUMBER
from pipeline.lang.tokenize import han_count

_I = re.IGNORECASE


# Date questions besides "when …": shared by the answer type and by `_ASKS_WHEN` below.
_ASKS_DATE = (r"\bwhat (?:date|day|time|year|month)\b|\bby what date\b|\bwhich (?:year|date|day)\b"
              r"|\bhow long ago\b|\bdeadline\b|何时|什么时候|哪一年|哪年|几号|几点|日期|时间")


# The same asks in Italian, French, German, Spanish and Portuguese (`lang.languages` reads their words): a question
# word opens the question or stands before its verb, where a document would not use it to ask.
_FOREIGN_ASKS = {
    "date": r"|\bquando\b|\bin (?:che|quale) anno\b|\bquand\b|\ben quelle année\b|\bwann\b|\bin welchem jahr\b"
            r"|\bcuándo\b|\ben qué año\b|\bem que ano\b",
    "number": r"|\bquant[oaie]\b|\bquant[oa]s\b|\bcombien\b|\bwie\s?viele?\b|\bwieviele?\b|\bcuánt[oa]s?\b",
    "why": r"|\bperché\b|\bper quale motivo\b|\bpourquoi\b|\bwarum\b|\bwieso\b|\bweshalb\b|\bpor qu[ée]\b",
    "who": r"|^\W*(?:chi|qui|wer|wem|wen|quién|quiénes|quem)\b",
    "where": r"|^\W*(?:dove|où|wo|woher|wohin|dónde|onde)\b|\bin quale (?:città|paese|luogo)\b",
}


ANSWER_TYPES: dict[str, re.Pattern] = {
    "date": re.compile(r"\bwhen\b|" + _ASKS_DATE + _FOREIGN_ASKS["date"], _I),
    # "What is the daily meal allowance?" asks for an amount as surely as "how much": a quantity noun
    # within a few words of "what is the" (or "which … version") wants a number.
    "number": re.compile(r"\bhow (?:many|much|long|far|old|big|large|high|often)\b|\bwhat(?:'s|’s| is| was| are| were) (?:the|a|an) "
                         r"(?:[\w-]+\s){0,3}(?:amount|number|cost|price|limit|rate|percentage|size|total|allowance|fee|"
                         r"budget|weight|salary|fine|penalty|capacity|speed|distance|duration|length|height|population|"
                         r"maximum|minimum|age)s?\b|\b(?:which|what) (?:[\w-]+\s)?version\b|\bcost\b|\bprice\b"
                         r"|多少|几|多大|多高|多长|多久|数量|金额|标准" + _FOREIGN_ASKS["number"], _I),
    "why": re.compile(r"\bwhy\b|\bwhat (?:is|was) the reason\b|\bfor what reason\b|为什么|为何|原因" + _FOREIGN_ASKS["why"], _I),
    "who": re.compile(r"\bwho\b|\bwhom\b|\bwhose\b|\bwhich (?:company|organi[sz]ation|person|agency)\b|\bcontact\b|谁"
                      + _FOREIGN_ASKS["who"], _I),
    "where": re.compile(r"\bwhere\b|\bwhich (?:city|country|place|state|address)\b|哪里|在哪|何处|什么地方"
                        + _FOREIGN_ASKS["where"], _I),
    "yesno": re.compile(r"^\s*(?:can|may|must|should|do|does|did|is|are|am|will|would|could|has|have)\b"
                        r"|吗[？?]?\s*$|能否|是否|可否", _I),
    # What holds unless set: "… by default?", and in other words "… if I don't give one?", "… unless I change it?".
    "default": re.compile(r"\bdefault(?:s|ed)?\b|默认|缺省|\bunless (?:i|you|we) (?:change|set|specify|say otherwise)"
                          r"|\bif (?:i|you|we|it|the [\w-]+(?: [\w-]+)?) (?:don['’]t|doesn['’]t|do not|does not|never) "
                          r"(?:set|give|pass|specify|choose|pick|change|provide|configure|say)\b(?! up\b)"
                          r"|\bwithout (?:setting|giving|passing|specifying|choosing|configuring)\b(?! up\b)", _I),
}


_MONTH = (r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec"
          # Italian, French, German, Spanish and Portuguese month names the English prefixes miss
          r"|gennaio|febbraio|maggio|giugno|luglio|agosto|settembre|ottobre|dicembre|janvier|février|avril|mai|juin"
          r"|juillet|août|décembre|januar|februar|märz|juni|juli|oktober|dezember|enero|febrero|marzo|abril|mayo|junio"
          r"|julio|septiembre|octubre|noviembre|diciembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro"
          r"|novembro|dezembro)[a-z]*\.?")


UNIT_TYPES: dict[str, re.Pattern] = {
    "date": re.compile(rf"\b{_MONTH}\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{_MONTH}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b"
                       rf"|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b1[5-9]\d\d\b|\b20\d\d\b|\b\d{{1,2}}:\d{{2}}\b"
                       r"|\d+\s*[年月日号点]|(?:mon|tues|wednes|thurs|fri|satur|sun)day|\b(?:daily|weekly|annually)\b", _I),
    "number": re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|hundred|thousand|million"
                         r"|billion|dozen|half|twice)\b|[一二三四五六七八九十百千万亿两]", _I),
    "why": re.compile(r"\bbecause\b|\bdue to\b|\bsince\b|\bso that\b|\bin order to\b|\bto (?:prevent|avoid|ensure|address|correct)\b"
                      r"|\breason\b|\bresult(?:ed|s)? (?:in|from)\b|\bcaused?\b|\bcould\b|\bled to\b|因为|由于|为了|原因|导致|以便"
                      r"|\bpoiché\b|\ba causa d|\bdovut[oaie]\b|\bparce que?\b|\bà cause d|\bweil\b|\bwegen\b|\bdebido a\b", _I),
    "who": re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z]\.?)?\s+[A-Z][a-z]+\b|\b(?:Inc|Ltd|Company|Corporation|Administration|"
                      r"Agency|Department|Office|University|Committee|Council|Board)\b|@|\bphone\b|\d{3}[-–]\d{3}[-–]\d{4}"),
    "where": re.compile(r"\b(?:in|at|from|near|to)\s+[A-Z][a-z]+|\b(?:street|road|avenue|suite|floor|building|city|"
                        r"state|country|deck|room)\b|[省市县区路街号楼]", _I),
    "yesno": re.compile(r"\b(?:may|must|not|no|only|allowed|permitted|required|prohibited|cannot|can|never|always|"
                        r"should|shall)\b|可以|不得|必须|不能|允许|禁止|需要|无需|不需要", _I),
    "default": re.compile(r"\bdefault(?:s|ed)?\b|\binitial(?:ly|i[sz]ed| value)\b|默认|缺省", _I),
}


# "How do I install it?", "how to …", "what command …": answered by an instruction with its command.
_ASKS_PROCEDURE = re.compile(r"\bhow (?:do|can|should|could|would|must) (?:i|we|you|one)\b|\bhow to\b"
                             r"|\b(?:what|which) (?:command|option|flag|setting)s?\b|怎么|怎样|如何", _I)


def asks_procedure(question: str) -> bool:
    return bool(_ASKS_PROCEDURE.search(question))


# A unit that asks ("11. Can zlib handle .zip archives?", "Q: I told xz to use many threads but …"): a FAQ's question
# names a topic, as a heading does; the answer is the text after it.
_ASKS = re.compile(r"[?？]\W{0,3}$|^\W*(?:\d{1,3}[.)]\s*)?(?:Q|Question)\s*[:.]\s|^\W*问[:：]", _I)
_ANSWER_MARK = re.compile(r"(?:^|\s)(?:A|Answer)\s*[:.]\s|答[:：]", _I)


def asks(text: str) -> bool:
    """Is `text` a question (it ends with a question mark or opens as a FAQ's "Q:", without the "A:" after it)?"""
    text = text.strip()
    return _ASKS.search(text) is not None and _ANSWER_MARK.search(text) is None


# What shapes a question in any language we read: a question word (or an imperative that asks) opening it, a Chinese
# question word or particle anywhere. A question mark alone does not: "Beijing lodging?" reads as a search.
_QUESTION_SHAPED = re.compile(
    r"^\W*(?:whats|can|could|may|might|must|should|do|does|did|is|are|was|were|will|would|shall|has|have|had|list|"
    r"explain|describe|name|give|tell|show|define|find|compare|summari[sz]e|come)\b|"
    r"\b(?:what|when|where|who|whom|whose|which|why|how|wann|warum|wie|wo|wer|welche|welcher|welches|qual|quale|quando|"
    r"dove|cosa|quanto|quanti|combien|quand|pourquoi|quel|quelle|où|cuánto|cuándo|dónde|quién|cuál|qué|cómo|onde|quem|"
    r"quais)\b|几|多少|多大|多长|多久|多高|多远|多重|什么|哪|谁|怎么|如何|为什么|何时|吗|呢|啥|还是", _I)


def is_keyword_query(query: str) -> bool:
    """Is `query` a few words typed into a search box ("Beijing lodging", "北京住宿", a follow-up resolved as "lodging
    Shanghai?") rather than a question: no question word, at most six words (twelve Chinese characters)?"""
    if _QUESTION_SHAPED.search(query):
        return False
    return len(query.split()) <= 6 and han_count(query) <= 12


def wanted_types(question: str) -> tuple[str, ...]:
    return tuple(name for name, pattern in ANSWER_TYPES.items() if pattern.search(question))


def found_types(text: str) -> frozenset[str]:
    return frozenset(name for name, pattern in UNIT_TYPES.items() if pattern.search(text))


_NUMERAL = re.compile(r"\d+(?:[.,:/]\d+)*")


_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|whether|in case)\b[^,?;]*|如果[^，？]*|要是[^，？]*", _I)


_WHY_OR_HOW = re.compile(r"^\W*(?:why|how)\b|为什么|为何|怎么|如何", _I)


def negation_unmatched(question: str, unit: str) -> bool:
    """A negated question ("Who did not sign?") that a unit negating nothing cannot answer as asked."""
    if _WHY_OR_HOW.search(question) or not NEGATED_QUESTION.search(_CONDITION.sub(" ", question)):
        return False
    return not ANSWER_NEGATES.search(unit)


def new_numerals(question: str, unit: str) -> bool:
    """Does `unit` hold a numeral (a digit run, with its separators) that `question` does not?"""
    asked = set(_NUMERAL.findall(question))
    return any(n not in asked for n in _NUMERAL.findall(unit))


VALUE_TYPES = ("number", "date")


# "when" that asks (not "Who was king when …?", "When a vote fails, what happens?").
_ASKS_WHEN = re.compile(r"^\W*(?:since |until |till |from )?when\b(?![^?]*,)|\bwhen\s*\?\s*$|" + _ASKS_DATE, _I)


# "(2)", "2)", "2. ", and a PDF's section number before the wide gap after it ("2.2<TAB>How to Use …"; a line of
# cells, "13.48<TAB>SUPPLIES<TAB>…", opens with a value).
_ENUMERATOR = re.compile(r"\(\d{1,2}\)|(?:^|(?<=\s))\d{1,2}\)|^\s*\d{1,2}[.)]\s|"
                         + SECTION_NUMBER + r"(?=[A-Z][^\t\n]*(?:\n|$))")


_VALUE_WORDS = re.compile(r"\b(?:first|second|third|fourth|fifth|\w+teenth|\w+tieth|\w+th) (?:century|centuries|decade|year)s?\b"
                          r"|\b(?:century|centuries|decade|morning|evening|night|noon|midnight|week|month|year)s?\b"
                          # "How long does the licence last?" — "perpetual"; "How many copies?" — "unlimited"
                          r"|\b(?:perpetual(?:ly)?|permanent(?:ly)?|indefinite(?:ly)?|forever|lifetime|for life|unlimited)\b"
                          r"|世纪|年代|早上|晚上|中午|永久|无限期", re.IGNORECASE)


# A code that mixes capitals and digits ("FAA–2020–0746", "2019–CE–012–AD", "A320") names a document, a
# part or a model; its digits are not the amount or date a question asks for.
# A quantity with its unit or magnitude in capitals is a value, not a code: 150K–300K, 16GB, 2.4GHz, 5MiB, 60W.
_MEASURE = r"\d+(?:[.,]\d+)?(?:[kKMGTP]i?B|[kKMGTP]|[kMG]?Hz|[kmM]?W|mAh|V)"
_IDENTIFIER = re.compile(
    r"(?<!\S)(?!\d{1,2}(?:[AP]M|[AP]\.M\.)\b)(?!" + _MEASURE + r"(?:[-–—/]" + _MEASURE + r")*(?!\w))"
    r"(?=\S*[A-Z])(?=\S*\d)\w*[A-Z]\w*(?:[-–—/]\w+)*"  # FAA–2020–0746, A320 (not 9AM)
    r"|(?<!\S)\d\w*(?:[-–—/]\w+)*[-–—/][A-Z]\w*"  # 2019–CE–012–AD
    r"|\b[A-Z]{2,5}\s\d+[-–]\d+(?:[-–]\d+)+")  # AD 2018–23–51 (a directive's number, not a date)


# "What is the docket number?": a code is the value asked for.
_ASKS_IDENTIFIER = re.compile(r"\b(?:docket|part|model|serial|phone|telephone|fax|reference|case|file|order|account|"
                              r"document|product|version|build|release|identification|registration|tracking|invoice|"
                              r"policy|ticket|flight|rule|regulation|directive|amendment|patent)\s+(?:no\.?|number|numbers|#|id)\b"
                              r"|\b(?:identifier|id|code)\b|编号|号码", _I)


_COUNT_WORD = (r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
               r"forty|fifty|hundred|a few|several|dozens?)")


_HOW_MANY = re.compile(r"\bhow many ([a-z]+)", _I)


def states_count(question: str, text: str) -> bool:
    """"How many days …?" answered in the text itself: a number right before the counted noun ("up to
    three days per week"), whether in digits or in words."""
    asked = _HOW_MANY.search(question)
    if asked is None:
        return False
    noun = re.escape(asked.group(1).lower().rstrip("s")[:6])
    return re.search(rf"\b{_COUNT_WORD}(?:\s+[a-z-]+)?\s+{noun}", text, _I) is not None


_ASKS_MONEY = re.compile(r"\b(?:cost|costs|price|prices|priced|spend|spent|pay|paid|fee|fees|charge|charged|afford|"
                         r"expensive|cheap|cheapest|budget|salary|wage|wages|money)\b|多少钱|费用|价格|花费|工资", _I)


_MONEY = re.compile(r"[$€£¥₹₩₽₺₱₦₪฿]|\b(?:usd|eur|gbp|rmb|cny|jpy|chf|inr|krw|sek|nok|dkk|zar|brl|mxn|yuan|euros?|dollars?"
                    r"|pounds?|cents?|pence|yen|francs?|shillings?|rupees?|kron[aeor]r?|pesos?|reais|lira|liras|baht|rubles?"
                    r"|roubles?|zloty|forints?|dinars?|dirhams?|riyals?|rials?|ringgit)\b"
                    r"|元|美元|欧元|英镑|日元", _I)


_NO_VALUE = re.compile(r"\bno\s+(?:\w+\s+){0,2}(?:data|estimates?|information|figures?|charge|fee|cost)s?\b"
                       r"|\bfree\s+of\s+charge\b|\bat\s+no\s+(?:extra\s+|additional\s+)?cost\b"
                       r"|\bnot\s+(?:yet\s+)?(?:available|known|estimated|determined)\b"
                       r"|没有数据|暂无|免费", _I)


# Questions for a calendar date or a clock time. A plain "when" may be answered by a condition or a
# duration ("after 90 seconds without a keepalive"), so it takes any new numeral.
_ASKS_CALENDAR = re.compile(r"\b(?:until|till|by) when\b|\bwhat (?:date|day|year|month|time)\b|\bby what date\b"
                            r"|\bwhich (?:year|date|day|month)\b|\bdeadline\b|哪一年|哪年|几号|几点|日期", _I)


# "How often …?" asks for a frequency: every month, twice a year, daily, 3 times per week, 每月.
_ASKS_FREQUENCY = re.compile(r"\bhow often\b|\bhow frequently\b|\bhow many times (?:a|an|per|each|every)\b|多久一次|多长时间一次|频率", _I)


_FREQUENCY = re.compile(r"\b(?:every|each|per|once|twice|thrice|times|daily|weekly|monthly|yearly|annually|hourly|nightly"
                        r"|biweekly|fortnightly|quarterly|always|never|whenever|regularly|continuously)\b|\ba (?:day|week|month|year)\b"
                        r"|每[天日周月年次]|一次|两次|定期", _I)


# A date or time as written: a month name or weekday with its day, numeric dates, clock times, a year
# (three or four digits standing alone: 1066, 2019, the 1990s), an ordinal day, BC/AD years, 年月日.
_DATE_SHAPED = re.compile(UNIT_TYPES["date"].pattern + r"|(?<![\d.,])\d{3,4}s?(?![\d.,]\d)|\b\d{1,2}(?:st|nd|rd|th)\b"
                          r"|\b\d{1,2}\s?[ap]\.?m\b|\b\d+\s*(?:BC|AD|BCE|CE|B\.C\.|A\.D\.)", _I)


# A question for a day ("What's the deadline?", "By what date …?") is not answered by a year alone: a day is
# written with its month, as a numeric date, a weekday or an ordinal ("September 21, 2020", "21/09", "Monday", 21st).
_ASKS_DAY = re.compile(r"\bdeadline\b|\b(?:what|which|by what) (?:date|day)\b|\b(?:until|till|by) when\b|几号|日期", _I)


_DAY_SHAPED = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{_MONTH}\b|\b\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b"
                         rf"|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)\b|\d+\s*[月日号]"
                         r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day", _I)


def _dated_numerals(text: str, day: bool = False) -> list[str]:
    """The numerals of `text` that sit inside a date- or time-shaped expression (`day`: one that names a day)."""
    shaped = _DAY_SHAPED if day else _DATE_SHAPED
    return [n for found in shaped.finditer(text) for n in _NUMERAL.findall(found.group(0))]


def holds_wanted_value(question: str, text: str, money_asked: bool | None = None) -> bool:
    """For a how-much/how-many/when question: does `text` hold a value of the wanted kind?

    Any numeral the question does not hold counts (years, amounts and times are written too many
    ways to insist on the kind); a text whose digits only echo the question's own does not. A
    text without digits may answer in words ("two days", "every Monday", "in the ninth century").
    A question that wants no value, or also wants something else, is answered by any text. A question
    about money (cost, price, spend, pay, fee …) is not answered by numbers without a currency sign or
    name (a table's rows are exempt: `money_asked=False`, their currency sits in a header or nowhere);
    a text without numerals ("no definitive data", "free") is judged as before.
    """
    wanted = [t for t in wanted_types(question) if t != "date" or _ASKS_WHEN.search(question)]
    if not wanted or any(t not in VALUE_TYPES for t in wanted):  # "Who led … when …?", "Why is the price …?"
        return True
    if _NO_VALUE.search(text):
        return True  # "no definitive data that would enable … cost estimates", "free of charge": says there is none
    text = _ENUMERATOR.sub(" ", text)  # list numbers are not values; nor are codes, unless a code is what is asked
    if not _ASKS_IDENTIFIER.search(question):
        text = _IDENTIFIER.sub(" ", text)
    if _ASKS_FREQUENCY.search(question):  # "How often …?" is not answered by "0.5 L of water"
        return bool(_FREQUENCY.search(text))
    if _NUMERAL.search(text):
        if wanted == ["date"] and _ASKS_CALENDAR.search(question):  # not answered by "14 CFR 11.43"
            return new_numerals(question, " ".join(_dated_numerals(text, day=bool(_ASKS_DAY.search(question)))))
        # "What would it cost …?" is not answered by "… the 737 MAX horizontal stabilizer …": numbers, no money.
        if money_asked is None:
            money_asked = bool(_ASKS_MONEY.search(question))
        return new_numerals(question, text) and (not money_asked or bool(_MONEY.search(text)))
    found = found_types(text)
    return any(t in found for t in wanted) or bool(_VALUE_WORDS.search(text))


# "What URL …?", "What is the e-mail address of the list?", "… and what is their phone number?": an address of a kind
# with a form of its own, which the answer must hold ("The \\setfloatlink command causes the title of the video to be a
# hyperlink to the indicated URL" holds none). "Which website …?" may be answered by a name ("CTAN"), so it is not one.
_ASKS_ADDRESS = {
    "web address": re.compile(r"\burls?\b|\bweb\s*address(?:es)?\b|网址|源地址", _I),
    "e-mail address": re.compile(r"\be-?mail\s+address(?:es)?\b|\bwhere\s+(?:do|can|should|would)\s+(?:i|we|you)\s+"
                                 r"(?:e-?mail|send\s+(?:an\s+)?e-?mail)\b|邮箱地址|电子邮件地址", _I),
    "phone number": re.compile(r"\b(?:tele)?phone\s+numbers?\b|\bfax\s+numbers?\b|电话号码", _I),
}
_ADDRESS = {
    "web address": re.compile(r"[a-z][a-z0-9+.-]*://\S|\bwww\.\S|\b[\w-]+(?:\.[\w-]+)+/|\b[\w-]+(?:\.[\w-]+)*\."
                              r"(?:org|com|net|edu|gov|int|io|dev|info|cn|de|uk|fr|jp|eu|nz|au|ca|us)\b", _I),
    "e-mail address": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*|\b[\w.+-]+\s*(?:\(at\)|\[at\]|\bat\b)\s*[\w-]+\s*"
                                 r"(?:\(dot\)|\[dot\]|\.)\s*\w+", _I),
    "phone number": re.compile(r"\+?\(?\d[\d\s().–-]{5,}\d"),
}


def asked_address(question: str) -> str | None:
    """The kind of address a question asks for ("web address", "e-mail address", "phone number"), or None."""
    return next((kind for kind, pattern in _ASKS_ADDRESS.items() if pattern.search(question)), None)


def holds_address(kind: str, text: str) -> bool:
    """Does `text` hold an address of `kind` (a URL or domain name, a mail address, a phone number)?"""
    return _ADDRESS[kind].search(text) is not None


# "On which page is uninstalling described?", "Which section covers …?", 在第几页: the question asks where in the
# document something is, which a table of contents' entry answers.
ASKS_WHERE_IN_DOCUMENT = re.compile(r"\b(?:which|what)\s+(?:page|section|chapter|part|appendix)\b|\bpage\s+number\b"
                                    r"|哪一?页|第几页|哪一?[章节部分]|第几[章节]|哪个附录", re.IGNORECASE)


# "What are the dependencies?", "Which steps …", "List the …", "有哪些": the question asks for several things.
ASKS_SEVERAL = re.compile(r"^\W*(?:what|which)\s+(?:are|were)\b|^\W*(?:what|which)\s+(?:[\w-]+\s)?[\w-]+s\s+(?:are|were|do|does|did|must|should|can)\b"
                           r"|\blist\b|\bname (?:all|the)\b|有哪些|哪些", re.IGNORECASE)
