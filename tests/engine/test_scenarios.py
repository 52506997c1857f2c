"""Every frozen scenario (seed 000 Table 45.3, seed 001's ferry cases) through the real pipeline."""

from __future__ import annotations

import json

import pytest

from pipeline.evaluate.scenarios import SCENARIOS, run_all

pytestmark = pytest.mark.slow  # the seed scenarios through the real engine


@pytest.fixture(scope="module")
def results():
    return {scenario.name: (scenario, trace, problems) for scenario, trace, problems in run_all()}


@pytest.mark.parametrize("name", [s.name for s in SCENARIOS])
def test_scenario(results, name):
    scenario, trace, problems = results[name]
    assert problems == [], problems
    assert trace.answer.status == scenario.expected.status
    assert trace.answer.reason_code == scenario.expected.reason_code
    assert len(trace.corpus_digest) == 64 and trace.answer.producer


def test_the_table_rows_cover_all_six_reason_codes(results):
    from pipeline.core.contracts import REASON_CODES

    seen = {trace.answer.reason_code for _, trace, _ in results.values()}
    # generator_unavailable belongs to a language model's failures (tests/test_llm*), not to a seed row.
    assert set(REASON_CODES) - {"generator_unavailable"} <= seen


def test_the_suite_writes_traces_with_digest_and_producer(tmp_path, capsys):
    from pipeline.cli import main

    traces, figures = tmp_path / "rag-traces.json", tmp_path / "figures.json"
    assert main(["eval", "scenarios", "--traces", str(traces), "--json", str(figures)]) == 0
    printed = capsys.readouterr().out
    assert f"passed               {len(SCENARIOS)}/{len(SCENARIOS)}" in printed
    written = json.loads(traces.read_text())
    assert [entry["scenario"] for entry in written] == [s.name for s in SCENARIOS]
    for entry in written:
        assert entry["passed"] and entry["problems"] == []
        assert len(entry["trace"]["corpus_digest"]) == 64
        assert entry["trace"]["answer"]["producer"] in {"local-extractive-v1", "fixed-proposal"}
    assert json.loads(figures.read_text())["scenarios"]["passed"] == len(SCENARIOS)


def test_a_broken_expectation_is_reported_as_a_failure(results):
    """The suite can fail: check() flags a trace that does not match its expectation."""
    from dataclasses import replace

    from pipeline.engine.scenarios import Expected, check

    scenario, trace, _ = results["supported-en"]
    wrong = replace(scenario, expected=Expected("abstained", "insufficient_evidence"))
    assert check(wrong, trace) == ["status answered, expected abstained", "reason None, expected insufficient_evidence"]
