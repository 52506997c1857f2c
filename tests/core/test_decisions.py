"""How an answer was chosen is data (`Decision`): a reason code with its facts, rendered in the engine's words for the
note and in plain words for the page; the codes the answer stage uses are exactly those that have words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from pipeline import Decision, decision_words
from pipeline.core.contracts import REASON_WORDS, decisions_note

ROOT = Path(__file__).resolve().parents[2]


def test_a_refusal_renders_in_the_engines_words_and_in_plain_words():
    refused = Decision(by="answer type", outcome="abstained", reason="value_missing", unit="[faa:2]", score=0.0912,
                       facts={"wanted": "date"})
    assert decision_words(refused) == ("the question asks for a date and no candidate unit holds one "
                                       "(the best unit [faa:2] scores 0.09)")
    assert decision_words(refused, plain=True) == ("the question asks for a date and no candidate passage holds one "
                                                   "(the best passage [faa:2] scores 0.09)")


def test_a_score_is_shown_against_its_threshold_with_enough_digits():
    below = Decision(by="reader", outcome="abstained", reason="reader_finds_none", unit="[a:1]", score=0.0996,
                     threshold=0.1, facts={"reader": "reader-v2", "read": "3"})
    assert decision_words(below).endswith("answers with probability 0.0996 < threshold 0.10")
    assert decision_words(below, plain=True).endswith("answers with probability 0.0996, below the 0.10 needed")
    answered = below.model_copy(update={"outcome": "answered", "reason": "reader_answers", "score": 0.8,
                                        "facts": {"reader": "reader-v2", "read": "3", "kind": "sentence"}})
    assert decision_words(answered).endswith("a sentence, answers with probability 0.80 ≥ threshold 0.10")


def test_the_note_is_the_decisions_in_order():
    first = Decision(by="scorer", outcome="answered", reason="scorer_answers", score=0.5, threshold=0.1,
                     facts={"kind": "row"})
    header = Decision(by="table row", outcome="noted", reason="table_header", facts={"header": "Town Visitors"})
    assert decisions_note([first, header]) == "best row scores 0.50 ≥ threshold 0.10; table header: Town Visitors"


def test_an_unknown_reason_code_is_refused():
    with pytest.raises(ValidationError, match="unknown reason code"):
        Decision(by="scorer", outcome="answered", reason="because")


def test_every_reason_code_with_words_is_used_by_the_answer_stage():
    """Words no code of the producers uses are dead (a code used without words fails when the decision is made)."""
    producers = [ROOT / "pipeline/generate/extractive/composer.py", ROOT / "pipeline/generate/extractive/answer_forms.py",
                 *(ROOT / "pipeline/question/forms").glob("*.py"), *(ROOT / "pipeline/generate/llm").glob("*.py")]
    literals = {m for p in producers for m in re.findall(r'"([a-z_]+)"', p.read_text(encoding="utf-8"))}
    assert set(REASON_WORDS) - literals == set()
