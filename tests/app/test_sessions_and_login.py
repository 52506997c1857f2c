"""Every login costs a bounded amount and a session belongs to its user (issue 24, findings 6-8).

The app here has sign-in (a users file) and a shared library holding a restricted document. Each test
reproduces what an attack probe of the app did: guessed passwords, stormed `/login` while others used the
app, asked about a restricted document's existence through delete and replace, and replayed another
user's `session_hash`. Nothing is timed against a fixed threshold: the storm test compares /healthz with
the verifications it runs beside.
"""

from __future__ import annotations

import statistics
import threading
import time
import uuid

import httpx
import pytest

from pipeline import Accounts, Incoming, Library, add_user
from tests.conftest import app_client, serve_app

RESTRICTED_LIBRARY = "board-minutes"
SECRET_TEXT = "The board approved 4,812 new parrots."
ASK = ["board parrots approved", "2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200, "before_cutoff", "hybrid"]


@pytest.fixture(scope="module")
def library_app(tmp_path_factory, engine):
    """The app with users alice (executives, library-admin), bob (no group), dave (library-admin only) and a
    library document readable by executives only. Yields (url, app)."""
    from ui.app import create_app
    from ui.state import load_shared

    folder = tmp_path_factory.mktemp("signed-in")
    users = folder / "users.yaml"
    add_user(users, "alice", "alice-password-1", ("executives", "library-admin"))
    add_user(users, "bob", "bob-password-22", ())
    add_user(users, "dave", "dave-password-333", ("library-admin",))
    add_user(users, "carol", "carol-password-4444", ())
    library = Library(folder / "data")
    minutes = f"---\nid: {RESTRICTED_LIBRARY}\naccess: [executives]\n---\n{SECRET_TEXT}\n"
    library.add(engine, [Incoming("board-minutes.md", minutes.encode())])
    app = create_app(load_shared(engine, accounts=Accounts.from_file(users), library=library))
    with serve_app(app) as url:
        yield url, app


@pytest.fixture
def guard(library_app):
    """The app's sign-in guard, with no failures counted before or after the test (None in an app without one:
    the tests then show what such an app does)."""
    login_guard = getattr(library_app[1].state, "login_guard", None)
    if login_guard is None:
        yield None
        return
    from ui.login import Lockouts

    login_guard.lockouts = Lockouts()
    yield login_guard
    login_guard.lockouts = Lockouts()


def login(url: str, user: str, password: str) -> httpx.Response:
    return httpx.post(url + "login", data={"username": user, "password": password}, timeout=120)


def client(url: str, user: str, password: str):
    return app_client(url, auth=(user, password))


# --------------------------------------------------------------------------- 6. sign-in


def test_failed_sign_ins_lock_the_account_and_say_when_to_try_again(library_app, guard, monkeypatch):
    """50 wrong passwords and then the right one used to get 200: nothing counted failures."""
    from pipeline import limits

    url = library_app[0]
    monkeypatch.setattr(limits, "LOGIN_LOCK_FIRST_S", 2, raising=False)
    for _ in range(getattr(limits, "LOGIN_FREE_FAILURES_PER_ACCOUNT", 5)):
        assert login(url, "carol", "not-her-password").status_code == 400
    locked = login(url, "carol", "carol-password-4444")  # even the right password waits for the lock
    assert locked.status_code == 429 and locked.json()["detail"] == "too many failed sign-ins; try again in 2 s"
    assert locked.headers["retry-after"] == "2"
    assert guard.lockouts.locked_for("account:bob@address:127.0.0.1", limits.LOGIN_FREE_FAILURES_PER_ACCOUNT) == 0  # others sign in
    time.sleep(2.2)
    assert login(url, "carol", "carol-password-4444").status_code == 200
    assert login(url, "carol", "not-her-password").status_code == 400  # a success cleared carol's failures


def test_one_address_guessing_at_many_accounts_is_locked(library_app, guard, monkeypatch):
    from pipeline import limits

    url = library_app[0]
    monkeypatch.setattr(limits, "LOGIN_FREE_FAILURES_PER_ADDRESS", 3, raising=False)
    for index in range(3):
        assert login(url, f"nobody-{index}", "a-guess-123").status_code == 400
    refused = login(url, "alice", "alice-password-1")
    assert refused.status_code == 429 and "try again in" in refused.json()["detail"]


def test_password_verification_runs_off_the_event_loop(library_app, guard, monkeypatch):
    """argon2 ran inside Gradio's async /login: while it ran, the server answered nothing else."""
    from argon2 import PasswordHasher

    url = library_app[0]
    entered, release = threading.Event(), threading.Event()
    real = PasswordHasher.verify

    def slow_verify(self, stored, password):
        entered.set()
        release.wait(60)
        return real(self, stored, password)

    monkeypatch.setattr(PasswordHasher, "verify", slow_verify)  # the hash check itself, however it is reached
    answer = {}
    signing_in = threading.Thread(target=lambda: answer.setdefault("login", login(url, "bob", "bob-password-22")))
    signing_in.start()
    try:
        assert entered.wait(60)
        health = httpx.get(url + "healthz", timeout=30)  # answered while the verification is still held
        assert health.status_code == 200 and signing_in.is_alive()
    finally:
        release.set()
        signing_in.join(120)
    assert answer["login"].status_code == 200


def test_a_login_storm_does_not_hold_healthz(library_app, guard, monkeypatch):
    """8 threads of wrong passwords took /healthz from 4 ms to a 15.8 s median. Here /healthz is compared with
    the argon2 verifications running beside it: it never waits for one (its median is under theirs), and
    at most LOGIN_VERIFICATIONS_AT_ONCE run at once (each takes 64 MiB)."""
    from pipeline import limits

    url = library_app[0]
    monkeypatch.setattr(limits, "LOGIN_FREE_FAILURES_PER_ADDRESS", 10_000, raising=False)
    from argon2 import PasswordHasher

    real, verifications = PasswordHasher.verify, []

    def timed(self, stored, password):
        started = time.perf_counter()
        try:
            return real(self, stored, password)
        finally:
            verifications.append(time.perf_counter() - started)

    monkeypatch.setattr(PasswordHasher, "verify", timed)
    storming = threading.Event()
    storming.set()

    def storm(thread: int) -> None:
        for attempt in range(3):
            login(url, f"guess-{thread}-{attempt}-{uuid.uuid4().hex[:4]}", "a-wrong-password")

    health: list[float] = []

    def poll() -> None:
        while storming.is_set():
            started = time.perf_counter()
            httpx.get(url + "healthz", timeout=120)
            health.append(time.perf_counter() - started)
            time.sleep(0.05)

    poller = threading.Thread(target=poll)
    poller.start()
    attackers = [threading.Thread(target=storm, args=(n,)) for n in range(8)]
    for attacker in attackers:
        attacker.start()
    for attacker in attackers:
        attacker.join(600)
    storming.clear()
    poller.join(120)
    assert len(verifications) == 24 and len(health) >= 10
    assert statistics.median(health) < statistics.median(verifications)
    assert guard is not None and guard.most_verifying <= limits.LOGIN_VERIFICATIONS_AT_ONCE


# --------------------------------------------------------------------------- 7. no existence oracle


def _refusal(call) -> str:
    from gradio_client.exceptions import AppError

    with pytest.raises(AppError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize("user,password", [("bob", "bob-password-22"), ("dave", "dave-password-333")])
def test_delete_and_replace_answer_a_restricted_document_like_an_unknown_one(library_app, guard, tmp_path, user,
                                                                            password):
    """Signed in without its group, /delete_document said "is a shared sample or library document" for a
    restricted document and "is not one of your uploads" for an unknown id; /replace_document named it."""
    from gradio_client import handle_file

    url = library_app[0]
    someone = client(url, user, password)
    new_version = tmp_path / "v2.md"
    new_version.write_text("A new version.\n")
    unknown = f"no-such-{uuid.uuid4().hex[:6]}"
    answers = {}
    for source_id in (RESTRICTED_LIBRARY, unknown):
        deleted = _refusal(lambda sid=source_id: someone.predict(sid, api_name="/delete_document"))
        replaced = _refusal(lambda sid=source_id: someone.predict(sid, handle_file(str(new_version)), "v2",
                                                                  api_name="/replace_document"))
        answers[source_id] = (deleted.replace(source_id, "ID"), replaced.replace(source_id, "ID"))
    assert answers[RESTRICTED_LIBRARY] == answers[unknown]
    assert "not one of your uploads" in answers[unknown][0]
    readable = _refusal(lambda: someone.predict("travel-v2", api_name="/delete_document"))
    assert "read-only" in readable  # what the caller may read is still named for what it is


def test_a_member_still_replaces_the_restricted_library_document(library_app, guard, tmp_path):
    from gradio_client import handle_file

    url = library_app[0]
    alice = client(url, "alice", "alice-password-1")
    denied = _refusal(lambda: client(url, "bob", "bob-password-22").predict(
        RESTRICTED_LIBRARY, api_name="/delete_document"))
    assert "not one of your uploads" in denied
    new_version = tmp_path / "minutes-v2.md"
    new_version.write_text(f"---\nid: {RESTRICTED_LIBRARY}\naccess: [executives]\n---\n{SECRET_TEXT} Again.\n")
    report = alice.predict(RESTRICTED_LIBRARY, handle_file(str(new_version)), "v2", api_name="/replace_document")
    assert report["replaced"] == RESTRICTED_LIBRARY and report["where"] == "library"


# --------------------------------------------------------------------------- 8. a session belongs to its user


def test_another_users_session_hash_reaches_nothing_of_hers(library_app, guard):
    """With alice's session_hash (it is in every queue/data URL, so in proxy logs) bob read her restricted
    answer and packed context through /history and /reopen_turn."""
    from gradio_client.exceptions import AppError

    url = library_app[0]
    alice = client(url, "alice", "alice-password-1")
    trace = alice.predict(*ASK, api_name="/ask")
    assert RESTRICTED_LIBRARY in str(trace)  # her trace names the restricted document (and holds its text)
    bob = client(url, "bob", "bob-password-22")
    bob.session_hash = alice.session_hash
    for call in (lambda: bob.predict(api_name="/history"), lambda: bob.predict("1", api_name="/reopen_turn"),
                 lambda: bob.predict(*ASK, api_name="/ask")):
        with pytest.raises((AppError, ValueError, httpx.HTTPError)) as caught:
            call()
        assert RESTRICTED_LIBRARY not in str(caught.value)
    raw = httpx.post(url + "gradio_api/call/history", json={"data": [], "session_hash": alice.session_hash},
                     cookies=bob.cookies, timeout=60)
    assert raw.status_code == 403 and "belongs to another user" in raw.json()["detail"]
    for path in (f"gradio_api/queue/data?session_hash={alice.session_hash}",
                 f"gradio_api/heartbeat/{alice.session_hash}"):
        assert httpx.get(url + path, cookies=bob.cookies, timeout=60).status_code == 403
    turns = alice.predict(api_name="/history")  # alice's own session is untouched
    assert turns and turns[-1]["asked"] == ASK[0]


def test_a_session_used_by_another_user_is_refused_inside_the_handlers_too():
    """ui.accounts.requester_groups: the second line of defence, should a request reach a handler."""
    from types import SimpleNamespace

    from pipeline import InputError
    from ui.accounts import requester_groups
    from ui.state import Session

    class Users:
        def groups(self, user):
            return {"alice": ("executives",)}.get(user, ())

    session = Session()
    assert requester_groups(Users(), session, "", SimpleNamespace(username="alice")) == ("executives",)
    with pytest.raises(InputError, match="belongs to another user"):
        requester_groups(Users(), session, "", SimpleNamespace(username="bob"))


def test_sign_ins_past_those_waiting_are_told_the_server_is_busy(tmp_path, monkeypatch):
    """Each waiting sign-in holds a request open: past LOGIN_WAITING_MAX the next is answered at once with 429."""
    import asyncio

    from fastapi import HTTPException

    from pipeline import limits
    from ui.login import LoginGuard

    users = tmp_path / "users.yaml"
    add_user(users, "erin", "erin-password-55555", ())
    guard = LoginGuard(Accounts.from_file(users))
    monkeypatch.setattr(limits, "LOGIN_WAITING_MAX", 2)

    async def storm():
        return await asyncio.gather(*(guard.login("erin", "erin-password-55555") for _ in range(3)),
                                    return_exceptions=True)

    first, second, third = asyncio.run(storm())
    assert first is True and second is True  # the two waiting were verified, one at a time
    assert isinstance(third, HTTPException) and third.status_code == 429
    assert third.detail == "the server is busy with other sign-ins; try again in 5 s"
    assert third.headers == {"Retry-After": "5"}
    assert guard.most_verifying == 1
