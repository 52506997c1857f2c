"""The committed question folders: every gold string is in its document, and no held-out document is trained on."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from training.questions.validate import missing_golds

ROOT = Path(__file__).resolve().parents[2]
TRAINING = sorted(p for p in (ROOT / "training" / "questions").iterdir() if (p / "questions.jsonl").is_file())
HELD_OUT = sorted(p for p in (ROOT / "training" / "heldout").iterdir() if (p / "questions").is_dir())


@pytest.mark.parametrize("folder", TRAINING + HELD_OUT, ids=lambda p: p.name)
def test_every_gold_string_is_in_its_document(folder):
    questions, answerable, failures = missing_golds(folder)
    assert questions >= 40 and answerable >= 0.6 * questions  # readmes2, probe9, heldout8 and heldout9 hold 40 each
    assert failures == []


def _documents(folders: list[Path]) -> dict[str, str]:
    return {hashlib.sha256(path.read_bytes()).hexdigest(): str(path.relative_to(ROOT))
            for folder in folders for path in (folder / "docs").iterdir()}


def test_no_held_out_document_is_a_training_document():
    assert len(TRAINING) == 7 and len(HELD_OUT) == 5
    training, held_out = _documents(TRAINING), _documents(HELD_OUT)
    shared = {name: training[digest] for digest, name in held_out.items() if digest in training}
    assert shared == {}
    names = lambda docs: {Path(name).stem for name in docs.values()}  # noqa: E731
    assert names(training) & names(held_out) == set()


def test_a_missing_gold_string_is_reported(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "questions").mkdir()
    (tmp_path / "docs" / "note.txt").write_text("The ferry  leaves at\n7:30 from pier 4.\n", "utf-8")
    (tmp_path / "questions" / "q.jsonl").write_text(
        '{"id": "a", "docs": ["docs/note.txt"], "lang": "en", "answerable": true, "gold": ["leaves at 7:30", "pier 5"]}\n',
        "utf-8")
    assert missing_golds(tmp_path) == (1, 1, ["a: 'pier 5' not in docs/note.txt"])
