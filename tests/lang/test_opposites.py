"""A claim that says the opposite of its span (pipeline/lang/opposites.py), and the learned judge refusing it."""

from __future__ import annotations

import pytest

from pipeline.lang.opposites import said_opposite

PETS = "Pets travel free on the upper deck if kept on a lead."


@pytest.mark.parametrize("claim, span, found", [
    ("Pets travel free on the lower deck.", PETS, ("lower", "upper")),
    ("Pets must pay a fare on the upper deck.", PETS, ("fare", "free")),
    ("Alcohol is reimbursed.", "Alcohol is never reimbursed, whether part of a meal or not.", ("reimbursed", "never reimbursed")),
    ("Receipts are required.", "Receipts are not required for the meal allowance.", ("required", "not required")),
    ("Receipts are optional.", "Receipts must be kept for six months.", ("optional", "must")),
    ("Pets are not allowed in the cabin.", "Pets are allowed in the cabin.", ("not allowed", "allowed")),
    ("Tickets are refundable.", "All tickets are non-refundable.", ("refundable", "non-refundable")),
    ("Paid leave is 20 days.", "Unpaid leave is 20 days.", ("paid", "unpaid")),
    ("宠物在下层免费。", "宠物在上层免费乘船。", ("下层", "上层")),
    ("允许携带宠物。", "不允许携带宠物。", ("允许", "不允许")),
    ("Claims under 100 yuan need a receipt.", "Each claim above 100 yuan needs a receipt.", ("under", "above")),
    ("Staff may work remotely during probation.", "Staff may work remotely after their probation.", ("during", "after")),
])
def test_the_opposite_of_a_claimed_word_is_found(claim, span, found):
    assert said_opposite(claim, span) == found


@pytest.mark.parametrize("claim, span", [
    ("Pets ride for free on the upper deck.", PETS),  # a paraphrase
    ("Receipts are optional for the meal allowance.", "Receipts are not required for the meal allowance."),
    ("The minimum length is 14 characters.", "Passwords must be at least 14 characters long; the maximum is 64."),
    ("Paid and unpaid leave are 20 days each.", "Unpaid leave is 20 days."),  # the claim names both
    ("Risk is similar in teaching and non-teaching hospitals.", "Teaching hospitals had similar mortality."),
    ("Taking the drug does not prevent prostate cancer.", "The drug did not lower the risk of prostate cancer."),
    ("宠物在上层免费。", "宠物在上层免费乘船。"),
    ("Under the policy, claims need a receipt.", "Each claim above 100 yuan needs a receipt."),  # not an amount
    ("Breakfast is optional, but you must book it.", "Breakfast is optional."),  # the claim names both sides
    ("Adult macrophages are seeded before birth.", "Macrophages are seeded during embryonic development."),
])
def test_agreeing_or_unrelated_wording_is_not_an_opposite(claim, span):
    assert said_opposite(claim, span) is None


def test_the_learned_judge_refuses_a_claim_its_span_says_the_opposite_of():
    from pipeline.verify.judges.learned import LearnedJudge

    verdict = LearnedJudge()("Pets travel free on the lower deck.", PETS)
    assert not verdict.supported and verdict.score == 0.0
    assert "'upper' where the claim says 'lower'" in verdict.detail


@pytest.mark.parametrize("question, text, found", [
    ("How can I download a big file without loading it into memory?",
     "Requests supports streaming uploads, which allow you to send large files.", ("download", "uploads")),
    ("How do I enable compression?", "Set gzip to false to disable compression.", ("enable", "disable")),
    ("What is the maximum size of an attachment?", "The minimum size is 1 KB.", ("maximum", "minimum")),
    # the text names the asked side too, or the question names both, or the word only frames the question
    ("How do I enable compression?", "Compression is disabled by default; enable it with gzip=True.", None),
    ("Can I upload and download files?", "Uploads are limited to 10 MB.", None),
    ("How long is the warranty?", "The warranty is short: two years.", None),
    ("Who maintains the package?", "The package is maintained by Colin Watson.", None),
])
def test_a_text_using_only_the_antonym_of_a_question_word_is_found(question, text, found):
    from pipeline.lang.opposites import antonym_instead

    assert antonym_instead(question, text) == found


def test_the_antonyms_come_from_wordnet_without_function_words_or_common_framing_words():
    from bm25s.stopwords import STOPWORDS_EN

    from pipeline.lang.opposites import ANTONYMS_FILE

    lines = ANTONYMS_FILE.read_text(encoding="utf-8").splitlines()
    assert "Princeton University" in "".join(line for line in lines if line.startswith("#"))  # its licence's notice
    pairs = [line.split("\t") for line in lines if not line.startswith("#")]
    assert len(pairs) > 2500 and ["download", "upload"] in pairs and ["disable", "enable"] in pairs
    words = {word for pair in pairs for word in pair}
    assert not words & set(STOPWORDS_EN)
    # "What are the different places …?", "When did it end?": words this common frame a question
    assert not words & {"different", "same", "first", "last", "large", "small", "end", "ending", "new", "old"}


@pytest.mark.parametrize("question, text, found", [
    ("What happens if the home directory already exists?",
     "If the directory HOME_DIR does not exist, then it will be created unless the -M option is specified.",
     ("exists", "not exist")),
    ("When is a password required?", "A password is not required for the root account.", ("required", "not required")),
    ("How do I sign a user certificate?", "-h When signing a key, create a host certificate instead of a user "
                                          "certificate.", ("user", "instead of a user")),
    ("How do I sign a host certificate?", "-h When signing a key, create a host certificate instead of a user "
                                          "certificate.", None),
    # the text says the plain case too, the question is negated, or the negation has an exception
    ("What happens if the file exists?", "If the file exists, it is overwritten; if it does not exist, it is created.",
     None),
    ("What happens if the file does not exist?", "If the file does not exist, it is created.", None),
    ("What is needed to install the package?", "The package cannot be installed without libfoo.", None),
])
def test_a_text_that_only_negates_a_question_word_speaks_of_the_opposite_case(question, text, found):
    from pipeline.lang.opposites import negated_instead

    assert negated_instead(question, text) == found
