"""What every parser shares: a file's digest, a body's exact lines, a text-like document, and what to warn about
an accepted document."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pipeline.core.contracts import Document, DocumentInfo, Line, Page, PageTable
from pipeline.core.errors import InputError
from pipeline.ingest.furniture import running_lines_of_text
from pipeline.ingest.metadata import check_cards_against_pages, meta_from_mapping


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def split_lines(body: str) -> tuple[Line, ...]:
    """One Line per newline-separated line, with code-point offsets into `body`."""
    lines, offset = [], 0
    for number, text in enumerate(body.split("\n"), start=1):
        lines.append(Line(number=number, start=offset, end=offset + len(text), text=text))
        offset += len(text) + 1
    if lines and lines[-1].text == "" and len(lines) > 1:
        lines.pop()  # a trailing newline ends the last line; it does not start a new one
    return tuple(lines)


def text_document(body: str, data: bytes, filename: str, kind: str,
                  metadata: Mapping[str, Any] | None = None, warnings: Sequence[str] = (),
                  tables: Sequence[PageTable] = (), info: DocumentInfo | None = None) -> Document:
    """A Document of one page of exact lines (`body`, as the reader will see it) with validated `metadata`: what a
    parser of a text-like file type returns. `data` is the file's bytes (its digest), `kind` the parser's name,
    `warnings` what the parser read past, `tables` the tables it wrote (by line number), `info` what the file says
    about itself (shown, never trusted)."""
    if not body.strip():
        raise InputError(filename, "the document body is empty")
    meta = meta_from_mapping(metadata, default_id=Path(filename).stem, filename=filename)
    lines = split_lines(body)
    pages = (Page(number=None, text=body, lines=lines, furniture=running_lines_of_text(lines) if "\f" in body else (),
                  tables=tuple(tables)),)
    check_cards_against_pages(meta, pages, filename)
    return Document(meta=meta, kind=kind, filename=filename, digest=sha256(data), pages=pages, info=info,
                    warnings=tuple(warnings))


def document_warnings(document: Document) -> list[str]:
    """What a user should know about a document that was accepted (not errors), one line each."""
    name = Path(document.filename).name
    warnings = [f"{name}: {warning}" for warning in document.warnings]
    if document.meta.extra:
        keys = ", ".join(key for key, _ in document.meta.extra[:8]) + (" …" if len(document.meta.extra) > 8 else "")
        warnings.append(f"{name}: front matter key(s) {keys} are not ours: kept as extra metadata (shown, never "
                        "used for access or validity)")
    empty = pages_without_text(document) if document.paged else []
    if empty:
        listed = ", ".join(str(n) for n in empty[:20]) + (" …" if len(empty) > 20 else "")
        warnings.append(f"{name}: page(s) {listed} have no text layer (scanned or image-only); "
                        "they cannot be searched or cited")
    return warnings


def pages_without_text(document: Document) -> list[int]:
    """Numbers of the pages that have no lines (scanned or image-only pages)."""
    return [page.number for page in document.pages if not page.lines]
