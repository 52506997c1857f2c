"""A claim that says the opposite of its span (pipeline/opposites.py), and the learned judge refusing it."""

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
