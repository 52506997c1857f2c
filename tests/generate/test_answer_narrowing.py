"""An answer quotes the sentence that answers, not the sentences around it: when the scorer's best unit is several
sentences (a sentence with the one before it, a long list item), the reader says which one answers and only that is
quoted. A sentence followed by one that opens with a pronoun keeps it: the pronoun's sentence may hold the answer."""

from __future__ import annotations

import pytest

from tests.conftest import ask_with, corpus_of
from tests.decisions import decision, reasons

pytestmark = pytest.mark.slow

TOOLS = ("# Account tools\n\n"
         "The syncusers tool copies the account entries from the central register to every workstation each night. "
         "They include only the shared service accounts, which packages need in order to own their files.\n")
SUBMISSIONS = ("# Call for essays\n\n"
               "Essays for the spring issue are sent to the editor by email. "
               "They should not exceed 4,000 words, including notes.\n")
FERRY = ("# Ferry rules\n\n"
         "- Bicycles: Bicycles are carried on the car deck for a fee of 5 euros. Folding bicycles travel free as hand "
         "luggage if they are folded.\n"
         "- Luggage: Each passenger may bring two bags.\n")


@pytest.fixture(scope="module")
def corpus(engine):
    return corpus_of(engine, ("tools.md", TOOLS), ("essays.md", SUBMISSIONS), ("ferry.md", FERRY))



