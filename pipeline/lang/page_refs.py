"""A question that says where its answer is: "the proposal on the last page", "on page 3", "第2页".

Retrieval ranks the chunks of that page of each PDF as first in a ranking of their own (fused with BM25 and
dense, so the page's best chunks lead and other pages still compete), and the words that only point at the
page ("last", "page") are not query terms: no document's text says "last page".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.core.contracts import Document

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1, "final": -1}
_WORDS = "|".join(_ORDINALS)
_REFERENCE = re.compile(
    rf"\b(?:(?:on|in|at|from)\s+)?(?:the\s+)?(?:(?P<ordinal>{_WORDS}|\d{{1,4}}(?:st|nd|rd|th))\s+page"
    rf"|page\s+(?P<number>\d{{1,4}})\b|p\.\s*(?P<short>\d{{1,4}}))\b"
    r"|第\s*(?P<zh>\d{1,4})\s*页|(?P<zh_last>最后一页)", re.IGNORECASE)


@dataclass(frozen=True)
class PageReference:
    number: int  # 1-based; negative counts from the end (-1: the last page)

    def page_of(self, document: Document) -> int | None:
        """The referenced page of a PDF, or None (a text document has no pages; the PDF is shorter)."""
        if not document.paged or not document.pages:
            return None
        last = max(page.number for page in document.pages)
        page = last + 1 + self.number if self.number < 0 else self.number
        return page if 1 <= page <= last else None


def page_reference(question: str) -> PageReference | None:
    found = _REFERENCE.search(question)
    if found is None:
        return None
    if found.group("zh_last"):
        return PageReference(-1)
    ordinal = found.group("ordinal")
    if ordinal:
        number = _ORDINALS.get(ordinal.lower()) or int(re.match(r"\d+", ordinal).group())
    else:
        number = int(found.group("number") or found.group("short") or found.group("zh"))
    return PageReference(number) if number else None


def without_page_reference(question: str) -> str:
    """The question with the words that point at a page taken out (they locate, they do not describe)."""
    return _REFERENCE.sub(" ", question)
