"""The language-model generator against a stand-in Chat Completions server, through the engine.

The real `openai` client talks HTTP to `StandInChatServer` (tests/llm_standin.py), which
stands in for a remote model; every reply then goes through the real retrieval, packing and
citation checks on the sample corpus.
"""

from __future__ import annotations

import json
import socket
import time

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from pipeline.core.contracts import Request, Settings
from pipeline.engine.journey import ask
from pipeline.engine.scenarios import SEED_SETTINGS
from pipeline.generate.llm.generator import SYSTEM_PROMPT, ChatCompletionsGenerator, LlmConfig
from pipeline.generate.llm.reply import parse_reply
from pipeline.llm.replies import UnreadableReply
from tests.conftest import REQUEST_DATE
from tests.decisions import decision, reasons
from tests.llm_standin import ScriptedReply, StandInChatServer, json_reply

MEALS = Request(question="What is the daily meal allowance in Beijing?", date=REQUEST_DATE, topic="travel")
# An LLM prompt carries a system message besides the sources: a larger window than the extractive default.
# The seed's retrieval (top-k 3, gate 0.6 / 0.9) with a roomier window: the prompts below assume it.
ROOMY = Settings(top_k=3, min_lexical=0.6, min_dense=0.9, window=4000, reserve=400)
SECRET = "sk-standin-SECRET-0123456789"
SUPPORTED = "The allowance is 180 yuan per day in Beijing. [meals-allowance:5]"
CITE_5 = [{"source_id": "meals-allowance", "start_line": 5, "end_line": 5}]


def _generator(server: StandInChatServer, **options) -> ChatCompletionsGenerator:
    values = {"base_url": server.base_url, "model": "standin-model", "api_key": SECRET, "timeout_s": 5.0,
              "backoff_s": 0.01, **options}
    return ChatCompletionsGenerator(LlmConfig(**values))


def _ask(corpus, replies, request=MEALS, settings=ROOMY, **options):
    with StandInChatServer(replies) as server:
        trace = ask(corpus, request, settings, generator=_generator(server, **options))
    return trace, server


def _assert_no_key(trace):
    assert SECRET not in trace.model_dump_json()


def test_supported_sentence_is_answered_with_a_verified_citation(sample_corpus):
    trace, server = _ask(sample_corpus, [json_reply(SUPPORTED, CITE_5)])
    assert trace.answer.status == "answered", trace.explanation
    assert trace.answer.producer == "llm:standin-model"
    assert [c.verified for c in trace.answer.citations] == [True]
    assert trace.answer.citations[0].quote.startswith("The allowance is 180 yuan")
    sent = server.requests[0]
    assert sent["headers"]["authorization"] == f"Bearer {SECRET}"  # the key is used…
    _assert_no_key(trace)  # …and never recorded
    assert sent["body"]["response_format"] == {"type": "json_object"}
    assert sent["body"]["temperature"] == 0 and sent["body"]["max_tokens"] == 400
    assert [m["role"] for m in sent["body"]["messages"]] == ["system", "user"]
    assert sent["body"]["messages"][1]["content"] == trace.context.text  # the packed context, verbatim
    record = trace.proposal.generation
    assert record.host == server.base_url.split("//")[1].split("/")[0] and "http" not in record.host
    assert (record.model, record.temperature, record.max_tokens, record.json_mode) == ("standin-model", 0.0, 400, True)
    assert record.messages[0].content == SYSTEM_PROMPT and record.raw_reply == json.dumps(
        {"answer": SUPPORTED, "citations": CITE_5})
    assert (record.finish_reason, record.prompt_tokens, record.completion_tokens) == ("stop", 321, 45)
    assert [a.outcome for a in record.attempts] == ["ok"] and record.latency_ms > 0
    assert record.prompt_code_points <= ROOMY.window - ROOMY.reserve


