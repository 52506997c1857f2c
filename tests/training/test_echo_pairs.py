"""Echo negatives: the answer's sentence with the answer replaced, so it restates the question's subject only."""

import json
import random

from pipeline.models.reader import shipped_reader
from training import mix
from training.echo_check import echo_report
from training.pairs import echo_negative


def _row(context: str, answer: str, question: str) -> dict:
    return {"context": context, "question": question,
            "answers": [{"text": answer, "answer_start": context.index(answer)}]}


def test_the_answer_is_replaced_and_the_rest_of_its_sentence_kept():
    row = _row("The ferry is old. The ferry leaves at 10:30 every morning. Tickets are sold aboard.", "10:30",
               "When does the ferry leave?")
    echoed = echo_negative(row, random.Random(0))
    assert echoed is not None and "10:30" not in echoed
    assert echoed.startswith("The ferry leaves at ") and echoed.endswith(" every morning.")


def test_no_echo_when_the_answer_is_still_said_or_is_the_sentence():
    repeated = _row("Julian Seward wrote bzip2, and Julian Seward keeps it.", "Julian Seward", "Who wrote bzip2?")
    assert echo_negative(repeated, random.Random(0)) is None
    whole = _row("Intro. Julian Seward wrote it. End.", "Julian Seward wrote it.", "Who wrote it?")
    assert echo_negative(whole, random.Random(0)) is None
    asked = _row("Paris is the capital of France.", "Paris", "Is Paris the capital?")
    assert echo_negative(asked, random.Random(0)) is None


def test_a_chinese_answer_gets_a_chinese_pro_form():
    row = _row("范廷颂于1963年被任为主教。他出生于越南。", "1963年", "范廷颂是什么时候被任为主教的？")
    echoed = echo_negative(row, random.Random(0))
    assert echoed is not None and "1963" not in echoed and echoed.startswith("范廷颂于")


def test_the_echo_check_counts_each_question_once_against_its_echo():
    def group(gid, query, answer, echo, other):
        return [{"split": "val", "group": gid, "query": query, "unit": answer, "label": 1, "origin": "squad2dev"},
                {"split": "val", "group": gid, "query": query, "unit": echo, "label": 0, "origin": "squad2dev-echo"},
                {"split": "val", "group": gid, "query": query, "unit": other, "label": 0, "origin": "squad2dev"}]

    rows = (group("a", "When does the ferry leave?", "The ferry leaves at 10:30 every morning.",
                  "The ferry leaves at some time every morning.", "Tickets are sold aboard.")
            + group("b", "Who wrote bzip2?", "bzip2 was written by Julian Seward.", "bzip2 was written by someone.",
                    "It compresses files.")
            + [{"split": "train", "group": "c", "query": "q", "unit": "u", "label": 0, "origin": "squad2dev-echo"}])
    report = echo_report(shipped_reader(), rows)
    assert set(report) == {"squad2dev"} and report["squad2dev"]["questions"] == 2
    assert report["squad2dev"]["answer_above_echo"] == 1.0
    assert report["squad2dev"]["passing"]["0.3"]["other"] == 0.0


def test_a_date_answer_becomes_a_time_pro_form():
    row = _row("The bridge opened in March 1932 after six years of work.", "March 1932", "When did the bridge open?")
    echoed = echo_negative(row, random.Random(0))
    assert echoed is not None and "1932" not in echoed and "March" not in echoed
    assert echoed.startswith("The bridge opened in ") and echoed.endswith(" after six years of work.")


def test_a_mix_keeps_each_echo_question_whole_beside_the_replayed_pairs(tmp_path):
    def pair(group, origin, label, split="train"):
        return {"task": "question", "query": f"q {group}", "unit": f"u {group} {origin} {label}", "label": label,
                "origin": origin, "group": group, "split": split}

    rows = [pair("e1", "squad11", 1), pair("e1", "squad11", 0), pair("e1", "squad11-echo", 0),
            pair("e2", "squad11", 1), pair("e2", "squad11-echo", 0),
            *(pair(f"o{i}", "squad11", i % 2) for i in range(20)), pair("v", "squad11", 1, "val")]
    earlier = tmp_path / "pairs.jsonl"
    earlier.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "mix.jsonl"
    assert mix.main(["--earlier", str(earlier), "--replay", "5", "--keep-origin=-echo", "--keep-groups", "1",
                     "--out", str(out)]) == 0
    mixed = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    kept = {r["group"] for r in mixed if r["origin"].endswith("-echo")}
    assert len(kept) == 1  # at most --keep-groups echo questions
    (group,) = kept
    assert len([r for r in mixed if r["group"] == group]) == len([r for r in rows if r["group"] == group])
    assert len([r for r in mixed if r["split"] == "train" and r["group"] not in kept]) == 5
    assert [r["group"] for r in mixed if r["split"] == "val"] == ["v"]


def test_listwise_batches_hold_whole_groups_and_every_pair_once():
    from training.pair_rows import group_batches

    groups = [f"q{i % 7}" for i in range(60)]
    lengths = [10 + i % 5 for i in range(60)]
    batches = group_batches(groups, lengths, 16, random.Random(0))
    assert sorted(i for batch in batches for i in batch) == list(range(60))
    for batch in batches:
        inside = {groups[i] for i in batch}
        assert all(groups.count(g) == sum(groups[i] == g for i in batch) for g in inside)  # no group split
    assert all(len(b) <= 16 or len({groups[i] for i in b}) == 1 for b in batches)
