"""A question for an address of a kind with a form of its own (a URL, a mail address, a phone number) is answered
only by a unit that holds one: the sentence that talks about the link is not the link."""

from __future__ import annotations

import pytest

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.lang.questions import asked_address, holds_address
from tests.decisions import decision

NO_URL = "# Videos\n\nThe videos of this paper are kept at the web address that the video command gives, for ten years.\n"
WITH_URL = "# Videos\n\nThe videos of this paper are kept at the web address https://videos.example.org/paper-7/.\n"


@pytest.mark.parametrize(("question", "kind"), [
    ("What URL does the title of Video 1 link to?", "web address"),
    ("What's the web address of the guide?", "web address"),
    ("TeX Live 源地址是什么？", "web address"),
    ("What is the email address of the mailing list?", "e-mail address"),
    ("Where do I e-mail questions about REVTeX?", "e-mail address"),
    ("Who can I contact, and what is their phone number?", "phone number"),
    ("Which website hosts the class?", None),  # a name ("CTAN") may answer it
    ("How do I link the title to a video?", None),
])
def test_questions_for_an_address_are_recognised(question, kind):
    assert asked_address(question) == kind


def test_an_address_is_told_by_its_form():
    assert holds_address("web address", "mirrors.bfsu.edu.cn") and holds_address("web address", "see https://x.io/a")
    assert not holds_address("web address", "a hyperlink to the indicated URL; it may be used with any environment")
    assert holds_address("e-mail address", "send them to revtex4@aps.org.")
    assert not holds_address("e-mail address", "send them to the mailing list")
    assert holds_address("phone number", "telephone (206) 231–3500; email")
    assert not holds_address("phone number", "Section 3.2 applies")


def test_a_unit_without_the_asked_address_does_not_answer(make_corpus, logic_engine):
    ask = lambda corpus: logic_engine.ask(corpus, Request(question="At what web address are the videos of this paper kept?",  # noqa: E731
                                                          date=REQUEST_DATE), Settings())
    refused = ask(make_corpus(("videos.md", NO_URL)))
    assert refused.answer.status == "abstained"
    assert decision(refused.proposal, "address_missing").facts == {"address": "a web address"}
    answered = ask(make_corpus(("videos.md", WITH_URL)))
    assert answered.answer.status == "answered", answered.explanation
    assert "https://videos.example.org/paper-7/" in answered.answer.answer