def test_a_support_span_is_named_in_the_system_message_and_cited_whole(sample_corpus):
    lodging = Request(question="Beijing lodging", date=REQUEST_DATE, topic="travel")
    reply = json_reply("The lodging limit in Beijing is 750 yuan per room per night. [travel-v2:1-3]")
    trace, server = _ask(sample_corpus, [reply], request=lodging)
    system = server.requests[0]["body"]["messages"][0]["content"]
    assert system.startswith(SYSTEM_PROMPT) and system.endswith("only whole, with exactly: [travel-v2:1-3].")
    assert trace.answer.status == "answered", trace.explanation
    assert [(c.source_id, c.start_line, c.end_line, c.verified) for c in trace.answer.citations] == [("travel-v2", 1, 3, True)]


def test_markers_alone_are_the_citations_when_the_list_is_empty(sample_corpus):
    trace, _ = _ask(sample_corpus, [json_reply(SUPPORTED)])
    assert trace.answer.status == "answered"
    assert [(c.source_id, c.start_line) for c in trace.answer.citations] == [("meals-allowance", 5)]


def test_an_unsupported_sentence_is_dropped_and_the_supported_one_kept(sample_corpus):
    answer = f"{SUPPORTED} Taxis to the airport are always free. [meals-allowance:6]"
    cites = CITE_5 + [{"source_id": "meals-allowance", "start_line": 6, "end_line": 6}]
    trace, _ = _ask(sample_corpus, [json_reply(answer, cites)])
    assert trace.answer.status == "answered", trace.explanation
    assert trace.answer.answer == SUPPORTED  # only the verified claim is shown
    assert [(claim.status, claim.text) for claim in trace.answer.claims] == [
        ("verified", "The allowance is 180 yuan per day in Beijing."),
        ("dropped", "Taxis to the airport are always free.")]
    assert "claim_supported" in trace.answer.claims[1].citations[0].failed_checks
    strict = ROOMY.model_copy(update={"on_unsupported": "abstain"})
    trace, _ = _ask(sample_corpus, [json_reply(answer, cites)], settings=strict)
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "unsupported_claim"


def test_a_contradicted_number_fails_numbers_match(sample_corpus):
    trace, _ = _ask(sample_corpus, [json_reply("The allowance is 250 yuan per day in Beijing. [meals-allowance:5]", CITE_5)])
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "unsupported_claim"
    assert "numbers_match" in trace.checks[0].failed_checks


def test_a_number_written_in_words_is_checked_like_digits(sample_corpus):
    """A model writes numbers in words: 'two hundred yuan' against a span saying 180 had stated no number to check."""
    trace, _ = _ask(sample_corpus, [json_reply("The allowance is two hundred yuan per day in Beijing. [meals-allowance:5]",
                                               CITE_5)])
    assert trace.answer.status == "abstained", trace.answer.answer
    assert "numbers_match" in trace.checks[0].failed_checks
    assert "not in the span: 200" in next(c.detail for c in trace.checks[0].checks if c.name == "numbers_match")
    trace, _ = _ask(sample_corpus, [json_reply("The allowance is one hundred and eighty yuan per day in Beijing. "
                                               "[meals-allowance:5]", CITE_5)])
    assert "numbers_match" not in trace.checks[0].failed_checks


def test_a_place_the_span_does_not_name_fails_names_match(sample_corpus):
    """Same words, same number, another city (the learned judge scores this 0.57, over its threshold): dropped."""
    trace, _ = _ask(sample_corpus, [json_reply("In Guangzhou the allowance is 180 yuan per day. [meals-allowance:5]",
                                               CITE_5)])
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "unsupported_claim"
    assert "names_match" in trace.checks[0].failed_checks


@pytest.mark.parametrize("answer, verified, failed", [
    ("北京的住宿限额是每晚七百五十元。", True, None),  # 七百五十元 is 750 元
    ("上海的住宿限额是每晚750元。", False, "names_match"),  # the cited Beijing policy never names 上海
    ("北京的住宿限额是每晚800元。", False, "numbers_match"),
])
def test_a_chinese_answer_is_checked_claim_by_claim(sample_corpus, answer, verified, failed):
    request = Request(question="北京的住宿限额是多少？", date=REQUEST_DATE, topic="travel")
    reply = json_reply(f"{answer}[travel-v2-zh:1-3]", [{"source_id": "travel-v2-zh", "start_line": 1, "end_line": 3}])
    trace, _ = _ask(sample_corpus, [reply], request=request)
    check = next(c for c in trace.checks if c.citation.source_id == "travel-v2-zh")
    assert check.verified is verified, check.failed_checks
    assert failed is None or failed in check.failed_checks


