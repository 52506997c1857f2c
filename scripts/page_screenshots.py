"""The screenshots in docs/screenshots (and docs/screenshot.png): every demo, an abstention, a conflict, a table answer
and its source table, the library, the signed-in header and the phone layout, in light and dark, taken from the real
app in Debian's Chromium.

    uv run --frozen python scripts/page_screenshots.py [OUT_DIR]      # default docs/screenshots

The app runs in this process on a free port with its own vector cache and library folder (nothing under ./data is
touched); the signed-in shots use a temporary users file. Each image is the browser's viewport (what a person sees),
stored as a 256-colour PNG to keep the repository small. Look at every image before committing them.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WORK = Path(tempfile.mkdtemp(prefix="page-screenshots-"))
os.environ.setdefault("RAG_CACHE_DIR", str(WORK / "chroma"))
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

CHROMIUM = "/usr/bin/chromium"
TITLE = "Auditable RAG — a cited-answer engine you can audit"
DARK_DEMOS = {"supported-en", "conflict-750-800", "expired-only", "propose-600-cite-v2"}


def save(view, path: Path, element: str | None = None) -> None:
    """The viewport (or one element, whole) as a 256-colour PNG."""
    from PIL import Image

    shot = view.locator(element).screenshot() if element else view.screenshot()
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    print(path, f"{path.stat().st_size // 1024} KiB")


def open_view(browser, url: str, width: int = 1440, dark: bool = False, height: int = 1000):
    context = browser.new_context(viewport={"width": width, "height": height},
                                  color_scheme="dark" if dark else "light")
    view = context.new_page()
    view.set_default_timeout(60_000)
    view.goto(url + ("?__theme=dark" if dark else ""))
    return context, view


def ready(view) -> None:
    view.get_by_text(TITLE).wait_for()
    for drawn in ("#results [role=tab]", "#conversation", "#demo-row button"):
        view.locator(drawn).first.wait_for()


def to_results(view) -> None:
    view.evaluate("() => document.getElementById('results').scrollIntoView({block: 'start'})")
    view.wait_for_timeout(300)


def ask(view, question: str, topic: str, outcome: str) -> None:
    """Ask `question` (under `topic`) and wait for the Answer panel's badge `outcome` ("✓ answered", "✗ abstained")."""
    view.locator("#question textarea, #question input").first.fill(question)
    view.locator("#topic textarea, #topic input").first.fill(topic)
    view.locator("#ask").click()
    view.locator("#answer").get_by_text(outcome).wait_for()
    view.wait_for_timeout(500)


def demos(browser, url: str, out: Path) -> None:
    from ui.demos import DEMOS

    for dark in (False, True):
        context, view = open_view(browser, url, dark=dark)
        ready(view)
        for count, (_, name) in enumerate(DEMOS, start=1):
            view.locator(f"#demo-{name}").click()
            view.locator("#conversation").get_by_text(f"Conversation ({count} turn", exact=False).wait_for()
            if dark and name not in DARK_DEMOS:
                continue
            save(view, out / f"demo-{name}-{'dark' if dark else 'light'}.png", element="#results")
        if not dark:  # the conflict's two sources side by side
            view.locator("#demo-conflict-750-800").click()
            view.locator("#conversation").get_by_text(f"Conversation ({len(DEMOS) + 1} turns", exact=False).wait_for()
            view.get_by_role("tab", name="5 Source").click()
            view.locator("#conflict").wait_for()
            save(view, out / "conflict-source-light.png", element="#results")
        context.close()


