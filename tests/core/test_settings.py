"""One settings tree: the environment read in one place (every variable documented), defaults written once, and
the error hierarchy a caller catches."""

from __future__ import annotations

import ast

import pytest

from pipeline import ConfigError, EngineConfig, Environment, InputError, RagError, StoreError
from pipeline.core.settings import VARIABLES
from tests.conftest import ROOT


def _environment_reads(path) -> list[str]:
    """`os.environ.get(...)`, `os.environ[...]` read and `os.getenv(...)` in one file (writes and copies aside)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func
            if target.attr == "getenv" and isinstance(target.value, ast.Name) and target.value.id == "os":
                found.append(f"{path.name}:{node.lineno}")
            if (target.attr == "get" and isinstance(target.value, ast.Attribute) and target.value.attr == "environ"):
                found.append(f"{path.name}:{node.lineno}")
        if (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "environ"):
            found.append(f"{path.name}:{node.lineno}")
    return found


def test_the_environment_is_read_in_one_place():
    files = [*(ROOT / "pipeline").rglob("*.py"), *(ROOT / "ui").glob("*.py"), ROOT / "app.py"]
    reads = [read for path in files if path != ROOT / "pipeline" / "core" / "settings.py"
             for read in _environment_reads(path)]
    assert reads == []


def test_every_variable_read_is_documented():
    env = Environment.read({"CHROMA_PORT": "8123", "UNRELATED": "x"})
    assert env.values == {"CHROMA_PORT": "8123"}  # only the documented ones are taken
    with pytest.raises(KeyError, match="not a documented variable"):
        env.get("UNRELATED")
    assert all(description.strip() for description in VARIABLES.values())


def test_the_engine_config_reads_its_variables_and_names_a_bad_one():
    config = EngineConfig.from_env({"CHROMA_HOST": "db", "CHROMA_PORT": "8123", "RAG_BM25_DIR": "/tmp/bm25"})
    assert (config.chroma_host, config.chroma_port, str(config.bm25_dir)) == ("db", 8123, "/tmp/bm25")
    with pytest.raises(ConfigError, match="^CHROMA_PORT: must be a port number$"):
        EngineConfig.from_env({"CHROMA_PORT": "eighty"})


def test_the_errors_form_one_small_hierarchy():
    for error in (InputError("a.md", "bad"), ConfigError("CHROMA_PORT", "bad"), StoreError("store", "bad")):
        assert isinstance(error, RagError) and str(error) == f"{error.subject}: bad"
    assert isinstance(InputError("a.md", "bad"), ValueError)  # a refused value, as before
    assert not isinstance(StoreError("store", "bad"), InputError)


def test_a_default_is_written_once():
    from pipeline import IndexSettings, Settings
    from pipeline.index.chunk import WINDOW_OVERLAP, WINDOW_SIZE
    from pipeline.verify.judges.containment import DEFAULT_COVERAGE

    assert (WINDOW_SIZE, WINDOW_OVERLAP) == (IndexSettings().chunk_window, IndexSettings().chunk_overlap)
    assert DEFAULT_COVERAGE == Settings().support_coverage


def test_an_operators_limit_is_a_whole_number_at_least_its_minimum():
    env = Environment.read({"RAG_WORKERS": " 3 ", "RAG_WORKER_CPU_S": "0", "RAG_UPLOAD_FOLDER_MB": "lots"})
    assert env.limit("RAG_WORKERS", 2) == 3 and env.limit("RAG_WORKER_WALL_S", 120) == 120  # unset: the default
    with pytest.raises(ConfigError, match="^RAG_WORKER_CPU_S: must be at least 1$"):
        env.limit("RAG_WORKER_CPU_S", 30)
    with pytest.raises(ConfigError, match="^RAG_UPLOAD_FOLDER_MB: 'lots' is not a whole number$"):
        env.limit("RAG_UPLOAD_FOLDER_MB", 100)
