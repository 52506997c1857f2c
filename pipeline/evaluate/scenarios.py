"""`python -m pipeline eval scenarios`: every frozen seed scenario (`pipeline.engine.scenarios`) through
one engine; prints pass/fail per scenario, writes every trace (seed 000's rag-traces.json, by
default to reports/rag-traces.json) and exits 1 on failure.
"""

from __future__ import annotations

import json

from pipeline.core.contracts import Trace
from pipeline.engine.scenarios import CORPUS, REPO, SCENARIOS, Scenario, check, run_scenario, scenario_documents
from pipeline.ingest.paths import stderr_warning

DEFAULT_TRACES = REPO / "reports" / "rag-traces.json"


def run_all(engine=None, progress=None) -> list[tuple[Scenario, Trace, list[str]]]:
    from pipeline.engine.config import build_engine

    engine = engine or build_engine()
    base = engine.parse_paths([CORPUS], warn=stderr_warning)
    results = []
    corpora = {}
    for scenario in SCENARIOS:
        key = (scenario.exclude, scenario.include_conflict)
        if key not in corpora:
            corpora[key] = engine.corpus(scenario_documents(base, *key), progress=progress)
        trace = run_scenario(engine, corpora[key], scenario)
        results.append((scenario, trace, check(scenario, trace)))
    return results


def traces_json(results: list[tuple[Scenario, Trace, list[str]]]) -> list[dict]:
    """Seed 000's rag-traces.json: every scenario's full trace, with its verdict."""
    return [
        {"scenario": s.name, "seed_row": s.seed_row, "passed": not p, "problems": p, "trace": json.loads(t.model_dump_json())}
        for s, t, p in results
    ]
