"""The conversation: every result of a session (ask, check, demo) as a turn that can be re-opened, and follow-up
questions resolved against the previous question for retrieval (`pipeline.resolve_follow_up`: the searched text
becomes the trace's `request.question`, and the turn records what was asked, so the panels say what was searched).
Follow-ups are resolved only when the page's "follow-up" switch is on: API clients' /ask calls are never rewritten.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field

from pipeline import Document, Request, Trace, resolve_follow_up

from .panels import _e, answer_mark, plain_words
from .state import session_of

MAX_TURNS = 50
class Turn:
    """One result of the session. Only the newest turn (and one re-opened) keeps its trace as objects;
    older traces are kept as compressed JSON and rebuilt when re-opened or exported. A trace holds up to
    100 candidates with their chunk text, about 0.3 MiB as objects and 20 KiB packed, and a session keeps
    50 turns."""

    def __init__(self, number: int, kind: str, asked: str, trace: Trace, documents: dict[str, Document],
                 demo: str | None = None) -> None:
        self.number = number
        self.kind = kind  # ask / check / demo
        self.asked = asked  # what the person typed (or the demo's name)
        self.documents = documents
        self.demo = demo
        self.searched = trace.request.question  # what retrieval searched (a follow-up is rewritten)
        self.answer, self.explanation = trace.answer, trace.explanation  # for the history table, unpacked
        self.reason = trace.abstention.detail if trace.abstention is not None else None
        self._trace: Trace | None = trace
        self._packed: bytes | None = None

    @property
    def trace(self) -> Trace:
        if self._trace is None:  # re-opened: rebuilt once, and kept until the next turn packs it again
            self._trace = Trace.model_validate_json(zlib.decompress(self._packed))
        return self._trace

    def holds(self, trace: Trace | None) -> bool:
        """Is `trace` this turn's (without rebuilding a packed one)?"""
        return trace is not None and self._trace is trace

    def trace_json(self) -> dict:
        """The trace as JSON values (for an export), without keeping a rebuilt copy."""
        if self._trace is not None:
            return self._trace.model_dump(mode="json")
        return json.loads(zlib.decompress(self._packed))

    def pack(self) -> None:
        if self._trace is not None:
            self._packed = self._packed or zlib.compress(self._trace.model_dump_json().encode("utf-8"), 6)
            self._trace = None

    @property
    def follow_up(self) -> bool:
        return self.kind == "ask" and self.asked != self.searched


@dataclass
class Conversation:
    turns: list[Turn] = field(default_factory=list)
    resolve_follow_ups: bool = False  # set by the page's switch before each of its asks
    _count: int = 0

    def add(self, kind: str, asked: str, trace: Trace, documents: dict[str, Document], demo: str | None) -> Turn:
        self._count += 1
        for earlier in self.turns:
            earlier.pack()
        turn = Turn(self._count, kind, asked, trace, documents, demo)
        self.turns.append(turn)
        del self.turns[:-MAX_TURNS]
        return turn

    def find(self, number) -> Turn | None:
        return next((t for t in self.turns if str(t.number) == str(number)), None)

    def previous_question(self) -> str | None:
        return next((t.searched for t in reversed(self.turns) if t.kind == "ask"), None)


def conversation_of(session) -> Conversation:
    """The session's conversation (kept on the session object, created on first use)."""
    conversation = getattr(session, "conversation", None)
    if not isinstance(conversation, Conversation):
        conversation = Conversation()
        session.conversation = conversation
    return conversation


# --------------------------------------------------------------------------- follow-ups


def resolve_request(session, request: Request) -> Request:
    """The request with its question resolved against the conversation (only when the page asked for it)."""
    conversation = conversation_of(session)
    if not conversation.resolve_follow_ups:
        return request
    searched = resolve_follow_up(request.question, conversation.previous_question())
    return request if searched == request.question else request.model_copy(update={"question": searched})


def set_follow_ups(enabled, session):
    """The page's switch, applied before its ask (API clients never set it)."""
    session = session_of(session)
    conversation_of(session).resolve_follow_ups = bool(enabled)
    return session


# --------------------------------------------------------------------------- views


def turn_line(turn: Turn | None) -> str:
    """The line above the Answer that says which turn this is and, for a follow-up, what was searched."""
    if turn is None or not turn.follow_up:
        return ""
    return (f"<div class='rag-demo' id='follow-up-note'><b>Follow-up</b> (turn {turn.number}): you asked "
            f"“{_e(turn.asked)}”; resolved against the previous question, retrieval searched "
            f"“<b>{_e(turn.searched)}</b>”.</div>")


SAID_LENGTH = 140  # code points of an answer or reason a row shows; the turn re-opens whole


def _clipped(text: str) -> str:
    """`text` cut at a word's end within SAID_LENGTH, marked with "…" (a CJK text, without spaces, at the length)."""
    if len(text) <= SAID_LENGTH:
        return text
    cut = text[: SAID_LENGTH - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > SAID_LENGTH // 2 else cut).rstrip(" ,;:") + "…"


def _said(turn: Turn) -> tuple[str, str]:
    """What a row shows of the answer or the reason (clipped) and the whole text for its tooltip. An abstention's own
    detail ("the reader finds that the chosen passage … does not answer") comes first: the reason code's general
    sentence is the same in every such row, so a row led by it is cut before what tells it from the others."""
    if turn.answer.answer:
        return _clipped(turn.answer.answer), turn.answer.answer
    whole = plain_words(turn.explanation or "")  # as the Answer panel words it
    detail = plain_words(turn.reason or "")
    if detail.split(" ", 1)[0].isalpha():  # "the reader …" opens the row as a sentence; "split-man:9-11 …" stays an id
        detail = detail[:1].upper() + detail[1:]
    return _clipped(detail or whole), whole


def history_html(conversation: Conversation) -> str:
    if not conversation.turns:
        return "<p class='rag-note'>No questions yet: each answer you get stays here and can be re-opened.</p>"
    rows = []
    for turn in reversed(conversation.turns):
        answer = turn.answer
        status = answer_mark(answer)  # as the Answer panel's badge says it
        said, whole = _said(turn)
        searched = f"<br><span class='rag-note'>searched: {_e(turn.searched)}</span>" if turn.follow_up else ""
        rows.append(f"<tr data-turn='{turn.number}'><td class='num'>{turn.number}</td><td>{_e(turn.kind)}</td>"
                    f"<td>{_e(turn.asked)}{searched}</td><td>{_e(status)}</td><td title='{_e(whole)}'>{_e(said)}</td></tr>")
    return ("<table class='rag-table' id='history-table'><thead><tr><th>turn</th><th>kind</th><th>question</th>"
            "<th>result</th><th>answer or reason</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def accordion_label(turns: int) -> str:
    """The conversation's (collapsed) heading: how many turns it holds."""
    held = "no turns yet" if not turns else f"{turns} turn{'s' if turns != 1 else ''}"
    return f"Conversation ({held}): every result of this session, re-openable"


def turn_choices(conversation: Conversation) -> list[tuple[str, str]]:
    return [(f"{t.number}. {t.asked[:60]}", str(t.number)) for t in reversed(conversation.turns)]


def turn_summary(turn: Turn) -> dict:
    answer = turn.answer
    return {"turn": turn.number, "kind": turn.kind, "asked": turn.asked, "searched": turn.searched,
            "follow_up": turn.follow_up, "demo": turn.demo, "status": answer.status,
            "reason_code": answer.reason_code, "answer": answer.answer, "explanation": turn.explanation}
