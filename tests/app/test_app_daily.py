"""The app as a daily tool (issue 12), in a real browser: no surprises after uploads, demos and errors.

Playwright on Debian's Chromium like tests/app/test_app_browser.py (same launch and fixtures); screenshots
go to test-artifacts/ in light and dark themes and at 390 px and 1440 px.
"""

from __future__ import annotations

from tests.app.test_app_browser import ARTIFACTS, TIMEOUT_MS, ask, browser, fill, make_pdf, page, shot  # noqa: F401

TITLE = "Auditable RAG — a cited-answer engine you can audit"


def open_page(browser, app_url, width=1440, dark=False):  # noqa: F811 - `browser` is the shared fixture
    context = browser.new_context(viewport={"width": width, "height": 1000})
    view = context.new_page()
    view.set_default_timeout(TIMEOUT_MS)
    view.goto(app_url + ("?__theme=dark" if dark else ""))
    view.get_by_text(TITLE).wait_for()
    return context, view


def rgb(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text[text.index("(") + 1:text.index(")")].split(",")[:3])


def luminance(color: tuple[float, ...]) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def colors(page, selector: str) -> tuple[tuple, tuple]:  # noqa: F811
    """The text colour of `selector` and the first opaque background behind it."""
    return page.evaluate("""(sel) => { let el = document.querySelector(sel); const fg = getComputedStyle(el).color;
        while (el) { const bg = getComputedStyle(el).backgroundColor;
          if (bg && !bg.startsWith('rgba(0, 0, 0, 0)') && bg !== 'transparent') return [fg, bg];
          el = el.parentElement; }
        return [fg, 'rgb(255, 255, 255)']; }""", selector)


def test_upload_disables_the_button_shows_progress_and_topic_filter_is_named(page, tmp_path):  # noqa: F811
    assert page.locator("#topic input, #topic textarea").first.input_value() == ""  # default: any topic
    pdf = tmp_path / "harbour-notice.pdf"
    make_pdf(pdf)
    page.get_by_text("Upload documents (only you see them)").click()
    page.locator("#upload-files input[type=file]").set_input_files([str(pdf)])
    # No second click possible while it works, and it says so (both seen at one moment). A small PDF is added
    # faster than a poll may look, so an observer set before the click records the moment.
    page.evaluate("""() => { window.uploadBusySeen = false;
        const b = document.querySelector('#upload');
        const look = () => { if (b.disabled && b.innerText.includes('Uploading')) window.uploadBusySeen = true; };
        new MutationObserver(look).observe(b, {attributes: true, childList: true, subtree: true, characterData: true});
    }""")
    page.locator("#upload").click()
    page.wait_for_function("() => window.uploadBusySeen === true")
    page.locator("#upload-status").get_by_text("added harbour-notice").wait_for()
    page.wait_for_function("() => !document.querySelector('#upload').disabled")
    # The server read and deleted the files: the box is emptied, so the next upload sends only new files.
    page.wait_for_function("() => !document.querySelector('#upload-files').innerText.includes('harbour-notice')")
    shot(page, "upload-done.png")

    ask(page, "How much does the harbour pass cost per month?", topic="travel")
    answer = page.locator("#answer")
    answer.get_by_text("✗ abstained").wait_for()
    assert "out of topic" in answer.inner_text() and "is not travel" in answer.inner_text()
    ask(page, "How much does the harbour pass cost per month?", topic="")
    answer.get_by_text("✓ answered").wait_for()


