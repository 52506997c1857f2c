"""Citations: the marker format, parsing an answer into claims, and resolving a citation to its text.

A marker names a source and its lines: `[travel-v2:1-3]`, `[travel-v2:3]`, or, for a PDF page,
`[report:p2:4-6]`. Every producer writes markers with `marker()`, every checker reads them with
`MARKER`/`split_claims`, and every view quotes a citation with `cited_text()`, so the format
and its meaning live in one place.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from dataclasses import dataclass

from pydantic import ValidationError

from pipeline.core.contracts import Document, Proposal, ProposedCitation
from pipeline.core.errors import InputError

MARKER = re.compile(r"\[(?P<sid>[\w.\-]+?)(?::p(?P<page>\d+))?:(?P<start>\d+)(?:-(?P<end>\d+))?\]")
PASTED_PRODUCER = "pasted-answer"
ANSWER_HELP = (
    'write citations as markers like [travel-v2:1-3] (lines 1 to 3), [travel-v2:3] or [report:p2:4-6] '
    '(page 2 of a PDF), or paste a proposal JSON {"answer": "...", "citations": [{"source_id": "...", '
    '"start_line": 1, "end_line": 3, "page": null, "quote": null}]}'
)
_EDGES = " \t\n.,;:!?。，；：！？"


def marker(source_id: str, page: int | None, start_line: int, end_line: int) -> str:
    """The marker of a line range: `[id:a-b]`, `[id:a]`, or `[id:pN:a-b]` on a PDF page."""
    lines = f"{start_line}" if start_line == end_line else f"{start_line}-{end_line}"
    return f"[{source_id}:p{page}:{lines}]" if page is not None else f"[{source_id}:{lines}]"


def marker_key(match: re.Match) -> tuple[str, int | None, int, int]:
    """(source id, page, start line, end line) of one MARKER match."""
    start = int(match["start"])
    return match["sid"], int(match["page"]) if match["page"] else None, start, int(match["end"] or start)


def strip_markers(text: str) -> str:
    return MARKER.sub("", text).strip()


def has_text(text: str) -> bool:
    """Does a claim hold anything but punctuation and spaces?"""
    return bool(text.strip(_EDGES))


def parse_markers(text: str) -> list[ProposedCitation]:
    """Every marker in `text` as a citation, in order of appearance."""
    return [
        ProposedCitation(source_id=sid, page=page, start_line=start, end_line=end)
        for sid, page, start, end in (marker_key(m) for m in MARKER.finditer(text))
    ]


@dataclass(frozen=True)
class Claim:
    """A piece of an answer and the indices (into the proposal's citations) of the citations it carries."""

    text: str
    citations: tuple[int, ...]


def split_claims(proposal: Proposal) -> list[Claim]:
    """Attach each citation to the text before its marker; unmarked citations cover the whole answer.

    No text is lost: a marker whose span is listed once but written twice cites it again, and text before a
    marker that names no listed citation (see `with_marker_citations`) or after the last marker is a claim
    without a citation. One pass over the markers with a queue of unused citations per (source, lines):
    linear in the answer's length and its number of citations.
    """
    answer = proposal.answer or ""
    waiting: dict[tuple[str, int, int], deque[int]] = defaultdict(deque)
    for index, citation in enumerate(proposal.citations):
        waiting[(citation.source_id, citation.start_line, citation.end_line)].append(index)
    claims: list[Claim] = []
    position, used = 0, set()
    taken: dict[tuple[str, int, int], deque[int]] = defaultdict(deque)
    for match in MARKER.finditer(answer):
        text = answer[position : match.start()].strip()
        position = match.end()
        sid, page, start, end = marker_key(match)
        key = (sid, start, end)
        index = _take(waiting[key], proposal, page, keep=False)
        if index is None:  # the same span cited again: its one listed citation serves every claim it marks
            index = _take(taken[key], proposal, page, keep=True)
        else:
            taken[key].append(index)
        if index is not None:
            used.add(index)
        cited = () if index is None else (index,)
        if has_text(text):
            claims.append(Claim(text, cited))
        elif claims and cited and index not in claims[-1].citations:  # "… [a:1] [b:2]": the same text
            claims[-1] = Claim(claims[-1].text, claims[-1].citations + cited)
    rest = answer[position:].strip()
    unmarked = tuple(i for i in range(len(proposal.citations)) if i not in used)
    if unmarked:
        claims.append(Claim(strip_markers(answer), unmarked))
    elif has_text(rest):
        claims.append(Claim(rest, ()))  # text after the last marker, with no citation at all
    return claims


def _take(queue: deque[int], proposal: Proposal, page: int | None, keep: bool) -> int | None:
    """The first citation in `queue` whose page the marker names (any page when the marker names none); removed
    from the queue unless `keep`."""
    for position, index in enumerate(queue):
        if page is None or proposal.citations[index].page == page:
            if not keep:
                del queue[position]
            return index
    return None


def with_marker_citations(proposal: Proposal) -> Proposal:
    """The proposal with a citation for every marker of its answer that its list lacks.

    A marker is a citation whether or not the list beside the answer repeats it: a model's JSON may list fewer
    spans than its answer cites, and the sentence before an unlisted marker must still be checked, not lost.
    """
    known = list(proposal.citations)
    for citation in parse_markers(proposal.answer or ""):
        if not any(_marks(citation, listed) for listed in known):
            known.append(citation)
    return proposal.model_copy(update={"citations": known}) if len(known) > len(proposal.citations) else proposal


def _marks(marked: ProposedCitation, listed: ProposedCitation) -> bool:
    """Does a marker name this listed citation? The same source and lines, and its page unless it names none."""
    return ((marked.source_id, marked.start_line, marked.end_line) == (listed.source_id, listed.start_line, listed.end_line)
            and marked.page in (None, listed.page))


def cited_text(document: Document | None, citation: ProposedCitation) -> str | None:
    """The exact text a citation addresses, or None when its source, page or lines do not exist."""
    if document is None:
        return None
    return document.span_text(citation.page, citation.start_line, citation.end_line)


def parse_answer(text: str, producer: str = PASTED_PRODUCER) -> Proposal:
    """An answer written elsewhere as a Proposal: citation markers in prose, or a proposal JSON object."""
    text = (text or "").strip()
    if not text:
        raise InputError("answer", "paste an answer to check; " + ANSWER_HELP)
    if text.startswith("{"):
        return _proposal_json(text, producer)
    citations = parse_markers(text)
    if not citations:
        raise InputError("answer", "no citation marker found; " + ANSWER_HELP)
    return Proposal(answer=text, citations=citations, producer=producer)


def _proposal_json(text: str, producer: str) -> Proposal:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError("answer", f"not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    if not isinstance(data, dict):
        raise InputError("answer", "the JSON must be an object with 'answer' and 'citations'")
    data.setdefault("producer", producer)
    try:
        proposal = Proposal.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise InputError("answer", f"not a valid proposal: {where}: {first['msg']}") from None
    if not proposal.citations and not proposal.abstain_reason:
        raise InputError("answer", "the proposal has no citations; " + ANSWER_HELP)
    return proposal