@pytest.mark.parametrize("source_id, failed", [("travel-v9", "source_exists"), ("travel-v1", "source_eligible")])
def test_a_citation_to_an_unknown_or_expired_source_is_dropped(sample_corpus, source_id, failed):
    reply = json_reply(f"The lodging limit is 600 yuan. [{source_id}:3]",
                       [{"source_id": source_id, "start_line": 3, "end_line": 3}])
    trace, _ = _ask(sample_corpus, [reply])
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "ineligible_citation"
    assert failed in trace.checks[0].failed_checks
    assert [c.source_id for c in trace.answer.dropped_citations] == [source_id]


def test_plain_text_markers_when_the_server_refuses_json_mode(sample_corpus):
    trace, server = _ask(sample_corpus, [ScriptedReply(content=SUPPORTED, refuse_json_mode=True)])
    assert trace.answer.status == "answered", trace.explanation
    assert [c.verified for c in trace.answer.citations] == [True]
    assert "response_format" in server.requests[0]["body"] and "response_format" not in server.requests[1]["body"]
    record = trace.proposal.generation
    assert record.json_mode is False
    assert [a.outcome for a in record.attempts] == ["json mode refused (http 400)", "ok"]


def test_output_cut_short_is_never_shown_as_complete(sample_corpus):
    trace, _ = _ask(sample_corpus, [json_reply(SUPPORTED, CITE_5, finish_reason="length")])
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "generator_unavailable"
    assert trace.answer.answer is None and decision(trace.proposal, "reply_cut_short").facts["finish_reason"] == "length"
    assert trace.proposal.generation.finish_reason == "length"


@pytest.mark.parametrize("content, kind", [
    ('{"answer": "The allowance is 180 yuan [meals-allowance:5]", "citations": [', "json_syntax"),
    ("The allowance is generous.", "unmarked"),
    ('{"reply": "180 yuan"}', "no_answer"),
])
def test_an_unreadable_reply_abstains_as_generator_unavailable(sample_corpus, content, kind):
    trace, _ = _ask(sample_corpus, [ScriptedReply(content=content)])
    assert trace.answer.reason_code == "generator_unavailable"
    assert decision(trace.proposal, "reply_unreadable").facts["kind"] == kind
    assert trace.proposal.generation.raw_reply == content  # what the model said stays auditable


def test_a_body_that_is_not_a_completion_abstains(sample_corpus):
    trace, _ = _ask(sample_corpus, [ScriptedReply(raw_body=b"<html>proxy error</html>")])
    assert trace.answer.reason_code == "generator_unavailable" and reasons(trace.proposal) == ["model_unavailable"]
    assert [a.outcome for a in trace.proposal.generation.attempts] == ["invalid completion"]
    empty, _ = _ask(sample_corpus, [ScriptedReply(raw_body=b'{"object": "chat.completion", "choices": []}')])
    assert empty.answer.reason_code == "generator_unavailable"
    assert decision(empty.proposal, "reply_unreadable").facts["kind"] == "empty"


def test_a_content_filter_stop_is_not_shown(sample_corpus):
    trace, _ = _ask(sample_corpus, [json_reply(SUPPORTED, CITE_5, finish_reason="content_filter")])
    assert trace.answer.reason_code == "generator_unavailable"
    assert decision(trace.proposal, "reply_cut_short").facts["finish_reason"] == "content_filter"


def test_the_fixed_phrase_means_the_sources_do_not_say(sample_corpus):
    trace, _ = _ask(sample_corpus, [json_reply("NOT_IN_SOURCES")])
    assert trace.answer.status == "abstained" and trace.answer.reason_code == "insufficient_evidence"
    assert reasons(trace.proposal) == ["model_not_in_sources"]


