"""The server's malloc settings (pipeline/core/memory.py): applied on glibc, harmless elsewhere."""

from __future__ import annotations

import platform

import pytest

from pipeline import limit_malloc_arenas, release_free_memory

pytestmark = pytest.mark.slow  # starts the app in a subprocess

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt and malloc_trim are glibc's")


@glibc
def test_the_arena_cap_is_applied_unless_the_operator_set_one(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert limit_malloc_arenas(2) is True
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert limit_malloc_arenas(2) is False  # glibc read the operator's value at start: it wins


@glibc
def test_freed_pages_are_released():
    garbage = [bytes(1000) for _ in range(20_000)]
    del garbage
    assert release_free_memory() is True  # 20 MB of small blocks were freed: glibc had pages to give back


def test_the_app_starts_without_loading_pymupdf(tmp_path):
    """PyMuPDF (143 MiB, about a second) loads with the first PDF parsed or drawn, not at start: the samples
    are text, and a deployment nobody sends a PDF to never pays for it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "RAG_CACHE_DIR": str(tmp_path / "chroma"), "DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", "import sys, app; print('pymupdf' in sys.modules)"],
                          cwd=Path(__file__).resolve().parents[2], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"
