"""In a real browser (light and dark): a verified claim's supporting sentence is marked on the source, apart
from the rest of its cited span, and named in the Answer panel's claims table.

Playwright on Debian's Chromium, with the launch and fixtures of tests/app/test_app_browser.py.
"""

from __future__ import annotations

import pytest

from tests.app.test_app_browser import TIMEOUT_MS, browser, fill, shot  # noqa: F401
from tests.app.test_app_daily import contrast, rgb

LIMIT = "The lodging limit is 750 yuan."
TITLE = "Auditable RAG — a cited-answer engine you can audit"


def _colours(view, selector: str) -> tuple[str, str]:
    return tuple(view.eval_on_selector(selector, "e => { const s = getComputedStyle(e); return [s.color, s.backgroundColor]; }"))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_verified_claims_supporting_sentence_is_highlighted(browser, app_url, theme):  # noqa: F811
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    view = context.new_page()
    view.set_default_timeout(TIMEOUT_MS)
    view.goto(app_url + ("?__theme=dark" if theme == "dark" else ""))
    view.get_by_text(TITLE).wait_for()
    # One claim cites the whole support span (lines 1-3); only line 3 says it.
    view.get_by_role("tab", name="Check an answer").click()
    fill(view, "check-text", f"{LIMIT} [travel-v2:1-3]")
    fill(view, "request-date", "2026-09-14")
    fill(view, "topic", "travel")
    view.locator("#check").click()
    view.locator("#check-result").get_by_text("✓ verified: travel-v2 lines 1–3", exact=True).first.wait_for()

    view.get_by_role("tab", name="4 Answer").click()
    claims = view.locator("#answer")
    claims.get_by_text(f"supported by line 3: “{LIMIT}”").wait_for()

    view.get_by_role("tab", name="5 Source").click()
    support = view.locator("#source-text mark.support")
    support.first.wait_for()
    assert [t.strip() for t in support.all_inner_texts()] == [LIMIT]
    assert support.first.get_attribute("title") == "supports the claim"
    rest = view.locator("#source-text mark.verified:not(.support)").first
    assert rest.inner_text().startswith("Fictional Beijing lodging policy")  # cited, but not the supporting sentence
    fg, support_bg = _colours(view, "#source-text mark.support")
    _, span_bg = _colours(view, "#source-text mark.verified:not(.support)")
    assert support_bg != span_bg, (support_bg, span_bg)  # marked apart from the span…
    shape = view.eval_on_selector("#source-text mark.support", "e => getComputedStyle(e).boxShadow")
    assert "inset" in shape  # …by an underline as well as a colour
    assert contrast(rgb(fg), rgb(support_bg)) >= 4.5, (fg, support_bg)
    assert "the supporting sentence (line 3) is framed and underlined" in view.locator("#source-note").inner_text()
    shot(view, f"support-sentence-{theme}.png")
    context.close()
