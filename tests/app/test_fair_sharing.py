"""Eight people share the free host fairly: nobody can crowd out, wipe or stall another user (issue 50).

An outside probe found that every user drew on one session table, one upload lane and two global budgets:
1. 520 anonymous `/history` calls with fresh session hashes pushed a victim's session (and its uploads) out of
   Gradio's 500-session table in ~20 s;
3. three sessions of one client held the whole 128 MiB upload budget, and every other upload was refused;
4. one account filled the shared 100 MB upload folder in ~61 s, and others got 507 for 15 minutes;
5. (finding 2's other half) a client's uploads waited behind everyone's, in one first-come lane;
6. five bad sign-ins from anywhere locked a known user out.

The app's clients here tell it their address with X-Forwarded-For, which uvicorn takes from 127.0.0.1 (a proxy's),
so one test machine is several clients. Nothing is timed: each test checks who got what, and in which order.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from types import SimpleNamespace

import httpx
import pytest

from tests.conftest import app_client, serve_app


def client_at(url: str, address: str, **options):
    return app_client(url, headers={"X-Forwarded-For": address}, **options)


def history_call(url: str, address: str, session_hash: str | None) -> int:
    """POST /call/history as `address` (a fresh session when the hash is new); its status, the event read through."""
    body = {"data": []} if session_hash is None else {"data": [], "session_hash": session_hash}
    headers = {"X-Forwarded-For": address}
    started = httpx.post(f"{url}gradio_api/call/history", json=body, headers=headers, timeout=60)
    if started.status_code == 200:
        httpx.get(f"{url}gradio_api/call/history/{started.json()['event_id']}", headers=headers, timeout=60)
    return started.status_code


def _upload(client, path):
    from gradio_client import handle_file

    return client.predict([handle_file(str(path))], "", "", "", "", "", api_name="/upload")


def _document(folder, name: str, lines: int = 20):
    path = folder / f"{name}.md"
    path.write_text(f"---\nid: {name}\n---\n" + "".join(f"Line {n}: the ferry to pier {n} leaves at nine.\n"
                                                      for n in range(lines)))
    return path


@pytest.fixture(scope="module")
def small_table_app(logic_engine):
    """The app (parsing in this process) with a table of 20 sessions; yields (url, its SessionTable's holder)."""
    from ui import retention
    from ui.app import create_app
    from ui.state import load_shared

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(retention, "MAX_SESSIONS", 20)
        app = create_app(load_shared(logic_engine, sandbox=False))
        with serve_app(app) as url:
            yield url, app.state.demo.state_holder


@pytest.fixture
def table(small_table_app):
    """The small table's app with no session held, as after every earlier test's sessions ended."""
    url, holder = small_table_app
    with holder.lock:
        holder.session_data.clear()
        holder.time_last_used.clear()
    return url, holder


# --------------------------------------------------------------------------- 1. the session table


def test_fresh_session_hashes_never_push_out_a_live_session(table, tmp_path):
    url, holder = table
    victim = client_at(url, "10.0.1.1")
    added = _upload(victim, _document(tmp_path, f"victim-{uuid.uuid4().hex[:6]}"))
    assert added["added"]
    statuses = [history_call(url, "10.0.1.66", uuid.uuid4().hex) for _ in range(40)]  # twice the table
    uploads = [d["source_id"] for d in victim.predict("", api_name="/documents") if d["origin"] == "uploaded"]
    assert uploads == [added["added"][0]["source_id"]]  # the victim's session, and its upload, are still there
    assert 503 in statuses  # refused once the table is full: "the server holds as many sessions as it can"
    assert len(holder.session_data) <= 20


def test_one_address_may_start_only_its_share_of_sessions(table, monkeypatch):
    from pipeline import limits

    url, _ = table
    monkeypatch.setattr(limits, "SESSIONS_PER_CLIENT", 3, raising=False)
    mine = [uuid.uuid4().hex for _ in range(3)]
    assert [history_call(url, "10.0.2.66", h) for h in mine] == [200, 200, 200]
    refused = httpx.post(f"{url}gradio_api/call/history", json={"data": [], "session_hash": uuid.uuid4().hex},
                         headers={"X-Forwarded-For": "10.0.2.66"}, timeout=60)
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("your address holds 3 sessions, the most one may; close a tab or "
                                               "try again in ")
    assert history_call(url, "10.0.2.66", mine[0]) == 200  # its live sessions still answer
    assert history_call(url, "10.0.2.66", None) == 429  # a /call without a hash starts a session too
    assert history_call(url, "10.0.2.7", uuid.uuid4().hex) == 200  # another address has its own share


def test_starting_sessions_is_rate_limited_per_address():
    from pipeline import limits

    now = [0.0]
    holder = SimpleNamespace(session_data={}, time_last_used={})
    from ui.session_gate import SessionTable

    table = SessionTable(holder, clock=lambda: now[0])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "SESSION_STARTS_PER_CLIENT", 2)
        patch.setattr(limits, "SESSIONS_PER_CLIENT", 100)
        assert table.admit("a", ("address:10.0.0.1",)) is None
        assert table.admit("b", ("address:10.0.0.1",)) is None
        status, message, wait = table.admit("c", ("address:10.0.0.1",))
        assert (status, message, wait) == (429, "too many new sessions from your address; try again in 600 s", 600)
        assert table.admit("d", ("address:10.0.0.2",)) is None
        assert table.admit("e", ("address:10.0.0.2", "account:alice")) is None
        assert table.admit("f", ("address:10.0.0.3", "account:alice")) is None
        assert table.admit("g", ("address:10.0.0.4", "account:alice"))[1].startswith(
            "too many new sessions from your account")
        now[0] = 601.0
        assert table.admit("c", ("address:10.0.0.1",)) is None


