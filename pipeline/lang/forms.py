"""Questions about a document as a whole: "What is this document about?", "Summarize this report", 这篇文档讲什么？

Such a question names nothing in the text, so neither BM25 nor meaning finds its answer, and the answer scorer
(trained on questions about facts) rejects every sentence. The document says what it is about where it says so:
a summary or an abstract ("SUMMARY: The FAA proposes to …", "## Abstract", "摘要："), else its opening sentences.
Retrieval ranks those chunks first for such a question (`summary_chunk`), and the composer answers with that
passage (`question/forms/about_document.summary_units`), at most a few sentences of it, cited as always; over several documents,
one such passage per document packed.
"""

from __future__ import annotations

import re
from functools import lru_cache

_I = re.IGNORECASE
_DOCUMENT = r"(?:document|paper|report|file|pdf|text|article|proposal|rule|notice|guide|guideline|readme|policy|manual|page|book|study)"
_ASKS_ABOUT = re.compile(
    rf"^\W*(?:what(?:'s| is| are)|tell me)\s+(?:this|the|these)(?:\s+{_DOCUMENT}s?)?\s+(?:all\s+)?about\s*\??\s*$"
    rf"|^\W*(?:please\s+)?(?:summari[sz]e|give (?:me )?(?:a |an )?(?:summary|overview|gist) of|sum up)\s+(?:this|the)(?:\s+{_DOCUMENT}s?)?\W*$"
    rf"|^\W*what(?:'s| is) (?:the )?(?:purpose|subject|topic|gist|main point|summary) of (?:this|the)(?:\s+{_DOCUMENT})?\s*\??\s*$"
    r"|^\s*(?:这|这个|这篇|这份|本)(?:文档|文章|文件|报告|指南|规定)?(?:主要)?(?:讲|说|是关于|介绍)(?:了)?(?:什么|啥)[？?]?\s*$"
    r"|^\s*(?:概括|总结)(?:一下)?(?:这|这篇|这份|本)?(?:文档|文章|文件|报告)?(?:的内容)?[。.？?]?\s*$", _I)
# A line that opens a summary: its label, alone or before the text ("SUMMARY: The FAA …", "Abstract", "## Overview").
SUMMARY_LABEL = re.compile(r"^\s*(?:#{1,6}\s*)?(?:executive\s+summary|summary|abstract|overview|synopsis|about|"
                           r"摘要|概述|简介|内容提要)\s*¶?\s*(?:[:：.—–-]|$)", _I)  # "Abstract¶": Sphinx's text output


def asks_about_document(question: str) -> bool:
    return _ASKS_ABOUT.search(question) is not None


# "this document", "the report", 这篇文档: one document, the one retrieval ranks first ("What is this about?" and
# "these documents" leave it open).
_ONE_DOCUMENT = re.compile(rf"\b(?:this|the)\s+{_DOCUMENT}\b(?!s)|这篇|这份|本(?:文档|文章|文件|报告)", _I)


def asks_about_one_document(question: str) -> bool:
    return _ONE_DOCUMENT.search(question) is not None


def opens_summary(text: str) -> bool:
    """Does a line of `text` open a summary ("SUMMARY: …", "Abstract")?"""
    return any(SUMMARY_LABEL.match(line) for line in text.split("\n"))


# "What is BM25?", "What are MCAS activations?", "What does 'angle of attack' mean?", "什么是…？", "…是什么？"
# "… in the Apache license", "… in this document": where the term is defined, not part of it.
# The spaces before a term that may itself start with a space: all of them, or all but one or two (the only splits
# the old plain \s+ could match through). A plain \s+ retried every split of a long run of spaces, each rescanning it.
_SPACES = r"(?:\s++|\s+(?=\s{1,2}(?!\s)))"
_WHERE_DEFINED = rf"(?:\s++(?:in|under|according to){_SPACES}(?:the{_SPACES}|this{_SPACES})?[^?]{{1,40}}?)?"


_NAMED_GROUP = r"category|column|field|heading|label|entry|class|group|row|line item"


