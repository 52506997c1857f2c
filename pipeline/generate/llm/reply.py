"""A language model's reply → a Proposal (still untrusted: verify checks every citation).

The model is asked for the proposal JSON, `{"answer": "...", "citations": [...]}`, with a
marker `[id:a-b]` / `[id:pN:a-b]` after every sentence. A server without JSON mode may send
plain text instead; then the markers in it are the citations. The fixed phrase NOT_IN_SOURCES,
or an answer with no citation at all, means "the sources do not say" (an abstention, not a
failure). Anything else unreadable is a failure the caller reports as `generator_unavailable`.
"""

from __future__ import annotations

from pydantic import ValidationError

from pipeline.core.citations import parse_markers
from pipeline.core.contracts import Decision, Proposal, ProposedCitation, decisions_note
from pipeline.llm.replies import UnreadableReply, json_object

NOT_IN_SOURCES = "NOT_IN_SOURCES"


def citations_from_markers(text: str) -> list[ProposedCitation]:
    """One citation per distinct marker, in order of first appearance."""
    distinct = {}
    for citation in parse_markers(text):
        distinct.setdefault((citation.source_id, citation.page, citation.start_line, citation.end_line), citation)
    return list(distinct.values())


def _says_not_in_sources(answer: str) -> bool:
    return NOT_IN_SOURCES in answer.upper().replace(" ", "_")


def parse_reply(reply: str, producer: str) -> Proposal:
    """Read a reply; raise UnreadableReply when it holds neither the proposal JSON nor markers."""
    if not reply.strip():
        raise UnreadableReply("the reply is empty", "empty")
    data = json_object(reply)
    if data is not None:
        if not isinstance(data.get("answer"), str):
            raise UnreadableReply('the reply\'s JSON has no "answer" string', "no_answer")
        answer = data["answer"].strip()
        try:
            citations = [ProposedCitation.model_validate(c) for c in data.get("citations") or []]
        except (ValidationError, TypeError) as error:
            raise UnreadableReply(f'the reply\'s "citations" are not citation objects ({error.__class__.__name__})',
                                  "bad_citations") from None
        if not citations:
            citations = citations_from_markers(answer)  # markers in the answer, an empty list beside it
    else:
        answer = reply.strip()
        citations = citations_from_markers(answer)
        if not citations and not _says_not_in_sources(answer):
            raise UnreadableReply("the reply is neither JSON nor text with citation markers", "unmarked")
    if _says_not_in_sources(answer) or not answer or not citations:
        said = Decision(by="model", outcome="abstained",
                        reason="model_not_in_sources" if _says_not_in_sources(answer) or not answer else "model_cites_nothing")
        return Proposal(producer=producer, abstain_reason="insufficient_evidence", decisions=[said],
                        note=decisions_note([said]))
    return Proposal(producer=producer, answer=answer, citations=citations)
