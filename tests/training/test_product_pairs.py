"""The reader's product-shaped pairs: the product's own units, labelled by the lines and gold strings a question
writer recorded (training/product_pairs.py)."""

from __future__ import annotations

import json
import random

import pytest

from pipeline.evaluate import data

from training.product_pairs import _sources, hinted_lines, product_pairs

GUIDE = """Retries
=======

By default, the client retries a request 3 times and follows up to 3 redirects.

To turn redirects off while keeping retries, pass a retry object:

.. code-block:: python

    client.get(url, retries=Retry(redirect=False))

Logging
=======

The client logs every retry at the debug level.
"""


def _folder(tmp_path, items):
    (tmp_path / "docs").mkdir(parents=True)
    (tmp_path / "docs" / "guide.rst").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "questions.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return tmp_path


def _item(id_, question, answerable, gold, lines):
    return {"id": id_, "docs": ["docs/guide.rst"], "question": question, "answerable": answerable, "gold": gold,
            "lines": lines, "kind": "fact", "source": "guide"}


def test_a_hint_instead_of_lines_finds_where_its_text_stands(tmp_path):
    folder = _folder(tmp_path, [])
    sources = _sources(folder / "docs" / "guide.rst")
    # whitespace and case collapsed; the longest fragment of a hint cut at "..." is looked for
    assert hinted_lines(sources, "By default, the client  retries a request 3 times ...") == [4, 4]
    assert hinted_lines(sources, "The client logs every retry at the DEBUG level.") == [15, 15]
    assert hinted_lines(sources, "redirects.\n\nTo turn redirects off") == [4, 6]
    assert hinted_lines(sources, "The client logs every retyr at the debug level") == [15, 15]  # a near match
    assert hinted_lines(sources, "Proxies are read from the environment.") is None


def test_a_hinted_question_gets_the_same_pairs_as_one_with_lines(tmp_path):
    with_lines = _item("g-01", "How many times will it retry out of the box?", True, ["3 times"], [4, 4])
    hinted = {**with_lines, "lines": None, "lines_hint": "the client retries a request 3 times and follows"}
    rows = [list(product_pairs(_folder(tmp_path / name / "docs-folder", [item]), random.Random(1)))
            for name, item in (("a", with_lines), ("b", hinted))]
    assert rows[0] == rows[1]
    assert [r["unit"] for r in rows[1] if r["label"] == 1] == [
        "By default, the client retries a request 3 times and follows up to 3 redirects."]


def test_the_answering_sentence_is_positive_and_the_sentences_sharing_words_are_negative(tmp_path):
    folder = _folder(tmp_path, [
        _item("g-01", "How many times will it retry out of the box?", True, ["3 times"], [4, 4]),
        _item("g-02", "How do I stop it following redirects but keep retrying?", True, ["redirect=False"], [6, 10]),
        _item("g-03", "Can it log retries to a file?", False, [], None),
    ])
    rows = list(product_pairs(folder, random.Random(1)))
    positives = {(r["group"].split("/")[-1], r["unit"]) for r in rows if r["label"] == 1}
    assert positives == {
        ("g-01", "By default, the client retries a request 3 times and follows up to 3 redirects."),
        # the gold is in the code: the sentence introducing it is what the reader reads
        ("g-02", "To turn redirects off while keeping retries, pass a retry object:"),
    }
    negatives = [r for r in rows if r["label"] == 0]
    assert {r["origin"] for r in negatives} == {"product", "product-unanswerable"}
    # no negative is an answer: the unit holding a gold string is never a negative of its question
    assert not any(r["group"].endswith("g-01") and "3 times" in r["unit"] for r in negatives)
    assert any(r["group"].endswith("g-03") and "logs every retry" in r["unit"] for r in negatives)
    assert len({r["split"] for r in rows}) == 1  # one document: all its questions in one split


