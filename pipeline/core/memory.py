"""The process's memory: fewer glibc malloc arenas, and freed pages given back (after an upload's parse, a scanned
page's OCR, a reader call).

glibc gives each thread that allocates its own arena (up to 8 per core) and rarely returns their free
pages, so a server whose request threads parse PDFs and build indexes keeps every thread's high-water
mark. Two arenas cut the load benchmark's peak (8 sessions each uploading a 20-page PDF and asking 10
questions) from 558 to 487 MiB with no measurable change in ask latency
(`python -m pipeline bench load --sessions 8 --questions 10 --pdf-pages 20`).

Gradio imports matplotlib around every request it processes, when it is installed (to switch its backend to Agg
for plot outputs): 26 MiB of a server that draws no plot (the evaluation's plots are drawn by the command line).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import lru_cache

M_ARENA_MAX = -8  # mallopt parameter number, from glibc's malloc.h
DEFAULT_ARENAS = 2
UNUSED_BY_THE_SERVER = ("matplotlib",)


@lru_cache(maxsize=None)
def _glibc(function: str):
    """A glibc function by name, or None (macOS, musl, no C library found)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), function) if name else None
    except (OSError, AttributeError):
        return None


def limit_malloc_arenas(arenas: int = DEFAULT_ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads started from now on (MALLOC_ARENA_MAX, when set, wins).
    Returns whether the cap was applied."""
    mallopt = _glibc("mallopt")
    from .settings import environment

    if environment().get("MALLOC_ARENA_MAX") or mallopt is None:
        return False  # the operator's own setting (read by glibc at start), or not glibc
    return bool(mallopt(M_ARENA_MAX, arenas))


def release_free_memory() -> bool:
    """Give the pages malloc holds free back to the system (glibc's malloc_trim; about 0.1 ms), e.g. after an
    upload's parse: its temporary line and word objects are freed, but without this the process keeps their pages
    and the next upload's peak starts from there. Nothing happens where the C library is not glibc."""
    trim = _glibc("malloc_trim")
    return bool(trim(0)) if trim is not None else False


def keep_unused_modules_out(names: tuple[str, ...] = UNUSED_BY_THE_SERVER) -> list[str]:
    """Make importing `names` fail in this process as if they were not installed (a None in sys.modules), unless one
    is imported already; Gradio catches that ImportError and carries on. Returns the names kept out."""
    kept = [name for name in names if name not in sys.modules]
    for name in kept:
        sys.modules[name] = None  # type: ignore[assignment]
    return kept
