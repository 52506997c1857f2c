"""The conversation: every result of a session (ask, check, demo) as a turn that can be re-opened,
and follow-up questions resolved against the previous question for retrieval.

A follow-up ("What about Shanghai?", "And is it valid in 2027?") is short and starts with a cue or
leans on the previous question with a pronoun. It is searched as the previous question's words plus
its own, where the previous question's names and numbers are dropped when the follow-up brings its
own (so "Beijing lodging" + "What about Shanghai?" searches "lodging Shanghai"). The searched text
becomes the trace's `request.question`, and the turn records what was asked, so the panels say what
was searched. Follow-ups are resolved only when the page's "follow-up" switch is on: API clients'
/ask calls are never rewritten.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field

from pipeline import Document, Request, Trace, has_cjk, question_terms

from .panels import _e, answer_mark, plain_words
from .state import session_of

MAX_TURNS = 50
MAX_FOLLOW_UP_WORDS = 8
CUES = ("what about", "how about", "and what about", "and for", "and in", "and", "also", "same for", "what if")
PRONOUNS = {"it", "its", "that", "this", "there", "they", "them", "those", "these", "same", "one"}
FUNCTION_WORDS = {"what", "how", "when", "where", "which", "who", "why", "is", "are", "was", "were", "does", "do",
                  "can", "may", "the", "a", "an", "in", "on", "at", "for", "of", "to", "and", "or", "about", "i",
                  "my", "our", "we", "you", "if", "also", "same"}
_TOKEN = re.compile(r"[\w'-]+|[^\w\s]", re.UNICODE)


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


def _is_entity(token: str, first: bool) -> bool:
    """A name or a number: capitalised and not a function word, or containing a digit."""
    if any(ch.isdigit() for ch in token):
        return True
    return token[:1].isupper() and token.lower() not in FUNCTION_WORDS and not (first and token.lower() in CUES)


# "How many checks were there in Ohio?", "Is there a fee?": an existential "there" points at nothing said before.
_EXISTENTIAL_THERE = re.compile(r"\b(?:is|are|was|were|be|been|isn't|aren't|wasn't|weren't)\s+there\b"
                                r"|\bthere\s+(?:is|are|was|were|be|been|isn't|aren't|wasn't|weren't)\b", re.I)


# "Why does the FAA want this rule?", "Who wrote this report?": "this" + a kind of document points at the
# document asked about, not at the previous question.
_THIS_DOCUMENT = re.compile(r"\b(?:this|that|these|those)\s+(?:(?:proposed|final|new|current|whole)\s+)?"
                            r"(?:rule|directive|document|doc|file|pdf|policy|proposal|report|paper|article|study|table|"
                            r"guide|guideline|manual|form|page|section|chapter|regulation|notice|act|law|standard|"
                            r"rfc|pep|readme|memo|letter|contract|agreement|book|text|list|chart|spreadsheet|"
                            r"publication|specification|spec|handbook|brochure|leaflet|statement|presentation|slide|"
                            r"website|site|post|thesis|dissertation|template|tutorial|package|class|bundle|library|module)s?\b", re.I)


def is_follow_up(question: str) -> bool:
    plain = _THIS_DOCUMENT.sub(" the document ", _EXISTENTIAL_THERE.sub(" be ", question))
    words = [w.lower() for w in re.findall(r"[\w'-]+", plain)]
    if not words or len(words) > MAX_FOLLOW_UP_WORDS:
        return False
    text = " ".join(words)
    return any(text == cue or text.startswith(cue + " ") for cue in CUES) or _leans_on_a_pronoun(plain, words)


_ITS = re.compile(r"\bits\b", re.I)


def _leans_on_a_pronoun(plain: str, words: list[str]) -> bool:
    """Does a pronoun point outside the question? "Its" after the question's own words points at them ("Can sort
    download its input from a URL?" is about sort), while "What is its price?" has nothing of its own before it;
    "one" before a word of its own counts ("… for one font?"), not as "the cheaper one (is …)"."""
    found, its = PRONOUNS & set(words), _ITS.search(plain)
    if "one" in found and all(i + 1 < len(words) and words[i + 1] not in FUNCTION_WORDS
                              for i, word in enumerate(words) if word == "one"):
        found = found - {"one"}
    if found != {"its"} or its is None:
        return bool(found)
    return not question_terms(plain[:its.start()] + "?")


def resolve(question: str, previous: str | None) -> str:
    """The text to search for `question` given the previous question (itself when not a follow-up). A question
    in another script than the previous one starts afresh: "why does the FAA want this rule?" after
    北京的住宿标准是多少？ was searched as both glued together."""
    if not previous or has_cjk(question) != has_cjk(previous) or not is_follow_up(question):
        return question
    text = question.strip()
    for cue in sorted(CUES, key=len, reverse=True):
        if text.lower().startswith(cue + " "):
            text = text[len(cue) + 1:]
            break
    if text.split(" ", 1)[0].lower() in FUNCTION_WORDS:  # "Can" glued after other words would read as a name
        text = text[:1].lower() + text[1:]
    new_tokens = _TOKEN.findall(text)
    brings_entities = any(_is_entity(t, i == 0) for i, t in enumerate(new_tokens) if t.lower() not in PRONOUNS)
    kept = [t for i, t in enumerate(_TOKEN.findall(previous))
            if re.match(r"\w", t) and not (brings_entities and _is_entity(t, i == 0))]
    return " ".join([*kept, text]).strip()


def resolve_request(session, request: Request) -> Request:
    """The request with its question resolved against the conversation (only when the page asked for it)."""
    conversation = conversation_of(session)
    if not conversation.resolve_follow_ups:
        return request
    searched = resolve(request.question, conversation.previous_question())
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
