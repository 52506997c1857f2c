"""Questions about a document's own particulars: who wrote it, its title, its date, its version.

"Who wrote this guide?", "What date is printed on the sample manuscript?", "Which version of the llncs class are
these instructions for?", 这份简介是谁写的？ The answer is on the document's first page, in the lines under its title
(`text.title_block`), which are names, dates and version lines, not sentences: neither the words of the question
nor the answer scorer find them. A question asks about the document when it says so ("this paper", 这份) or when the
thing it names is named by the document (its id or title: "Who wrote the ieeepes package?" of ieeepes-package.pdf);
"Who wrote natbib?" of the REVTeX guide asks about something else, and the composer answers it as any question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_I = re.IGNORECASE

# What people call a document they ask about ("these instructions", "the sample manuscript", 这份简介).
_DOCUMENT = (r"(?:document(?:ation)?|paper|report|file|pdf|text|article|guide|guideline|readme|manual|book|study|"
             r"instructions|introduction|manuscript|sample|template|slides|talk|presentation|publication|thesis|"
             r"handbook|tutorial|notes|note|specification|standard|memo|letter|brochure|leaflet|policy|proposal|"
             # what a package's own documentation calls the thing it documents ("Who wrote this class?")
             r"package|class|bundle|library|module)")
_REFERS = (rf"\b(?:this|these|the)\s+(?:[\w.-]+\s+){{0,4}}?{_DOCUMENT}\b|\bthis\s*[?？.!]?\s*$"  # "Who wrote this?"
           r"|这份|这篇|这本|本文|本手册|本文档|该文档")

FIELDS = ("title", "author", "date", "version")

_ASKS: dict[str, re.Pattern] = {
    "author": re.compile(
        r"\bwho\s+(?:wrote|writes|authored|created|developed|prepared|compiled|produced|maintains|maintained)\b"
        r"|\bwho(?:'s|’s|\s+is|\s+are|\s+was|\s+were)\s+(?:the\s+)?(?:authors?|writers?|creators?|developers?|maintainers?)\b"
        r"|\bwhich\s+(?:authors?|people|persons?)\s+(?:wrote|authored|prepared)\b"
        r"|^\W*(?:name|list)\s+the\s+authors?\b|\bwho\s+is\s+(?:this|the)\s+(?:[\w.-]+\s+){0,3}?by\s*\?"
        r"|\bwhat\s+(?:are|is)\s+the\s+(?:names?\s+of\s+the\s+)?authors?(?:'s?|’s?)?\s+(?:names?\b|of\b)"
        r"|谁(?:写|编写|撰写|开发|制作|编著|创建|整理)的|作者是谁|作者是(?:哪|什么)|作者有(?:哪些|谁)", _I),
    "title": re.compile(
        rf"\bwhat(?:'s|\s+is|\s+was)\s+the\s+(?:full\s+|exact\s+)?(?:title|name)\s+of\s+(?:this|the)\s+(?:[\w.-]+\s+){{0,3}}?{_DOCUMENT}\b"
        rf"|\bwhat\s+is\s+(?:this|the)\s+(?:[\w.-]+\s+){{0,3}}?{_DOCUMENT}\s+(?:called|titled|named)\b"
        rf"|\bwhat(?:'s|\s+is)\s+(?:this|the)\s+(?:[\w.-]+\s+){{0,3}}?{_DOCUMENT}(?:'s|’s)\s+(?:full\s+)?title\b"
        r"|(?:标题|题目)是什么|(?:这份|这篇|这本|本)[^？?]{0,20}叫什么(?:名字)?", _I),
    "date": re.compile(
        r"\bwhat\s+date\s+(?:is|was)\s+(?:printed|given|shown|written|stated|on)\b"
        rf"|\bwhat\s+date\s+(?:does|did)\s+(?:this|the)\s+(?:[\w.-]+\s+){{0,4}}?{_DOCUMENT}\s+(?:carry|have|bear|show|give)\b"
        rf"|\bwhen\s+(?:was|is)\s+(?:this|the)\s+(?:[\w.-]+\s+){{0,4}}?{_DOCUMENT}\s+(?:written|dated|published|issued|"
        r"released|signed|created|prepared|compiled|produced|sent|updated|last\s+updated|"
        r"given|held|delivered|presented)\b"  # a talk's slides: "When was the presentation given?"
        rf"|\bwhat(?:'s|\s+is)\s+the\s+date\s+(?:of|on)\s+(?:this|the)\s+(?:[\w.-]+\s+){{0,4}}?{_DOCUMENT}\b"
        r"|what\s+is\s+its\s+date\b|(?:这份|这篇|本|标题页|封面)[^？?]{0,20}(?:日期|哪天|什么时候写)", _I),
    "version": re.compile(
        rf"\b(?:which|what)\s+version\b[^?]{{0,60}}?\b(?:this|these)\s+(?:[\w.-]+\s+){{0,3}}?{_DOCUMENT}\b"
        r"|\b(?:which|what)\s+version\b[^?]{0,60}?\b(?:does|do)\s+(?:this|these|it)\s+(?:describe|document|cover)\b"
        rf"|\bwhat\s+version\s+(?:is|of)\s+(?:this|the)\s+(?:[\w.-]+\s+){{0,3}}?{_DOCUMENT}\b"
        r"|(?:这份|这篇|本)[^？?]{0,20}(?:哪个|什么|哪一)版本", _I),
}

# "Which university is Till Tantau from?", "Where does Ann Author work?", "What is Jens Gramm's affiliation?": the
# institution of an author the title block names (the name is read from the question).
_ASKS_AFFILIATION = re.compile(
    r"\b(?i:which\s+(?:university|institution|institute|organi[sz]ation|company|lab(?:oratory)?|school|college|department)"
    r"\s+(?:is|was|are|were|does|did))\s+(?P<a>[A-Z][^?]{1,60}?)\s+(?i:from|at|with|affiliated\s+with|belong\s+to"
    r"|work\s+(?:at|for))\s*\?"
    r"|\b(?i:where\s+(?:does|do|did))\s+(?P<b>[A-Z][^?]{1,60}?)\s+(?i:work)\s*\?"
    r"|\b(?i:what\s+is)\s+(?P<c>[A-Z][^?]{1,60}?)(?:'s|’s)\s+(?i:affiliation|institution|university)\s*\?"
    r"|(?P<d>[^\s，,？?]{2,20}?)(?:来自|在)(?:哪个|哪所|什么)(?:大学|机构|单位|学校)")


def asked_affiliation(question: str) -> str | None:
    """The author whose institution a question asks for ("Till Tantau"), or None."""
    found = _ASKS_AFFILIATION.search(question)
    return next((name.strip() for name in found.groups() if name), None) if found else None


# The first, earliest or last such thing is a history the first page does not tell ("When was xpinyin first
# released?", 最早哪一年发布): its date line is the present version's.
_HISTORY = re.compile(r"\b(?:first|earliest|original|initial(?:ly)?|previous|last|latest|next)\b|最早|首次|第一次|上一|最新", _I)

# The words that ask for a particular, and the ones that only point at the document: none of them names the
# document's subject.
_FIELD_WORDS = frozenset(
    "who what which when whats is are was were the a an of this these that its it by on for in to does do did "
    "wrote writes written authored created developed prepared compiled produced maintains maintained author authors "
    "writer writers "
    "creator creators developer developers maintainer maintainers name names list title called titled named full "
    "exact date printed given shown stated dated published issued released signed version describe describes "
    "documents document cover covers page and any".split())
_WORD = re.compile(r"[A-Za-z][\w.+-]*[\w+]|[A-Za-z]|[\u4e00-\u9fff]+")
_SPACED = re.compile(r"[-_./]+")  # as a document's id is spaced in its names ("faillock.conf" → "faillock conf")
_DOCUMENT_WORD = re.compile(rf"^{_DOCUMENT}$", _I)
_CHINESE_FIELD = re.compile(r"这份|这篇|这本|本文|该文档|是谁|谁|写的|编写|撰写|开发|制作|作者|标题|题目|日期|版本|什么|哪个|哪一|叫|名字"
                            r"|的|是|了|吗|页|上|宏包|文档|手册|简介|说明|文章|使用方法|介绍|封面")


@dataclass(frozen=True)
class AskedParticulars:
    """What a question asks of its document: the particulars, the words naming the document (if any), and whether
    it refers to the document as such ("this paper")."""

    fields: tuple[str, ...]
    subject: tuple[str, ...]
    refers: bool

    def about(self, names: str) -> bool:
        """Is a document with these names (`PackedSource.names`: id, title, topic) the one asked about? One word
        of every two the question's subject has makes it so ("this Chinese tlmgr introduction" of tlmgr-intro-zh; not
        "lexgrog 现在的命令行前端", a part of lexgrog's page); a question naming nothing asks about "this" document."""
        folded = names.casefold()
        if self.subject:
            return 2 * sum(_named_in(_SPACED.sub(" ", word.casefold()), folded) for word in self.subject) >= len(self.subject)
        return self.refers


def _named_in(word: str, names: str) -> bool:
    """A word of the question among a document's names: as a whole word ("R" is not in "crane report"), or, in
    Chinese, anywhere."""
    if not word.isascii():
        return word in names
    return re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", names) is not None


def asked_particulars(question: str) -> AskedParticulars | None:
    """The particulars a question asks of its document (title, author, date, version), or None."""
    fields = tuple(field for field in FIELDS if _ASKS[field].search(question))
    if not fields or _HISTORY.search(question):
        return None
    refers = re.search(_REFERS, question, _I) is not None
    subject = tuple(dict.fromkeys(word for word in _WORD.findall(_CHINESE_FIELD.sub(" ", question))
                                  if word.casefold() not in _FIELD_WORDS and not _DOCUMENT_WORD.match(word)))
    return AskedParticulars(fields, subject, refers)