def test_a_sentence_followed_by_a_pronoun_sentence_is_quoted_with_it(engine, corpus):
    # "They include …" may hold the answer about the sentence before it, which the reader cannot see in it alone
    trace = ask_with(engine, corpus, "What does the syncusers tool do?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "copies the account entries" in answer.answer and "They include" in answer.answer
    assert "part_answers_alone" not in reasons(trace.proposal)


def test_a_pronoun_sentence_that_answers_keeps_the_sentence_before_it(engine, corpus):
    trace = ask_with(engine, corpus, "How many words may an essay have?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "4,000 words" in answer.answer
    assert "Essays for the spring issue" in answer.answer  # what "They" are
    assert "part_answers_alone" not in reasons(trace.proposal)


def test_one_sentence_of_a_long_list_item_is_quoted(engine, corpus):
    trace = ask_with(engine, corpus, "How much does it cost to take a bicycle on the car deck?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "5 euros" in answer.answer
    assert "Folding bicycles" not in answer.answer
    assert answer.citations[0].verified


def test_without_the_reader_a_long_item_stays_whole(engine, corpus):
    trace = ask_with(engine, corpus, "How much does it cost to take a bicycle on the car deck?", min_reader=0)
    assert trace.answer.status == "answered"
    assert "5 euros" in trace.answer.answer and "Folding bicycles" in trace.answer.answer


def test_a_sentence_is_not_quoted_alone_when_the_next_one_holds_a_word_of_the_question(engine):
    contact = ("# Further information\n\n- Contact: For more information about this rule, contact Ann Lee, Manager, "
               "Harbour Office, 2200 South 216th St. Des Moines, WA 98198. The phone number is 206-231-3500.\n")
    corpus = corpus_of(engine, ("contact.md", contact))
    trace = ask_with(engine, corpus, "Who can I contact for more information about this rule, and what is their phone number?")
    assert trace.answer.status == "answered"
    assert "Ann Lee" in trace.answer.answer and "206-231-3500" in trace.answer.answer


PASSWORDS = ("# Password rules\n\nPasswords for staff accounts follow these rules:\n\n"
             "- A password is at least 14 characters long.\n- A password is changed every 180 days.\n"
             "- A password is never reused within two years.\n")
CATALOGUE = ("# Shared storage\n\nThere are two important requirements for the way the shared catalogue is stored:\n\n"
             "- Applications must be able to extend the catalogue in any way when they are installed, to add both new "
             "formats and new information about existing formats.\n"
             "- Administrators must be able to change the catalogue, by removing entries or adding their own.\n\n"
             "The catalogue is read at start-up.\n")


@pytest.fixture(scope="module")
def lists(engine):
    return corpus_of(engine, ("passwords.md", PASSWORDS), ("catalogue.md", CATALOGUE))


def test_a_list_not_asked_for_is_answered_by_the_item_that_answers(engine, lists):
    """The reader reads the whole list best and, of its parts, the item that answers alone: only that is quoted."""
    trace = ask_with(engine, lists, "How long must a staff password be?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "14 characters" in answer.answer
    assert "180 days" not in answer.answer and "follow these rules" not in answer.answer
    assert (answer.citations[0].start_line, answer.citations[0].end_line) == (5, 5)
    assert answer.citations[0].verified and decision(trace.proposal, "part_answers_alone").unit == "[passwords:5]"
    assert trace.proposal.score >= trace.proposal.reader_threshold


@pytest.mark.xfail(strict=True, reason="reader-v2 reads the list at 0.50 and its item at 0.26 < threshold 0.55: a plain "
                                       "answer refused (issue 49, measured 2026-12-07)")
def test_a_plain_paraphrase_of_a_list_item_is_answered(engine, lists):
    trace = ask_with(engine, lists, "What is the minimum length of a staff password?")
    assert trace.answer.status == "answered" and "14 characters" in trace.answer.answer


def test_a_list_not_asked_for_is_read_by_the_reader_and_refused_when_neither_it_nor_a_part_answers(engine, lists):
    trace = ask_with(engine, lists, "Who wrote the rules for storing the shared catalogue?")
    assert trace.answer.status == "abstained"
    refused = decision(trace.proposal, "reader_finds_none")
    assert (refused.by, refused.facts["reader"]) == ("reader", "reader-v2")
    assert trace.proposal.reader_score < trace.proposal.reader_threshold
    assert refused.unit == "[catalogue:3-6]"  # the whole list was read: no part answers alone


def test_a_list_whose_parts_do_not_answer_alone_is_answered_whole_when_the_reader_reads_it_so(engine):
    rules = ("# Reporting vulnerabilities\n\nFailure to follow these guidelines may result in:\n\n"
             "- Rejection of the vulnerability report.\n- Forfeiture of any potential bug bounty.\n"
             "- Temporary or permanent ban from the bug bounty program.\n- Legal action in cases of malicious intent.\n")
    corpus = corpus_of(engine, ("reporting.md", rules))
    trace = ask_with(engine, corpus, "What can happen if I don't follow the vulnerability reporting guidelines?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "Rejection of the vulnerability report" in answer.answer and "Legal action" in answer.answer
    assert decision(trace.proposal, "list_read_whole").outcome == "noted"
    assert trace.proposal.reader_score >= trace.proposal.reader_threshold


def test_a_list_asked_for_stays_whole(engine, lists):
    trace = ask_with(engine, lists, "What are the requirements for storing the shared catalogue?")
    answer = trace.answer
    assert answer.status == "answered"
    assert "Applications must be able" in answer.answer and "Administrators must be able" in answer.answer


def test_a_faq_entrys_question_is_never_the_part_quoted_alone(engine):
    # the reader may read the entry's own question as the best answer to the same question; it names the topic
    faq = ("# Questions about the viewer\n\n"
           "1. Is there a Windows build of the viewer ?\n\n"
           "   Yes, the download page offers an installer for Windows 10 and later, see the release notes.\n\n"
           "2. Can the viewer open encrypted files ?\n\n"
           "   No, encrypted files must be decrypted first with the vendor's tool.\n")
    corpus = corpus_of(engine, ("viewer-faq.md", faq))
    for question, said in (("Is there a Windows build of the viewer?", "installer"),
                           ("Can the viewer open encrypted files?", "decrypted first")):
        trace = ask_with(engine, corpus, question)
        assert trace.answer.status == "answered", trace.proposal.note
        assert said in trace.answer.answer, trace.answer.answer
