"""Which questions are follow-ups, and what a follow-up is searched as (pipeline/question/follow_up.py)."""

from __future__ import annotations

from pipeline import is_follow_up
from pipeline import resolve_follow_up as resolve


def test_an_existential_there_is_not_a_follow_up():
    """"How many handgun checks were there in Ohio?" was searched with the previous question's words glued on
    (found asking the app as a new user would); "How do I get there?" still leans on the previous question."""
    for question in ("How many handgun checks were there in Ohio?", "Is there a fee?", "Are there any rules for pets?"):
        assert not is_follow_up(question), question
        assert resolve(question, "how many planes are affected") == question
    assert is_follow_up("How do I get there?") and is_follow_up("What about Shanghai?")


def test_a_question_in_another_script_is_not_a_follow_up():
    """After a Chinese question, "why does the FAA want this rule?" was searched with the Chinese glued on (found
    asking the app as a new user); a follow-up in the same script still leans on the previous question."""
    assert resolve("why does the FAA want this rule?", "北京的住宿标准是多少") == "why does the FAA want this rule?"
    assert resolve("上海呢？那个标准是多少", "what is the lodging limit in Beijing?") == "上海呢？那个标准是多少"
    assert resolve("What about Shanghai?", "Beijing lodging") == "lodging Shanghai?"


def test_this_and_a_kind_of_document_points_at_the_document_not_the_previous_question():
    """"Why does the FAA want this rule?" after an English question was searched with that question's words
    glued on; "this rule" names the document asked about. A bare "this" still leans on the previous question."""
    for question in ("Why does the FAA want this rule?", "Who wrote this report?", "What does this proposed directive cover?",
                     "Who are the authors of this publication?", "When was this specification last updated?",
                     "Who wrote this package?", "Which version of this class does the manual describe?"):
        assert not is_follow_up(question), question
        assert resolve(question, "how many airplanes are affected") == question
    assert is_follow_up("Is this allowed?") and is_follow_up("How much does this hotel cost?")


def test_its_after_the_questions_own_words_is_not_a_follow_up():
    """"Can sort download its input from a URL?" was searched glued to the previous question, whose "Can" then read as
    a name no source mentions (found asking the app as a new user); "What is its price?" still leans back."""
    assert not is_follow_up("Can sort download its input from a URL?")
    assert resolve("Can sort download its input from a URL?", "How do I sort by the second column?") == (
        "Can sort download its input from a URL?")
    assert is_follow_up("What is its price?") and is_follow_up("How much is its fee?")
    assert resolve("Can I bring it?", "ferry dogs") == "ferry dogs can I bring it?"  # not a name mid-text


def test_one_before_a_noun_is_a_number_not_a_follow_up():
    """"How do I disable antialiasing for one font?" was searched with the previous question's words glued on (found
    asking the app as a new user); "Which one is cheaper?" and "What about the cheaper one?" still lean back."""
    for question in ("How do I disable antialiasing for one font?", "Can one user hold two sessions?"):
        assert not is_follow_up(question), question
        assert resolve(question, "What environment variable overrides the config file?") == question
    assert is_follow_up("Which one is cheaper?") and is_follow_up("What about the cheaper one?")