def test_a_full_table_refuses_new_sessions_until_one_ends_by_its_own_idleness(monkeypatch):
    import datetime

    from ui import retention
    from ui.session_gate import ADMITTED_GRACE_S, SessionTable

    monkeypatch.setattr(retention, "MAX_SESSIONS", 2)
    now = [0.0]
    holder = SimpleNamespace(session_data={}, time_last_used={})
    table = SessionTable(holder, clock=lambda: now[0])
    for name in ("one", "two"):
        assert table.admit(name, (f"address:10.0.3.{len(name)}",)) is None
        holder.session_data[name] = object()
        holder.time_last_used[name] = datetime.datetime.now() - datetime.timedelta(minutes=10)
    status, message, wait = table.admit("three", ("address:10.0.3.9",))
    assert status == 503 and message == "the server holds as many sessions as it can (2); try again in 1200 s"
    assert table.admit("one", ("address:10.0.3.3",)) is None  # a live session is never refused
    del holder.session_data["two"]  # it ended: its lifetime passed unused (ui.retention drops it)
    now[0] += ADMITTED_GRACE_S
    assert table.admit("three", ("address:10.0.3.9",)) is None


def test_the_unused_component_server_route_is_closed(table):
    url, _ = table
    response = httpx.post(f"{url}gradio_api/component_server", json={"data": None, "component_id": 1,
                                                                     "session_hash": uuid.uuid4().hex,
                                                                     "fn_name": "ls"}, timeout=30)
    assert response.status_code == 404


def test_ipv6_clients_are_counted_by_their_64():
    from ui.clients import address_key

    assert address_key("2001:db8:1:2::7") == address_key("2001:db8:1:2:ffff::1") == "address:2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::7") != address_key("2001:db8:1:2::7")
    assert address_key("::ffff:203.0.113.7") == address_key("203.0.113.7") == "address:203.0.113.7"


# --------------------------------------------------------------------------- 3. the upload memory budget


