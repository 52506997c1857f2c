"""What a PDF says about itself (its document information dictionary, PyMuPDF's `doc.metadata`), and what a DOCX or
XLSX says (its core properties, docProps/core.xml), as bounded text.

Shown with the document and in the trace; its title names the document when no sidecar or form gave one. Never
used for access or validity: anyone can write anything there (and tools write "Microsoft Word - draft.docx").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

from pipeline.core.contracts import DocumentInfo, DocumentMeta

MAX_INFO_CHARS = 200
_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?")
_TOOL_PREFIX = re.compile(r"^(?:Microsoft (?:Word|PowerPoint|Excel) - )", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.(?:docx?|pdf|pptx?|xlsx?|odt|rtf|txt|tex|dvi|indd|qxd|html?)$", re.IGNORECASE)
_PLACEHOLDERS = {"untitled", "title", "document", "no title", "slide 1", "(anonymous)", "unknown"}


def document_info(metadata: Mapping[str, object] | None) -> DocumentInfo | None:
    """The info dictionary as a DocumentInfo (None when it says nothing)."""
    metadata = metadata or {}
    info = DocumentInfo(
        title=_title(metadata.get("title")),
        author=_bounded(metadata.get("author")),
        subject=_bounded(metadata.get("subject")),
        created=_date(metadata.get("creationDate")),
        modified=_date(metadata.get("modDate")),
    )
    return info if info.model_dump(exclude_none=True) else None


def core_properties_info(properties: object) -> DocumentInfo | None:
    """An Office file's core properties (python-docx's `core_properties`, openpyxl's `properties`: title, author or
    creator, subject, created and modified dates) as a DocumentInfo (None when they say nothing)."""
    if properties is None:
        return None
    info = DocumentInfo(
        title=_title(getattr(properties, "title", None)),
        author=_bounded(getattr(properties, "author", None) or getattr(properties, "creator", None)),
        subject=_bounded(getattr(properties, "subject", None)),
        created=_iso(getattr(properties, "created", None)),
        modified=_iso(getattr(properties, "modified", None)),
    )
    return info if info.model_dump(exclude_none=True) else None


def _iso(value: object) -> str | None:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    return _bounded(value)


def with_info_title(meta: DocumentMeta, info: DocumentInfo | None) -> DocumentMeta:
    """A sidecar's or form's title wins; else the file's own title names the document."""
    if meta.title or info is None or not info.title:
        return meta
    return meta.model_copy(update={"title": info.title})


def _bounded(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(value.replace("\x00", "").split())
    if not text:
        return None
    return text if len(text) <= MAX_INFO_CHARS else text[: MAX_INFO_CHARS - 1] + "…"


def _title(value: object) -> str | None:
    """A title a person wrote: no tool prefix, not a file name or a placeholder."""
    text = _bounded(value)
    if text is None:
        return None
    text = _TOOL_PREFIX.sub("", text).strip()
    if not text or _FILE_NAME.search(text) or text.casefold() in _PLACEHOLDERS:
        return None
    return text


def _date(value: object) -> str | None:
    """A PDF date ("D:20240301101500+01'00'") as ISO 8601 ("2024-03-01T10:15:00+01:00"); else as written."""
    text = _bounded(value)
    if text is None:
        return None
    match = _PDF_DATE.match(text)
    if not match:
        return text
    year, month, day, hour, minute, second, zone = match.groups()
    date = f"{year}-{month or '01'}-{day or '01'}"
    if hour is None:
        return date
    zone = "" if zone is None else ("Z" if zone == "Z" else f"{zone[:3]}:{zone.replace(chr(39), '')[3:5] or '00'}")
    return f"{date}T{hour}:{minute or '00'}:{second or '00'}{zone}"
