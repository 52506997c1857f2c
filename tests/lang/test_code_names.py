"""What a question writes as code (`code_names`): an option starts a word of its own, so the end of a hyphenated word
is never read as one (issue 51: a refusal said "the question names -registered" for "U.S.-registered")."""

from __future__ import annotations

import pytest

from pipeline.lang.names import code_names


@pytest.mark.parametrize("question", [
    "How many U.S.-registered drones must broadcast Remote ID?",
    "Are E.U.-funded projects listed?",
    "What does the 2.5-inch rule say?",
])
def test_the_end_of_a_hyphenated_word_is_not_an_option(question):
    assert not [name for name in code_names(question) if name.startswith("-")]


@pytest.mark.parametrize("question, options", [
    ("What does ls -s do?", ["-s"]),
    ("-s or -S: which sorts by size?", ["-s", "-S"]),
    ('Is the "--force" flag of --color needed?', ["--force", "--color"]),
    ("What does (-v) print?", ["-v"]),
    ("What does `-x` mean?", ["-x"]),
])
def test_an_option_after_a_space_a_bracket_or_a_quote_is_still_read(question, options):
    assert [name for name in code_names(question) if name.startswith("-")] == options