def test_upload_progress_is_visible_while_working(browser, app_url, tmp_path):  # noqa: F811
    import pymupdf

    pdf = tmp_path / "long-handbook.pdf"
    doc = pymupdf.open()
    for n in range(40):
        doc.new_page().insert_text((72, 90), f"Handbook page {n}: rule {n} applies to harbour gate {n * 7}.")
    doc.save(str(pdf))
    context, view = open_page(browser, app_url)
    view.get_by_text("Upload documents (only you see them)").click()
    view.locator("#upload-files input[type=file]").set_input_files([str(pdf)])
    # Watched from before the click: a fast machine may finish the upload before a poll would see its progress.
    view.evaluate("""() => {
        window.sawUploadProgress = false;
        const status = document.querySelector('#upload-status');
        const seen = () => { if (status.querySelector('.progress-text, .eta-bar, .progress-level'))
                                 window.sawUploadProgress = true; };
        new MutationObserver(seen).observe(status, {childList: true, subtree: true});
    }""")
    view.locator("#upload").click()
    status = view.locator("#upload-status")
    progress = status.locator(".progress-text, .eta-bar, .progress-level").first
    if progress.count():
        shot(view, "upload-progress.png")
    status.get_by_text("added long-handbook").wait_for()
    assert view.evaluate("window.sawUploadProgress"), "no progress was shown while the upload worked"
    context.close()


def test_a_demo_then_an_ordinary_question_answers_normally(page):  # noqa: F811
    page.get_by_role("tab", name="Check an answer").click()
    check_before = page.locator("#check-text textarea").input_value()
    page.locator("#demo-budget-250").click()
    answer = page.locator("#answer")
    answer.get_by_text("✗ abstained — context_budget").wait_for()
    note = page.locator("#answer .rag-demo").inner_text()
    assert "window=250" in note and "unchanged" in note
    page.get_by_role("tab", name="3 Context").click()
    context = page.locator("#context").inner_text()
    assert "Nothing was sent to the generator" in context and "needs" in context
    assert "characters against a budget" not in context  # one count: the pack step's
    shot(page, "demo-budget-context.png")

    page.locator("#demo-line-3-only").click()
    page.locator("#answer .rag-demo").get_by_text("Keep only line 3", exact=False).wait_for()
    page.get_by_role("tab", name="Check an answer").click()
    assert page.locator("#check-text textarea").input_value() == check_before  # never overwritten

    page.get_by_role("tab", name="4 Answer").click()
    page.locator("#ask").click()  # the demo's visible question, with the user's own settings
    answer.get_by_text("✓ answered").wait_for()
    assert page.locator("#answer .rag-demo").count() == 0


def test_check_an_answer_clears_the_previous_result_on_error(page):  # noqa: F811
    page.get_by_role("tab", name="Check an answer").click()
    fill(page, "check-text", "The lodging limit is 600 yuan. [travel-v2:1-3]")
    page.locator("#check").click()
    result = page.locator("#check-result")
    result.get_by_text("✗ dropped: travel-v2 lines 1–3").first.wait_for()
    fill(page, "check-text", "")
    page.locator("#check").click()
    page.locator(".toast-body").first.wait_for()
    assert "dropped" not in result.inner_text()
    shot(page, "check-error-cleared.png")


def test_conflict_side_by_side_in_the_source_tab(page):  # noqa: F811
    page.locator("#demo-conflict-750-800").click()
    page.locator("#answer").get_by_text("✗ abstained — conflicting_evidence").wait_for()
    page.get_by_role("tab", name="5 Source").click()
    sides = page.locator("#conflict .rag-side")
    sides.first.wait_for()
    assert sides.count() == 2
    marked = page.locator("#conflict mark.diff").all_inner_texts()
    assert any("750" in m for m in marked) and any("800" in m for m in marked)
    shot(page, "conflict-side-by-side.png")


def test_candidates_bars_differ_and_below_threshold_is_not_eligible_blue(page):  # noqa: F811
    ask(page, "Beijing lodging", topic="")
    page.locator("#answer .rag-badge").first.wait_for()
    page.get_by_role("tab", name="2 Candidates").click()
    bars = page.locator("#candidates-plot .rag-cbar")
    bars.first.wait_for()
    widths = [float(w) for w in page.evaluate(
        "() => [...document.querySelectorAll('#candidates-plot .bar > span')].map(s => parseFloat(s.style.width))")]
    assert widths[0] == 100.0 and min(widths) < 90.0  # scaled to the top candidate: the differences show
    statuses = page.evaluate("() => [...document.querySelectorAll('#candidates-plot .rag-cbar')]"
                             ".map(b => [b.dataset.status, b.querySelector('.bar > span').style.background])")
    eligible_blue = "rgb(59, 111, 216)"
    assert all(color != eligible_blue for status, color in statuses if status != "eligible")
    labels = page.locator("#candidates-plot .lbl").all_inner_texts()
    assert all(not label.endswith("…") for label in labels)
    rows = page.locator("#candidates > div table").first.locator("tbody tr").count() \
        if page.locator("#candidates > div table").count() else page.locator("#candidates table").first.locator("tbody tr").count()
    assert rows <= 20
    shot(page, "candidates-chart.png")


