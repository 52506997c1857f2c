"""Sentence splitting: pysbd for English, sentence-ending punctuation for Chinese; a label before an identifier
("Docket No. FAA–2020–0746") does not end a sentence.
"""

from __future__ import annotations

import re

from pipeline.lang.tokenize import has_cjk

_CJK_SENTENCE = re.compile(r"[^。！？；!?]*[。！？；!?]+|[^。！？；!?]+$")


def _segmenter():
    import pysbd

    global _SEGMENTER
    if _SEGMENTER is None:
        _SEGMENTER = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return _SEGMENTER


_SEGMENTER = None


# Masked before pysbd splits (the same length, so the spans are the text's): the two dots that open a reStructuredText
# directive (".. versionadded:: 3.19"), which end no sentence; and an empty pair of straight quotes ('salt=""'), which
# pysbd pairs with the next quote, reading every sentence up to it as one quotation (fontconfig's element list).
_DIRECTIVE_DOTS = re.compile(r"(?<!\S)\.\.(?=\s+[a-z][\w:-]*::)")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence boundaries as code-point spans (pysbd for English, punctuation for Chinese)."""
    chinese = has_cjk(text)
    if chinese:
        spans = [(m.start(), m.end()) for m in _CJK_SENTENCE.finditer(text)]
    else:
        masked = _DIRECTIVE_DOTS.sub("::", text).replace('""', "\u201c\u201d")
        spans = [(s.start, s.end) for s in _segmenter().segment(masked)]
    trimmed = []
    for start, end in spans:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start and trimmed and not chinese and (reference := _LEADING_REFERENCE.match(text, start, end)):
            trimmed[-1] = (trimmed[-1][0], reference.end(1))  # "… a decode error." | "(#771) We've yanked …"
            start = reference.end()
        if end > start:
            if trimmed and (_ENDS_IN_LABEL.search(text, trimmed[-1][0], trimmed[-1][1])
                            or (not chinese and _glued(trimmed[-1], start))):
                trimmed[-1] = (trimmed[-1][0], end)  # "Docket No." | "FAA–2020–0746 …": one sentence
            else:
                trimmed.append((start, end))
    return trimmed


# An issue or pull-request reference after a sentence's full stop ("… a decode error. (#771)", "(GH-1234)", "(PR #12,
# #15)") belongs to that sentence; pysbd opens the next sentence with it. An enumerator ("(1)", "(b)") opens its own.
_LEADING_REFERENCE = re.compile(r"([(\[](?:#|[A-Za-z]+[- ]#?)\d+(?:,\s*(?:#|[A-Za-z]+[- ]#?)?\d+)*[)\]])\s*")


def _glued(previous: tuple[int, int], start: int) -> bool:
    """pysbd ends sentences where no space follows: at the "?" of a web address ("…/fwlink/?" | "LinkID=824704.") or
    the dot of a file name in code ("the user's `." | "netrc` file."). An English sentence end is followed by a space
(Chinese ones are not: "。" ends a sentence where it stands)."""
    return previous[1] == start


# A label that an identifier follows ("Docket No. FAA–2020–0746", "Vol. 85", "Fig. 3"): not a sentence end.
_ENDS_IN_LABEL = re.compile(r"\b(?:No|Nos|Vol|Fig|Figs|Sec|Art|Ref|Tel|Ext|Ch|pp|Para|App|Tab|Eq)\.[’”'\"]?$")


def sentence_units(span: str) -> list[tuple[int, int]]:
    """Code-point spans of the sentences of `span`: lines first (a line may be a paragraph), then sentences."""
    units, offset = [], 0
    for line in span.split("\n"):
        if line.strip():
            units.extend((offset + start, offset + end) for start, end in sentence_spans(line))
        offset += len(line) + 1
    return units