def test_the_readers_run_time_inputs_are_recorded_labelled_and_resumed(tmp_path):
    """training/runtime_pairs.py asks the product itself; what its reader read becomes pairs (the product's engine
    and reader, for real)."""
    from training.runtime_pairs import collect, report, runtime_pairs

    folder = _folder(tmp_path / "guides", [
        _item("g-01", "How many times will it retry a request by default?", True, ["3 times"], [4, 4]),
        _item("g-03", "Can the client log its retries at the debug level to a file?", False, [], None),
    ])
    out = tmp_path / "runtime.jsonl"
    assert collect(out, [folder]) == 2 and collect(out, [folder]) == 0  # a second run resumes: nothing left
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["key"] for r in records] == ["guides/g-01", "guides/g-03"]
    calls = {r["key"]: r["calls"] for r in records}
    assert calls["guides/g-01"] and calls["guides/g-03"], records  # the reader read a unit for each
    rows = list(runtime_pairs(out))
    assert {r["label"] for r in rows if r["group"] == "guides/g-03"} == {0}  # nothing answers an unanswerable
    read_first = [r for r in rows if r["group"] == "guides/g-01"]
    assert all(r["label"] == int("3 times" in r["unit"]) for r in read_first) and read_first
    assert {r["origin"] for r in rows} == {"product-runtime"} and len({r["split"] for r in rows}) == 1
    retry = next(r for r in records if r["key"] == "guides/g-01")
    assert retry["gold_in_context"] and retry["gold_rank"] is not None  # the retry sentence was retrieved and packed
    assert retry["best_unit"] and retry["gold_in_best"] == ("3 times" in retry["best_unit"])
    assert not any(r[k] for r in records if r["key"] == "guides/g-03" for k in ("gold_in_context", "gold_in_best"))
    said = report(out)
    assert said.startswith("2 questions, 1 answerable: right ") and "unanswerable answered (false) " in said
    assert "answerable with a gold string in the packed context: 1; among the retrieved candidates: 1" in said
    assert said.count("\nrefused by ") == 4


def test_a_refusal_is_put_down_to_the_check_that_made_it():
    from training.runtime_pairs import refused_by

    assert refused_by({"note": "the reader (reader-v2) finds that the chosen unit [a:1] does not answer …"}) == "reader"
    assert refused_by({"note": "the best unit [a:1] scores 0.03 < threshold 0.10"}) == "scorer"
    assert refused_by({"note": "the question names Zanzibar and no candidate unit's source mentions it"}) == "names"
    assert refused_by({"note": None}) == "other"


def test_the_reader_threshold_is_chosen_on_product_questions_with_wrong_answers_weighing_double(tmp_path):
    """training/choose_gate.py --product: the split's questions asked of the whole engine, the reader recording and
    not refusing; the threshold keeps the most right answers less twice the wrong and false ones."""
    from training.choose_gate import asked_product, choose_weighted, curve
    from training.product_pairs import split_of

    folder = _folder(tmp_path / "guides", [
        _item("g-01", "How many times will it retry a request by default?", True, ["3 times"], [4, 4]),
        _item("g-03", "Can the client log its retries at the debug level to a file?", False, [], None),
    ])
    rows = asked_product([folder], split_of("guides", "docs/guide.rst"), min_support=0.0)
    assert len(rows) == 2 and all(r["reader_score"] is not None for r in rows if r["answered"])
    assert asked_product([folder], "no such split") == []
    table = curve(rows, 0.0)
    assert [r["threshold"] for r in table][:2] == [0.0, 0.05]
    made_up = [{"threshold": 0.1, "right": 10, "wrong": 3, "false": 1}, {"threshold": 0.2, "right": 7, "wrong": 1,
               "false": 0}, {"threshold": 0.3, "right": 4, "wrong": 0, "false": 0}]
    assert choose_weighted(made_up) == 0.2  # 10 - 8 = 2 < 7 - 2 = 5 > 4