def test_evaluation_tab_renders_tables_as_tables(page):  # noqa: F811
    page.get_by_role("tab", name="Evaluation").click()
    evaluation = page.locator("#evaluation")
    evaluation.locator("td", has_text="supported-en").first.wait_for()
    first_heading = evaluation.locator("h4").first.inner_text()
    assert first_heading == "eval.json"
    assert evaluation.locator("details").first.evaluate("d => !d.open")  # raw JSON folded, after the tables
    plot = page.locator("#eval-plots img").first
    plot.scroll_into_view_if_needed()
    page.wait_for_function("() => { const i = document.querySelector('#eval-plots img'); return i && i.naturalWidth > 0; }")
    fit = page.evaluate("() => [...document.querySelectorAll('#eval-plots img')].map(i => getComputedStyle(i).objectFit)")
    assert fit and all(f == "contain" for f in fit)
    shot(page, "evaluation-tables.png")


def test_dark_theme_cited_text_is_readable(browser, app_url):  # noqa: F811
    context, view = open_page(browser, app_url, dark=True)
    ask(view, "Beijing lodging", topic="travel")
    view.locator("#answer").get_by_text("✓ answered").wait_for()
    view.get_by_role("tab", name="5 Source").click()
    view.locator("#source-text .ln.verified .tx").first.wait_for()
    fg, bg = colors(view, "#source-text .ln.verified .tx")
    assert contrast(rgb(fg), rgb(bg)) >= 4.5, (fg, bg)
    fg, bg = colors(view, "#source-text .ln .no")
    assert contrast(rgb(fg), rgb(bg)) >= 3.0, (fg, bg)
    shot(view, "dark-source.png")
    view.get_by_role("tab", name="4 Answer").click()
    fg, bg = colors(view, "#answer .rag-note")
    assert contrast(rgb(fg), rgb(bg)) >= 4.5, (fg, bg)
    shot(view, "dark-answer.png")
    context.close()


def test_narrow_screen_demo_buttons_are_compact(browser, app_url):  # noqa: F811
    for dark in (False, True):
        context, view = open_page(browser, app_url, width=390, dark=dark)
        box = view.locator("#demo-row").bounding_box()
        assert box["height"] < 420, box  # 12 buttons wrap several to a line, not one each
        shot(view, f"narrow-{'dark' if dark else 'light'}.png")
        context.close()


def test_a_conversation_of_three_turns_with_a_follow_up(page):  # noqa: F811
    answer = page.locator("#answer")
    ask(page, "Beijing lodging", topic="")
    answer.get_by_text("750 yuan").first.wait_for()
    ask(page, "What about Shanghai?", topic="")
    note = page.locator("#follow-up-note")
    note.wait_for()
    assert "lodging Shanghai" in note.inner_text()  # the trace's question: what retrieval searched
    assert "700" in answer.inner_text()
    ask(page, "How much does the annual passport renewal cost?", topic="")
    page.locator("#conversation").get_by_text("Conversation (3 turns)", exact=False).click()  # folded until opened
    page.locator("#history tr[data-turn='3']").wait_for()
    assert page.locator("#history tbody tr").count() == 3
    assert page.locator("#follow-up-note").count() == 0  # an ordinary question is searched as asked
    assert page.locator(".toast-body").count() == 0, page.locator(".toast-body").all_inner_texts()
    shot(page, "conversation-three-turns.png")

    page.locator("#turn-pick input").click()  # re-open turn 1 in the panels
    page.get_by_role("option", name="1. Beijing lodging").click()
    answer.get_by_text("750 yuan").first.wait_for()
    page.get_by_role("tab", name="2 Candidates").click()
    assert "travel-v2" in page.locator("#candidates").inner_text()

    page.locator("#clear-history").click()
    page.locator("#history").get_by_text("No questions yet").wait_for()
    answer.get_by_text("Ask a question, run a demo or check an answer.").wait_for()


