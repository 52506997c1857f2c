"""Check question folders in the evaluation format: every gold string occurs in its document.

    uv run --frozen python -m training.questions.validate training/questions/* training/heldout/*

Case and runs of whitespace are ignored; for Chinese questions all whitespace is (man pages wrap Chinese text with
spaces). A PDF is read through PyMuPDF's text layer. Prints counts per folder and every gold string not found.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path


def _text(path: Path) -> str:
    if path.suffix.lower() == ".pdf":
        import pymupdf

        with pymupdf.open(path) as pdf:
            return "\n".join(page.get_text() for page in pdf)
    return path.read_text("utf-8", errors="replace")


def _squeezed(text: str, drop_spaces: bool) -> str:
    return re.sub(r"\s+", "" if drop_spaces else " ", text).casefold()


def question_files(folder: Path) -> list[Path]:
    """A training folder's `questions.jsonl`, or an evaluation folder's `questions/*.jsonl` (what `eval questions
    --data` reads); either way the documents' paths are relative to the folder."""
    return [folder / "questions.jsonl"] if (folder / "questions.jsonl").exists() else sorted(
        (folder / "questions").glob("*.jsonl"))


def missing_golds(folder: Path) -> tuple[int, int, list[str]]:
    """(questions, answerable, failures) of one folder's questions."""
    texts: dict[str, str] = {}
    questions = answerable = 0
    failures = []
    for path in question_files(folder):
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            questions += 1
            answerable += bool(item["answerable"])
            doc = item["docs"][0]
            texts.setdefault(doc, _text(folder / doc))
            zh = item.get("lang") == "zh"
            haystack = _squeezed(texts[doc], zh)
            failures += [f"{item['id']}: {gold!r} not in {doc}" for gold in item["gold"]
                         if _squeezed(gold, zh) not in haystack]
            if item["answerable"] and not item["gold"]:
                failures.append(f"{item['id']}: answerable without a gold string")
    return questions, answerable, failures


def main(argv: list[str]) -> int:
    bad = 0
    for folder in map(Path, argv):
        questions, answerable, failures = missing_golds(folder)
        print(f"{folder}: {questions} questions, {answerable} answerable, {len(failures)} gold strings not found")
        for failure in failures:
            print("  " + failure)
        bad += len(failures)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