def test_rate_limited_then_answered_honours_retry_after(sample_corpus):
    replies = [ScriptedReply(status=429, headers={"Retry-After": "0.2"}), json_reply(SUPPORTED, CITE_5)]
    trace, server = _ask(sample_corpus, replies, backoff_s=5.0)  # Retry-After, not the 5 s backoff, decides
    assert trace.answer.status == "answered" and len(server.requests) == 2
    attempts = trace.proposal.generation.attempts
    assert [(a.outcome, a.waited_s) for a in attempts] == [("http 429", 0.0), ("ok", 0.2)]


def test_server_errors_are_retried_a_bounded_number_of_times(sample_corpus):
    trace, server = _ask(sample_corpus, [ScriptedReply(status=500)], max_attempts=3)
    assert trace.answer.reason_code == "generator_unavailable" and trace.answer.answer is None
    assert len(server.requests) == 3
    assert reasons(trace.proposal) == ["model_unavailable"]
    assert [(a.outcome, a.status) for a in trace.proposal.generation.attempts] == [("http 500", 500)] * 3
    waits = [a.waited_s for a in trace.proposal.generation.attempts]
    assert waits == [0.0, 0.01, 0.02]  # exponential backoff from backoff_s


def test_a_hang_past_the_timeout_abstains(sample_corpus):
    trace, _ = _ask(sample_corpus, [ScriptedReply(content=SUPPORTED, delay_s=10)], timeout_s=0.5)
    assert trace.answer.reason_code == "generator_unavailable"
    assert reasons(trace.proposal) == ["model_unavailable"]
    assert [a.outcome for a in trace.proposal.generation.attempts] == ["timeout"]


def test_a_reply_trickling_past_the_timeout_abstains_at_the_timeout(sample_corpus):
    """A server sending a byte every 0.2 s never trips a per-read timeout: the reply (~400 bytes) would take over a
    minute; the whole reply is held to the timeout instead."""
    started = time.perf_counter()
    trace, _ = _ask(sample_corpus, [json_reply(SUPPORTED, CITE_5, trickle_s=0.2)], timeout_s=1.0)
    took = time.perf_counter() - started
    assert trace.answer.reason_code == "generator_unavailable"
    assert [a.outcome for a in trace.proposal.generation.attempts] == ["timeout"]
    assert took < 10  # the reply alone would have taken over 60 s


def test_a_refused_key_says_so_without_the_key(sample_corpus):
    trace, server = _ask(sample_corpus, [ScriptedReply(status=401)])
    assert trace.answer.reason_code == "generator_unavailable" and reasons(trace.proposal) == ["model_unavailable"]
    assert [(a.outcome, a.status) for a in trace.proposal.generation.attempts] == [("http 401", 401)]
    assert len(server.requests) == 1  # a wrong key is not retried
    _assert_no_key(trace)


def test_connection_refused_abstains(sample_corpus):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = LlmConfig(base_url=f"http://127.0.0.1:{port}/v1", model="standin-model", api_key=SECRET, timeout_s=2)
    trace = ask(sample_corpus, MEALS, ROOMY, generator=ChatCompletionsGenerator(config))
    assert trace.answer.reason_code == "generator_unavailable" and reasons(trace.proposal) == ["model_unavailable"]
    assert [a.outcome for a in trace.proposal.generation.attempts] == ["connection refused"]
    _assert_no_key(trace)


def test_the_whole_prompt_must_fit_window_minus_reserve(sample_corpus):
    trace, server = _ask(sample_corpus, [json_reply(SUPPORTED, CITE_5)], settings=SEED_SETTINGS)  # 1400 − 200
    assert trace.context is not None and trace.context.length <= 1200  # the sources alone fit pack's budget…
    assert trace.answer.reason_code == "context_budget"  # …the prompt with its system message does not
    # The engine decided before calling: the model was not called, and the trace says so truthfully.
    assert not server.requests and not trace.generator_called and trace.proposal is None
    assert trace.abstention.stage == "pack" and "exceeds window - reserve (1200)" in trace.abstention.detail
    assert "generate" not in trace.timings_ms