def test_library_lists_documents_and_deleting_an_upload_removes_it_from_answers(page, tmp_path):  # noqa: F811
    note = tmp_path / "lighthouse.md"
    note.write_text("---\nid: lighthouse\nversion: v3\ntopic: harbour\n---\nThe lighthouse tour costs 12 euros.\n"
                    "Tours start at the north pier.\n", "utf-8")
    page.get_by_text("Upload documents (only you see them)").click()
    page.locator("#upload-files input[type=file]").set_input_files([str(note)])
    page.locator("#upload").click()
    page.locator("#upload-status").get_by_text("added lighthouse").wait_for()
    ask(page, "How much does the lighthouse tour cost?", topic="")
    answer = page.locator("#answer")
    answer.get_by_text("12 euros").first.wait_for()

    page.get_by_role("tab", name="Library").click()
    row = page.locator("#library tr", has_text="lighthouse")
    # The upload answers by BM25 at once; its vectors follow in the background and the table
    # refreshes (embedding n of m → ready) on its timer: wait for it rather than race it.
    row.filter(has_text="ready").wait_for(timeout=60_000)
    cells = row.locator("td").all_inner_texts()
    assert cells[0] == "lighthouse" and cells[2] == "v3" and cells[3] == "harbour"
    assert int(cells[7]) >= 1 and "ready" in cells[8] and cells[9] == "uploaded"
    assert "lines" in cells[6]
    shot(page, "library.png")

    page.locator("#delete-pick input").click()
    page.get_by_role("option", name="lighthouse (lighthouse.md)").click()
    page.locator("#delete-doc").click()
    page.locator("#delete-status").get_by_text("deleted lighthouse").wait_for()
    page.wait_for_function("() => !document.querySelector('#library').innerText.includes('lighthouse')")
    ask(page, "How much does the lighthouse tour cost?", topic="")
    answer.get_by_text("✗ abstained").wait_for()
    page.get_by_role("tab", name="2 Candidates").click()
    assert "lighthouse" not in page.locator("#candidates").inner_text()


def test_keep_my_uploads_notice_and_session_export_download(page):  # noqa: F811
    page.locator("#conversation").get_by_text("Conversation (", exact=False).click()  # folded until opened
    notice = page.locator("#keep-notice").inner_text()
    assert "are discarded when you reload or close the page" in notice and "when the server restarts" in notice
    ask(page, "Beijing lodging", topic="")
    page.locator("#answer").get_by_text("750 yuan").first.wait_for()
    page.locator("#export-session").click()
    link = page.locator("#export-file a").first
    link.wait_for()
    with page.expect_download() as info:
        link.click()
    import json

    data = json.loads(open(info.value.path(), encoding="utf-8").read())
    assert data["turns"][0]["trace"]["answer"]["status"] == "answered"
    assert any(d["source_id"] == "travel-v2" for d in data["documents"])
    with page.expect_download() as info:
        page.locator("#download-trace").click()
    assert json.loads(open(info.value.path(), encoding="utf-8").read())["trace_version"] == "trace-v1"
    shot(page, "export.png")


def _natural_width(page) -> int:  # noqa: F811
    page.wait_for_function("() => { const i = document.querySelector('#source-image img');"
                           " return i && i.complete && i.naturalWidth > 0; }")
    return page.evaluate("() => document.querySelector('#source-image img').naturalWidth")


