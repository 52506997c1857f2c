"""mypy (with the pydantic plugin, configured in pyproject.toml) finds no error that mypy-baseline.txt does not
list, and the baseline lists no error that is gone: the known errors may only go down.

After fixing some: `uv run --frozen python -m tests.architecture.test_types --write` rewrites the baseline."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "mypy-baseline.txt"
_LOCATION = re.compile(r"^(?P<path>[^:]+):\d+(?::\d+)?: (?P<rest>error: .*)$")


def current_errors() -> Counter:
    """Each error as 'path: error: message  [code]' (no line numbers: they move with every edit)."""
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--no-pretty"], cwd=ROOT,
                            capture_output=True, text=True, timeout=1200)
    if result.returncode not in (0, 1) or result.stderr.strip():
        raise RuntimeError(f"mypy did not run: {result.stderr[-2000:]}")
    return Counter(f"{m['path']}: {m['rest']}" for line in result.stdout.splitlines() if (m := _LOCATION.match(line)))


def baseline() -> Counter:
    return Counter(line for line in BASELINE.read_text("utf-8").splitlines() if line.strip())


@pytest.mark.slow
def test_the_known_type_errors_only_go_down():
    errors, known = current_errors(), baseline()
    new, fixed = errors - known, known - errors
    assert not new, "new type errors (fix them):\n" + "\n".join(sorted(new.elements()))
    assert not fixed, "fixed type errors still in mypy-baseline.txt (run `python -m tests.architecture.test_types --write`):\n" \
        + "\n".join(sorted(fixed.elements()))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        BASELINE.write_text("".join(f"{line}\n" for line in sorted(current_errors().elements())), "utf-8")
        print(f"{BASELINE}: {sum(baseline().values())} known errors")
