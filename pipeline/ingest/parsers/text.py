"""The text parser: text, Markdown and reStructuredText → a Document of exact, addressable lines (seed 000, §45.2).

Optional YAML front matter, then the body. Line numbers are 1-based and count the body only;
offsets are zero-based, half-open code points into the body, the end excluding the newline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.core.limits import MAX_DOCUMENT_LINES, megabytes
from pipeline.ingest.budgets import count_lines
from pipeline.ingest.document import text_document
from pipeline.ingest.front_matter import decode_text, split_front_matter

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst"}  # reStructuredText (PEPs, Sphinx docs) reads as plain text
MAX_TEXT_BYTES = 20 * 1024 * 1024


def parse_text(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None,
               max_lines: int | None = None) -> Document:
    if len(data) > MAX_TEXT_BYTES:
        raise InputError(filename, f"is {megabytes(len(data))}; the limit is {megabytes(MAX_TEXT_BYTES)}")
    max_lines = max_lines or MAX_DOCUMENT_LINES
    lines = count_lines(data)
    if lines > max_lines:  # counted on the bytes: a line costs ~400 bytes held however short it is
        raise InputError(filename, f"has {lines} lines; the limit is {max_lines} per document")
    text = decode_text(data, filename)
    warnings: list[str] = []  # a block other tools wrote that YAML cannot read: the body is still read
    front_matter, body = split_front_matter(text, filename, warnings)
    if metadata:
        front_matter = {**front_matter, **{k: v for k, v in metadata.items() if v not in (None, "")}}
    return text_document(body, data, filename, "text", front_matter, warnings)


class TextParser:
    """Text, Markdown and reStructuredText with optional YAML front matter."""

    name = "text"
    suffixes = tuple(sorted(TEXT_SUFFIXES))
    media_types = ("text/plain", "text/markdown", "text/x-rst")
    front_matter = True

    def sniff(self, data: bytes) -> bool:
        return False  # text has no signature; it is chosen by its name

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_text(data, filename, metadata, getattr(limits, "max_lines", None))


