"""Inline markup as a reader of the rendered page does not see it (pipeline/lang/text.py): what the reader model reads."""

from __future__ import annotations

import pytest

from pipeline.lang.text import without_inline_markup


@pytest.mark.parametrize("source, rendered", [
    (":meth:`Response.iter_lines() <requests.Response.iter_lines>` or :meth:`Response.iter_content()`",
     "Response.iter_lines() or Response.iter_content()"),
    ("Some examples are `requests-threads`_, `grequests`_ and `Requests <https://requests.readthedocs.io>`_.",
     "Some examples are requests-threads, grequests and Requests."),
    ("schema version ``6`` adds workflow presets", "schema version 6 adds workflow presets"),
    ("can be generated using {ref}`pip freeze`.", "can be generated using pip freeze."),
    ("contain any of these [special characters][reserved-chars], then", "contain any of these special characters, then"),
    ("see [the guide](https://example.org/guide) for **all** of the *details*", "see the guide for all of the details"),
    (".. function:: viewkeys(dictionary) Return a view over *dictionary*\\'s keys.",
     "viewkeys(dictionary) Return a view over dictionary's keys."),
    ("Section: .. py:data:: string_types Possible types for text data.", "Section: string_types Possible types for text data."),
    ("``COMMAND_ERROR_IS_FATAL <ANY|LAST>`` .. versionadded:: 3.19", "COMMAND_ERROR_IS_FATAL <ANY|LAST> Added in version 3.19."),
    (".. versionchanged:: 3.9 Accepts a tuple.", "Changed in version 3.9: Accepts a tuple."),
    (".. deprecated:: 2.1 Use load() instead.", "Deprecated since version 2.1: Use load() instead."),
])
def test_roles_literals_links_and_emphasis_read_as_their_text(source, rendered):
    assert without_inline_markup(source) == rendered


@pytest.mark.parametrize("text", ["* a list item", "2*3*4 = 24", "a_b_c and snake_case_names", "price: $5 * 3",
                                  "Wait... then run it.", "C:\\Users\\me\\notes.txt"])
def test_text_that_only_looks_like_markup_is_left_alone(text):
    assert without_inline_markup(text) == text


def test_a_version_note_ends_no_sentence_and_answers_when_its_entry_came():
    from pipeline.lang.sentences import sentence_spans

    text = "``ENCODING <name>`` .. versionadded:: 3.8 On Windows, the encoding is used to decode output."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "``ENCODING <name>`` .. versionadded:: 3.8 On Windows, the encoding is used to decode output."]
