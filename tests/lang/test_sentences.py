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


def test_a_file_name_in_code_is_not_cut_at_its_dot():
    text = "pip gets credentials from the user's `.netrc` file. Then it asks keyring."
    assert sentences(text) == ["pip gets credentials from the user's `.netrc` file.", "Then it asks keyring."]


def test_chinese_sentences_end_at_their_full_stop_without_a_space():
    assert sentences("北京的住宿限额是每晚七百五十元。上海是八百元。") == ["北京的住宿限额是每晚七百五十元。", "上海是八百元。"]


@pytest.mark.parametrize("text, expected", [
    ("Regression in our fallback path leading to a decode error. (#771) We've yanked 3.4.8 as a result of that bug.",
     ["Regression in our fallback path leading to a decode error. (#771)", "We've yanked 3.4.8 as a result of that bug."]),
    ("Fixed a crash on empty input. (GH-1234, GH-1240) Next release soon.",
     ["Fixed a crash on empty input. (GH-1234, GH-1240)", "Next release soon."]),
    ("Do this first. (1) Open the lid. (2) Pour.", ["Do this first.", "(1) Open the lid.", "(2) Pour."]),
])
def test_an_issue_reference_after_a_full_stop_ends_that_sentence_not_the_next(text, expected):
    assert [text[start:end] for start, end in sentence_spans(text)] == expected
