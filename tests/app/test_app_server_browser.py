"""The app as `python app.py` runs it, with sign-in on, in a real browser (issue 51, points 5 and 8): the header names
the account and its groups and signs out; a tab left open while the server restarts asks to sign in again instead of
doing nothing on Ask; and Ctrl+C with a tab open stops the server at once, without a traceback.

The server is a subprocess (a restart and a signal need a process of their own), on a free port, with its own users
file, library folder and vector cache. Screenshots go to test-artifacts/ in light and dark, at 1440 and 390 px.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.app.test_app_browser import ARTIFACTS, ROOT, TIMEOUT_MS, browser  # noqa: F401 (the fixture)
from tests.conftest import _free_port, subprocess_env

pytestmark = [pytest.mark.slow, pytest.mark.browser]
USER, PASSWORD, GROUPS = "alice", "alice-password-1", ("executives", "library-admin")
TITLE = "Auditable RAG — a cited-answer engine you can audit"
STARTUP_S = 120


class AppProcess:
    """`python app.py` on `port`: started, stopped by a signal, started again on the same port."""

    def __init__(self, folder, port: int) -> None:
        from pipeline import add_user

        users = folder / "users.yaml"
        add_user(users, USER, PASSWORD, GROUPS)
        self.env = subprocess_env(AUTH_USERS_FILE=str(users), DATA_DIR=str(folder / "data"),
                                  GRADIO_SERVER_PORT=str(port), RAG_WORKERS="1")
        self.url = f"http://127.0.0.1:{port}/"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, "app.py"], cwd=ROOT, env=self.env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + STARTUP_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("the app exited at start:\n" + self.process.stdout.read())
            try:
                urllib.request.urlopen(self.url + "healthz", timeout=2)
                return
            except OSError:
                time.sleep(0.25)
        raise RuntimeError(f"the app did not answer within {STARTUP_S} s")

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def interrupt(self, within_s: float = 30) -> tuple[float, int, str]:
        """Ctrl+C: (seconds until it exited, its exit status, everything it printed)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        try:
            status = self.process.wait(timeout=within_s)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return within_s, -9, self.process.stdout.read()
        return time.monotonic() - started, status, self.process.stdout.read()


@pytest.fixture(scope="module")
def app_process(tmp_path_factory):
    server = AppProcess(tmp_path_factory.mktemp("signed-in-app"), _free_port())
    server.start()
    yield server
    if server.running():
        server.process.kill()
        server.process.wait()


def _open(browser, url: str, width: int = 1440, dark: bool = False):  # noqa: F811
    context = browser.new_context(viewport={"width": width, "height": 1000}, color_scheme="dark" if dark else "light")
    view = context.new_page()
    view.set_default_timeout(TIMEOUT_MS)
    view.goto(url + ("?__theme=dark" if dark else ""))
    return context, view


def _sign_in(view) -> None:
    view.get_by_text("Sign in to read the documents your groups allow.").wait_for()
    view.locator("input[type=text]").fill(USER)
    view.locator("input[type=password]").fill(PASSWORD)
    view.get_by_role("button", name="Login").click()
    view.get_by_text(TITLE).wait_for()


def _ask(view) -> None:
    view.locator("#question textarea, #question input").first.fill("Beijing lodging")
    view.locator("#topic textarea, #topic input").first.fill("travel")
    view.locator("#ask").click()


@pytest.mark.parametrize("width,dark", [(1440, False), (390, True)], ids=["light-1440", "dark-390"])
def test_the_header_names_the_account_and_its_groups_and_signs_out(browser, app_process, width, dark):  # noqa: F811
    if not app_process.running():
        app_process.start()
    context, view = _open(browser, app_process.url, width, dark)
    _sign_in(view)
    header = view.locator("#account")
    header.get_by_text("Signed in as").wait_for()
    assert view.locator("#account-name").inner_text() == USER
    assert view.locator("#account-groups").inner_text() == ", ".join(GROUPS)
    box = view.locator("#sign-out").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width  # reachable at phone width
    ARTIFACTS.mkdir(exist_ok=True)
    view.screenshot(path=str(ARTIFACTS / f"signed-in-header-{'dark' if dark else 'light'}-{width}.png"))
    view.locator("#sign-out").click()
    view.get_by_text("Sign in to read the documents your groups allow.").wait_for()  # signed out: the sign-in form
    view.goto(app_process.url)
    view.get_by_text("Sign in to read the documents your groups allow.").wait_for()  # and it stays signed out
    context.close()


def test_a_tab_open_across_a_restart_is_asked_to_sign_in_again(browser, app_process):  # noqa: F811
    if not app_process.running():
        app_process.start()
    context, view = _open(browser, app_process.url)
    _sign_in(view)
    _ask(view)
    view.locator("#answer").get_by_text("✓ answered").wait_for()
    seconds, status, printed = app_process.interrupt()
    assert seconds < 10, (seconds, printed[-2000:])
    app_process.start()  # the same port: the open tab's sign-in is unknown to the new process
    _ask(view)
    banner = view.locator("#signed-out")
    banner.wait_for()
    assert "You are no longer signed in" in banner.inner_text() and "Sign in again" in banner.inner_text()
    assert view.evaluate("() => document.body.classList.contains('rag-signed-out')")  # the stale answer is dimmed
    ARTIFACTS.mkdir(exist_ok=True)
    view.screenshot(path=str(ARTIFACTS / "signed-out-prompt.png"))
    banner.get_by_text("Sign in again").click()
    _sign_in(view)
    _ask(view)
    view.locator("#answer").get_by_text("✓ answered").wait_for()
    assert view.locator("#signed-out").count() == 0
    context.close()


def test_ctrl_c_with_a_tab_open_stops_at_once_without_a_traceback(browser, app_process):  # noqa: F811
    if not app_process.running():
        app_process.start()
    context, view = _open(browser, app_process.url)
    _sign_in(view)
    _ask(view)
    view.locator("#answer").get_by_text("✓ answered").wait_for()
    seconds, status, printed = app_process.interrupt(within_s=30)
    context.close()
    assert seconds < 10, f"Ctrl+C took {seconds:.1f} s with a tab open"
    assert status == 130, (status, printed[-3000:])
    assert "Traceback" not in printed and "CancelledError" not in printed, printed[-3000:]
    assert "Finished server process" in printed
