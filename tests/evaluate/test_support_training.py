"""How the learned support judge is trained: the two-part decision, flipped claims, the units it trains on."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.evaluate import data
from pipeline.evaluate.judge_augment import flippable, flipped_claims
from pipeline.evaluate.judge_data import Pair, judge_units
from pipeline.lang.opposites import flip_kind, flipped
from pipeline.verify.judges.features import FEATURE_NAMES, PAIR_FEATURE_NAMES, pair_features
from pipeline.verify.judges.learned import DEFAULT_WEIGHTS, LearnedJudge, decision_score, sigmoid
from training.judge_fit import fit_decision
from training.support_judge import choose_threshold, fold_of, is_rationale, rationale_rows


def _pair(claim: str, label: str = "SUPPORT", sentences=("First finding.",), rationale=(0,)) -> Pair:
    abstract = data.Abstract(doc_id="1", title="A title", sentences=tuple(sentences))
    return Pair(claim_id=claim, claim=claim, abstract=abstract, label=label, rationale=rationale)


def test_the_decision_is_relevance_times_polarity():
    one = (np.zeros(2), np.ones(2), np.array([1.0, 0.0]), 0.5)
    other = (np.zeros(2), np.ones(2), np.array([0.0, -2.0]), 0.0)
    rows = np.array([[1.0, 0.3], [-2.0, 1.0]])
    expected = sigmoid(rows[:, 0] + 0.5) * sigmoid(-2.0 * rows[:, 1])
    assert decision_score({"relevance": one, "polarity": other}, rows) == pytest.approx(expected)


def test_relevance_learns_evidence_and_polarity_learns_support_from_evidence_pairs_only():
    rng = np.random.default_rng(0)
    labels = ["SUPPORT"] * 60 + ["CONTRADICT"] * 60 + ["NOEVIDENCE"] * 60
    evidence = np.r_[np.ones(120), np.zeros(60)]
    direction = np.r_[np.ones(60), -np.ones(60), np.zeros(60)]
    x = np.column_stack([evidence + 0.1 * rng.standard_normal(180), direction + 0.1 * rng.standard_normal(180)])
    decision = fit_decision(x, labels)
    scores = decision_score(decision, x)
    assert scores[:60].min() > max(scores[60:120].max(), scores[120:].max())  # SUPPORT above both kinds of negative
    # the polarity regression never sees a no-evidence pair: changing them leaves it as it was
    moved = x.copy()
    moved[120:, 1] = 5.0
    assert fit_decision(moved, labels)["polarity"][2] == pytest.approx(decision["polarity"][2])
    # flipped claims are unsupported evidence for polarity only
    flips = np.column_stack([np.ones(30), 0.2 * np.ones(30)])
    with_flips = fit_decision(x, labels, flips)
    assert with_flips["relevance"][2] == pytest.approx(decision["relevance"][2])
    assert decision_score(with_flips, flips[:1])[0] < decision_score(decision, flips[:1])[0]


def test_only_supported_claims_that_turn_over_cleanly_are_flipped():
    assert flip_kind("Aspirin increases bleeding.") == "swap"
    assert flip_kind("Aspirin does not cause bleeding.") == "negation"
    assert flip_kind("Aspirin is linked to bleeding.") == "auxiliary"
    assert flip_kind("Aspirin causes bleeding.") == "prefix"
    pairs = [_pair("Aspirin increases bleeding."), _pair("Aspirin does not cause bleeding."),
             _pair("Aspirin is linked to bleeding."), _pair("Aspirin increases bleeding.", "CONTRADICT"),
             _pair("Aspirin lowers pain.", "NOEVIDENCE", rationale=())]
    assert flippable(pairs) == [0, 1]
    assert flipped_claims(pairs, [0, 1]) == ["Aspirin decreases bleeding.", "Aspirin does cause bleeding."]
    assert flipped("Aspirin is linked to bleeding.") == "Aspirin is not linked to bleeding."


def test_training_units_are_the_sentences_the_judge_sees_and_keep_their_rationale():
    # SciFact's sentence 1 holds two sentences: the judge splits it at run time, so training does too
    pair = _pair("Weight loss was slower.", sentences=("Patients were followed.", "Loss was fast. Slower weight loss was kept."),
                 rationale=(1,))
    texts, origin = judge_units(pair)
    assert texts == ["A title", "Patients were followed.", "Loss was fast.", "Slower weight loss was kept."]
    assert origin == [-1, 0, 1, 1]
    assert rationale_rows(pair).tolist() == [0, 0, 1, 1]
    assert [is_rationale(pair, unit) for unit in range(4)] == [False, False, True, True]


def test_the_selector_weighted_flip_margin_averages_under_the_selectors_softmax():
    matrix = np.zeros((3, len(FEATURE_NAMES)))
    matrix[:, FEATURE_NAMES.index("flip_margin")] = [0.02, -0.04, 0.0]
    logits = np.array([1.0, 0.0, -1.0])
    row, best = pair_features(matrix, logits, 0.5)
    weights = np.exp(logits) / np.exp(logits).sum()
    features = dict(zip(PAIR_FEATURE_NAMES, row))
    assert best == 0 and features["selector_weighted_flip_margin"] == pytest.approx(weights @ [0.02, -0.04, 0.0])
    assert features["selector_confidence"] == pytest.approx(weights.max())


def test_the_threshold_rule_and_fold_assignments():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.1])
    labels = ["SUPPORT"] * 5 + ["CONTRADICT"]
    assert choose_threshold(scores, labels, 0.6) == 0.7  # the highest threshold keeping 3 of 5 SUPPORT pairs
    ids = [str(i) for i in range(200)]
    assert [fold_of(i) for i in ids] != [fold_of(i, assignment=1) for i in ids]
    assert {fold_of(i, assignment=3) for i in ids} == set(range(5))


def test_the_shipped_weights_hold_both_regressions_and_their_rule(tmp_path):
    spec = json.loads(DEFAULT_WEIGHTS.read_text("utf-8"))
    assert set(spec["decision"]) == {"relevance", "polarity"}
    assert "median" in spec["threshold_rule"] and spec["flipped_claims"]["count"] > 0
    assert 0.0 < spec["threshold"] < 1.0
    spec["decision"] = spec["decision"]["relevance"]  # a single regression, as shipped before
    old = tmp_path / "old_judge.json"
    old.write_text(json.dumps(spec), "utf-8")
    with pytest.raises(ValueError, match="retrain"):
        LearnedJudge(weights=old, embedder=object())
