"""Reading how a producer chose (`Proposal.decisions`) in tests: by reason code and facts, never by its note's words."""

from __future__ import annotations


def reasons(proposal) -> list[str]:
    """The reason codes of a proposal's decisions, in order ([] without a proposal)."""
    return [d.reason for d in proposal.decisions] if proposal is not None else []


def decision(proposal, reason: str):
    """The proposal's first decision with `reason`; fails naming the reasons it has."""
    found = [d for d in (proposal.decisions if proposal is not None else []) if d.reason == reason]
    assert found, f"no {reason!r} decision among {reasons(proposal)}"
    return found[0]
