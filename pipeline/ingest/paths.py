"""Documents from paths: files named directly and the readable files found under folders, with their sidecars.

Which files are readable, and how each is parsed, the parsers say (the engine's: `Engine.parse_paths`). A file
of a type that cannot hold front matter (a PDF) may carry its metadata in a sidecar `NAME.pdf.yaml`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.core.interfaces import Parser
from pipeline.ingest.document import document_warnings
from pipeline.ingest.front_matter import split_front_matter
from pipeline.ingest.metadata import check_unique_ids
from pipeline.ingest.parsers import choose_parser


def stderr_warning(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def parse_paths(paths: Sequence[Path], parsers: Sequence[Parser],
                warn: Callable[[str], None] | None = stderr_warning) -> list[Document]:
    """Parse every readable file under `paths`; the first bad file raises InputError naming it."""
    suffixes = {suffix for parser in parsers for suffix in parser.suffixes}
    documents = [parse_path(path, parsers) for path in iter_input_files(list(paths), suffixes)]
    check_unique_ids(documents)
    for document in documents:
        for warning in document_warnings(document):
            if warn is not None:
                warn(warning)
    return documents


def iter_input_files(paths: list[Path], suffixes: set[str]) -> list[Path]:
    """Files named directly, and files with one of `suffixes` found recursively under folders, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in suffixes))
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(str(path), "no such file or folder")
    return found


def parse_path(path: Path, parsers: Sequence[Parser], limits: Any = None) -> Document:
    """Parse a file on disk; a type without front matter may carry a sidecar NAME.ext.yaml with its metadata."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror}") from None
    parser = choose_parser(parsers, data, str(path))
    metadata = None
    sidecar = path.with_name(path.name + ".yaml")
    if not parser.front_matter and sidecar.is_file():
        metadata, _ = split_front_matter("---\n" + sidecar.read_text("utf-8") + "\n---\n", str(sidecar))
    return parser.parse(data, str(path), metadata, limits)
