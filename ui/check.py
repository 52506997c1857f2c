"""Parse an answer written elsewhere into a Proposal: citation markers or a proposal JSON."""

from __future__ import annotations

import json

from pydantic import ValidationError

from pipeline.contracts import Proposal, ProposedCitation
from pipeline.errors import InputError
from pipeline.limits import check_answer_text
from pipeline.verify import MARKER

PRODUCER = "pasted-answer"
HELP = ('write citations as markers like [travel-v2:1-3] (lines 1 to 3), [travel-v2:3] or [report:p2:4-6] '
        '(page 2 of a PDF), or paste a proposal JSON {"answer": "...", "citations": [{"source_id": "...", '
        '"start_line": 1, "end_line": 3, "page": null, "quote": null}]}')


def parse_answer(text: str) -> Proposal:
    """Markers become citations in order of appearance; a JSON object is read as a Proposal."""
    text = check_answer_text(text)
    if not text:
        raise InputError("answer", "paste an answer to check; " + HELP)
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError("answer", f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
        if not isinstance(data, dict):
            raise InputError("answer", "the JSON must be an object with 'answer' and 'citations'")
        data.setdefault("producer", PRODUCER)
        try:
            proposal = Proposal.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(top level)"
            raise InputError("answer", f"not a valid proposal: {where}: {first['msg']}") from None
        if not proposal.citations and not proposal.abstain_reason:
            raise InputError("answer", "the proposal has no citations; " + HELP)
        return proposal
    citations = [
        ProposedCitation(source_id=m["sid"], start_line=int(m["start"]), end_line=int(m["end"] or m["start"]),
                         page=int(m["page"]) if m["page"] else None)
        for m in MARKER.finditer(text)
    ]
    if not citations:
        raise InputError("answer", "no citation marker found; " + HELP)
    return Proposal(answer=text, citations=citations, producer=PRODUCER)
