"""A session's turns (ui/history.py): older traces kept packed and rebuilt exactly when re-opened or
exported (a session of many questions does not hold every trace's candidates as objects), and which questions are
follow-ups."""

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


def test_an_existential_there_is_not_a_follow_up():
    """"How many handgun checks were there in Ohio?" was searched with the previous question's words glued on
    (found asking the app as a new user would); "How do I get there?" still leans on the previous question."""
    from ui.history import is_follow_up, resolve

    for question in ("How many handgun checks were there in Ohio?", "Is there a fee?", "Are there any rules for pets?"):
        assert not is_follow_up(question), question
        assert resolve(question, "how many planes are affected") == question
    assert is_follow_up("How do I get there?") and is_follow_up("What about Shanghai?")


def test_a_question_in_another_script_is_not_a_follow_up():
    """After a Chinese question, "why does the FAA want this rule?" was searched with the Chinese glued on (found
    asking the app as a new user); a follow-up in the same script still leans on the previous question."""
    from ui.history import resolve

    assert resolve("why does the FAA want this rule?", "北京的住宿标准是多少") == "why does the FAA want this rule?"
    assert resolve("上海呢？那个标准是多少", "what is the lodging limit in Beijing?") == "上海呢？那个标准是多少"
    assert resolve("What about Shanghai?", "Beijing lodging") == "lodging Shanghai?"


def test_this_and_a_kind_of_document_points_at_the_document_not_the_previous_question():
    """"Why does the FAA want this rule?" after an English question was searched with that question's words
    glued on; "this rule" names the document asked about. A bare "this" still leans on the previous question."""
    from ui.history import is_follow_up, resolve

    for question in ("Why does the FAA want this rule?", "Who wrote this report?", "What does this proposed directive cover?",
                     "Who are the authors of this publication?", "When was this specification last updated?",
                     "Who wrote this package?", "Which version of this class does the manual describe?"):
        assert not is_follow_up(question), question
        assert resolve(question, "how many airplanes are affected") == question
    assert is_follow_up("Is this allowed?") and is_follow_up("How much does this hotel cost?")


def test_its_after_the_questions_own_words_is_not_a_follow_up():
    """"Can sort download its input from a URL?" was searched glued to the previous question, whose "Can" then read as
    a name no source mentions (found asking the app as a new user); "What is its price?" still leans back."""
    from ui.history import is_follow_up, resolve

    assert not is_follow_up("Can sort download its input from a URL?")
    assert resolve("Can sort download its input from a URL?", "How do I sort by the second column?") == (
        "Can sort download its input from a URL?")
    assert is_follow_up("What is its price?") and is_follow_up("How much is its fee?")
    assert resolve("Can I bring it?", "ferry dogs") == "ferry dogs can I bring it?"  # not a name mid-text


def test_one_before_a_noun_is_a_number_not_a_follow_up():
    """"How do I disable antialiasing for one font?" was searched with the previous question's words glued on (found
    asking the app as a new user); "Which one is cheaper?" and "What about the cheaper one?" still lean back."""
    from ui.history import is_follow_up, resolve

    for question in ("How do I disable antialiasing for one font?", "Can one user hold two sessions?"):
        assert not is_follow_up(question), question
        assert resolve(question, "What environment variable overrides the config file?") == question
    assert is_follow_up("Which one is cheaper?") and is_follow_up("What about the cheaper one?")