def test_held_out_question_files_are_measured_at_every_threshold_and_nothing_is_chosen(tmp_path):
    """choose_gate --questions: evaluation-format files (documents relative to the file's folder's parent) asked once,
    the curve per file and over all written, and no threshold chosen on them."""
    from training.choose_gate import GRID, main

    folder = _folder(tmp_path / "held", [])
    (folder / "questions").mkdir()
    items = [_item("h-01", "How many times will it retry a request by default?", True, ["3 times"], None),
             _item("h-02", "Can the client log its retries at the debug level to a file?", False, [], None)]
    (folder / "questions" / "held.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    out = tmp_path / "curve.json"
    assert main(["--questions", str(folder / "questions" / "held.jsonl"), "--out", str(out), "--min-support", "0"]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert "threshold" not in result and set(result["curve_per_set"]) == {"held"}
    assert [r["threshold"] for r in result["curve"]] == list(GRID) and result["curve_per_set"]["held"] == result["curve"]
    assert [r["set"] for r in result["rows"]] == ["held", "held"] and result["rows"][1]["impossible"]
    assert result["rows"][0]["right"] and result["curve"][0]["right"] == 1  # the retry sentence, read and kept at 0


@pytest.mark.skipif(not data.CMRC.exists(), reason="../shared/eval missing (public CMRC 2018 half)")
def test_the_chinese_calibration_articles_are_neither_evaluated_nor_trained_on():
    """choose_gate --cmrc asks the CMRC public-half articles from CMRC_CALIBRATION_FROM on: none of their questions is
    one of `eval cmrc --limit 150`'s, nor one of the 151st–750th the scorer trains on (training/answer_model.py)."""
    from pipeline.evaluate.squad import pooled
    from training.choose_gate import CMRC_CALIBRATION_FROM

    articles = data.load_squad(data.CMRC)
    used = {q.question for q in pooled(articles)[0].questions[:750]}  # in the order both the evaluation and the scorer ask
    calibration = {q.question for q in pooled(articles[CMRC_CALIBRATION_FROM:])[0].questions}
    assert len(calibration) > 300 and calibration & used == set()


def test_the_scorer_trains_on_product_folders_one_group_per_document(tmp_path):
    """training/answer_model.py --product: each question's packed units, labelled by gold containment, and one
    cross-validation group per document, the same on a cached rerun."""
    from pipeline.core.contracts import Settings
    from training import answer_model as script

    folder = _folder(tmp_path / "guides", [
        _item("g-01", "How many times will it retry a request by default?", True, ["3 times"], [4, 4]),
        _item("g-03", "Can the client log its retries at the debug level to a file?", False, [], None),
    ])
    cache = tmp_path / "cache"
    cache.mkdir()
    first = script.collect_product([folder], Settings(), cache / "vectors.npz", 16, cache, "t")
    again = script.collect_product([folder], Settings(), cache / "vectors.npz", 16, cache, "t")
    assert first == again and [r["qid"] for r in first] == ["guides:g-01", "guides:g-03"]
    assert len({r["group"] for r in first}) == 1 and first[0]["group"] >= 1000
    assert any(first[0]["labels"]) and not any(first[1]["labels"])


@pytest.mark.skipif(not data.SQUAD2.exists(), reason="../shared/eval missing (public SQuAD 2.0 half: its splits)")
def test_unit_choice_records_both_scores_per_unit_and_reports_both_choices(tmp_path):
    """training/unit_choice.py: every scored unit with the scorer's and the reader's probability and its gold label;
    the report compares the scorer's choice with the combined one, cross-validated by document."""
    from training.unit_choice import collect, cross_validated_picks, report

    first = _folder(tmp_path / "guides", [
        _item("g-01", "How many times will it retry a request by default?", True, ["3 times"], [4, 4]),
        _item("g-03", "Can the client log its retries at the debug level to a file?", False, [], None)])
    second = _folder(tmp_path / "more", [_item("m-01", "How many redirects does it follow?", True, ["3 redirects"], [4, 4])])
    out = tmp_path / "units.jsonl"
    assert collect(out, [first, second], squad=0) == 3
    assert collect(out, [first, second], squad=0) == 0  # resumes: nothing left to ask
    rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["guides:g-01", "guides:g-03", "more:m-01"] and rows[0]["group"] != rows[2]["group"]
    unit = rows[0]["units"][0]
    assert set(unit) == {"scorer", "reader", "label"} and 0 <= unit["reader"] <= 1
    assert any(u["label"] for u in rows[0]["units"]) and not any(u["label"] for u in rows[1]["units"])
    assert set(cross_validated_picks(rows)) == {"guides:g-01", "guides:g-03", "more:m-01"}
    figures = report(out)["product"]
    assert figures["questions"] == 3 and figures["answerable"] == 2
    assert [r["threshold"] for r in figures["combined"]] == [r["threshold"] for r in figures["scorer"]]
