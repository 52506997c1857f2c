"""Words broken at a line end by a hyphen: a syllable break is joined ("ra-" over "dio" → "radio"), a compound broken
at its own hyphen keeps it ("well-" over "known" → "well-known") when the document's other words say it is one."""

from __future__ import annotations

import pytest

from pipeline.lang.text import compound_kept, join_hyphenated, line_end_breaks, normalize
from pipeline.text.units import join_lines

ELSEWHERE = ("The harbour is a well-known landmark. Its self-rated survey was reported in spring. "
             "Something was sent by post; the office keeps the thing.")


@pytest.mark.parametrize("before, after, kept", [
    ("well", "known", True),  # the compound is written whole elsewhere
    ("self", "reported", True),  # "self-" leads another compound, "reported" is a word
    ("ra", "dio", False),  # a syllable break: neither
    ("some", "thing", False),  # both halves are words, but the joined form is written elsewhere
    ("post", "office", False),  # both halves are words; "post" never leads a compound here
])
def test_a_break_is_kept_only_where_the_documents_words_show_a_compound(before, after, kept):
    assert compound_kept(before, after, [ELSEWHERE]) is kept


def test_the_joined_form_written_elsewhere_wins_over_the_compound():
    assert not compound_kept("well", "known", ["a well-known place", "a wellknown place"])


def test_kept_compounds_keep_their_hyphen_when_lines_are_joined_and_others_do_not():
    """(The comparing and tokenizing form, `join_hyphenated`, joins every break: `normalize` ignores the hyphen.)"""
    quote = "The stations report to a well-\nknown office, which sends the readings by ra-\ndio every hour."
    assert line_end_breaks(quote) == [("well", "known"), ("ra", "dio")]
    kept = ("well-known",)
    shown = "The stations report to a well-known office, which sends the readings by radio every hour."
    assert join_lines(quote, kept) == shown
    unknown = shown.replace("well-known", "wellknown")  # no compounds known: joined as before
    assert join_lines(quote) == join_hyphenated(quote) == unknown


def test_a_compound_shown_with_or_without_its_hyphen_is_contained_in_its_broken_source():
    span = normalize("The stations report to a well-\nknown office by the harbour.")
    assert normalize("report to a well-known office") in span
    assert normalize("report to a wellknown office") in span