# An option or a TeX macro asked what it does or is for ("What does the -k option do?", "What is -F shorthand for?"):
# its reference entry ("-k --keep  Keep (don't delete) input files …") defines it.
_ENTRY_NAME = r"(?:--?[A-Za-z][\w-]*|\\[A-Za-z@]+)"
_ENTRY_KIND = r"option|flag|switch|parameter|argument|command|macro"
# The entry: the name (its other spellings and arguments after it: "-k, --keep", "-n, --lines=[+]NUM") and then what it
# does, on the same line after a gap or a colon, or on the next line ("-F     same as --follow=name --retry"); a BSD
# manual's lower-case argument ends its line ("-a rounds").
_ENTRY_ARGUMENT = r"(?:(?:=|[ \t]?(?=[\[<A-Z]))[^\s,]*|[ \t][a-z][\w-]*(?=[ \t]*\n))?"
_ENTRY_ALIASES = rf"{_ENTRY_ARGUMENT}(?:,?[ \t]*(?:--?[A-Za-z][A-Za-z0-9_-]*|\\[A-Za-z@]+){_ENTRY_ARGUMENT})*?"
_ENTRY_GAP = r"(?:(?:[ \t]*:[ \t]*|[ \t]{2,}|\t|[ \t]*\n\s*)(?=[\w(])|(?=[\u4e00-\u9fff]))"


_ASKS_DEFINITION = (
    re.compile(rf"^\W*what (?:does|do){_SPACES}(?:the{_SPACES})?({_ENTRY_NAME})(?:{_SPACES}(?:{_ENTRY_KIND}))?"
               rf"{_SPACES}do\s*+\?\s*$", _I),
    re.compile(rf"^\W*what(?:'s| is){_SPACES}(?:the{_SPACES})?({_ENTRY_NAME})(?:{_SPACES}(?:{_ENTRY_KIND}))?{_SPACES}"
               r"(?:(?:used\s+)?for|short(?:hand)?\s+for|an?\s+(?:alias|shorthand|abbreviation)\s+for)\s*+\?\s*$", _I),
    re.compile(rf"^\W*what(?:'s| is| are){_SPACES}(?:an?{_SPACES}|the{_SPACES})?['\"‘“`]?([^?'\"’”`]{{1,60}}?)['\"’”`]?"
               r"\s*+\?\s*$", _I),
    re.compile(rf"^\W*what (?:does|do){_SPACES}(?:an?{_SPACES}|the{_SPACES})?"
               rf"(?:(?:term|word|phrase|abbreviation|acronym){_SPACES})?['\"‘“`]?"
               r"([^?'\"’”`]{1,60}?)['\"’”`]?\s++(?:mean|stand for|refer to)" rf"{_WHERE_DEFINED}\s*+\?\s*$", _I),
    # "What does the 'Other' category in this table include?": a quoted name, or a name of a column or category, is
    # asked what it covers (not "What does the warranty cover?", which asks what the warranty says).
    re.compile(rf"^\W*what (?:does|do){_SPACES}(?:the{_SPACES})?"
               r"(?:['\"‘“`]([^?'\"’”`]{1,60}?)['\"’”`](?:\s++(?:" + _NAMED_GROUP + r"))?"
               r"|([^?'\"’”`]{1,60}?)\s++(?:" + _NAMED_GROUP + r"))" + rf"{_WHERE_DEFINED}" +
               r"\s++(?:include|cover|contain|comprise|mean|refer to)\s*+\?\s*$", _I),
    re.compile(rf"^\W*what is meant by{_SPACES}(?:the{_SPACES})?['\"‘“`]?([^?'\"’”`]{{1,60}}?)['\"’”`]?"
               rf"{_WHERE_DEFINED}\s*+\?\s*$", _I),
    re.compile(rf"^\W*(?:define|(?:what is |what's )?the definition of|definition of){_SPACES}['\"‘“`]?"
               rf"([^?'\"’”`]{{1,60}}?)['\"’”`]?{_WHERE_DEFINED}\s*+[?.]?\s*$", _I),
    re.compile(rf"^\W*how does{_SPACES}(?:the{_SPACES}|this{_SPACES})?[^?]{{1,40}}?\s++define{_SPACES}['\"‘“`]?"
               r"([^?'\"’”`]{1,60}?)['\"’”`]?\s*+\?\s*$", _I),
    re.compile(r"^\s*什么是(.{1,20}?)[？?]?\s*$"),
    re.compile(r"^\s*(.{1,20}?)(?:是什么|指什么|是指什么)(?:意思)?[？?]?\s*$"),
)


