"""Questions that ask for a document's own particulars (who wrote it, its title, its date, its version) are told from
questions about what the document says; a question naming another thing is not about the document."""

from __future__ import annotations

import pytest

from pipeline.lang.document_fields import asked_affiliation, asked_particulars


@pytest.mark.parametrize(("question", "fields"), [
    ("Who wrote this paper?", ("author",)),
    ("Who are the authors of the HPC security publication?", ("author",)),
    ("Who is this guide by?", ("author",)),
    ("这份 tlmgr 使用方法简介是谁写的？", ("author",)),
    ("xpinyin 宏包是谁开发的？", ("author",)),
    ("What is the title of this paper?", ("title",)),
    ("What's this paper's title?", ("title",)),
    ("Who's the author of the sample?", ("author",)),
    ("Which authors wrote the report?", ("author",)),
    ("What date does the manual carry?", ("date",)),
    ("What date is printed on the sample manuscript?", ("date",)),
    ("When was this report published?", ("date",)),
    ("When was the presentation given?", ("date",)),  # a talk's slides date its title page
    ("Which version of the llncs class are these instructions for?", ("version",)),
    ("Which version of the bundle does this describe?", ("version",)),
    ("Which version of xpinyin does this manual document, and what is its date?", ("date", "version")),
])
def test_questions_for_a_document_s_particulars_are_recognised(question, fields):
    asked = asked_particulars(question)
    assert asked is not None and asked.fields == fields


@pytest.mark.parametrize("question", [
    "How do I find out which version of sed is installed?",  # the program's version, asked of its own output
    "What version of natbib does REVTeX need?",
    "What is Ann Author's e-mail address?",
    "When was xpinyin first released?",  # a history the title page does not tell
    "xpinyin 宏包最早是哪一年发布的？",
    "By what date does the FAA need to receive my comments on this proposal?",
    "What is the title of section 3?",
])
def test_other_questions_are_not(question):
    assert asked_particulars(question) is None


def test_the_document_asked_about_is_the_one_the_question_names_or_this_one():
    ieeepes = asked_particulars("Who wrote the ieeepes package?")
    assert ieeepes.about("ieeepes package A LaTeX-Package for IEEE PES Transactions")
    assert not ieeepes.about("revtex aps sample")
    # a dotted name is spaced in a document's names as in its id
    assert asked_particulars("Who wrote the faillock.conf support?").about("faillock conf 5")
    # the subject of "现在的命令行前端" is a part of lexgrog's page, not the page
    assert not asked_particulars("lexgrog 现在的命令行前端是谁写的？").about("lexgrog 1")
    assert asked_particulars("Who wrote this?").about("dccpaper")  # "this" alone is the document too
    this = asked_particulars("Who wrote this paper?")
    assert this.subject == () and this.about("anything at all")
    assert not asked_particulars("Who wrote natbib?").about("revtex aps sample")
    assert not asked_particulars("Who wrote the R manual?").about("crane report")  # a whole word, not a letter of one
    # a package's manual calls it a class, a package or a bundle; whoever maintains it wrote it
    for question in ("Who wrote this class?", "Who maintains this package?"):
        asked = asked_particulars(question)
        assert asked.fields == ("author",) and asked.subject == () and asked.about("h2020proposal")


@pytest.mark.parametrize(("question", "author"), [
    ("Which university is Till Tantau from?", "Till Tantau"),
    ("Where does Ann Author work?", "Ann Author"),
    ("What is Jens Gramm's affiliation?", "Jens Gramm"),
    ("李清来自哪个单位？", "李清"),
    ("Which company is the largest?", None),
    ("Where does the money go?", None),
])
def test_a_question_for_an_author_s_institution_names_the_author(question, author):
    assert asked_affiliation(question) == author
