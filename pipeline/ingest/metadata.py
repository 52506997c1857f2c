"""Evidence metadata: front matter, PDF sidecars and upload forms become a validated DocumentMeta."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from typing import Any

from pipeline.core.contracts import CardSpec, Document, DocumentMeta, Page
from pipeline.core.errors import InputError, shown

KNOWN_KEYS = {
    "id", "version", "topic", "authority", "valid_from", "valid_to", "updated",
    "license", "uri", "lang", "title", "access", "cards",
}
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SOURCE_ID = re.compile(r"^[\w.\-]{1,128}$", re.UNICODE)
_LINE_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+))?\s*$")
# Foreign keys are kept as bounded text: a block is at most 16 KiB, but shown per document on every page view.
MAX_EXTRA_KEYS = 24
MAX_EXTRA_KEY_CHARS = 64
MAX_EXTRA_VALUE_CHARS = 240
MAX_EXTRA_DEPTH = 3
MAX_EXTRA_ITEMS = 12


# Dates written with the month's name, as other tools' front matter has them ("updated: September 11, 2020"): one
# reading each. A date of figures only other than ISO ("09/11/2020") has two and stays refused.
_WRITTEN_DATES = ("%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y", "%b. %d, %Y")


def _written_date(text: str) -> dt.date | None:
    for form in _WRITTEN_DATES:
        try:
            return dt.datetime.strptime(" ".join(text.split()), form).date()
        except ValueError:
            continue
    return None


def parse_date(value: Any, key: str, filename: str) -> dt.date | None:
    """Dates are ISO YYYY-MM-DD (YAML may already have made them dates) or written with the month's name; null means
    open."""
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, (str, int)):
        raise InputError(filename, f"{key}: expected a date YYYY-MM-DD, got {shown(value)}")
    text = str(value).strip()
    if not _ISO_DATE.match(text):
        written = _written_date(text)
        if written is None:
            raise InputError(filename, f"{key}: unknown date format {shown(text)} (expected YYYY-MM-DD)")
        return written
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(filename, f"{key}: impossible date {shown(text)}") from None


def _text(value: Any, key: str, filename: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, (str, int, float, bool)):
        raise InputError(filename, f"{key}: expected a single value, got {shown(value)}")
    return str(value).strip() or None


def _access(value: Any, filename: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    groups = [value] if isinstance(value, str) else value
    if not isinstance(groups, list) or not all(isinstance(g, (str, int)) for g in groups):
        raise InputError(filename, "access: expected a list of group names")
    cleaned = tuple(str(g).strip() for g in groups if str(g).strip())
    if not cleaned:
        raise InputError(filename, "access: empty list would make the document unreadable to everyone")
    return cleaned


def _cards(value: Any, filename: str) -> tuple[CardSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InputError(filename, "cards: expected a list of {id, text, lines}")
    cards, seen = [], set()
    for index, item in enumerate(value, start=1):
        if not isinstance(item, Mapping):
            raise InputError(filename, f"cards[{index}]: expected a mapping with id, text and lines")
        card_id = _text(item.get("id"), f"cards[{index}].id", filename) or f"card{index}"
        text = _text(item.get("text"), f"cards[{index}].text", filename)
        if not text:
            raise InputError(filename, f"cards[{index}] ({shown(card_id)}): text is missing")
        lines = item.get("lines", "")
        match = _LINE_RANGE.match(str(lines)) if isinstance(lines, (str, int)) else None
        if not match:
            raise InputError(filename, f"cards[{index}] ({shown(card_id)}): lines must look like 1-3, got {shown(lines)}")
        start = int(match.group(1))
        end = int(match.group(2) or start)
        if start < 1 or end < start:
            raise InputError(filename, f"cards[{index}] ({shown(card_id)}): impossible line range {start}-{end}")
        if card_id in seen:
            raise InputError(filename, f"cards[{index}]: duplicate card id {shown(card_id)}")
        seen.add(card_id)
        page = item.get("page")
        if page is not None and (not isinstance(page, int) or page < 1):
            raise InputError(filename, f"cards[{index}] ({shown(card_id)}): page must be a positive integer")
        cards.append(CardSpec(id=card_id, text=text, start_line=start, end_line=end, page=page))
    return tuple(cards)


def meta_from_mapping(mapping: Mapping[str, Any] | None, default_id: str, filename: str) -> DocumentMeta:
    """Validate front matter (or sidecar/upload metadata) and return the document's metadata."""
    mapping = dict(mapping or {})
    extra = extra_metadata({key: value for key, value in mapping.items() if key not in KNOWN_KEYS})
    source_id = _text(mapping.get("id"), "id", filename) or default_id
    if not _SOURCE_ID.match(source_id):
        raise InputError(filename, f"id: {shown(source_id)} may only hold letters, digits, '.', '_' and '-'")
    meta = DocumentMeta(
        source_id=source_id,
        version=_text(mapping.get("version"), "version", filename),
        topic=_text(mapping.get("topic"), "topic", filename),
        authority=_text(mapping.get("authority"), "authority", filename),
        valid_from=parse_date(mapping.get("valid_from"), "valid_from", filename),
        valid_to=parse_date(mapping.get("valid_to"), "valid_to", filename),
        updated=parse_date(mapping.get("updated"), "updated", filename),
        license=_text(mapping.get("license"), "license", filename),
        uri=_text(mapping.get("uri"), "uri", filename),
        lang=_text(mapping.get("lang"), "lang", filename),
        title=_text(mapping.get("title"), "title", filename),
        access=_access(mapping.get("access"), filename),
        cards=_cards(mapping.get("cards"), filename),
        extra=extra,
    )
    if meta.valid_from and meta.valid_to and meta.valid_to < meta.valid_from:
        raise InputError(filename, f"valid_to {meta.valid_to} is before valid_from {meta.valid_from}")
    return meta


