"""In a real browser, with a model configured (the stand-in Chat Completions server of tests/llm_standin.py, named
as the stand-in for a remote model): the page offers the generator and the claim judge, the model's answer is shown
claim by claim, ✓ verified or ✗ dropped with the failed check, and the verified claim's supporting sentence is
marked on the source.

Playwright on Debian's Chromium, with the launch and fixtures of tests/app/test_app_browser.py.
"""

from __future__ import annotations

import pytest

from tests.app.test_app_browser import TIMEOUT_MS, ask, browser, shot  # noqa: F401
from tests.conftest import serve_app
from tests.llm_standin import StandInChatServer, json_reply

TITLE = "Auditable RAG — a cited-answer engine you can audit"
SUPPORTED = "Beijing's daily meal allowance is 180 yuan."
UNSUPPORTED = "Meals on weekends are always free."


@pytest.fixture
def llm_app_url(monkeypatch):
    reply = json_reply(f"{SUPPORTED} [meals-allowance:5] {UNSUPPORTED} [meals-allowance:5]",
                       [{"source_id": "meals-allowance", "start_line": 5, "end_line": 5}] * 2)
    with StandInChatServer([reply]) as server:
        monkeypatch.setenv("LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("LLM_MODEL", "standin-model")
        monkeypatch.delenv("LLM_API_KEY", raising=False)
        monkeypatch.delenv("LLM_JUDGE", raising=False)
        from ui.app import create_app

        with serve_app(create_app()) as url:
            yield url, server


def test_a_model_answer_is_shown_claim_by_claim_and_its_support_is_marked(browser, llm_app_url):  # noqa: F811
    url, server = llm_app_url
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    view = context.new_page()
    view.set_default_timeout(TIMEOUT_MS)
    view.goto(url)
    view.get_by_text(TITLE).wait_for()
    view.locator("#generator").get_by_text("language model (every claim checked)").click()
    assert view.locator("#judge").get_by_text("learned judge (offline, no calls)").is_visible()
    view.locator("#api-key input").fill("sk-browser-session-9")
    ask(view, "What is the daily meal allowance in Beijing?")
    answer = view.locator("#answer")
    answer.get_by_text("⚠ partly answered — 1 claim dropped").wait_for()  # never a clean ✓ with a claim dropped
    text = answer.inner_text()
    assert SUPPORTED in text and "✓ verified" in text and "✗ dropped" in text, text
    struck = answer.locator(".rag-dropped del")
    assert struck.all_inner_texts() == [UNSUPPORTED]
    assert struck.first.evaluate("e => getComputedStyle(e).textDecorationLine") == "line-through"
    answer.screenshot(path=str(shot(view, "llm-answer-partial-page.png").with_name("llm-answer-partial.png")))
    assert "llm:standin-model" in text  # the producer is named
    assert server.requests and server.requests[-1]["headers"]["authorization"] == "Bearer sk-browser-session-9"
    view.get_by_role("tab", name="5 Source").click()
    support = view.locator("#source-text mark.support")
    support.first.wait_for()
    assert "180 yuan" in " ".join(support.all_inner_texts())
    shot(view, "llm-answer-claims.png")
    context.close()
