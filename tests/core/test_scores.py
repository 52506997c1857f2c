"""A score beside its threshold reads true: enough digits that a score just below never shows as equal."""

from __future__ import annotations

import pytest

from pipeline import score_and_threshold

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("score", "threshold", "shown"), [
    (0.0996, 0.10, ("0.0996", "0.10")),
    (0.1006, 0.10, ("0.101", "0.10")),
    (0.08, 0.10, ("0.08", "0.10")),
    (0.35, 0.15, ("0.35", "0.15")),
    (0.10, 0.10, ("0.10", "0.10")),
    (0.1496, 0.1499, ("0.1496", "0.1499")),
])
def test_a_score_and_its_threshold_show_as_different_numbers_when_they_differ(score, threshold, shown):
    assert score_and_threshold(score, threshold) == shown
    a, b = (float(x) for x in score_and_threshold(score, threshold))
    assert (a < b) == (score < threshold) and (a > b) == (score > threshold)