def extra_metadata(foreign: Mapping[Any, Any]) -> tuple[tuple[str, str], ...]:
    """Keys other tools write (Jekyll's redirect_from, versions) with their values as bounded one-line text, in
    the block's order: at most MAX_EXTRA_KEYS keys, names cut to MAX_EXTRA_KEY_CHARS, values to
    MAX_EXTRA_VALUE_CHARS, nesting below MAX_EXTRA_DEPTH shown as "…"."""
    pairs = []
    for key, value in list(foreign.items())[:MAX_EXTRA_KEYS]:
        name = _one_line(str(key), MAX_EXTRA_KEY_CHARS)
        shown_value = value if isinstance(value, str) else json.dumps(_bounded(value, MAX_EXTRA_DEPTH),
                                                                       ensure_ascii=False, default=str)
        pairs.append((name, _one_line(shown_value, MAX_EXTRA_VALUE_CHARS)))
    if len(foreign) > MAX_EXTRA_KEYS:
        pairs.append(("…", f"{len(foreign) - MAX_EXTRA_KEYS} more key(s) not kept"))
    return tuple(pairs)


def _bounded(value: Any, depth: int) -> Any:
    """`value` with containers cut to MAX_EXTRA_ITEMS items and `depth` levels (JSON-ready)."""
    if isinstance(value, Mapping):
        if depth <= 0:
            return "…"
        items = list(value.items())
        kept = {str(k)[:MAX_EXTRA_KEY_CHARS]: _bounded(v, depth - 1) for k, v in items[:MAX_EXTRA_ITEMS]}
        return kept | ({"…": f"{len(items) - MAX_EXTRA_ITEMS} more"} if len(items) > MAX_EXTRA_ITEMS else {})
    if isinstance(value, (list, tuple, set)):
        if depth <= 0:
            return "…"
        items = list(value)
        return [_bounded(v, depth - 1) for v in items[:MAX_EXTRA_ITEMS]] + (["…"] if len(items) > MAX_EXTRA_ITEMS else [])
    if isinstance(value, str):
        return value[:MAX_EXTRA_VALUE_CHARS]
    return value if isinstance(value, (int, float, bool)) or value is None else str(value)[:MAX_EXTRA_VALUE_CHARS]


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_cards_against_pages(meta: DocumentMeta, pages: tuple[Page, ...], filename: str) -> None:
    """A card's `lines` must point inside the body (or the named PDF page)."""
    for card in meta.cards:
        page = next((p for p in pages if p.number == card.page), None)
        if page is None:
            where = f"page {card.page}" if card.page is not None else "the body"
            raise InputError(filename, f"card {shown(card.id)}: {where} does not exist")
        if card.end_line > len(page.lines):
            raise InputError(
                filename,
                f"card {shown(card.id)}: lines {card.start_line}-{card.end_line} are outside the body "
                f"({len(page.lines)} lines)",
            )


def check_unique_ids(documents, filename_of=lambda d: d.filename) -> None:
    """Two documents may not share a source id: the second one is refused, naming both files."""
    seen: dict[str, str] = {}
    for document in documents:
        first = seen.get(document.source_id)
        if first is not None and first != filename_of(document):
            raise InputError(filename_of(document), f"duplicate id {document.source_id!r} (already used by {first})")
        seen.setdefault(document.source_id, filename_of(document))


def document_names(document: Document) -> str:
    """The words that name a document: its id ("apache-2.0" → "apache 2 0"), title and topic, or a plain text's first
    line when it has no title and the line is short ("Apache License")."""
    def spaced(text: str) -> str:
        return re.sub(r"[-_./]+|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])", " ", text)

    names = [spaced(document.source_id), document.meta.title or "", spaced(document.meta.topic or "")]
    if not document.paged and not document.meta.title and document.pages:
        first = next((line.text.strip().lstrip("#").strip() for line in document.pages[0].lines if line.text.strip()), "")
        if len(first.split()) <= 6 and len(first) <= 60:  # a title, not a paragraph (Chinese has no spaces)
            names.append(first)
    return " ".join(name for name in names if name)