# "CHUNK is simply the buffer size …": a hedge between the verb and the article still defines.
_DEFINING = (r"(?:\s*\([^()]{1,80}\))?,?\s+(?:is|are|was|were)\s+"
             r"(?:(?:simply|just|merely|basically|essentially|actually|really|usually|typically|generally)\s+)?"
             r"(?:an?|the|one|any)\b"
             r"|(?:\s*\([^()]{1,80}\))?(?:,?\s+(?:an?\s+)?[a-z]+)?(?:\s+(?:for|of|in)\s+(?:an?\s+|the\s+)?[\w-]+(?:\s+[\w-]+)?)?"
             r",?\s+(?:means|mean|shall mean|refers to|shall refer to|stands for|is defined as|denotes)\b")
# '"Source" form shall mean', 'To "convey" a work means', '"Installation Information" for a User Product means'


# What may open a definition before its term: markup, quotes, a footnote's number, "To" ('To "convey" a work
# means …'), an article.
_LEAD_IN = r"[\s>*_`'\"‘“#-]*(?:\d{1,2}\s+)?(?:to\s+)?(?:(?:an?|the)\s+)?[`'\"‘“]*"  # "8 MCAS is": a footnote's number


_SENTENCE_START = r"(?:^|(?<=[.!?。！？]\s)|(?<=\n))"


def defined_term(question: str) -> str | None:
    """The term a "what is X?" question asks to define, or None (not a definition question)."""
    for pattern in _ASKS_DEFINITION:
        found = pattern.search(question)
        term = next((group for group in found.groups() if group), "") if found else ""
        if term and len(term.split()) <= 5:
            return term.strip()
    return None


@lru_cache(maxsize=256)
def _definition_pattern(term: str, anywhere: bool = False, spelled_out: bool = True) -> re.Pattern:
    """A text that opens by defining `term` ("BM25 is a ranking function", "X (Y) refers to …", '"X" shall mean …',
    "X是…"); with `anywhere`, a sentence or line of it that does."""
    escaped = re.escape(term).replace(r"\ ", r"\s+")
    start = _SENTENCE_START if anywhere else "^"
    if re.fullmatch(_ENTRY_NAME, term):  # an option's case tells it apart (tail's "-F" is not its "-f")
        return re.compile(rf"{start}[ \t>*_`'\"‘“]*{escaped}(?![\w-]){_ENTRY_ALIASES}{_ENTRY_GAP}",
                          re.MULTILINE if anywhere else 0)
    defining = rf"{start}{_LEAD_IN}{escaped}(?:[`'\"’”*_]*(?:{_DEFINING})|(?:是指|是|指))"
    if spelled_out and _ACRONYM.fullmatch(term):  # "What does AOA stand for?": "The angle of attack (or AOA) …"
        defining += rf"|\((?:or\s+)?[‘“'\"]*{escaped}[’”'\"]*\)"
    return re.compile(defining, _I | (re.MULTILINE if anywhere else 0))


_ACRONYM = re.compile(r"[A-Z][A-Z0-9&-]{1,9}")


def defines(term: str, text: str, spelled_out: bool = True) -> bool:
    """Does `text` open by defining `term`? With `spelled_out`, an acronym's long form followed by the acronym in
    parentheses counts too."""
    return _definition_pattern(term, spelled_out=spelled_out).search(text) is not None


def defines_anywhere(term: str, text: str) -> bool:
    """Does a sentence or line of `text` open by defining `term`? (A chunk that holds the definition.)"""
    return _definition_pattern(term, anywhere=True).search(text) is not None