def test_one_client_cannot_hold_the_whole_upload_budget():
    """Unit: three sessions of one address together hold at most the client's share; another address still fits."""
    from pipeline import InputError, MemoryBudget

    class Session:  # an owner of reservations (the app's sessions are weakly referenced)
        pass

    budget = MemoryBudget(capacity=100, per_owner=40, per_client=50, host=SimpleNamespace(
        refuse_unless_fits=lambda adding, label: None))
    sessions = [Session() for _ in range(3)]
    budget.reserve(sessions[0], {"a": 30}, "a.md", clients=("address:10.0.4.66",))
    budget.reserve(sessions[1], {"b": 20}, "b.md", clients=("address:10.0.4.66",))
    with pytest.raises(InputError) as refused:
        budget.reserve(sessions[2], {"c": 20}, "c.md", clients=("address:10.0.4.66",))
    assert "your address's uploads in all its sessions may hold" in str(refused.value)
    assert budget.held_by_client("address:10.0.4.66") == 50
    bystander = Session()
    budget.reserve(bystander, {"d": 40}, "d.md", clients=("address:10.0.4.7",))  # a bystander fits
    budget.release(sessions[0])
    budget.reserve(sessions[2], {"c": 20}, "c.md", clients=("address:10.0.4.66",))  # its share came back


def test_the_app_counts_a_clients_sessions_together_against_its_share(table, tmp_path, monkeypatch):
    from pipeline import limits
    from pipeline.ingest.budgets import text_cost

    url, _ = table
    first, second = (_document(tmp_path, f"share-{n}-{uuid.uuid4().hex[:6]}", lines=400) for n in (1, 2))
    each = text_cost(first.read_bytes())
    monkeypatch.setattr(limits, "CLIENT_MEMORY_BYTES", each + each // 2, raising=False)
    assert _upload(client_at(url, "10.0.5.66"), first)["added"]
    refused = _upload(client_at(url, "10.0.5.66"), second)  # another session of the same address
    assert not refused["added"] and "your address's uploads in all its sessions may hold" in refused["errors"][0]
    assert _upload(client_at(url, "10.0.5.7"), second)["added"]  # a session of another address


# --------------------------------------------------------------------------- 4. the upload folder


def test_one_client_may_fill_only_its_share_of_the_upload_folder(tmp_path, monkeypatch):
    """Driven as ASGI: the app behind the guard stores each upload as a file and names it, as Gradio's route does."""
    from pipeline import limits
    from ui.upload_guard import UploadGuard

    monkeypatch.setattr(limits, "UPLOAD_FOLDER_MAX_BYTES", 1000)
    monkeypatch.setattr(limits, "UPLOAD_FOLDER_CLIENT_BYTES", 400, raising=False)

    async def gradio(scope, receive, send):
        path = tmp_path / f"received-{uuid.uuid4().hex}"
        path.write_bytes(b"x" * int(dict(scope["headers"])[b"content-length"]))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": f'["{path}"]'.encode()})

    now = [0.0]
    guard = UploadGuard(gradio, folder=lambda: tmp_path, clock=lambda: now[0])

    def upload(address: str, size: int) -> tuple[int, str]:
        sent = []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload", "client": (address, 1),
                 "headers": [(b"content-length", str(size).encode())]}
        asyncio.run(guard(scope, receive, send))
        return sent[0]["status"], sent[-1].get("body", b"").decode()

    assert [upload("10.0.6.66", 150)[0] for _ in range(2)] == [200, 200]
    status, said = upload("10.0.6.66", 150)
    assert status == 507 and "your uploads waiting to be read fill your share" in said
    assert upload("10.0.6.7", 300)[0] == 200  # another client has its own share of what is left
    for received in tmp_path.iterdir():  # the handlers read (and delete) what the first client sent
        if received.stat().st_size == 150:
            received.unlink()
    now[0] += 11  # past the moments a just-received file may still be on its way into the folder
    assert upload("10.0.6.66", 150)[0] == 200  # its share came back


# --------------------------------------------------------------------------- 5. the upload lane


