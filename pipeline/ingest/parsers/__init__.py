"""File parsers as a family: each file type is one class (`pipeline.core.interfaces.Parser`) plus one registration
in `PARSERS` (the shipped ones below); `choose_parser` picks the one a file's bytes or name ask for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.core.registry import PARSERS
from pipeline.ingest.parsers.docx import DocxParser
from pipeline.ingest.parsers.epub import EpubParser
from pipeline.ingest.parsers.html import HtmlParser
from pipeline.ingest.parsers.pdf import PdfParser
from pipeline.ingest.parsers.sheets import CsvParser, XlsxParser
from pipeline.ingest.parsers.text import TextParser

# sandboxed: the app parses this type in its worker processes, under their memory, CPU and time limits
# (pipeline.engine.sandbox); a type registered elsewhere runs in the server's process.
PARSERS.register("text", TextParser, sandboxed=True)
PARSERS.register("pdf", PdfParser, sandboxed=True)
PARSERS.register("docx", DocxParser, sandboxed=True)
PARSERS.register("html", HtmlParser, sandboxed=True)
PARSERS.register("epub", EpubParser, sandboxed=True)
PARSERS.register("xlsx", XlsxParser, sandboxed=True)
PARSERS.register("csv", CsvParser, sandboxed=True)


def registered_parsers(names: Sequence[str] | None = None) -> list:
    """The parsers `names` asks for, else every registered one in the order of registration (the order tried)."""
    return [PARSERS.create(name) for name in (PARSERS.in_order() if names is None else names)]


def choose_parser(parsers, data: bytes, filename: str):
    """The parser whose signature the bytes carry, else the one the name's suffix asks for, else the text parser for
    bytes that read as text.

    Bytes that carry another type's signature under this name are refused (a PDF named .txt).
    """
    suffix = Path(filename).suffix.lower()
    by_suffix = next((p for p in parsers if suffix in p.suffixes), None)
    sniffed = next((p for p in parsers if p.sniff(data)), None)
    if sniffed is not None and by_suffix is not sniffed:
        if by_suffix is None and not suffix:
            return sniffed
        kind = f"a {by_suffix.name}" if by_suffix is not None else f"an unsupported {suffix}"
        raise InputError(filename, f"this is a {sniffed.name.upper()} file with {kind} extension; "
                                   f"rename it to {sniffed.suffixes[0]}")
    if by_suffix is None and sniffed is None and (text := _as_text(parsers, data)) is not None:
        return text  # "LICENSE", "COPYING", "LGPL-2.1", "notes.log": plain text whatever the name says
    if by_suffix is None:
        known = ", ".join(s for p in parsers for s in p.suffixes)
        raise InputError(filename, f"unsupported file type {suffix or '(none)'}; use {known}")
    return by_suffix


_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")  # bytes no text file holds (tab, newlines, form feed, ESC can)


def _as_text(parsers, data: bytes):
    """The text parser, if it is registered and the bytes read as UTF-8 text (no control byte, valid in the first
    64 KB; a character cut at that edge is allowed)."""
    text = next((p for p in parsers if p.name == "text"), None)
    head = data[:65536]
    if text is None or not head or _CONTROL.search(head):
        return None
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.start < len(head) - 3:
            return None
    return text


def parse(
    data: bytes,
    filename: str,
    metadata: Mapping[str, Any] | None = None,
    pdf_limits: Any = None,
    parsers: Sequence | None = None,
) -> Document:
    """Parse one file's bytes with the registered parsers. `filename` is only a label (it never becomes a path)."""
    parsers = registered_parsers() if parsers is None else parsers
    return choose_parser(parsers, data, filename).parse(data, filename, metadata, pdf_limits)
