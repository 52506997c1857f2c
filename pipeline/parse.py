"""Parse: stored bytes → a Document of exact, addressable lines (seed 000, §45.2).

Text and Markdown: optional YAML front matter, then the body. Line numbers are 1-based and
count the body only; offsets are zero-based, half-open code points into the body, the end
excluding the newline. PDFs go through `parse_pdf` (pages, lines and boxes) behind the
same entry point.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .contracts import Document, Line, Page
from .errors import InputError
from .metadata import check_cards_against_pages, meta_from_mapping
from .page_furniture import running_lines_of_text

TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst"}  # reStructuredText (PEPs, Sphinx docs) reads as plain text
PDF_SUFFIXES = {".pdf"}
SUPPORTED_SUFFIXES = TEXT_SUFFIXES | PDF_SUFFIXES
MAX_TEXT_BYTES = 20 * 1024 * 1024
MAX_FRONT_MATTER_CHARS = 16 * 1024  # metadata is a few lines; a bound keeps YAML parsing cheap
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)


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


class _StringDatesLoader(yaml.SafeLoader):
    """YAML without implicit timestamps: dates stay text, so ours can name an impossible one."""


_StringDatesLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _FrontMatterLoader(_StringDatesLoader):
    """Also refuses anchors and aliases: ~390 bytes of nested aliases expand to gigabytes (an alias bomb)."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise yaml.composer.ComposerError(None, None, "anchors and aliases (&name, *name) are not allowed",
                                              event.start_mark)
        return super().compose_node(parent, index)


def split_front_matter(text: str, filename: str) -> tuple[dict[str, Any], str]:
    """Return (front matter mapping, body). The body starts right after the closing `---`."""
    if not text.startswith("---"):
        return {}, text
    match = _FRONT_MATTER.match(text)
    if not match:
        raise InputError(filename, "front matter: opening '---' has no closing '---' line")
    source = match.group(1) or ""
    if len(source) > MAX_FRONT_MATTER_CHARS:
        raise InputError(filename, f"front matter is {len(source)} characters; the limit is {MAX_FRONT_MATTER_CHARS}")
    try:
        loaded = yaml.load(source, Loader=_FrontMatterLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at front-matter line {mark.line + 2}" if mark else ""
        problem = (getattr(error, "problem", None) or str(error).splitlines()[0])[:120]
        raise InputError(filename, f"front matter: invalid YAML{where}: {problem}") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, Mapping):
        raise InputError(filename, "front matter: expected key: value pairs")
    return dict(loaded), text[match.end():]


def decode_text(data: bytes, filename: str) -> str:
    if b"\x00" in data[:4096]:
        raise InputError(filename, "looks like a binary file, not UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(filename, f"not valid UTF-8 (byte {error.start})") from None
    # Offsets address the body as stored, with line endings normalised to "\n".
    return text.replace("\r\n", "\n").replace("\r", "\n")


def count_lines(data: bytes) -> int:
    """The lines a text file's bytes hold once line endings are normalised (without decoding them)."""
    return data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n") + 1


def parse_text(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None,
               max_lines: int | None = None) -> Document:
    from .limits import MAX_DOCUMENT_LINES, megabytes

    if len(data) > MAX_TEXT_BYTES:
        raise InputError(filename, f"is {megabytes(len(data))}; the limit is {megabytes(MAX_TEXT_BYTES)}")
    max_lines = max_lines or MAX_DOCUMENT_LINES
    lines = count_lines(data)
    if lines > max_lines:  # counted on the bytes: a line costs ~400 bytes held however short it is
        raise InputError(filename, f"has {lines} lines; the limit is {max_lines} per document")
    text = decode_text(data, filename)
    front_matter, body = split_front_matter(text, filename)
    if metadata:
        front_matter = {**front_matter, **{k: v for k, v in metadata.items() if v not in (None, "")}}
    if not body.strip():
        raise InputError(filename, "the document body is empty")
    meta = meta_from_mapping(front_matter, default_id=Path(filename).stem, filename=filename)
    lines = split_lines(body)
    pages = (Page(number=None, text=body, lines=lines, furniture=running_lines_of_text(lines) if "\f" in body else ()),)
    check_cards_against_pages(meta, pages, filename)
    return Document(meta=meta, kind="text", filename=filename, digest=sha256(data), pages=pages)


class TextParser:
    """Text, Markdown and reStructuredText with optional YAML front matter."""

    name = "text"
    suffixes = tuple(sorted(TEXT_SUFFIXES))
    media_types = ("text/plain", "text/markdown", "text/x-rst")

    def sniff(self, data: bytes) -> bool:
        return False  # text has no signature; it is chosen by its name

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_text(data, filename, metadata, getattr(limits, "max_lines", None))


class PdfParser:
    """PDF pages, lines and word boxes (PyMuPDF is imported only when a PDF arrives)."""

    name = "pdf"
    suffixes = (".pdf",)
    media_types = ("application/pdf",)

    def sniff(self, data: bytes) -> bool:
        return data[:1024].lstrip().startswith(b"%PDF")

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        from .parse_pdf import parse_pdf

        return parse_pdf(data, filename, metadata=metadata, limits=limits)


DEFAULT_PARSERS = (TextParser(), PdfParser())


def choose_parser(parsers, data: bytes, filename: str):
    """The parser whose signature the bytes carry, else the one the name's suffix asks for.

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
    if by_suffix is None:
        known = ", ".join(s for p in parsers for s in p.suffixes)
        raise InputError(filename, f"unsupported file type {suffix or '(none)'}; use {known}")
    return by_suffix


def parse(
    data: bytes,
    filename: str,
    metadata: Mapping[str, Any] | None = None,
    pdf_limits: Any = None,
    parsers=DEFAULT_PARSERS,
) -> Document:
    """Parse one file's bytes. `filename` is only a label (it never becomes a path)."""
    return choose_parser(parsers, data, filename).parse(data, filename, metadata, pdf_limits)


def document_warnings(document: Document) -> list[str]:
    """What a user should know about a document that was accepted (not errors)."""
    if not document.paged:
        return []
    empty = [page.number for page in document.pages if not page.lines]  # without importing PyMuPDF
    if empty:
        listed = ", ".join(str(n) for n in empty[:20]) + (" …" if len(empty) > 20 else "")
        return [
            f"{Path(document.filename).name}: page(s) {listed} have no text layer (scanned or image-only); "
            "they cannot be searched or cited"
        ]
    return []


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
