"""A name marked in a table's header ("*Other") is defined by the note that opens with its mark ("*Refers to …"):
retrieval lets that note's chunk through as a definition, and the composer answers "What does the 'Other' category
include?" with the note — not with a bullet ("* item") or emphasis ("*Other*")."""

from __future__ import annotations

import pytest

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.lang.forms import defined_term
from pipeline.text.footnotes import holds_note, marks_of, opens_note

CHECKS = ("---\nid: checks\n---\nBackground checks, November\n"
          "State\tPermit\tHandgun\tLong Gun *Other **Multiple\n"
          "Texas\t21,550\t56,941\t51,670\t2,532\t3,048\nUtah\t10,429\t4,314\t5,857\t195\t262\n"
          "*Refers to frames, receivers and firearms that are neither handguns nor long guns.\n"
          "**Multiple (more than one type of firearm selected)\n"
          "Some states may show fewer handgun checks because of their permit laws.\n")


@pytest.mark.parametrize("question, term", [
    ("What does the 'Other' category in this table include?", "Other"),
    ("What does the Admin column include?", "Admin"),
    ("What is meant by \"Multiple\"?", "Multiple"),
    ("What does the term MEL refer to?", "MEL"),
    ("What does the warranty cover?", None),  # asks what the warranty says, not what the word means
])
def test_questions_asking_what_a_named_category_covers_are_definition_questions(question, term):
    assert defined_term(question) == term


def test_marks_attach_to_a_name_and_open_its_note():
    header = "State\tPermit\tLong Gun *Other **Multiple"
    assert marks_of("Other", header) == {"*"} and marks_of("Multiple", header) == {"**"}
    assert marks_of("Other", "the *Other* column") == frozenset()  # emphasis, not a mark
    assert opens_note(frozenset({"*"}), "*Refers to frames") and not opens_note(frozenset({"*"}), "**Multiple (…)")
    assert not opens_note(frozenset({"*"}), "* a bulleted item")
    assert holds_note(frozenset({"**"}), "Totals\t1\t2\n**Multiple (more than one)") and not holds_note(frozenset(), "*x")


def test_a_marked_category_is_answered_with_its_note(make_corpus, logic_engine):
    corpus = make_corpus(("checks.txt", CHECKS))
    for question, note in [("What does the 'Other' category in this table include?", "*Refers to frames"),
                           ("What does Multiple mean?", "**Multiple (more than one")]:
        trace = logic_engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings())
        assert trace.answer.status == "answered", trace.explanation
        assert trace.answer.answer.startswith(note) and all(c.verified for c in trace.answer.citations)
        assert "Some states" not in trace.answer.answer  # each note is its own unit
