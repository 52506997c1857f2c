"""The tree reads as the journey: the import contracts in pyproject.toml hold (no circles, in the training package too,
no upward imports, the app only through the public API, the pipeline never importing the benchmarks or the training
code), and every stage sits in a layer."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.conftest import ROOT


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"]


def test_import_contracts_hold():
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports, "import-linter is a dev dependency (uv sync installs it)"
    result = subprocess.run([lint_imports, "--no-cache", "--no-logo"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_every_package_of_the_pipeline_sits_in_a_layer():
    """A new package outside the layers would escape the upward-import check."""
    layered = {name.strip() for contract in _contracts() if contract["type"] == "layers"
               for layer in contract["layers"] for name in layer.split("|")}
    packages = {f"pipeline.{p.stem if p.is_file() else p.name}" for p in (ROOT / "pipeline").iterdir()
                if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and not p.stem.startswith("__"))}
    assert packages - layered == set()


def test_the_app_may_import_no_package_of_the_pipeline_but_its_api():
    forbidden = next(c for c in _contracts() if c["type"] == "forbidden" and c["source_modules"] == ["ui"])
    packages = {f"pipeline.{p.name}" for p in (ROOT / "pipeline").iterdir() if (p / "__init__.py").exists()}
    packages |= {f"pipeline.{p.stem}" for p in (ROOT / "pipeline").glob("*.py") if not p.stem.startswith("__")}
    assert packages - set(forbidden["forbidden_modules"]) == set()