def _assert_every_thumbnail_is_reachable(page) -> None:  # noqa: F811
    """The strip is one row, scrolled sideways: no thumbnail is cut off by the strip's height (issue 51: the second
    row of a 15-page PDF was), and the last one comes into view when the strip is scrolled."""
    page.wait_for_function("() => [...document.querySelectorAll('#thumbnails img')].every(i => i.complete)")
    clipped = page.evaluate("""() => { const strip = document.querySelector('#thumbnails').getBoundingClientRect();
        return [...document.querySelectorAll('#thumbnails .thumbnail-item')].filter(t => {
            const b = t.getBoundingClientRect(); return b.top < strip.top - 1 || b.bottom > strip.bottom + 1; })
          .map(t => t.innerText); }""")
    assert clipped == [], clipped
    last = page.locator("#thumbnails .thumbnail-item").last
    last.scroll_into_view_if_needed()
    box, strip = last.bounding_box(), page.locator("#thumbnails").bounding_box()
    assert strip["x"] - 1 <= box["x"] and box["x"] + box["width"] <= strip["x"] + strip["width"] + 1


def test_source_viewer_navigates_a_15_page_pdf(page, tmp_path):  # noqa: F811
    import pymupdf

    pdf = tmp_path / "port-handbook.pdf"
    doc = pymupdf.open()
    for n in range(1, 16):
        new = doc.new_page()
        new.insert_text((72, 90), f"Port handbook chapter {n}", fontsize=14)
        fact = "The pilot boarding fee is 85 euros per vessel." if n == 9 else f"Chapter {n} covers berth {n}."
        new.insert_text((72, 130), fact, fontsize=11)
    doc.save(str(pdf))
    page.get_by_text("Upload documents (only you see them)").click()
    page.locator("#upload-files input[type=file]").set_input_files([str(pdf)])
    page.locator("#upload").click()
    page.locator("#upload-status").get_by_text("added port-handbook").wait_for()
    ask(page, "How much is the pilot boarding fee?", topic="")
    page.locator("#answer").get_by_text("85 euros").first.wait_for()

    page.get_by_role("tab", name="5 Source").click()
    note = page.locator("#source-note")
    note.get_by_text("page 9 of 15").wait_for()
    thumbs = page.locator("#thumbnails img")
    thumbs.first.wait_for()
    assert thumbs.count() == 15
    _assert_every_thumbnail_is_reachable(page)
    width = _natural_width(page)
    shot(page, "viewer-cited-page.png")

    page.locator("#next-page").click()
    note.get_by_text("page 10 of 15").wait_for()
    thumbs.nth(2).click()
    note.get_by_text("page 3 of 15").wait_for()
    page.locator("#zoom").get_by_text("200 %").click()
    page.wait_for_function(f"() => document.querySelector('#source-image img').naturalWidth > {width * 1.5}")
    page.locator("#next-citation").click()  # one citation: back to it, on its page
    note.get_by_text("page 9 of 15").wait_for()
    shot(page, "viewer-zoomed.png")
    page.set_viewport_size({"width": 390, "height": 844})  # and at phone width, in the same strip
    _assert_every_thumbnail_is_reachable(page)
    shot(page, "viewer-phone.png")


def test_text_source_scrolls_to_the_cited_lines(page, tmp_path):  # noqa: F811
    long = tmp_path / "canal-rules.md"
    lines = [f"Rule {n}: boats keep to the right of buoy {n}." for n in range(1, 200)]
    lines[149] = "The canal night toll is 17 crowns per boat."
    long.write_text("---\nid: canal-rules\n---\n" + "\n".join(lines) + "\n", "utf-8")
    page.get_by_text("Upload documents (only you see them)").click()
    page.locator("#upload-files input[type=file]").set_input_files([str(long)])
    page.locator("#upload").click()
    page.locator("#upload-status").get_by_text("added canal-rules").wait_for()
    ask(page, "What is the canal night toll?", topic="")
    page.locator("#answer").get_by_text("17 crowns").first.wait_for()
    page.get_by_role("tab", name="5 Source").click()
    page.locator("#source-text .ln.verified").first.wait_for()
    page.wait_for_function("""() => { const box = document.querySelector('#source-text .rag-scroll');
        const line = box.querySelector('.ln.verified'); const b = box.getBoundingClientRect();
        const l = line.getBoundingClientRect(); return box.scrollTop > 0 && l.top >= b.top && l.bottom <= b.bottom; }""")
    shot(page, "viewer-text-scrolled.png")
