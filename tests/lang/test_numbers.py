"""The numbers a claim states against the numbers its span states (the verifier's numbers_match check)."""

from __future__ import annotations

import pytest

from pipeline.lang.numbers import numbers_missing, stated_numbers


@pytest.mark.parametrize("text, values", [
    ("１,２００ yuan, 8.30 and 2026-01-01", ["1200", "8.30", "2026", "1", "1"]),
    ("departs at 08:00 and 17:00", ["8:00", "17:00"]),
    ("departs at 8 am and 5:30 p.m.", ["8:00", "17:30"]),
    ("two bags of twenty-five kg, a dozen eggs, three hundred and one people", ["2", "25", "12", "301"]),
    ("two-thirds of them, dozens of others", []),
    ("one of the rules; no one knows", []),
    ("within one working day, twice a year", ["1", "2"]),  # "one" before a unit is a count
    ("两件行李，住宿十五天", ["2", "15"]),
    ("每件不超过二十千克，一百八十元，百分之五十", ["20", "180", "50"]),  # 千克 is a unit, not a thousand
    ("统一规定", []),
])
def test_numbers_are_read_as_values(text, values):
    assert stated_numbers(text) == values


@pytest.mark.parametrize("claim, span, missing", [
    ("The ferry leaves pier 3 at 8 am and 5 pm.", "The ferry departs from pier 3 at 08:00 and 17:00.", []),
    ("It departs at 8.", "It departs at 08:00.", []),
    ("Each passenger may carry 2 bags.", "Each passenger may carry two bags.", []),
    ("Passengers may carry three bags.", "Each passenger may carry two bags of up to 20 kg each.", ["3"]),
    ("The office opens at 9 pm.", "The office opens at 09:00.", ["21:00"]),
    ("The policy took effect on 2 September 2024.", "updated: 2024-09-02", []),
    ("每人可带三件行李。", "每人可带两件行李。", ["3"]),
    # the same value in another unit of the same kind is another quantity
    ("Report a lost key within one week.", "Report it within one working day.", ["1 week (the span: 1 day)"]),
    ("The allowance is 40 dollars per month.", "An allowance of 40 euros per month.", ["40 USD (the span: 40 EUR)"]),
    ("The allowance is €40 per month.", "An allowance of 40 euros per month.", []),
    ("Lost receipts may be replaced up to two times a year.", "Lost receipts: at most twice per year.", []),
    ("报销需在30天内提交。", "报销需在三十天内提交。", []),
])
def test_a_claim_number_must_be_stated_in_the_span(claim, span, missing):
    assert numbers_missing(claim, span) == missing
