"""The ranking reader's tools: candidates into pairs and a report, table rows as pairs, the mix of whole groups."""

from __future__ import annotations

import json
import random

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
