"""Opt-in: a real language model, when LLM_BASE_URL (and LLM_MODEL) point at one.

    LLM_BASE_URL=http://127.0.0.1:11434/v1 LLM_MODEL=qwen2.5:3b uv run --frozen pytest -q tests/generate/test_llm_real.py

CI has no model, so this is skipped there; the stand-in tests (test_generate_llm.py) cover the
protocol and every failure. Here the question is whether a real model's reply is usable.
"""

from __future__ import annotations

import os

import pytest

from pipeline.core.contracts import Request, Settings
from pipeline.engine.journey import ask
from tests.conftest import REQUEST_DATE

pytestmark = pytest.mark.skipif(
    not os.environ.get("LLM_BASE_URL"), reason="opt-in: set LLM_BASE_URL and LLM_MODEL to test a real model",
)


@pytest.fixture(scope="module")
def generator():
    from pipeline.generate.llm.generator import ChatCompletionsGenerator, LlmConfig

    return ChatCompletionsGenerator(LlmConfig.from_env())


@pytest.mark.parametrize("question, expected", [
    ("What is the daily meal allowance in Beijing?", "180"),
    ("北京的住宿限额是多少？", "750"),
])
def test_a_real_model_gives_a_checked_answer(sample_corpus, generator, question, expected):
    request = Request(question=question, date=REQUEST_DATE, topic="travel")
    trace = ask(sample_corpus, request, Settings(window=4000, reserve=800), generator=generator)
    assert trace.generator_called, trace.explanation
    record = trace.proposal.generation
    assert trace.answer.reason_code != "generator_unavailable", f"{trace.proposal.note}; reply: {record.raw_reply!r}"
    assert record.prompt_code_points <= 3200 and record.finish_reason == "stop"
    if trace.answer.status == "answered":
        assert trace.answer.citations and all(c.verified for c in trace.answer.citations)
        assert expected in trace.answer.answer
    print(f"\n{question} → {trace.answer.status} {trace.answer.reason_code or ''} {trace.answer.answer!r} "
          f"({record.latency_ms:.0f} ms, {record.prompt_tokens}+{record.completion_tokens} tokens)")


@pytest.mark.parametrize("claim, supported", [
    ("Rooms in Beijing may cost up to 750 yuan a night.", True),
    ("Rooms in Beijing may cost up to 750 yuan a night, breakfast included.", False),
])
def test_a_real_model_judges_a_claim(generator, claim, supported):
    from pipeline.verify.judges.learned import learned_judge
    from pipeline.verify.judges.llm import LlmJudge

    span = ("Fictional Beijing lodging policy; amounts are per room per night.\nEffective from 2026-01-01; "
            "replaces travel-v1.\nThe lodging limit is 750 yuan.")
    verdict = LlmJudge(generator, learned_judge())(claim, span)
    assert verdict.call is not None and verdict.call.fallback is None, verdict.detail
    assert verdict.supported == supported, verdict.detail
    print(f"\n{claim} → {verdict.detail} ({verdict.call.latency_ms:.0f} ms)")
