"""The section titles over a line (`text.sections`), and a window indexed for word search with them."""

from __future__ import annotations

from pipeline.index.chunk import window_chunks
from pipeline.ingest.parsers import parse
from pipeline.lang.tokenize import Tokenizer
from pipeline.text.sections import section_titles

MARKDOWN = """# Building the tool

## Unix and macOS

### Prerequisites

A C compiler.

### Building

To build it:

```bash
# not a title: a comment in a fenced block
./configure && make
```

## Windows

Run vcbuild.
"""

REST = """Guide
=====

Usage
-----

Run it.

Options
~~~~~~~

--x does y.

Other
-----

z
"""


def test_a_line_sits_in_its_innermost_two_sections_and_code_comments_are_no_titles():
    lines = MARKDOWN.split("\n")
    titles = dict(zip(lines, section_titles(lines)))
    assert titles["To build it:"] == "Unix and macOS / Building"
    assert titles["./configure && make"] == "Unix and macOS / Building"  # the "#" comment above opened nothing
    assert titles["Run vcbuild."] == "Building the tool / Windows"  # a sibling closes "Unix and macOS"
    assert titles["A C compiler."] == "Unix and macOS / Prerequisites"


def test_underlined_titles_take_their_level_from_the_order_a_document_uses_them():
    lines = REST.split("\n")
    titles = dict(zip(lines, section_titles(lines)))
    assert titles["--x does y."] == "Usage / Options"
    assert titles["z"] == "Guide / Other"
    assert section_titles(["plain text", "", "more"]) == ["", "", ""]


def test_a_window_is_word_searched_with_its_sections_and_embedded_without_them():
    # (A window opening above a title holds that title itself: its sections are those of its first line.)
    document = parse(MARKDOWN.encode(), "build.md")
    window = next(c for c in window_chunks(document, size=60, overlap=0) if c.text.startswith("```bash"))
    assert window.section == "Unix and macOS / Building"
    tokens = Tokenizer().tokens
    assert "unix" in tokens(window.lexical_text) and "unix" not in tokens(window.search_text)
