"""No function is past cyclomatic complexity 25 as radon counts it (boolean operators included: stricter than
ruff's C901, which CI's `ruff check .` also holds to 25)."""

from __future__ import annotations

import pytest
from radon.complexity import cc_visit
from radon.visitors import Function

from tests.conftest import ROOT

LIMIT = 25


def _functions():
    paths = [*(ROOT / "pipeline").rglob("*.py"), *(ROOT / "ui").glob("*.py"), *(ROOT / "benchmarks").glob("*.py"),
             *(ROOT / "scripts").glob("*.py"), ROOT / "app.py"]
    for path in paths:
        for block in cc_visit(path.read_text("utf-8")):
            methods = block.methods if not isinstance(block, Function) else [block]
            for function in methods:
                yield f"{path.relative_to(ROOT)}:{function.lineno} {function.fullname}", function.complexity


@pytest.mark.slow  # radon reads every module
def test_no_function_is_past_the_complexity_limit():
    counted = dict(_functions())
    assert len(counted) > 500  # every module was read
    assert {name: value for name, value in counted.items() if value > LIMIT} == {}