# A sentence that asks or sets out to test something ("we asked whether X") mirrors a claim
# closely without stating it; one that reports a finding ("we found", "results show") states it.
ASKS = re.compile(
    r"\?|？|\b(?:whether|unclear|unknown|remains to be|hypothes\w*|aim\w*|objective\w*|purpose|sought|"
    r"investigat\w*|examin\w*|to (?:determine|assess|evaluate|test|explore|compare|identify)|we (?:asked|tested|studied))\b"
    r"|是否|尚不清楚|目的", re.IGNORECASE)


REPORTS = re.compile(
    r"\b(?:found|find|show\w*|demonstrat\w*|reveal\w*|indicat\w*|suggest\w*|confirm\w*|conclu\w*|"
    r"results?|observed|associated|significant\w*|evidence)\b|发现|表明|显示|结果|证实", re.IGNORECASE)


PERSON_PRONOUN = re.compile(r"(?:He|She|They|His|Her|Their)\b|(?:他们|她们|他|她)")  # "He appointed …" names no one


# A demonstrative standing for what the sentence before says ("This has consequences, since make will fall back …",
# "That means …", "This includes things like Google Hangouts"), not one before a noun ("This version restores …", which
# says what it is about): a verb after "This"/"That" ends in -s (not a noun's -ss, -us, -is, -ies) or -ed (not -eed);
# after "These"/"Those", the common verbs. And a sentence that opens on "this option" or "this group" (a reference
# entry's "Without this option, the system will use …", "Members of this group can read many log files"), or on a
# phrase about "this"/"that" ("In this case, …", "For this reason …", "Seeing that message … indicates …"): alone it
# does not say which option, group, case or message.
_REFERRED_THING = (r"options?|flags?|settings?|variables?|parameters?|directives?|switch(?:es)?|keywords?|groups?|users?|"
                   r"accounts?|commands?|examples?")
DEMONSTRATIVE_OPENING = re.compile(
    r"(?:This|That|These|Those)\s+(?:is|was|are|were|has|have|had|makes?|made|means?|meant|allows?|allowed|requires?|"
    r"required|can|could|will|would|may|might|must|should|does|did|causes?|caused|leads?|led|results?|ensures?|"
    r"prevents?|gives?|lets?|happens?|happened|applies|affects?|also|includes?|included|contains?|contained|covers?|"
    r"provides?|describes?|explains?|shows?|works?|depends?|needs?|uses?|used|enables?|disables?|apply)\b"
    r"|(?:This|That)\s+[a-z]{2,}s(?<!ss)(?<!us)(?<!is)(?<!ies)(?<!news)\b|(?:This|That|These|Those)\s+[a-z]{2,}ed(?<!eed)\b"
    rf"|(?:(?:If|When|Unless|Once)\s+|[A-Z][a-z]+\s+of\s+)(?:this|that|these|those)\s+(?:{_REFERRED_THING})\b"
    rf"|(?:This|These)\s+(?:{_REFERRED_THING})\s+(?:is|are|can|may|must|should|will|has|have|does|sets?|allows?|"
    r"enables?|disables?|specifies|defines|controls?)\b"
    r"|(?:[A-Z][a-z]+ing|In|On|At|For|From|With|Without|After|Before|By|Under|Given|Despite|Unlike|Like)\s+"
    r"(?:this|that|these|those|such)\s+(?!(?:the|a|an|it|you|we|they|he|she|there|is|was|are|if|when)\b)[a-z]")


ANAPHOR = re.compile(r"(?:They|It|This|These|Those|He|She|Its|Their|His|Her|Such)\b|(?:他们|她们|它们|他|她|它|这|该|其|此)")


# "操场的种类大约分成两种。", "There are three kinds of pass.": a sentence that counts the kinds it is about to name.
COUNTS_KINDS = re.compile(r"(?:分为|分成|分作|有|包括)[约大]*[一二两三四五六七八九十几\d]+(?:种|类|个部分|个方面|部分|方面)[。.]?\s*$"
                           r"|\b(?:two|three|four|five|six|several|\d+)\s+(?:\w+\s+)?(?:kinds|types|categories|classes|groups|ways|forms)"
                           r"\b[^.]{0,40}\.\s*$", re.IGNORECASE)
