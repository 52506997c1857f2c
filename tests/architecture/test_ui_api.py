"""The app uses the pipeline's public API for what an application needs, never the answer stage's text heuristics:
no name it imports from `pipeline` is defined in `pipeline.lang` or `pipeline.text` (issue 52: the UI ran heuristics
of its own with `has_cjk`, `question_terms`, `names_column` and parsed the engine's notes with `WORDS_ONLY_NOTE`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pipeline

ROOT = Path(__file__).resolve().parents[2]


def _public_names_imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "pipeline"
            for alias in node.names}


def test_the_public_api_exports_no_text_heuristic():
    assert not [name for name, module in pipeline._WHERE.items() if module.startswith((".lang", ".text"))]


def test_the_app_imports_no_text_heuristic_from_the_pipeline():
    sources = [*sorted((ROOT / "ui").glob("*.py")), ROOT / "app.py"]
    imported = {name: path.name for path in sources for name in _public_names_imported(path)}
    assert len(imported) > 50  # the check reads the app's real imports
    exported_from = {name: pipeline._WHERE.get(name, pipeline._MODULES.get(name, "")) for name in imported}
    heuristics = {name: module for name, module in exported_from.items() if module.startswith((".lang", ".text"))}
    assert heuristics == {}
