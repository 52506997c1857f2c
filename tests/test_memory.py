"""The server's malloc settings (ui/memory.py): applied on glibc, harmless elsewhere."""

from __future__ import annotations

import platform

import pytest

from ui.memory import limit_malloc_arenas, release_free_memory

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
