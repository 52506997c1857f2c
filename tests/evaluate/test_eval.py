"""The evaluation suite on tiny slices (`--limit`), plus unit tests of its metrics and rules.

Every run here uses a temporary vector cache (RAG_CACHE_DIR), so nothing depends on a warm
cache; slices are small because embedding is the slow part.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.evaluate import metrics
from pipeline.evaluate.common import overlap_tokens, word_overlap_verified
from pipeline.evaluate.judge_data import held_out

pytestmark = pytest.mark.slow  # evaluations on slices of the public sets, with the real model

SHARED_EVAL = Path(__file__).resolve().parents[2].parent / "shared" / "eval"
needs_data = pytest.mark.skipif(not (SHARED_EVAL / "scifact" / "corpus.jsonl").exists(), reason="../shared/eval missing")


# --------------------------------------------------------------------------- metrics


def test_perfect_ranking_has_ndcg_one_and_worse_rankings_less():
    relevant = {"a": 1, "b": 1}
    assert metrics.ndcg_at_k(["a", "b", "x", "y"], relevant, 10) == pytest.approx(1.0)
    assert metrics.ndcg_at_k(["x", "a", "b"], relevant, 10) < 1.0
    assert metrics.ndcg_at_k(["x", "y"], relevant, 10) == 0.0
    # one relevant at rank 2 of one relevant document: 1/log2(3)
    assert metrics.ndcg_at_k(["x", "a"], {"a": 1}, 10) == pytest.approx(1 / 1.584962500721156)
    # beyond k does not count
    assert metrics.ndcg_at_k(["x", "y", "a"], {"a": 1}, 2) == 0.0


def test_recall_and_reciprocal_rank():
    assert metrics.recall_at_k(["a", "x", "b"], {"a": 1, "b": 1, "c": 1}, 2) == pytest.approx(1 / 3)
    assert metrics.recall_at_k(["a", "x", "b"], {"a": 1, "b": 1, "c": 1}, 100) == pytest.approx(2 / 3)
    assert metrics.reciprocal_rank(["x", "y", "a"], {"a"}) == pytest.approx(1 / 3)
    assert metrics.binary_scores([True, True, False, False], [True, False, True, False]) == {
        "precision": 0.5, "recall": 0.5, "tp": 1, "fp": 1, "fn": 1}


def test_baseline_rule_matches_its_definition():
    # seed 002: w for w in text.lower().split() if len(w) >= 5; verified at >= 3 shared tokens
    assert overlap_tokens("Aspirin REDUCES heart attacks in adults") == {"aspirin", "reduces", "heart", "attacks", "adults"}
    assert word_overlap_verified("Aspirin reduces heart risk", "aspirin REDUCES the HEART rate")
    assert not word_overlap_verified("Aspirin reduces heart risk", "aspirin reduces the pulse")
    # short words never count, punctuation stays attached (it is a plain split)
    assert not word_overlap_verified("a b c d e f", "a b c d e f")
    assert not word_overlap_verified("heart, aspirin, reduces", "heart aspirin reduces")


# --------------------------------------------------------------------------- verifier (no embedding)


@needs_data
def test_verifier_slice_scores_match_their_definitions():
    from pipeline.evaluate import data, verifier_eval

    figures = verifier_eval.evaluate(limit=60, judge=False)
    coverage = figures.pop("_coverage")
    v = figures["verifier"]
    assert v["pairs"]["total"] == 60 == len(coverage) and v["pairs"]["split"] == "held_out"
    assert "learned_judge" not in v
    for block in (v, v["baseline_word_overlap"]):
        for key in ("precision", "recall", "false_verification_rate", "false_verification_rate_contradict",
                    "false_verification_rate_no_evidence"):
            assert 0.0 <= block[key] <= 1.0
    # the baseline column recomputed from the rule itself, on the same held-out pairs
    pairs = verifier_eval.pairs(data.SCIFACT_CLAIMS, data.SCIFACT_CORPUS, 60)
    assert all(held_out(p.claim_id) for p, _, _ in pairs)
    decisions = [word_overlap_verified(p.claim, " ".join([a.title, *a.sentences])) for p, a, _ in pairs]
    expected = verifier_eval.scores(decisions, [label for _, _, label in pairs])
    assert v["baseline_word_overlap"]["recall"] == pytest.approx(expected["recall"], abs=1e-4)
    assert v["baseline_word_overlap"]["verified"] == sum(decisions)


@needs_data
def test_eval_verifier_limit_runs_the_learned_judge(capsys):
    from pipeline.cli import main

    assert main(["eval", "verifier", "--limit", "12"]) == 0
    printed = capsys.readouterr().out
    assert "learned judge (threshold" in printed and "ours (containment)" in printed and "papertrail" in printed
    assert "threshold 0.50" in printed and "highlighted sentence is a gold rationale" in printed
    from pipeline.evaluate.runner import _threshold
    from pipeline.verify.judges.learned import LearnedJudge

    shipped = _threshold(round(LearnedJudge(embedder=object()).threshold, 3))
    assert f"learned judge (threshold {shipped})" in printed and f"\nthreshold {shipped} " in printed  # a curve row


@needs_data
def test_the_judge_split_is_by_claim_and_fixed():
    from pipeline.evaluate.judge_data import load_pairs

    train, held = load_pairs(split="train"), load_pairs(split="held_out")
    assert not {p.claim_id for p in train} & {p.claim_id for p in held}
    assert 0.3 < len(held) / (len(train) + len(held)) < 0.5
    assert [held_out(p.claim_id) for p in held[:5]] == [True] * 5


def test_judge_rationales_are_every_evidence_set_of_a_document(tmp_path):
    """SciFact lists one evidence set per rationale; a document cited with two sets has both as gold sentences."""
    from pipeline.evaluate.data import load_scifact_claims

    claims = tmp_path / "claims.jsonl"
    row = {"id": 7, "claim": "X lowers Y.", "cited_doc_ids": [11, 12],
           "evidence": [{"doc_id": 11, "label": "SUPPORT", "sentences": [8]},
                        {"doc_id": 12, "label": "CONTRADICT", "sentences": [2]},
                        {"doc_id": 11, "label": "SUPPORT", "sentences": [12, 3]}]}
    claims.write_text(json.dumps(row) + "\n", "utf-8")
    claim, = load_scifact_claims(claims)
    assert claim.rationales == {"11": (3, 8, 12), "12": (2,)}
    assert claim.evidence == {"11": "SUPPORT", "12": "CONTRADICT"}


def test_verifier_scores_on_a_known_case():
    from pipeline.evaluate.verifier_eval import scores

    got = scores([True, False, True, True], ["SUPPORT", "SUPPORT", "CONTRADICT", "NOEVIDENCE"])
    assert got["precision"] == pytest.approx(1 / 3)
    assert got["recall"] == pytest.approx(0.5)
    assert got["false_verification_rate"] == pytest.approx(1.0)
    assert got["false_verification_rate_contradict"] == 1.0


def test_squad_threshold_curve_is_exact_on_hand_made_rows():
    from pipeline.evaluate.squad import contains_gold, summarize, threshold_curve

    rows = [
        {"impossible": False, "composer_score": 0.9, "zero_verified": True, "zero_correct": True},
        {"impossible": False, "composer_score": 0.5, "zero_verified": True, "zero_correct": False},
        {"impossible": True, "composer_score": 0.7, "zero_verified": True, "zero_correct": False},
        {"impossible": True, "composer_score": None, "zero_verified": False, "zero_correct": False},
    ]
    curve = {c["min_support"]: c for c in threshold_curve(rows, [0.0, 0.6, 0.8, 1.0])}
    assert curve[0.0]["precision"] == pytest.approx(1 / 3) and curve[0.0]["accuracy"] == pytest.approx(2 / 4)
    assert curve[0.8]["precision"] == 1.0 and curve[0.8]["accuracy"] == pytest.approx(3 / 4)
    assert curve[1.0]["recall"] == 0.0 and curve[1.0]["accuracy"] == pytest.approx(2 / 4)
    assert contains_gold("The Normans were in  NORMANDY.", ("normandy",))
    assert not contains_gold("The Normans", ("France",))
    summary = summarize([
        {"impossible": False, "answered": True, "correct_answer": True, "rank": 1},
        {"impossible": True, "answered": False, "correct_answer": False, "rank": 2},
        {"impossible": True, "answered": True, "correct_answer": False, "rank": 1},
    ])
    assert summary["accuracy"] == pytest.approx(2 / 3)
    assert summary["abstain_precision"] == 1.0 and summary["abstain_recall"] == 0.5
    assert summary["baseline_always_abstain"]["accuracy"] == pytest.approx(2 / 3)


# --------------------------------------------------------------------------- every suite through the CLI


@needs_data
def test_eval_all_on_a_slice_writes_json_plots_and_readme(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))
    from pipeline.cli import main

    out, plots = tmp_path / "eval.json", tmp_path / "plots"
    readme = tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- results:start -->\nold\n<!-- results:end -->\n\ntail\n", "utf-8")
    code = main(["eval", "all", "--limit", "3", "--json", str(out), "--plots", str(plots), "--readme", str(readme),
                 "--traces", str(tmp_path / "rag-traces.json")])
    printed = capsys.readouterr().out
    assert code == 0, printed
    figures = json.loads(out.read_text("utf-8"))
    for method in ("bm25", "dense", "hybrid"):
        assert 0.0 <= figures["retrieval"][method]["ndcg@10"] <= 1.0
        assert 0.0 <= figures["retrieval"][method]["recall@100"] <= 1.0
    assert figures["scifact_run"]["queries"] == 3
    assert set(figures["verifier"]) >= {"precision", "recall", "false_verification_rate", "baseline_word_overlap"}
    squad2 = figures["squad2"]
    assert squad2["questions"] == 3 and 0.0 <= squad2["accuracy"] <= 1.0
    assert squad2["baseline_always_abstain"]["accuracy"] == pytest.approx(squad2["unanswerable"] / 3, abs=1e-4)
    assert {"answered_correct", "location_hit"} <= set(figures["cmrc"])
    assert set(figures["cmrc"]["tokenizers"]) == {"jieba", "bigram"}
    assert figures["scenarios"]["passed"] == figures["scenarios"]["total"] == 13
    # papertrail beside ours
    assert "dense_top5" in figures["papertrail"]["retrieval"]
    assert "accuracy" in figures["papertrail"]["squad2"]
    assert "papertrail" in printed and "hybrid ndcg@10" in printed
    assert {p.name for p in plots.glob("*.png")} >= {"squad2_score_distributions.png", "squad2_threshold_tradeoff.png",
                                                      "scifact_ndcg_by_method.png"}
    text = readme.read_text("utf-8")
    assert text.startswith("# x\n") and text.endswith("\ntail\n") and "\nold\n" not in text
    assert "python -m pipeline eval all --limit 3" in text
    for suite in ("scenarios", "scifact", "verifier", "squad2", "cmrc"):
        assert f"### eval {suite}" in text
    assert figures["tables"]["squad2"] in text  # the table exactly as printed


def test_the_results_region_is_the_only_change(tmp_path):
    from pipeline.evaluate.report import write_results

    readme = tmp_path / "README.md"
    readme.write_text("head\n<!-- results:start -->\nstale\n<!-- results:end -->\nfoot\n", "utf-8")
    write_results(readme, eval_path=tmp_path / "none.json", bench_path=tmp_path / "none.json",
                 load_path=tmp_path / "none.json", scale_path=tmp_path / "none.json",
                 pdf_load_path=tmp_path / "none.json")
    text = readme.read_text("utf-8")
    assert text.startswith("head\n<!-- results:start -->\n## Results") and text.endswith("<!-- results:end -->\nfoot\n")
    assert "stale" not in text and text.count("not yet measured") == 10  # 6 eval suites, bench, 2 bench load, bench scale


def test_questions_gold_match_rule_respects_boundaries():
    from pipeline.evaluate.questions import contains

    assert contains("affects 73 airplanes", "73") and not contains("Model 737 airplanes", "73")
    assert not contains("costs $850", "$85") and contains("Model 737– 9", "737-9")


def test_eval_questions_on_a_slice_scores_and_writes_json(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))
    from pipeline.cli import main

    items = [
        {"id": "t-1", "docs": ["sample_docs/corpus"], "question": "How long must passwords be?", "lang": "en",
         "date": "2026-09-14", "topic": None, "groups": [], "answerable": True, "gold": ["14"], "page": None,
         "kind": "number", "source": "password-policy", "lines": None},
        {"id": "t-2", "docs": ["sample_docs/corpus"], "question": "How much does a ferry ticket cost?", "lang": "en",
         "date": None, "topic": None, "groups": [], "answerable": False, "gold": [], "page": None,
         "kind": "unanswerable", "source": None, "lines": None},
        {"id": "t-3", "docs": ["sample_docs/corpus"], "question": "Who wrote the moon landing report?", "lang": "en",
         "date": None, "topic": None, "groups": [], "answerable": False, "gold": [], "page": None,
         "kind": "unanswerable", "source": None, "lines": None},
    ]
    data_file = tmp_path / "questions" / "dev.jsonl"
    data_file.parent.mkdir()
    data_file.write_text("\n".join(json.dumps(i) for i in items) + "\n", "utf-8")
    out = tmp_path / "eval.json"
    code = main(["eval", "questions", "--data", str(data_file), "--limit", "2", "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    figures = json.loads(out.read_text("utf-8"))["questions"]
    assert figures["items"] == 2 and figures["answerable"]["total"] == 1 and figures["unanswerable"]["total"] == 1
    assert figures["answered_wrong"] + figures["answered_false"] <= 2
    assert set(figures["by_kind"]) == {"number", "unanswerable"}
    assert "answerable answered correctly" in printed
