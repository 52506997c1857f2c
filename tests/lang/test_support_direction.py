"""Direction moves (what a text raises or lowers) and the selector's view of a span, on hand-made cases."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.lang.direction import move_match, moves
from pipeline.verify.judges.features import FEATURE_NAMES, SELECTOR_FEATURE_NAMES, Profiler, selector_matrix
from pipeline.verify.judges.learned import DEFAULT_WEIGHTS, LearnedJudge

RAISES = "Pyridostatin increases telomere fragility in BRCA2-deficient cells."
LOWERS = "Treatment with pyridostatin reduced telomere fragility in BRCA2-deficient cells."


def test_opposite_moves_of_the_same_thing_conflict_and_same_moves_agree():
    agree, conflict = move_match(moves(RAISES), moves(LOWERS))
    assert conflict > 0 and agree == 0
    agree, conflict = move_match(moves(RAISES), moves("Pyridostatin raised telomere fragility in BRCA2-deficient cells."))
    assert agree > 0 and conflict == 0


def test_a_negation_just_before_a_direction_word_flips_it():
    (sign, what), = moves("Pyridostatin did not increase telomere fragility.")
    assert sign == -1 and {"telomer", "fragil"} <= what
    agree, conflict = move_match(moves("Pyridostatin did not increase telomere fragility."), moves(LOWERS))
    assert agree > 0 and conflict == 0


def test_moves_of_different_things_neither_agree_nor_conflict():
    assert move_match(moves(RAISES), moves("Smoking reduced lung function in older adults.")) == (0.0, 0.0)


def test_a_text_without_direction_words_or_in_chinese_has_no_moves():
    assert moves("The study enrolled adults in three hospitals.") == ()
    assert moves("阿司匹林降低了心脏病发作的风险。") == ()


def test_the_selector_sees_each_sentences_place_among_the_others():
    rows = np.zeros((4, len(FEATURE_NAMES)))
    cosine, coverage = FEATURE_NAMES.index("cosine"), FEATURE_NAMES.index("claim_coverage")
    rows[:, cosine] = [0.2, 0.9, 0.5, 0.1]
    rows[:, coverage] = [0.1, 0.4, 0.8, 0.0]
    matrix = selector_matrix(rows)
    assert matrix.shape == (4, len(SELECTOR_FEATURE_NAMES))
    context = dict(zip(SELECTOR_FEATURE_NAMES[len(FEATURE_NAMES):], matrix[:, len(FEATURE_NAMES):].T))
    assert list(context["position"]) == [0, 1 / 3, 2 / 3, 1]
    assert list(context["is_last"]) == [0, 0, 0, 1]
    assert list(context["is_top_cosine"]) == [0, 1, 0, 0]
    assert list(context["neighbour_cosine"]) == [0.9, 0.5, 0.9, 0.5]
    assert context["coverage_below_best"] == pytest.approx([-0.7, -0.4, 0.0, -0.8])
    # how far each sentence stands above its own span: z-scores within the span (0 for a lone sentence)
    assert context["cosine_in_span"] == pytest.approx((rows[:, cosine] - 0.425) / (rows[:, cosine].std() + 1e-6))
    assert context["claim_coverage_in_span"].argmax() == 2 and context["flip_margin_in_span"].tolist() == [0] * 4
    assert selector_matrix(rows[:1])[0, len(FEATURE_NAMES):].tolist() == [0, 1, 1, 0, 0, 0, 0, 0, 0, 0]


def test_weights_trained_without_the_selectors_context_are_refused(tmp_path):
    spec = json.loads(DEFAULT_WEIGHTS.read_text("utf-8"))
    del spec["selector_features"]
    old = tmp_path / "old_judge.json"
    old.write_text(json.dumps(spec), "utf-8")
    with pytest.raises(ValueError, match="retrain"):
        LearnedJudge(weights=old, embedder=object())


def test_entities_are_words_with_two_capitals_or_digits_and_a_long_word_with_no_end_has_none():
    profile = Profiler().profile
    text = "Mutations in BRCA1 and the IL-6 pathway; the p53-R2 gene and COVID-19 in Paris."
    assert profile(text).entities == {"brca1", "il-6", "p53-r2", "covid-19", "paris"}
    # No word boundary to end at: the pattern once tried every choice of its two capitals (cubic: 2000 characters
    # took 15 s, so 6000 would take minutes).
    for length in (200, 6000):
        assert profile("A" * (length - 1) + "_").entities == frozenset()
