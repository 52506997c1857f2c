"""Documents from paths: files named directly and supported files found under folders, with their sidecars.

A file that cannot hold front matter (a PDF) may carry its metadata in a sidecar `NAME.pdf.yaml`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.ingest.document import document_warnings
from pipeline.ingest.front_matter import split_front_matter
from pipeline.ingest.metadata import check_unique_ids
from pipeline.ingest.parsers import SUPPORTED_SUFFIXES, parse
from pipeline.ingest.parsers.pdf import PDF_SUFFIXES


def stderr_warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def parse_paths(paths: Sequence[Path], parse: Callable = parse,
                warn: Callable[[str], None] | None = stderr_warning) -> list[Document]:
    """Parse every file under `paths`; the first bad file raises InputError naming it."""
    documents = [parse_path(path, parse=parse) for path in iter_input_files(list(paths))]
    check_unique_ids(documents)
    for document in documents:
        for warning in document_warnings(document):
            if warn is not None:
                warn(warning)
    return documents


def iter_input_files(paths: list[Path]) -> list[Path]:
    """Files named directly, and supported files found recursively under folders, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(
                sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES)
            )
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(str(path), "no such file or folder")
    return found


def parse_path(path: Path, pdf_limits: Any = None, parse=parse) -> Document:
    """Parse a file on disk; a PDF may carry a sidecar NAME.pdf.yaml with its metadata."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror}") from None
    metadata = None
    sidecar = path.with_name(path.name + ".yaml")
    if path.suffix.lower() in PDF_SUFFIXES and sidecar.is_file():
        metadata, _ = split_front_matter("---\n" + sidecar.read_text("utf-8") + "\n---\n", str(sidecar))
    return parse(data, str(path), metadata, pdf_limits)
