"""A session's turns (ui/history.py): older traces kept packed and rebuilt exactly when re-opened or
exported (a session of many questions does not hold every trace's candidates as objects). Which questions are
follow-ups: tests/question/test_follow_up.py."""

from __future__ import annotations

from pipeline import REQUEST_DATE, Request, Settings
from ui.history import Conversation


def _trace(engine, corpus, question):
    return engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings())


def test_older_turns_are_packed_and_rebuilt_exactly(engine, sample_corpus):
    conversation = Conversation()
    first = _trace(engine, sample_corpus, "What is the lodging limit in Beijing?")
    expected = first.model_dump(mode="json")
    for question in ("What is the lodging limit in Beijing?", "When does the ferry leave?", "Who approves travel?"):
        conversation.add("ask", question, first if question.startswith("What") else
                         _trace(engine, sample_corpus, question), {}, None)
    old, newest = conversation.turns[0], conversation.turns[-1]
    assert old._trace is None and old._packed and len(old._packed) < len(first.model_dump_json()) / 3
    assert newest._trace is not None  # the newest stays as objects: the panels show it
    assert old.answer == first.answer and old.searched == first.request.question  # the history table needs no rebuild
    assert old.trace_json() == expected and old._trace is None  # an export does not keep a rebuilt copy
    reopened = old.trace
    assert reopened == first and old.holds(reopened) and not newest.holds(reopened)
    conversation.add("ask", "again", _trace(engine, sample_corpus, "When does the ferry leave?"), {}, None)
    assert old._trace is None  # packed again once a newer turn arrives
