"""One-click demos: each runs a frozen seed scenario (`pipeline.SCENARIOS`), with exactly that
scenario's documents, request, settings and proposal."""

from __future__ import annotations

import dataclasses

from pipeline import SCENARIOS, InputError, Scenario, Trace, run_scenario

from .state import Shared

#: (button text, scenario name), in teaching order: the supported path, then each abstention.
DEMOS: tuple[tuple[str, str], ...] = (
    ("✓ Supported: Beijing lodging", "supported-en"),
    ("Expired only", "expired-only"),
    ("Passport renewal", "passport-renewal"),
    ("750 against 800", "conflict-750-800"),
    ("Line 3 only", "line-3-only"),
    ("Budget too small", "budget-250"),
    ("600 citing v2", "propose-600-cite-v2"),
    ("750 citing v1", "propose-750-cite-v1"),
    ("Ferry: newest timetable", "ferry-departure"),
    ("Parrot on board?", "parrot"),
    ("Restricted: hidden", "restricted-hidden"),
    ("Restricted: executives", "restricted-readable"),
)

BY_NAME: dict[str, Scenario] = {s.name: s for s in SCENARIOS}


def describe(scenario: Scenario) -> str:
    """One line for the teacher: what the scenario changes and what it must show."""
    parts = [scenario.seed_row or scenario.name]
    if scenario.exclude:
        parts.append("without " + ", ".join(scenario.exclude))
    if scenario.include_conflict:
        parts.append("plus a conflicting copy of travel-v2 saying 800")
    if scenario.settings:
        parts.append("settings " + ", ".join(f"{k}={v}" for k, v in scenario.settings.items()))
    if scenario.proposal is not None:
        parts.append(f"proposed answer: {scenario.proposal.answer}")
    expected = scenario.expected
    parts.append(f"expected: {expected.status}" + (f" ({expected.reason_code})" if expected.reason_code else ""))
    return " · ".join(parts)


def run_demo(shared: Shared, name: str, declared: tuple[str, ...] = ()) -> tuple[Scenario, Trace, dict]:
    """Run one scenario; returns it, its trace and the documents the trace was built on.

    The request's groups are the scenario's groups that the caller declared: a demo never reads a
    restricted document for someone who did not say they are in its group."""
    scenario = BY_NAME.get(name)
    if scenario is None:
        raise InputError("demo", f"unknown demo {name!r}; choose one of: {', '.join(BY_NAME)}")
    corpus = shared.demo_corpus(scenario.exclude, scenario.include_conflict)
    declared_groups = tuple(g for g in scenario.groups if g in set(declared))
    trace = run_scenario(shared.engine, corpus, dataclasses.replace(scenario, groups=declared_groups))
    return scenario, trace, corpus.documents
