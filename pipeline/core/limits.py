"""Caps on every input a caller controls, checked before any work starts (one clear line when exceeded).

A cap keeps one request's cost bounded: uncapped, a 100,000-character question takes 146 s in
the CLI and a 282 KB answer to check 29 s of claim splitting, holding other sessions' work.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from pipeline.core.errors import InputError, shown

MAX_QUESTION_CHARS = 2000
MAX_ANSWER_CHARS = 20_000  # an answer (or proposal JSON) to check; claim splitting grows faster than linearly
MAX_GROUPS_CHARS = 500
MAX_GROUPS = 20
MAX_GROUP_CHARS = 64

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")  # fromisoformat (3.11) also takes 20260914 and 2026-W37-1


def check_question(question: str | None) -> str:
    question = (question or "").strip()
    if not question:
        raise InputError("question", "type a question first")
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError("question", f"is {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
    return question


def check_answer_text(text: str | None) -> str:
    text = (text or "").strip()
    if len(text) > MAX_ANSWER_CHARS:
        raise InputError("answer", f"is {len(text)} characters; the limit is {MAX_ANSWER_CHARS}")
    return text


def parse_groups(text: str | None) -> tuple[str, ...]:
    """Comma-separated access groups, sorted and de-duplicated; bounded in length and count."""
    text = text or ""
    if len(text) > MAX_GROUPS_CHARS:
        raise InputError("groups", f"are {len(text)} characters; the limit is {MAX_GROUPS_CHARS}")
    groups = tuple(sorted({g.strip() for g in text.split(",") if g.strip()}))
    if len(groups) > MAX_GROUPS:
        raise InputError("groups", f"{len(groups)} groups; the limit is {MAX_GROUPS}")
    long = next((g for g in groups if len(g) > MAX_GROUP_CHARS), None)
    if long is not None:
        raise InputError("groups", f"{shown(long)} is longer than {MAX_GROUP_CHARS} characters")
    return groups


def parse_iso_date(text: str, label: str = "date") -> dt.date:
    """Exactly YYYY-MM-DD."""
    text = text.strip()
    if not _ISO_DATE.fullmatch(text):
        raise InputError(label, f"{shown(text)} is not a date; use YYYY-MM-DD")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(label, f"{shown(text)} is not a date; use YYYY-MM-DD") from None


def megabytes(size: int) -> str:
    """A size as the limits are stated everywhere (MB = 2**20 bytes): '20 MB', '20.5 MB'."""
    return f"{size / 2**20:.1f}".removesuffix(".0") + " MB"


@dataclass(frozen=True)
class PdfLimits:
    """Caps on one PDF: its pages, the lines of a page, its bytes (an upload passes lower ones)."""

    max_pages: int = 500
    max_lines_per_page: int = 3000
    max_bytes: int = 100 * 1024 * 1024
