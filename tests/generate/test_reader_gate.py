"""The reader checks the unit the extractive composer chose: a prose unit that only shares the question's words is
refused, every score it gives is shown with its threshold and its model's name, and what it was not trained to read
(a table row) is left to the composer's own checks."""

from __future__ import annotations

import pytest

from pipeline.core.contracts import Settings
from pipeline.models.reader import shipped_reader
from tests.conftest import ask_with, corpus_of
from tests.decisions import decision

pytestmark = pytest.mark.slow

HPC = ("# HPC security\n\nThis publication also analyzes HPC threats and recommends mitigations for HPC systems.\n"
       "The security of HPC systems matters to every research lab.\n")
MEALS = ("# Meals\n\nTravellers on a business trip of more than one day receive a daily meal allowance.\n"
         "It is paid with the salary of the following month.\n"
         "The allowance is 180 yuan per day in large cities and 150 yuan per day elsewhere.\n")
RATES = ("# Hotel rates\n\n| City | Nightly limit |\n| --- | --- |\n| Beijing | 750 yuan |\n| Shanghai | 800 yuan |\n"
         "| Guangzhou | 650 yuan |\n")


@pytest.fixture(scope="module")
def corpus(engine):
    return corpus_of(engine, ("hpc.md", HPC), ("meals.md", MEALS), ("rates.md", RATES))



def test_a_sentence_that_only_echoes_the_question_is_refused_by_the_reader(engine, corpus):
    trace = ask_with(engine, corpus, "Who are the authors of the HPC security publication?")
    assert trace.answer.status == "abstained"
    proposal = trace.proposal
    assert proposal.reader == "reader-v2"
    assert proposal.reader_score < proposal.reader_threshold
    assert decision(proposal, "reader_finds_none").facts["reader"] == "reader-v2"


def test_the_answering_sentence_passes_and_the_trace_names_both_models(engine, corpus):
    trace = ask_with(engine, corpus, "How much is the daily meal allowance in large cities?")
    assert trace.answer.status == "answered"
    assert "180 yuan" in trace.answer.answer
    proposal = trace.proposal
    assert proposal.reader_score >= proposal.reader_threshold == Settings().min_reader
    assert trace.components["generator.reader"] == "reader-v2"
    assert trace.components["generator.scorer"].startswith("answer-model")


def test_the_default_threshold_is_the_training_records(corpus):
    assert Settings().min_reader == shipped_reader().threshold("answer")


def test_a_table_row_is_read_by_the_reader_cell_by_cell(engine, corpus):
    """A row is read as "column: cell; …" under its table's caption, like any other candidate; the row the question
    names answers (on its form where the reader reads it under the threshold)."""
    trace = ask_with(engine, corpus, "What is the nightly hotel limit in Shanghai?")
    assert trace.answer.status == "answered" and "800" in trace.answer.answer
    assert trace.proposal.reader_score is not None and trace.proposal.best_unit.startswith("[rates:6]")


def test_min_reader_zero_turns_the_reader_off(engine, corpus):
    trace = ask_with(engine, corpus, "Who are the authors of the HPC security publication?", min_reader=0.0)
    assert trace.proposal.reader is None and trace.proposal.reader_score is None
    assert "generator.reader" not in trace.components


CERTS = ("Client certificates\n===================\n\n"
         "You can also specify a local cert to use as client side certificate, as a single file (containing the "
         "private key and the certificate) or as a tuple of both files' paths::\n\n"
         "    >>> requests.get('https://kennethreitz.org', cert=('/path/client.cert', '/path/client.key'))\n"
         "    <Response [200]>\n\n"
         "The private key to your local certificate must be unencrypted.\n")


def test_a_sentence_that_introduces_a_command_is_read_before_the_command_is_quoted_with_it(engine):
    """The scorer chooses the sentence; the answer runs on to the command it introduces, a unit the reader was not
    trained on. The reader still reads the sentence the scorer chose, and its score decides."""
    corpus = corpus_of(engine, ("certs.rst", CERTS))
    trace = ask_with(engine, corpus, "How do I pass a client side certificate as a tuple of files?")
    proposal = trace.proposal
    assert proposal.reader == "reader-v2" and proposal.reader_score is not None
    if trace.answer.status == "answered":
        assert "cert=(" in trace.answer.answer  # the command came with its sentence
        assert proposal.reader_score >= proposal.reader_threshold
    else:
        assert proposal.reader_score < proposal.reader_threshold


FARES = ("# Ferry fares\n\nOn weekends the crossing costs 12 euros per adult.\n"
         "Dogs are prohibited on the passenger deck.\n")


def test_a_unit_that_speaks_only_of_the_opposite_does_not_answer_but_a_yes_no_rule_does(engine):
    """"… on weekdays?" is not answered by the weekend fare; "Are dogs allowed …?" is answered by "Dogs are prohibited"."""
    from pipeline.lang.opposites import opposed_word

    assert opposed_word("How much is the crossing on weekdays?", "On weekends the crossing costs 12 euros.") == (
        "weekdays", "weekends")
    assert opposed_word("How much is the crossing on weekends?", "On weekends the crossing costs 12 euros.") is None
    corpus = corpus_of(engine, ("fares.md", FARES))
    asked = "How much does the crossing cost per adult on weekdays?"
    assert ask_with(engine, corpus, asked).answer.status == "abstained"  # the reader refuses the weekend fare
    weekday = ask_with(engine, corpus, asked, min_reader=0.0)  # and so does the scorer's check, where it decides
    assert weekday.answer.status == "abstained"
    assert decision(weekday.proposal, "opposite").outcome == "abstained"
    dogs = ask_with(engine, corpus, "Are dogs allowed on the passenger deck?", min_reader=0.0)
    assert dogs.answer.status == "answered" and "prohibited" in dogs.answer.answer


def test_a_unit_about_the_antonym_of_what_is_asked_does_not_answer(engine):
    """WordNet's antonyms widen the opposites guard: a question about downloads is not answered by uploads."""
    corpus = corpus_of(engine, ("streams.md", "# Streams\n\nThe client supports streaming uploads of large files "
                                              "without reading them into memory.\n"))
    download = ask_with(engine, corpus, "How can I download large files without reading them into memory?",
                        min_reader=0.0)
    assert download.answer.status == "abstained"
    assert decision(download.proposal, "opposite").facts == {"asked": "download", "said": "uploads"}
    upload = ask_with(engine, corpus, "How can I upload large files without reading them into memory?", min_reader=0.0)
    assert upload.answer.status == "answered" and "uploads" in upload.answer.answer


def test_a_unit_that_only_negates_what_is_asked_does_not_answer(engine):
    """"What happens if the home directory already exists?" is not answered by what happens when it does not."""
    corpus = corpus_of(engine, ("useradd.md", "# Home directory\n\nIf the home directory does not exist, useradd "
                                              "creates it and copies the skeleton files into it.\n"))
    exists = ask_with(engine, corpus, "What happens if the home directory already exists?", min_reader=0.0)
    assert exists.answer.status == "abstained"
    assert decision(exists.proposal, "opposite").facts == {"asked": "exists", "said": "not exist"}
    missing = ask_with(engine, corpus, "What happens if the home directory does not exist?", min_reader=0.0)
    assert missing.answer.status == "answered" and "creates it" in missing.answer.answer