def test_a_reserve_too_small_for_any_cited_sentence_is_refused_before_the_call(sample_corpus):
    tiny_reserve = ROOMY.model_copy(update={"reserve": 20})
    trace, server = _ask(sample_corpus, [json_reply(SUPPORTED, CITE_5)], settings=tiny_reserve)
    assert trace.answer.reason_code == "context_budget" and not server.requests and not trace.generator_called
    assert "a reserve of 20 leaves the generator under 48 output tokens" in trace.abstention.detail


def test_a_prompt_that_fits_exactly_is_sent(sample_corpus):
    """The edge: prompt == window − reserve is inside the budget (the check is > , not ≥)."""
    with StandInChatServer([json_reply(SUPPORTED, CITE_5)]) as server:
        generator = _generator(server)
        probe = ask(sample_corpus, MEALS, ROOMY, generator=generator)
        size = generator.prompt_size(probe.context)
        exact = ROOMY.model_copy(update={"window": size + ROOMY.reserve})
        trace = ask(sample_corpus, MEALS, exact, generator=generator)
        over = ask(sample_corpus, MEALS, exact.model_copy(update={"window": size + ROOMY.reserve - 1}),
                   generator=generator)
    assert trace.generator_called and trace.answer.status == "answered", trace.explanation
    assert trace.proposal.generation.prompt_code_points == size
    assert not over.generator_called and over.answer.reason_code == "context_budget"
    assert len(server.requests) == 2  # the probe and the exact fit; never the one over budget


def test_the_model_is_not_called_when_nothing_eligible_passed(sample_corpus):
    request = Request(question="What is the parrot's favourite colour?", date=REQUEST_DATE, topic="travel")
    trace, server = _ask(sample_corpus, [json_reply(SUPPORTED, CITE_5)], request=request)
    assert trace.answer.reason_code == "insufficient_evidence" and not trace.generator_called
    assert not server.requests


def test_a_per_session_key_overrides_the_configured_one(sample_corpus):
    with StandInChatServer([json_reply(SUPPORTED, CITE_5)]) as server:
        generator = _generator(server).with_api_key("sk-session-key-42")
        trace = ask(sample_corpus, MEALS, ROOMY, generator=generator)
    assert server.requests[0]["headers"]["authorization"] == "Bearer sk-session-key-42"
    assert "sk-session-key-42" not in trace.model_dump_json() and generator.name == "llm:standin-model"


def test_config_from_the_environment():
    assert not LlmConfig.configured({"LLM_BASE_URL": "http://x/v1"})
    with pytest.raises(ValueError, match="set LLM_MODEL"):
        LlmConfig.from_env({"LLM_BASE_URL": "http://x/v1"})
    config = LlmConfig.from_env({"LLM_BASE_URL": "https://user:pw@api.example.com:8443/v1?x=1", "LLM_MODEL": "m",
                                 "LLM_API_KEY": SECRET, "LLM_SEED": "7"})
    assert (config.host, config.seed) == ("api.example.com:8443", 7)
    assert SECRET not in repr(config) and SECRET not in config.model_dump_json()


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["answer", "citations", "source_id", "start_line", "end_line", "page", "x"]), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.slow  # a property over many replies
@hypothesis_settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=80), _JSONISH.map(json.dumps)))
def test_any_reply_is_a_proposal_or_unreadable_never_a_crash(reply):
    try:
        proposal = parse_reply(reply, "llm:m")
    except UnreadableReply:
        return
    assert proposal.abstain_reason == "insufficient_evidence" or (proposal.answer and proposal.citations)


