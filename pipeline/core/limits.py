"""Caps on every input a caller controls, checked before any work starts (one clear line when exceeded).

A cap keeps one request's cost bounded: uncapped, a 100,000-character question takes 146 s in
the CLI and a 282 KB answer to check 29 s of claim splitting, holding other sessions' work.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from pipeline.core.errors import InputError, shown
from pipeline.core.settings import environment

MAX_QUESTION_CHARS = 2000
MAX_ANSWER_CHARS = 20_000  # an answer (or proposal JSON) to check; claim splitting grows faster than linearly
MAX_GROUPS_CHARS = 500
MAX_GROUPS = 20
MAX_GROUP_CHARS = 64
MAX_REPLY_CHARS = MAX_ANSWER_CHARS  # a language model's reply: the same claim splitting and verifying as a checked answer
MAX_REPLY_BYTES = 1024 * 1024  # the HTTP body carrying it (JSON escapes make a reply up to ~6x its characters)


# --------------------------------------------------------------------------- documents (every parser)
# Memory follows lines as much as bytes: a line costs ~400 bytes held (its Line object, offsets, chunk
# bookkeeping) however short, so 9 million one-character lines in 18 MB would hold gigabytes.
MAX_DOCUMENT_LINES = 200_000
MAX_PDF_LINES_PER_PAGE = 3000
# A PDF page's content streams (and the forms they draw) after decompression: a 3 MB file inflated to
# 3 GiB held MuPDF (and the GIL) for a minute. Counted before the page is read or drawn.
MAX_PAGE_CONTENT_BYTES = 32 * 1024 * 1024
MAX_PDF_CONTENT_BYTES = 256 * 1024 * 1024
# A drawn page: larger pages are drawn at a lower zoom (a 12000-pt page at zoom 1.5 is 324 Mpx, 1 GB).
MAX_RENDER_PIXELS = 8_000_000
MAX_THUMBNAIL_PIXELS = 60_000


@dataclass(frozen=True)
class PdfLimits:
    """Caps on one PDF: its pages, the lines of a page and of the whole, its bytes, its decompressed content (an
    upload passes lower ones)."""

    max_pages: int = 500
    max_lines_per_page: int = MAX_PDF_LINES_PER_PAGE
    max_bytes: int = 100 * 1024 * 1024
    max_lines: int = MAX_DOCUMENT_LINES
    max_page_content: int = MAX_PAGE_CONTENT_BYTES
    max_content: int = MAX_PDF_CONTENT_BYTES


# An operator may change the limits below with the variables named (pipeline.core.settings.VARIABLES).
_env = environment()

# --------------------------------------------------------------------------- the parsing and drawing worker
# Uploaded files are parsed, and PDF pages drawn, in worker processes (pipeline.engine.sandbox) under these limits.
WORKERS = _env.limit("RAG_WORKERS", 2)
WORKER_MEMORY_BYTES = _env.limit("RAG_WORKER_MEMORY_MB", 384) * 1024 * 1024  # address space (RLIMIT_AS)
WORKER_CPU_S = _env.limit("RAG_WORKER_CPU_S", 30)  # CPU seconds per task (RLIMIT_CPU)
WORKER_WALL_S = _env.limit("RAG_WORKER_WALL_S", 120)  # wall-clock seconds per task (a busy host is slow)
WORKER_IDLE_S = _env.limit("RAG_WORKER_IDLE_S", 120)  # an idle worker exits after this (its memory goes back)
# A worker still this large after its task (malloc_trim done) leaves; a fresh one is ~70 MiB resident.
WORKER_RECYCLE_BYTES = _env.limit("RAG_WORKER_RECYCLE_MB", 160) * 1024 * 1024

# --------------------------------------------------------------------------- memory held for uploads (ingest.budgets)
# What every session's uploads may hold together (estimated, see budgets.document_cost): the free host has
# 512 MiB, of which the idle server takes ~260 and one parsing worker ~70-100.
UPLOAD_MEMORY_BYTES = _env.limit("RAG_UPLOAD_MEMORY_MB", 128) * 1024 * 1024
SESSION_MEMORY_BYTES = _env.limit("RAG_SESSION_MEMORY_MB", 48) * 1024 * 1024
# A client (an address, or a signed-in account) may hold this much of it over all its sessions: three sessions kept
# alive by one client held the whole budget, and every other upload was refused "the server is full".
CLIENT_MEMORY_BYTES = _env.limit("RAG_CLIENT_MEMORY_MB", 48) * 1024 * 1024
# The host's memory (0: the memory cgroup's limit where there is one, else no such check): an upload is also
# refused while the server and its workers, as measured (PSS), are within HOST_MEMORY_RESERVE_BYTES of it, so
# what the estimates leave out (the reader, a worker, a burst of asks) cannot push the host over.
HOST_MEMORY_BYTES = _env.limit("RAG_HOST_MEMORY_MB", 0, minimum=0) * 1024 * 1024
HOST_MEMORY_RESERVE_BYTES = 64 * 1024 * 1024
# The last of the host's memory under that line is kept for small uploads: an upload estimated over this much may not
# take the server past (line - the same amount). One client's 1 MB of prose (~31 MiB held) took the server to the
# line and every other user's 2 KB note was refused "short of memory" (bench load --attack, budget case, 2026-12-08).
HOST_MEMORY_SMALL_UPLOAD_BYTES = 16 * 1024 * 1024

# --------------------------------------------------------------------------- sign-in (ui.login)
LOGIN_FREE_FAILURES_PER_ACCOUNT = 5  # then each further failure locks the account for twice as long
LOGIN_FREE_FAILURES_PER_ADDRESS = 20
LOGIN_LOCK_FIRST_S = 2
LOGIN_LOCK_MAX_S = 15 * 60
LOGIN_FORGET_S = 60 * 60  # failures older than this no longer count
LOGIN_VERIFICATIONS_AT_ONCE = 1  # argon2 takes 64 MiB and a core per verification
LOGIN_WAITING_MAX = 16  # sign-ins waiting for a verification; more are told to try again

# --------------------------------------------------------------------------- Gradio's upload folder (ui.upload_guard)
UPLOAD_FOLDER_MAX_BYTES = _env.limit("RAG_UPLOAD_FOLDER_MB", 100) * 1024 * 1024  # every received file not yet read
# A client's (address's or account's) files in it: one account filled the whole folder in ~61 s, and every other
# upload got 507 until Gradio's sweep (15 minutes).
UPLOAD_FOLDER_CLIENT_BYTES = _env.limit("RAG_CLIENT_FOLDER_MB", 40) * 1024 * 1024
UPLOAD_RATE_BYTES = 64 * 1024 * 1024  # per address per UPLOAD_RATE_WINDOW_S
UPLOAD_RATE_FILES = 120  # upload requests per address per UPLOAD_RATE_WINDOW_S
UPLOAD_RATE_WINDOW_S = 60

# --------------------------------------------------------------------------- sessions (ui.session_gate)
# A client (an address, or a signed-in account) may start SESSION_STARTS_PER_CLIENT sessions per SESSION_START_WINDOW_S
# and hold SESSIONS_PER_CLIENT at once; a full table refuses new sessions and never drops a live one (520 anonymous
# calls with fresh session hashes pushed everyone else's sessions out of Gradio's least-recently-used table).
SESSIONS_PER_CLIENT = _env.limit("RAG_SESSIONS_PER_CLIENT", 50)
SESSION_STARTS_PER_CLIENT = _env.limit("RAG_SESSION_STARTS_PER_CLIENT", 100)
SESSION_START_WINDOW_S = 10 * 60

# --------------------------------------------------------------------------- the upload lane (pipeline.engine.lanes)
# Uploads of one client (its address, or account) waiting for a parse worker; more are refused at once, so a client
# cannot queue up the server's threads and memory.
UPLOADS_WAITING_PER_CLIENT = 4

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