def answer_and_library(browser, url: str, out: Path) -> None:
    for width, dark in ((1440, False), (1440, True), (390, False), (390, True)):
        theme = f"{'dark' if dark else 'light'}-{width}"
        context, view = open_view(browser, url, width, dark, height=1000 if width > 1000 else 844)
        ready(view)
        ask(view, "Beijing lodging", "travel", "✓ answered")
        if width > 1000 and not dark:
            view.evaluate("() => window.scrollTo(0, 0)")
            save(view, ROOT / "docs" / "screenshot.png")
        save(view, out / f"answer-{theme}.png")
        ask(view, "Who are the authors of this publication?", "", "✗ abstained")
        save(view, out / f"abstention-{theme}.png", element="#results")
        view.get_by_role("tab", name="Library").click()
        view.locator("#library-table").wait_for()
        view.locator("#library-table th button", has_text="pages / lines").click()
        to_results(view)
        save(view, out / f"library-{theme}.png")
        context.close()


PEOPLE = ("name,occupation,born,died\nCarrie Fisher,actor,1956-10-21,2016-12-27\n"
          "David Bowie,musician,1947-01-08,2016-01-10\nPrince,musician,1958-06-07,2016-04-21\n"
          "Alan Rickman,actor,1946-02-21,2016-01-14\n")


def table_answer(browser, url: str, out: Path) -> None:
    """An answer from a CSV's row: the row and the asked column said in one line, the row under its header; and the
    Source tab's table around the row, the asked cell framed (at 390 px too, scrolled to that cell)."""
    table = WORK / "deaths-2016.csv"
    table.write_text(PEOPLE, encoding="utf-8")
    for width, dark in ((1440, False), (1440, True), (390, False), (390, True)):
        theme = f"{'dark' if dark else 'light'}{'' if width > 1000 else '-390'}"
        context, view = open_view(browser, url, width, dark, height=1000 if width > 1000 else 844)
        ready(view)
        view.get_by_text("Upload documents (only you see them)").click()
        view.locator("#upload-files input[type=file]").set_input_files([str(table)])
        view.locator("#upload").click()
        view.locator("#upload-status").get_by_text("added deaths-2016").wait_for()
        view.wait_for_function("() => !document.querySelector('#upload').disabled")
        ask(view, "When did David Bowie die?", "", "✓ answered")
        for close in view.locator(".toast-close").all():  # the upload's "Added 1 document(s)" would cover the table
            close.click()
        view.wait_for_function("() => !document.querySelector('.toast-body')")  # gone, not caught fading
        if width > 1000:
            save(view, out / f"table-answer-{theme}.png", element="#results")
        view.get_by_role("tab", name="5 Source").click()
        view.locator("#source-table td.asked").wait_for()
        view.wait_for_timeout(500)  # the table is scrolled sideways to the asked cell after it is drawn
        save(view, out / f"table-source-{theme}.png", element="#results")
        context.close()


def signed_in(browser, url: str, out: Path) -> None:
    for width, dark in ((1440, False), (1440, True), (390, False), (390, True)):
        context, view = open_view(browser, url, width, dark, height=1000 if width > 1000 else 844)
        view.get_by_text("Sign in to read the documents your groups allow.").wait_for()
        save(view, out / f"sign-in-{'dark' if dark else 'light'}-{width}.png") if width > 1000 else None
        view.locator("input[type=text]").fill("alice")
        view.locator("input[type=password]").fill("alice-password-1")
        view.get_by_role("button", name="Login").click()
        ready(view)
        view.locator("#account").get_by_text("Signed in as").wait_for()
        save(view, out / f"signed-in-header-{'dark' if dark else 'light'}-{width}.png")
        context.close()


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    from pipeline import Accounts, Library, add_user
    from tests.conftest import serve_app
    from ui.app import create_app
    from ui.state import load_shared

    out.mkdir(parents=True, exist_ok=True)
    shared = load_shared(library=Library(WORK / "data"))
    users = WORK / "users.yaml"
    add_user(users, "alice", "alice-password-1", ("executives", "library-admin"))
    signed = load_shared(shared.engine, accounts=Accounts.from_file(users), library=Library(WORK / "data-signed-in"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        with serve_app(create_app(shared)) as url:
            demos(browser, url, out)
            answer_and_library(browser, url, out)
            table_answer(browser, url, out)
        with serve_app(create_app(signed)) as url:
            signed_in(browser, url, out)
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots")
