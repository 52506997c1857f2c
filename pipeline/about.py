"""Questions about a document as a whole: "What is this document about?", "Summarize this report", 这篇文档讲什么？

Such a question names nothing in the text, so neither BM25 nor meaning finds its answer, and the answer scorer
(trained on questions about facts) rejects every sentence. The document says what it is about where it says so:
a summary or an abstract ("SUMMARY: The FAA proposes to …", "## Abstract", "摘要："), else its opening sentences.
Retrieval ranks those chunks first for such a question (`summary_chunk`), and the composer answers with that
passage (`answer_forms.summary_units`), at most a few sentences of it, cited as always; over several documents,
one such passage per document packed.
"""

from __future__ import annotations

import re

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
