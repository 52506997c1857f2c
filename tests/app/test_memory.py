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


@pytest.fixture(scope="module")
def app_modules(tmp_path_factory) -> dict[str, str]:
    """Which heavy modules the started app holds after Gradio's per-request matplotlib switch ran once."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    tmp = tmp_path_factory.mktemp("app")
    env = {**os.environ, "RAG_CACHE_DIR": str(tmp / "chroma"), "DATA_DIR": str(tmp / "data")}
    code = ("import json, sys, app\n"
            "from gradio.utils import MatplotlibBackendMananger\n"
            "with MatplotlibBackendMananger():\n"
            "    pass\n"
            "print(json.dumps({name: repr(type(sys.modules.get(name, 'absent'))) for name in ('pymupdf', 'matplotlib')}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[2], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_app_starts_without_loading_pymupdf(app_modules):
    """PyMuPDF (143 MiB, about a second) loads with the first PDF parsed or drawn, not at start: the samples
    are text, and a deployment nobody sends a PDF to never pays for it."""
    assert app_modules["pymupdf"] == "<class 'str'>"  # absent


def test_gradio_requests_do_not_load_matplotlib(app_modules):
    """Gradio imports matplotlib around every request when it can (26 MiB); the server draws no plot, so the
    import fails there as if matplotlib were not installed, and Gradio carries on."""
    assert app_modules["matplotlib"] == "<class 'NoneType'>"  # kept out, not imported


def test_a_module_already_imported_is_not_kept_out():
    import sys

    from pipeline import keep_unused_modules_out

    assert keep_unused_modules_out(("json",)) == []
    assert sys.modules["json"] is not None
