"""A page people trust at a glance (issue 51), in a real browser: the panels agree with the trace, the library's
actions and table, the layout with a long history, every tab one tap away on a phone, reasons in whole words, and
labels on a PDF page that cover no text. Light and dark, 1440 and 390 px where the layout matters.

Playwright on Debian's Chromium like tests/app/test_app_browser.py (same launch and fixtures); screenshots go to
test-artifacts/.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tests.app.test_app_browser import ARTIFACTS, TIMEOUT_MS, ask, browser, page, shot  # noqa: F401 (fixtures)
from tests.conftest import app_client

TITLE = "Auditable RAG — a cited-answer engine you can audit"
VIEWS = pytest.mark.parametrize("width,dark", [(1440, False), (390, True)], ids=["light-1440", "dark-390"])


def open_view(browser, app_url, width=1440, dark=False):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": 1000}, color_scheme="dark" if dark else "light")
    view = context.new_page()
    view.set_default_timeout(TIMEOUT_MS)
    view.goto(app_url + ("?__theme=dark" if dark else ""))
    view.get_by_text(TITLE).wait_for()
    for drawn in ("#results [role=tab]", "#conversation", "#demo-row button"):  # Gradio draws the page in steps
        view.locator(drawn).first.wait_for()
    return context, view


def _turns(view, count: int) -> None:
    """Wait until the conversation holds `count` turns (its collapsed heading says how many)."""
    view.locator("#conversation").get_by_text(f"Conversation ({count} turn", exact=False).wait_for()


def _upload(view, *paths: Path) -> None:
    view.get_by_text("Upload documents (only you see them)").click()
    view.locator("#upload-files input[type=file]").set_input_files([str(p) for p in paths])
    view.locator("#upload").click()
    for path in paths:
        view.locator("#upload-status").get_by_text(f"added {path.stem}").wait_for()
    view.wait_for_function("() => !document.querySelector('#upload').disabled")


# --------------------------------------------------------------------------- 1. the panels agree with the trace


def _expected(trace: dict) -> dict:
    """What the page must show for `trace` (the API's JSON), read from the trace's own fields."""
    answer, checks = trace["answer"], trace["checks"]
    verified = [all(r["passed"] for r in check["checks"]) for check in checks]
    states: dict[tuple, str] = {}
    for check, ok in zip(checks, verified):
        key = (check["citation"]["source_id"], check["citation"]["start_line"], check["citation"]["end_line"])
        states[key] = "ok" if ok or states.get(key) == "ok" else "no"
    return {"badge": "no" if answer["status"] != "answered" else "partial" if answer["partial"] else "ok",
            "quote": "muted" if not checks else "ok" if all(verified) else "no", "states": states,
            "answered": answer["status"] == "answered"}


_MARKER = re.compile(r"\[([\w.-]+)(?::p\d+)?:(\d+)(?:-(\d+))?\]")


def _shown(view) -> dict:
    """The Answer panel's badge, marks and markers as the page shows them."""
    answer = view.locator("#answer")
    markers = []
    for element in answer.locator(".rag-answer .rag-mark").all():
        found = _MARKER.search(element.inner_text())
        start = int(found.group(2))
        markers.append(((found.group(1), start, int(found.group(3) or start)),
                        element.get_attribute("class").split()[-1]))
    return {"badge": answer.locator(".rag-badge").first.get_attribute("class").split()[-1],
            "quote": answer.locator("[data-mark=quote]").get_attribute("data-result"),
            "quote_words": answer.locator("[data-mark=quote]").inner_text(),
            "answers": answer.locator("[data-mark=answers]").get_attribute("data-result"),
            "markers": markers}


def _assert_page_agrees(shown: dict, expected: dict, name: str) -> None:
    assert shown["badge"] == expected["badge"], name
    assert shown["quote"] == expected["quote"], (name, shown["quote_words"])
    for key, state in shown["markers"]:
        assert state == expected["states"].get(key, "unchecked"), (name, key, state)
    if shown["markers"]:
        assert "no passage was cited" not in shown["quote_words"], name
    if shown["answers"] == "ok":
        assert expected["answered"], name


def test_every_demo_shows_marks_that_agree_with_its_trace(browser, app_url):  # noqa: F811
    from ui.demos import BY_NAME, DEMOS

    client = app_client(app_url)
    context, view = open_view(browser, app_url)
    for count, (_, name) in enumerate(DEMOS, start=1):
        view.locator(f"#demo-{name}").click()
        _turns(view, count)
        trace = client.predict(name, ", ".join(BY_NAME[name].groups), api_name="/run_demo")
        _assert_page_agrees(_shown(view), _expected(trace), name)
        if name == "conflict-750-800":
            shot(view, "demo-conflict-marks.png")
    context.close()
    # the conflict once more, dark and at phone width
    context, view = open_view(browser, app_url, 390, dark=True)
    view.locator("#demo-conflict-750-800").click()
    _turns(view, 1)
    _assert_page_agrees(_shown(view), _expected(client.predict("conflict-750-800", "", api_name="/run_demo")),
                        "conflict-750-800 (phone)")
    shot(view, "demo-conflict-marks-dark-390.png")
    context.close()


# --------------------------------------------------------------------------- 2. a table answer names its row and column


# Notes above the table: the header is the row over the first values, never the note (it was, on main, for a sheet).
CREW = (["Harbour crew of 1990"], ["Kept by the harbour office", "see the notes"], [],
        ["name", "role", "age", "active", "joined", "retired"],
        ["Mira Holm", "pilot", 61, True, "1984-03-02", "2019-11-30"],
        ["Tomas Veld", "diver", 58, False, "1987-06-15", "2015-04-09"],
        ["Ana Brook", "skipper", 66, False, "1979-01-20", "2012-08-01"])
AIRLINES = ("airline,incidents 1985-1999,fatal accidents 1985-1999,fatalities 1985-1999,incidents 2000-2014,"
            "fatal accidents 2000-2014,fatalities 2000-2014\nNordic Wings,12,2,79,6,1,41\n"
            "Blue Gull Air,20,4,210,9,2,337\nSouthwind,7,0,0,3,0,0\n")
# The other two of light/dark × 1440/390 px, so that the two table tests together cover all four.
OTHER_VIEWS = pytest.mark.parametrize("width,dark", [(1440, True), (390, False)], ids=["dark-1440", "light-390"])


def _crew_xlsx(path: Path) -> None:
    import openpyxl

    workbook = openpyxl.Workbook()
    for row in CREW:
        workbook.active.append(list(row))
    workbook.save(path)


def _ask_table(view, path: Path, question: str) -> None:
    _upload(view, path)
    ask(view, question, topic="")
    view.locator("#answer").get_by_text("✓ answered").wait_for()


# The text colour of a selector and the backgrounds behind it, from its own out to the first opaque one.
_LAYERS = """(sel) => { let el = document.querySelector(sel); const fg = getComputedStyle(el).color; const layers = [];
    while (el) { const bg = getComputedStyle(el).backgroundColor; layers.push(bg);
      if (bg.startsWith('rgb(')) break; el = el.parentElement; }
    return [fg, layers]; }"""


def _channels(colour: str) -> list[float]:
    values = [float(v) for v in colour[colour.index("(") + 1:colour.index(")")].split(",")]
    return values if len(values) == 4 else [*values, 1.0]


def _contrast_of(view, selector: str) -> float:
    """The contrast of `selector`'s text with what is behind it: its see-through fills laid over the first opaque one."""
    from tests.app.test_app_daily import contrast

    fg, layers = view.evaluate(_LAYERS, selector)
    base = _channels(layers[-1])[:3] if layers[-1].startswith("rgb(") else [255.0, 255.0, 255.0]
    for layer in reversed(layers[:-1]):
        *colour, alpha = _channels(layer)
        base = [alpha * c + (1 - alpha) * b for c, b in zip(colour, base)]
    return contrast(tuple(_channels(fg)[:3]), tuple(base))


def _assert_source_frames_the_cell(view, key: str, column: str, value: str) -> None:
    """The Source panel draws the cited row in a table: the cell under `column` in the row of `key` is the one framed,
    it reads `value`, it and the row's key are in view inside the table's own box, the page does not scroll sideways,
    and both read clearly on the theme's background."""
    view.get_by_role("tab", name="5 Source").click()
    table = view.locator("#source-table")
    table.wait_for()
    asked = table.locator("td.asked")
    assert asked.count() == 1 and asked.inner_text() == value
    assert asked.get_attribute("title") == "the cell asked for"
    row = table.locator("tbody tr.cited.verified")
    assert row.count() == 1 and row.locator("td").nth(1).inner_text() == key and row.locator("td.asked").count() == 1
    headers = table.locator("thead th").all_inner_texts()
    assert asked.evaluate("cell => cell.cellIndex") == headers.index(column)
    # the cell and its row's key both in sight, however wide the table (the key stays put as the table scrolls)
    view.wait_for_function("""() => { const cell = document.querySelector('#source-table td.asked');
        const key = document.querySelector('#source-table tr.cited td:nth-child(2)');
        const box = cell.closest('.rag-tablebox').getBoundingClientRect();
        const inside = (e) => { const r = e.getBoundingClientRect();
          return r.left >= box.left - 1 && r.right <= box.right + 1 && r.right <= window.innerWidth; };
        const k = key.getBoundingClientRect(), c = cell.getBoundingClientRect();
        return inside(cell) && inside(key) && (k.right <= c.left + 1 || cell === key); }""")
    assert view.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
    assert _contrast_of(view, "#source-table td.asked") >= 4.5
    assert _contrast_of(view, "#source-table tr.cited td:nth-child(2)") >= 4.5


@VIEWS
def test_a_sheets_row_answer_says_its_row_and_column_under_the_real_header_and_the_source_frames_the_cell(  # noqa: F811
        browser, app_url, tmp_path, width, dark):  # noqa: F811
    sheet = tmp_path / "harbour-crew.xlsx"
    _crew_xlsx(sheet)
    context, view = open_view(browser, app_url, width, dark)
    _ask_table(view, sheet, "When did Tomas Veld retire?")
    assert view.locator("#answer-cell").inner_text() == "Tomas Veld — retired: 2015-04-09"
    header = view.locator("#answer-row tr").first.locator("th").all_inner_texts()
    assert header == ["name", "role", "age", "active", "joined", "retired"]  # not the note above the table
    assert view.locator("#answer-row td.asked").inner_text() == "2015-04-09"
    shot(view, f"table-answer-xlsx-{'dark' if dark else 'light'}-{width}.png")
    _assert_source_frames_the_cell(view, "Tomas Veld", "retired", "2015-04-09")
    shot(view, f"table-source-xlsx-{'dark' if dark else 'light'}-{width}.png")
    context.close()


@OTHER_VIEWS
def test_a_csv_row_answer_names_the_row_and_the_column_asked_and_the_source_frames_the_cell(  # noqa: F811
        browser, app_url, tmp_path, width, dark):  # noqa: F811
    table = tmp_path / "airline-safety.csv"
    table.write_text(AIRLINES, "utf-8")
    context, view = open_view(browser, app_url, width, dark)
    _ask_table(view, table, "How many fatalities did Blue Gull Air have in 2000–2014?")
    assert view.locator("#answer-cell").inner_text() == "Blue Gull Air — fatalities 2000-2014: 337"
    shot(view, f"table-answer-csv-{'dark' if dark else 'light'}-{width}.png")
    _assert_source_frames_the_cell(view, "Blue Gull Air", "fatalities 2000-2014", "337")
    shot(view, f"table-source-csv-{'dark' if dark else 'light'}-{width}.png")
    context.close()


# --------------------------------------------------------------------------- 3. library actions


LIGHTHOUSE = ("---\nid: lighthouse\nversion: v3\ntopic: harbour\n---\nThe lighthouse tour costs 12 euros.\n"
              "Tours start at the north pier.\n")
LIGHTHOUSE_V4 = "The lighthouse tour costs 15 euros.\nTours start at the south pier.\n"
LIGHTHOUSE_V5 = "The lighthouse tour costs 16 euros.\nTours start at the east pier.\n"
BROKEN = "---\nvalid_from: 2027-02-30\n---\nThe lighthouse tour costs 99 euros.\n"


def _replace(view, path: Path | None, version: str = "", pick: bool = True) -> str:
    """Replace lighthouse by `path` (none: no file) and return the replace line once the button is back."""
    if pick:
        view.locator("#replace-pick input").click()
        view.get_by_role("option", name=re.compile(r"^lighthouse \(")).click()
    view.locator("#replace-version input").fill(version)
    if path is not None:
        view.locator("#replace-file input[type=file]").set_input_files([str(path)])
    _mark_old(view, "#replace-result")
    view.locator("#replace-doc").click()
    view.locator("#replace-result:not([data-old])").wait_for()
    view.wait_for_function("() => { const b = document.querySelector('#replace-doc');"
                           " return b && !b.disabled && b.innerText.includes('Replace with this file'); }")
    return view.locator("#replace-status").inner_text()


def _mark_old(view, selector: str) -> None:
    """Tag the line shown now, so that waiting for `selector` without the tag waits for the next one."""
    view.evaluate("(s) => document.querySelectorAll(s).forEach(e => e.dataset.old = '1')", selector)


def _no_error_pill(view, element: str) -> None:
    assert view.locator(f"{element} .error").count() == 0, view.locator(element).inner_html()


@VIEWS
def test_each_library_action_replaces_the_last_message_and_leaves_the_form_usable(  # noqa: F811
        browser, app_url, tmp_path, width, dark):  # noqa: F811
    files = {name: tmp_path / f"{name}.md" for name in ("lighthouse", "lighthouse-2027", "lighthouse-broken",
                                                        "lighthouse-2028")}
    for (name, path), text in zip(files.items(), (LIGHTHOUSE, LIGHTHOUSE_V4, BROKEN, LIGHTHOUSE_V5)):
        path.write_text(text, "utf-8")
    context, view = open_view(browser, app_url, width, dark)
    _upload(view, files["lighthouse"])
    view.get_by_role("tab", name="Library").click()

    said = _replace(view, files["lighthouse-2027"], "v4")
    assert "✓ replaced lighthouse (v3 → v4" in said
    said = _replace(view, None, pick=False)  # Replace again at once, with nothing chosen
    assert "replaced lighthouse" not in said and said.startswith("✗") and "choose" in said, said
    _no_error_pill(view, "#replace-status")
    said = _replace(view, files["lighthouse-broken"], "v5")  # a file the server refuses
    assert "replaced lighthouse" not in said and "impossible date" in said and "previous version stays" in said
    _no_error_pill(view, "#replace-status")
    assert view.locator("#replace-file").get_by_text("lighthouse-broken").count() == 0  # the refused file is gone
    assert view.locator("#replace-version input").input_value() == "v5"  # the label stays for the next try
    shot(view, f"library-replace-refused-{'dark' if dark else 'light'}-{width}.png")
    said = _replace(view, files["lighthouse-2028"], "v5")  # and the next action works
    assert "✓ replaced lighthouse (v4 → v5" in said and "not received" not in said
    view.locator("#library-table tr", has_text="lighthouse").get_by_text("v5").wait_for()

    view.locator("#delete-doc").click()  # Delete with nothing chosen: its own line, the replace line cleared
    view.locator("#delete-result").get_by_text("✗", exact=False).wait_for()
    assert view.locator("#replace-status").inner_text().strip() == ""
    _no_error_pill(view, "#delete-status")
    view.locator("#delete-pick input").click()
    view.get_by_role("option", name=re.compile(r"^lighthouse \(")).click()
    _mark_old(view, "#delete-result")
    view.locator("#delete-doc").click()
    view.locator("#delete-result:not([data-old])").get_by_text("✓ deleted lighthouse").wait_for()
    assert "✗" not in view.locator("#delete-status").inner_text()
    context.close()


# --------------------------------------------------------------------------- 4. the library's width and order

_CELLS = """(column) => [...document.querySelectorAll('#library-table tbody tr')].map(r => r.children[column])"""


def _column(view, index: int) -> list[str]:
    return view.evaluate(f"() => ({_CELLS})({index}).map(c => c.dataset.sort !== undefined ? c.dataset.sort"
                         " : c.innerText.trim())")


@VIEWS
def test_the_library_has_the_width_it_needs_and_sorts_by_any_column(browser, app_url, width, dark):  # noqa: F811
    context, view = open_view(browser, app_url, width, dark)
    view.get_by_role("tab", name="Library").click()
    table = view.locator("#library-table")
    table.wait_for()
    # no cell of a short column wraps (issue 51: one word per line, "pages / lines" cut in its own scroll box)
    wrapped = view.evaluate("""() => [...document.querySelectorAll('#library-table td.nowrap')].filter(td => {
        const range = document.createRange(); range.selectNodeContents(td);
        return range.getClientRects().length > 1; }).map(td => td.innerText)""")
    assert wrapped == []
    assert view.evaluate("() => { const l = document.getElementById('library');"
                         " return l.scrollHeight <= l.clientHeight + 1; }")  # no box scrolled up and down inside
    if width >= 1000:  # the whole table at once, at the page's full width
        assert view.evaluate("() => { const l = document.getElementById('library');"
                             " return l.scrollWidth <= l.clientWidth + 1; }")
        results = view.locator("#results").bounding_box()
        assert table.bounding_box()["width"] >= 0.9 * results["width"]
    headers = [h.strip(" ↕▲▼") for h in table.locator("th").all_inner_texts()]
    chunks, lines = headers.index("chunks"), headers.index("pages / lines")

    table.locator("th button", has_text="pages / lines").click()
    assert table.locator("th").nth(lines).get_attribute("aria-sort") == "ascending"
    numbers = [int(v) for v in _column(view, lines)]
    assert numbers == sorted(numbers) and numbers[0] < numbers[-1]
    table.locator("th button", has_text="pages / lines").click()
    numbers = [int(v) for v in _column(view, lines)]
    assert numbers == sorted(numbers, reverse=True)
    table.get_by_role("button", name=re.compile(r"^id\b")).click()
    ids = _column(view, 0)
    assert ids == sorted(ids, key=str.casefold)
    # the order holds when the table is drawn again (a change of groups refreshes it)
    view.locator("#groups textarea, #groups input").first.fill("staff")
    view.locator("#groups textarea, #groups input").first.press("Tab")
    view.wait_for_timeout(1500)
    assert _column(view, 0) == sorted(_column(view, 0), key=str.casefold)
    assert table.locator("th").nth(0).get_attribute("aria-sort") == "ascending"
    assert chunks >= 0
    shot(view, f"library-{'dark' if dark else 'light'}-{width}.png")
    context.close()


# --------------------------------------------------------------------------- 6. the results stay at the top


def _top(view, selector: str, edge: str = "top") -> float:
    return view.evaluate(f"() => document.querySelector('{selector}').getBoundingClientRect().{edge} + window.scrollY")


@VIEWS
def test_the_answer_stays_right_under_the_question_however_long_the_history(  # noqa: F811
        browser, app_url, width, dark):  # noqa: F811
    context, view = open_view(browser, app_url, width, dark)
    results_before = _top(view, "#results")
    names = ["expired-only", "passport-renewal", "parrot", "line-3-only", "budget-250", "propose-600-cite-v2"]
    for count, name in enumerate(names, start=1):
        view.locator(f"#demo-{name}").click()
        _turns(view, count)
    assert abs(_top(view, "#results") - results_before) <= 2  # the history never pushes the results down
    if width >= 1000:  # the form and the results together: nothing between the Ask button and the tabs
        assert _top(view, "#results") - _top(view, "#ask", "bottom") < 120
    conversation = view.locator("#conversation")
    assert view.locator("#history-table").is_hidden()  # collapsed until opened
    conversation.get_by_text(f"Conversation ({len(names)} turns)", exact=False).click()
    view.locator("#history-table tbody tr").nth(len(names) - 1).wait_for()
    shot(view, f"history-below-{'dark' if dark else 'light'}-{width}.png")
    context.close()


# --------------------------------------------------------------------------- 8. every tab one tap away on a phone


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_every_result_tab_is_one_tap_away_at_phone_width(browser, app_url, dark):  # noqa: F811
    context, view = open_view(browser, app_url, 390, dark)
    names = ["1 Chunks", "2 Candidates", "3 Context", "4 Answer", "5 Source", "Check an answer", "Library",
             "Evaluation"]
    for name in names:
        tab = view.get_by_role("tab", name=name)
        tab.wait_for()  # visible: not folded into a "More tabs" menu
        box = tab.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (name, box)
    assert view.get_by_label("More tabs").count() == 0 or not view.get_by_label("More tabs").is_visible()
    view.get_by_role("tab", name="5 Source").click()
    view.locator("#citation").wait_for()
    view.get_by_role("tab", name="Check an answer").click()
    view.locator("#check-text").wait_for()
    shot(view, f"phone-tabs-{'dark' if dark else 'light'}.png")
    context.close()


# --------------------------------------------------------------------------- 8. reasons in whole words


def test_a_question_with_a_hyphenated_word_is_never_refused_for_a_piece_of_it(page, tmp_path):  # noqa: F811
    rule = tmp_path / "drone-rule.md"
    rule.write_text("---\nid: drone-rule\n---\nRemote identification of unmanned aircraft.\nDrones registered in the "
                    "United States must broadcast Remote ID from 16 September 2023.\nOperators without a broadcast "
                    "module must fly in recognised areas.\n", "utf-8")
    _upload(page, rule)
    ask(page, "When must U.S.-registered drones broadcast Remote ID?", topic="")
    answer = page.locator("#answer")
    answer.locator(".rag-badge").first.wait_for()
    shown = answer.inner_text()
    assert not re.search(r"(?<![\w.])-registered", shown), shown  # "the question names -registered" leaked before
    assert "16 September 2023" in shown and "✓ answered" in shown


# --------------------------------------------------------------------------- 8. labels on a PDF page


LEFT = ["Harbour rules for visiting boats.", "Every boat registers at the office.",
        "The mooring fee is 18 euros per night.", "Water and power cost 4 euros a day.", "Quiet hours start at 22:00.",
        "Showers are free for crews."]
RIGHT = ["Ferry timetable notes for the winter season.", "The first ferry of the day leaves at 06:40.",
         "The last ferry of the day returns at 21:15.", "Bicycles travel free of charge on every ferry.",
         "Dogs must stay on a lead on the ferry deck.", "Tickets are sold on board and at the kiosk."]


def two_column_pdf(path: Path) -> None:
    """Two columns of tightly set lines (13.5 pt apart at 11 pt): no room for a label between two lines."""
    import pymupdf

    doc = pymupdf.open()
    sheet = doc.new_page()
    for row, (left, right) in enumerate(zip(LEFT, RIGHT)):
        sheet.insert_text((72, 90 + 13.5 * row), left, fontsize=11)
        sheet.insert_text((320, 90 + 13.5 * row), right, fontsize=11)
    doc.save(str(path))


def _changed_share(plain, drawn, box, scale: float) -> float:
    """The share of the pixels of `box`'s middle band (PDF points, 4 pt off its top and bottom: the highlight's frame and
    underline next door reach into the lines' padded boxes) that differ between the plain page and the drawn one."""
    from PIL import ImageChops

    area = (int(box.x0 * scale), int((box.y0 + 4) * scale), int(box.x1 * scale), int((box.y1 - 4) * scale))
    difference = ImageChops.difference(plain.crop(area).convert("L"), drawn.crop(area).convert("L"))
    changed = sum(1 for value in difference.getdata() if value > 40)
    return changed / max(1, (area[2] - area[0]) * (area[3] - area[1]))


def test_a_label_on_a_pdf_page_covers_no_other_line_nor_the_next_column(page, tmp_path):  # noqa: F811
    from PIL import Image

    from pipeline.ingest.parsers.pdf_layout import parse_pdf
    from pipeline.render.pdf import render_pdf_page

    pdf = tmp_path / "harbour-notes.pdf"
    two_column_pdf(pdf)
    _upload(page, pdf)
    ask(page, "When do quiet hours start?", topic="")
    page.locator("#answer").get_by_text("✓ answered").wait_for()
    assert "harbour-notes page 1 line 5" in page.locator("#answer").inner_text()
    page.get_by_role("tab", name="5 Source").click()
    page.wait_for_function("() => { const i = document.querySelector('#source-image img');"
                           " return i && i.complete && i.naturalWidth > 500; }")
    source = page.locator("#source-image img").get_attribute("src")
    drawn = Image.open(io.BytesIO(page.request.get(source).body())).convert("RGB")
    document = parse_pdf(pdf.read_bytes(), pdf.name)
    # the same page drawn the same way with nothing on it (the viewer's default zoom)
    plain = Image.open(io.BytesIO(render_pdf_page(pdf.read_bytes(), document, 1, [], zoom=1.5))).convert("RGB")
    assert plain.size == drawn.size
    scale = drawn.width / document.pages[0].width
    shares = {line.number: _changed_share(plain, drawn, line.box, scale) for line in document.pages[0].lines}
    assert shares[5] > 0.2  # the cited line is highlighted
    covered = {number: round(share, 3) for number, share in shares.items() if number != 5 and share > 0.02}
    assert covered == {}, covered  # every other line of both columns reads as printed
    shot(page, "pdf-label-two-columns.png")