def test_a_free_slot_goes_to_the_client_served_least_recently():
    from pipeline import FairLane, acting_for

    lane, order, release = FairLane(1), [], {}

    def task(client: str, name: str) -> None:
        with acting_for(client), lane.turn():
            order.append(name)
            release[name].wait(30)

    def start(client: str, name: str, waiting: int) -> threading.Thread:
        release[name] = threading.Event()
        thread = threading.Thread(target=task, args=(client, name))
        thread.start()
        while lane.waiting() < waiting and name not in order:
            time.sleep(0.005)
        return thread

    threads = [start("attacker", "a1", 0)]
    while order != ["a1"]:
        time.sleep(0.005)
    threads += [start("attacker", f"a{n}", n - 1) for n in (2, 3, 4)]
    threads.append(start("bystander", "b1", 4))
    for name in ("a1", "b1", "a2", "a3", "a4"):
        while name not in order:
            time.sleep(0.005)
        release[name].set()
    for thread in threads:
        thread.join(30)
    assert order == ["a1", "b1", "a2", "a3", "a4"]  # the bystander waited for the task in progress, not the queue


@pytest.mark.slow  # starts a parse worker
def test_a_bystanders_file_is_parsed_before_an_attackers_queue():
    """The real worker pool: an attacker holds the one worker and has three more turns waiting; a bystander's
    small file is parsed as soon as the turn in progress ends."""
    from pipeline import acting_for
    from pipeline.engine.sandbox import Sandbox

    sandbox, order = Sandbox(workers=1), []
    held = threading.Event()

    def attacker(n: int, release: threading.Event) -> None:
        with acting_for("address:10.0.7.66"), sandbox.turn():
            order.append(f"attacker {n}")
            held.set()
            release.wait(30)

    def bystander() -> None:
        with acting_for("address:10.0.7.7"):
            document = sandbox.parse("text", b"The bystander's note.\n", "note.md")
        order.append(document.pages[0].lines[0].text)

    releases = [threading.Event() for _ in range(4)]
    threads = [threading.Thread(target=attacker, args=(0, releases[0]))]
    threads[0].start()
    held.wait(30)
    threads += [threading.Thread(target=attacker, args=(n, releases[n])) for n in (1, 2, 3)]
    threads.append(threading.Thread(target=bystander))
    for thread in threads[1:]:
        thread.start()
    while sandbox.lane.waiting() < 4:
        time.sleep(0.01)
    for release in releases:
        release.set()
    for thread in threads:
        thread.join(60)
    sandbox.close()
    assert order[:2] == ["attacker 0", "The bystander's note."]


def test_a_client_may_have_only_a_few_uploads_under_way():
    from pipeline import InputError
    from ui.clients import InProgress

    uploads = InProgress(lambda: 2, "upload")
    with uploads.hold("address:10.0.8.66"), uploads.hold("address:10.0.8.66"):
        with pytest.raises(InputError, match="2 of your uploads are under way already"):
            with uploads.hold("address:10.0.8.66"):
                pass
        with uploads.hold("address:10.0.8.7"):  # another client's own
            pass
    with uploads.hold("address:10.0.8.66"):  # its uploads finished
        pass


# --------------------------------------------------------------------------- 6. sign-in


def test_failed_sign_ins_from_elsewhere_do_not_lock_a_user_out(tmp_path):
    """Keyed on the account alone, five wrong passwords from anywhere locked a known user out of their own account."""
    from fastapi import HTTPException

    from pipeline import Accounts, add_user
    from ui.login import LoginGuard, client_address

    users = tmp_path / "users.yaml"
    add_user(users, "frank", "frank-password-66", ())
    guard = LoginGuard(Accounts.from_file(users))

    def sign_in(address: str, password: str):
        async def attempt():
            client_address.set(address)
            return await guard.login("frank", password)

        try:
            return asyncio.run(attempt())
        except HTTPException as error:
            return error.status_code

    assert [sign_in("198.51.100.66", "a-guess") for _ in range(5)] == [False] * 5
    assert sign_in("198.51.100.66", "frank-password-66") == 429  # the guessing address is locked out of it
    assert sign_in("203.0.113.7", "frank-password-66") is True  # frank, from his own address, is not
