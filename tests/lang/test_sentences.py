"""Sentence boundaries (pipeline/lang/sentences.py): pysbd's, less the cuts that are not sentence ends."""

from __future__ import annotations

import pytest

from pipeline.lang.sentences import sentence_spans


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize("text, expected", [
    ("Our privacy statement is located at https://go.microsoft.com/fwlink/?LinkID=824704. Learn more there.",
     ["Our privacy statement is located at https://go.microsoft.com/fwlink/?LinkID=824704.", "Learn more there."]),
    ("Search www.example.org/find?q=ferry&lang=en for times. Is it open?",
     ["Search www.example.org/find?q=ferry&lang=en for times.", "Is it open?"]),
])
def test_a_web_address_with_a_query_is_not_cut_at_its_question_mark(text, expected):
    assert sentences(text) == expected


def test_a_question_after_an_address_still_ends_its_own_sentence():
    text = "Write to https://example.org/contact. Why? It is faster."
    assert sentences(text) == ["Write to https://example.org/contact.", "Why?", "It is faster."]
