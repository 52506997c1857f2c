"""The ranking reader's tools: candidates into pairs and a report, table rows as pairs, the mix of whole groups."""

from __future__ import annotations

import json
import random

import pytest

from pipeline.evaluate import data

from training import candidates, reader_mix, table_pairs


def _question(qid: str, doc: str, answerable: bool, labels: list[bool], reader: list[float]) -> dict:
    units = [{"rank": i, "kind": "sentence", "quote": f"unit {i}", "text": f"unit {i}", "label": label, "scorer": 0.1,
              "reader": score} for i, (label, score) in enumerate(zip(labels, reader))]
    return {"id": f"folder:{qid}", "question": f"question {qid}?", "answerable": answerable, "doc": doc, "units": units}


def test_pairs_keep_a_question_whole_in_one_split_and_leave_out_one_whose_gold_is_not_a_candidate(tmp_path):
    rows = [_question("a", "docs/one.md", True, [False, True, False], [0.2, 0.9, 0.1]),
            _question("b", "docs/one.md", False, [False, False], [0.3, 0.1]),
            _question("c", "docs/two.md", True, [False, False], [0.4, 0.2])]  # its gold is among no candidate
    source = tmp_path / "cand.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "pairs.jsonl"
    counts = candidates.to_pairs(out, [source])
    pairs = [json.loads(line) for line in out.read_text().splitlines()]
    assert {p["group"] for p in pairs} == {"folder:a", "folder:b"}
    assert len({p["split"] for p in pairs}) == 1  # one document: one split
    assert [p["label"] for p in pairs if p["group"] == "folder:a"] == [0, 1, 0]
    assert {p["origin"] for p in pairs if p["group"] == "folder:b"} == {"product-runtime-unanswerable"}
    assert sum(counts.values()) == 5


def test_the_report_counts_the_readers_best_unit_at_each_threshold(tmp_path):
    rows = [_question("a", "d.md", True, [False, True], [0.2, 0.9]),   # right at 0.5
            _question("b", "d.md", True, [True, False], [0.1, 0.6]),   # wrong at 0.5, missed at 0.7
            _question("c", "d.md", False, [False], [0.55])]            # false at 0.5, refused at 0.7
    source = tmp_path / "cand.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    part = candidates.report([source], "reader", (0.5, 0.7))["folder"]
    assert part["best_holds_gold"] == 1 and part["gold_among_candidates"] == 2
    assert part["curve"][0] == {"threshold": 0.5, "right": 1, "wrong": 1, "false": 1, "missed": 0, "refused": 0}
    assert part["curve"][1] == {"threshold": 0.7, "right": 1, "wrong": 0, "false": 0, "missed": 1, "refused": 1}


@pytest.mark.skipif(not (data.EVAL_DIR / "realdocs").exists(), reason="../shared/eval missing (realdocs)")
def test_realdocs_halves_split_each_part_six_and_six():
    from pipeline.evaluate.questions import REALDOCS, realdocs_half

    names = [p.name for p in REALDOCS.glob("*")]
    halves = [realdocs_half(n) for n in names]
    assert len(names) == 24 and halves.count("tune") == 12
    for part in ("a_", "b_"):
        assert sum(h == "tune" for n, h in zip(names, halves) if n.startswith(part)) == 6
    assert realdocs_half("sample_docs/corpus/travel-v2.md") is None


def test_table_questions_name_their_row_and_a_missing_column_or_key_has_no_answering_row(tmp_path):
    table = table_pairs.Table("t", ["Name", "Port", "Protocol"], [[f"svc{i}", str(1000 + i), "tcp"] for i in range(30)],
                              {"Port": ["What port does {key} use?"]}, ["Who wrote {key}?"])
    made = list(table_pairs.groups(table, 200, random.Random(3)))
    kinds = {kind for _, _, kind in made}
    assert kinds == {"row", "absent", "column"}
    for question, rows, kind in made:
        positives = [text for text, label in rows if label]
        if kind == "row":
            key = question.split("does ")[1].split(" use")[0]
            assert len(positives) == 1 and positives[0].startswith(f"Name: {key}; Port: ")
        else:
            assert not positives


def test_the_mix_holds_whole_groups_and_keyword_copies_of_questions(tmp_path):
    public = tmp_path / "pairs.jsonl"
    rows = [{"task": "question", "query": f"What is the limit of thing {g}?", "unit": f"u{i}", "label": int(i == 0),
             "origin": "squad11", "group": f"g{g}", "split": "train"} for g in range(40) for i in range(3)]
    rows += [{"task": "question", "query": "q", "unit": "v", "label": 1, "origin": "squad2dev", "group": "v1",
              "split": "val"}]
    public.write_text("".join(json.dumps(r) + "\n" for r in rows))
    mixed, copies = reader_mix.mix(public, {"squad11": 10}, [], 0, [], 1, 0.5, seed=1)
    groups = {r["group"] for r in mixed if not r["group"].endswith("-kw") and r["split"] == "train"}
    assert len(groups) == 10 and all(sum(r["group"] == g for r in mixed) == 3 for g in groups)
    assert any(r["split"] == "val" for r in mixed)
    keyword = [r for r in mixed if r["group"].endswith("-kw")]
    assert copies == len(keyword) > 0 and all(r["query"] == "limit thing " + r["group"][1:-3] for r in keyword)
    assert reader_mix.keywords("北京的住宿限额是多少？") == "北京住宿限额"


# 100 calibration pairs of a listwise-trained reader (logits, and whether the unit answers), on which a plain Newton
# step from (1, 0) overshot to a ≈ 1e6.
_SPREAD_LOGITS = [-5.42, -5.06, -1.38, -5.99, -5.22, -4.74, -5.88, 0.11, 1.67, 0.48, 2.65, -3.54, -5.69, -6.05, -4.82, 4.26, -5.21, -5.37, -4.54, 0.36, 2.97, -3.35, -1.25, -4.59, 4.54, -4.92, -3.86, -4.68, 0.19, -0.25, -4.81, -5.21, -4.3, -4.38, -5.55, -4.76, -5.27, 1.35, -2.31, -6.05, -4.4, -4.96, -5.61, -5.32, -5.0, -6.27, -5.64, 1.56, -1.16, -3.1, -5.2, -3.31, -5.25, -4.31, -5.6, 0.55, -3.32, 2.48, -5.55, -4.17, 3.58, -5.11, -4.78, -5.44, 3.99, -5.95, -6.05, -5.11, -1.04, 3.21, -4.8, -5.8, -4.62, -5.89, -0.42, -1.07, -4.79, -4.15, -4.14, -5.25, -4.72, -4.3, 0.4, -1.18, -5.41, -6.14, -3.84, -4.36, -4.63, -4.81, -3.19, -0.03, 2.84, -4.83, -4.87, 0.91, -5.04, 4.03, -5.32, -5.2]
_SPREAD_LABELS = "0000000000100000000110000000110000000100000000000100010100001000000000000000000000100000000100000000"


def test_platt_scaling_converges_where_a_full_newton_step_overshoots():
    import numpy as np

    from training.calibrate import fit_platt

    logits, labels = np.array(_SPREAD_LOGITS), np.array([int(c) for c in _SPREAD_LABELS])
    a, b = fit_platt(logits, labels)
    assert 0.05 < a < 5 and -10 < b < 10

    def loss(a, b):
        z = a * logits + b
        return float((np.logaddexp(0, z) - labels * z).sum())

    grid = min(loss(x, y) for x in np.linspace(0.05, 3, 60) for y in np.linspace(-5, 5, 101))
    assert loss(a, b) <= grid + 0.5  # as good as the best of a fine grid
