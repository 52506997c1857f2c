"""A language model's reply is read up to a cap (issue 24, finding 12): 1 MB on the wire, 20,000 characters, then
one line and a small trace. The model is a stand-in HTTP server (tests/llm_standin.py): a hosted model cannot be
reached from the tests."""

from __future__ import annotations


def test_a_huge_model_reply_is_refused_with_one_line_and_a_small_trace(sample_corpus, engine):
    """A 10 MB reply was accepted: 27 s, a 31 MB trace, +180 MiB, past /check_answer's 20,000-character cap."""
    import datetime as dt
    import json

    from pipeline import Request, Settings
    from pipeline.generate.llm.generator import ChatCompletionsGenerator, LlmConfig
    from tests.decisions import decision, reasons
    from tests.llm_standin import ScriptedReply, StandInChatServer

    settings = Settings(window=4000, reserve=800)
    request = Request(question="Beijing lodging limit", date=dt.date(2026, 9, 14), topic="travel")
    long_answer = "The lodging limit is 600 yuan. [travel-v2:1-3] " * 2200  # ~105,000 characters
    for content, read in ((json.dumps({"answer": long_answer, "citations": []}), True), ("x" * (3 * 2**20), False)):
        with StandInChatServer([ScriptedReply(content=content)]) as server:
            generator = ChatCompletionsGenerator(LlmConfig(base_url=server.base_url, model="standin-model",
                                                           timeout_s=30))
            trace = engine.ask(sample_corpus, request, settings, generator=generator)
        assert trace.answer.status == "abstained" and trace.answer.reason_code == "generator_unavailable"
        if read:  # received whole, then refused for its length
            assert decision(trace.proposal, "reply_too_large").facts["characters"] == str(len(content))
        else:  # refused on the wire, past 1 MB
            assert reasons(trace.proposal) == ["model_unavailable"]
            assert [a.outcome for a in trace.proposal.generation.attempts] == ["reply too large"]
        assert "\n" not in trace.proposal.note  # one line
        assert len(trace.model_dump_json()) < 200_000
