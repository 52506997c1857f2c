"""The server process's memory: fewer glibc malloc arenas.

glibc gives each thread that allocates its own arena (up to 8 per core) and rarely returns their free
pages, so a server whose request threads parse PDFs and build indexes keeps every thread's high-water
mark. Two arenas cut the load benchmark's peak (8 sessions each uploading a 20-page PDF and asking 10
questions) from 558 to 487 MiB with no measurable change in ask latency
(`python -m pipeline bench load --sessions 8 --questions 10 --pdf-pages 20`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_ARENA_MAX = -8  # mallopt parameter number, from glibc's malloc.h
DEFAULT_ARENAS = 2


def limit_malloc_arenas(arenas: int | None = None) -> bool:
    """Cap glibc's malloc arenas for threads started from now on (MALLOC_ARENA_MAX, when set, wins).
    Returns whether the cap was applied (False off glibc, e.g. on macOS or musl)."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False  # the operator's own setting, read by glibc at start
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        return False
    if mallopt is None:
        return False
    return bool(mallopt(M_ARENA_MAX, arenas or int(os.environ.get("RAG_MALLOC_ARENAS", DEFAULT_ARENAS))))


def release_free_memory() -> bool:
    """Give the pages malloc holds free back to the system (glibc's malloc_trim), e.g. after an upload's
    parse: its temporary line and word objects are freed, but without this the process keeps their pages
    and the next upload's peak starts from there."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return False
    return bool(trim(0)) if trim is not None else False