def test_registered_as_llm_in_the_engine_config(sample_corpus, monkeypatch):
    from pipeline import ConfigError, EngineConfig, build_engine
    from tests.fakes import HashedWordsTestEmbedder

    for name in ("LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    config = EngineConfig(generator="llm", vector_store="memory", settings=ROOMY)
    with pytest.raises(ConfigError, match="llm generator: set LLM_BASE_URL and LLM_MODEL"):
        build_engine(config, embedder=HashedWordsTestEmbedder())
    with StandInChatServer([json_reply(SUPPORTED, CITE_5)]) as server:
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_MODEL", "standin-model")
        engine = build_engine(config, embedder=HashedWordsTestEmbedder())
        trace = engine.ask(sample_corpus, MEALS)
    assert engine.generator.name == trace.answer.producer == "llm:standin-model"
    assert trace.answer.status == "answered" and len(server.requests) == 1


# --------------------------------------------------------------------------- command line


def _cli(*args: str, env: dict[str, str]):
    from tests.library.test_cli_store import CORPUS, run_cli

    base = {"LLM_BASE_URL": "", "LLM_MODEL": "", "LLM_API_KEY": ""}
    return run_cli("ask", "--docs", str(CORPUS), "--question", MEALS.question, "--date", "2026-09-14",
                   "--topic", "travel", "--generator", "llm", *args, env={**base, **env})


@pytest.mark.slow  # the command line in a subprocess
def test_cli_llm_without_configuration_is_one_line_and_exit_2():
    result = _cli(env={})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        "error: llm generator: set LLM_BASE_URL and LLM_MODEL to use a language model "
        "(e.g. LLM_BASE_URL=http://127.0.0.1:11434/v1 LLM_MODEL=qwen2.5:3b)"]


@pytest.mark.slow  # the command line in a subprocess
def test_cli_llm_answer_and_failure(tmp_path):
    replies = [json_reply(SUPPORTED, CITE_5), ScriptedReply(status=401)]
    with StandInChatServer(replies) as server:
        env = {"LLM_BASE_URL": server.base_url, "LLM_MODEL": "standin-model", "LLM_API_KEY": SECRET}
        answered = _cli("--trace", str(tmp_path / "trace.json"), env=env)
        refused = _cli(env=env)
        too_small = _cli("--window", "1400", "--reserve", "200", env=env)
        assert len(server.requests) == 2  # the window too small for the prompt never reached the model
    assert too_small.returncode == 0 and json.loads(too_small.stdout)["reason_code"] == "context_budget"
    assert too_small.stderr.strip().splitlines()[-1].endswith("raise the window; the model was not called")
    assert answered.returncode == 0, answered.stderr
    answer = json.loads(answered.stdout)
    assert (answer["status"], answer["producer"]) == ("answered", "llm:standin-model")
    trace_text = (tmp_path / "trace.json").read_text()
    assert SECRET not in trace_text and SECRET not in answered.stderr
    generation = json.loads(trace_text)["proposal"]["generation"]
    assert generation["max_tokens"] == 800 and generation["raw_reply"]  # the LLM budget defaults
    assert refused.returncode == 0 and json.loads(refused.stdout)["reason_code"] == "generator_unavailable"
    last = refused.stderr.strip().splitlines()[-1]
    assert last.startswith("llm:standin-model: ") and "refused the API key" in last and SECRET not in refused.stderr
    assert "Traceback" not in refused.stderr


# --------------------------------------------------------------------------- the app's generator choice


def test_the_app_asks_the_model_with_this_sessions_own_key(engine, monkeypatch):
    """The app offers the model only when configured; a session's key is used for its calls and kept nowhere."""
    from ui import handlers
    from ui.state import Session, load_shared

    session_key = "sk-session-only-987654321"
    with StandInChatServer([json_reply(SUPPORTED, CITE_5)]) as server:
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_MODEL", "standin-model")
        monkeypatch.delenv("LLM_API_KEY", raising=False)
        shared = load_shared(engine)
        assert shared.llm is not None
        session = Session()
        from ui.views import choose_generator

        session = choose_generator("llm", session_key, session)
        trace, session = handlers.do_ask(shared, MEALS.question, "2026-09-14", "travel", "", 3, 0.6, 0.9, 1400, 200,
                                         "before_cutoff", "hybrid", session)
        assert trace["answer"]["producer"] == "llm:standin-model" and trace["answer"]["status"] == "answered"
        assert trace["settings"]["window"] >= 4000  # the model's own budget, recorded
        assert trace["components"]["judge"] == "learned-v1"  # a model paraphrases: the learned judge decides
        assert server.requests[0]["headers"]["authorization"] == f"Bearer {session_key}"
        assert session_key not in json.dumps(trace)
    monkeypatch.delenv("LLM_BASE_URL")
    assert load_shared(engine).llm is None  # no model configured: the extractive answerer only
