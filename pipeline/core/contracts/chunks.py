"""Chunk: an addressed piece of a document with its parent span."""

from __future__ import annotations

from typing import Literal

from pipeline.core.contracts.base import Frozen


class Span(Frozen):
    """A line range on one page (page None for text documents)."""

    page: int | None = None
    start_line: int
    end_line: int


ChunkKind = Literal["line", "card", "window"]


class Chunk(Frozen):
    """An addressed piece of a document.

    kind "line": one per source line, for diagnosis. kind "card": an authored card whose
    parent is its support span. kind "window": ~800 code points, never crossing a page,
    whose parent is the lines it touches; `start`/`end` are its code-point offsets into
    the page text, so the overlap carried from the previous window keeps its address.
    """

    chunk_id: str
    source_id: str
    kind: ChunkKind
    text: str
    parent: Span
    start: int | None = None
    end: int | None = None
    card_id: str | None = None
    content_hash: str
    # Context above the window, indexed and embedded with the text, never part of what a citation quotes:
    # the header rows above a window of table rows (a row far down a table keeps its column names), or
    # the start of the sentence a PDF page's first line finishes (chunk.continued_sentence).
    heading: str = ""
    # The titles of the sections the window sits in ("Unix and macOS / Building Node.js", `text.sections`): words a
    # question names its topic by that the window itself may not repeat. Word search only: the stored vectors stay.
    section: str = ""

    @property
    def search_text(self) -> str:
        """What the embedder sees: the heading (if any), then the text."""
        return f"{self.heading}\n{self.text}" if self.heading else self.text

    @property
    def lexical_text(self) -> str:
        """What BM25 sees: the section titles (if any), then the search text."""
        return f"{self.section}\n{self.search_text}" if self.section else self.search_text
