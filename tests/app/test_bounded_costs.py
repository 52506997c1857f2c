"""What the running app's uploads may cost (issue 24, findings 2, 11 and the spent sessions): the memory budget
across sessions and within one, Gradio's own upload route held to a total, a rate per address and a declared size,
and a spent session dropped whole. The documents' own caps are tests/ingest/test_bounded_documents.py, the workers
tests/engine/test_sandbox.py; sign-in and sessions tests/app/test_sessions_and_login.py."""

from __future__ import annotations

import uuid

import pytest
from tests.conftest import app_client


def _upload(client, path):
    from gradio_client import handle_file

    return client.predict([handle_file(str(path))], "", "", "", "", "", api_name="/upload")


def test_uploads_are_refused_with_one_line_once_every_session_together_is_at_the_budget(app_url, tmp_path,
                                                                                       monkeypatch):
    """Four anonymous sessions took the server from 395 to 1,111 MiB: there was no budget across sessions."""
    from pipeline import limits
    from pipeline.ingest.budgets import text_cost, upload_budget

    documents = []
    for name in ("budget-one", "budget-two"):
        path = tmp_path / f"{name}-{uuid.uuid4().hex[:6]}.md"
        path.write_text(f"---\nid: {path.stem}\n---\n" + "A line about the ferry timetable.\n" * 2000)
        documents.append(path)
    each = text_cost(documents[0].read_bytes())
    monkeypatch.setattr(limits, "UPLOAD_MEMORY_BYTES", upload_budget().held() + each + each // 2)
    first, second = app_client(app_url), app_client(app_url)
    assert _upload(first, documents[0])["added"]
    refused = _upload(second, documents[1])
    assert not refused["added"] and len(refused["errors"]) == 1
    assert "the server is full" in refused["errors"][0] and "\n" not in refused["errors"][0]
    first.predict(documents[0].stem, api_name="/delete_document")  # its memory is given back
    assert _upload(second, documents[1])["added"]
    second.predict(documents[1].stem, api_name="/delete_document")


def test_an_upload_is_refused_with_one_line_while_the_host_is_short_of_memory(app_url, tmp_path, monkeypatch):
    """The estimates price uploads only: with the reader and two parse workers, 8 sessions' 20-page PDFs took the
    server and its workers past the free host's 512 MiB, so what they measurably hold is checked too."""
    from pipeline import limits
    from pipeline.ingest.budgets import process_tree_pss

    path = tmp_path / f"host-{uuid.uuid4().hex[:6]}.md"
    path.write_text(f"---\nid: {path.stem}\n---\n" + "A line about the ferry timetable.\n" * 200)
    monkeypatch.setattr(limits, "HOST_MEMORY_BYTES", process_tree_pss() + limits.HOST_MEMORY_RESERVE_BYTES)
    client = app_client(app_url)
    refused = _upload(client, path)
    assert not refused["added"] and len(refused["errors"]) == 1
    assert "the server is short of memory" in refused["errors"][0] and "\n" not in refused["errors"][0]
    monkeypatch.setattr(limits, "HOST_MEMORY_BYTES", 0)
    assert _upload(client, path)["added"]
    client.predict(path.stem, api_name="/delete_document")


def test_one_session_may_not_hold_more_than_its_share(app_url, tmp_path, monkeypatch):
    from pipeline import limits

    monkeypatch.setattr(limits, "SESSION_MEMORY_BYTES", 2 * 2**20)
    path = tmp_path / f"share-{uuid.uuid4().hex[:6]}.md"
    path.write_text(f"---\nid: {path.stem}\n---\n" + "A line about the ferry timetable.\n" * 5000)  # ~5.5 MiB held
    report = _upload(app_client(app_url), path)
    assert not report["added"] and "one session's uploads may hold 2 MiB" in report["errors"][0]


def _raw_upload(app_url: str, size: int, name: str = "x.md", **kwargs):
    import httpx

    return httpx.post(app_url + "gradio_api/upload", files={"files": (name, b"y" * size)}, timeout=60, **kwargs)


def test_gradio_upload_route_is_held_to_a_total_size(app_url, monkeypatch):
    """It accepted any number of 20 MB files without a session: 500 MiB in 7 s, kept 15 minutes."""
    from pipeline import limits
    from ui.received import upload_folder
    from ui.upload_guard import folder_bytes

    monkeypatch.setattr(limits, "UPLOAD_FOLDER_MAX_BYTES", folder_bytes(upload_folder()) + 150_000)
    from pathlib import Path

    first = _raw_upload(app_url, 100_000)
    assert first.status_code == 200
    refused = _raw_upload(app_url, 100_000)
    assert refused.status_code == 507 and "upload space is full" in refused.json()["detail"]
    for path in first.json():  # read (and so deleted) by a handler: the space comes back
        Path(path).unlink()
    third = _raw_upload(app_url, 100_000)
    assert third.status_code == 200
    for path in third.json():
        Path(path).unlink()


def test_gradio_upload_route_is_held_to_a_rate_per_address(tmp_path, monkeypatch):
    """Driven as ASGI with a clock of its own (the running app's address shares its rate with other tests)."""
    import asyncio

    from pipeline import limits
    from ui.upload_guard import UploadGuard

    monkeypatch.setattr(limits, "UPLOAD_RATE_FILES", 3)
    monkeypatch.setattr(limits, "UPLOAD_RATE_BYTES", 1000)
    now = [0.0]
    passed = []

    async def app(scope, receive, send):
        passed.append(scope["client"][0])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"[]"})

    guard = UploadGuard(app, folder=lambda: tmp_path, clock=lambda: now[0])

    def upload(address: str, size: int) -> tuple[int, dict]:
        sent = []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload", "client": (address, 1),
                 "headers": [(b"content-length", str(size).encode())]}
        asyncio.run(guard(scope, receive, send))
        return sent[0]["status"], dict(sent[0]["headers"])

    assert [upload("10.0.0.1", 10)[0] for _ in range(3)] == [200, 200, 200]
    status, headers = upload("10.0.0.1", 10)
    assert status == 429 and headers[b"retry-after"] == b"60"
    assert upload("10.0.0.2", 10)[0] == 200  # another address has its own rate
    now[0] = 61.0
    assert upload("10.0.0.1", 600)[0] == 200
    assert upload("10.0.0.1", 600)[0] == 429  # bytes count too: 1200 in the window is over 1000
    assert passed == ["10.0.0.1"] * 3 + ["10.0.0.2", "10.0.0.1"]


def test_the_upload_folder_is_measured_off_the_event_loop(tmp_path, monkeypatch):
    """Walking Gradio's folder reads every file's size: on the event loop it would hold every other request."""
    import asyncio
    import threading

    import ui.upload_guard as guard_module

    walked_in = []
    real = guard_module.folder_bytes

    def recording(folder):
        walked_in.append(threading.current_thread())
        return real(folder)

    monkeypatch.setattr(guard_module, "folder_bytes", recording)

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"[]"})

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    sent = []

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload", "client": ("10.0.0.9", 1),
             "headers": [(b"content-length", b"10")]}
    asyncio.run(guard_module.UploadGuard(app, folder=lambda: tmp_path)(scope, receive, send))
    assert sent[0]["status"] == 200
    assert walked_in and walked_in[0] is not threading.main_thread()


def test_gradio_upload_route_needs_a_declared_size(app_url):
    import httpx

    def body():
        yield b"--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"x.md\"\r\n\r\nhi\r\n--b--\r\n"

    response = httpx.post(app_url + "gradio_api/upload", content=body(), timeout=30,
                          headers={"Content-Type": "multipart/form-data; boundary=b"})
    assert response.status_code == 411


@pytest.mark.slow  # builds the app
def test_a_spent_session_is_dropped_whole_not_kept_until_500_newer_ones(logic_engine):
    """Gradio deleted an expired session's values but kept its SessionState (a copy of the page's config, about
    0.35 MiB) until 500 newer sessions pushed it out: 200 short sessions grew the server by 60 MiB."""
    import datetime

    import gradio as gr

    from ui.app import create_app
    from ui.state import Session, load_shared

    demo = create_app(load_shared(logic_engine)).state.demo
    holder = demo.state_holder
    [key] = [block_id for block_id, block in demo.blocks.items() if isinstance(block, gr.State)]
    long_ago = datetime.datetime.now() - datetime.timedelta(hours=2)
    for session_id in ("spent", "closed-now", "active"):
        holder[session_id][key] = Session()
    holder["spent"].is_closed = True
    holder["spent"]._state_ttl[key] = (holder["spent"]._state_ttl[key][0], long_ago)
    holder.time_last_used["spent"] = long_ago
    holder["closed-now"].is_closed = True  # closed a moment ago: kept for its short lifetime
    holder.delete_all_expired_state()
    assert "spent" not in holder.session_data and "spent" not in holder.time_last_used
    assert "closed-now" in holder.session_data and "active" in holder.session_data


def test_replacing_an_upload_by_a_version_over_the_budget_is_refused_and_keeps_the_previous_one(app_url, tmp_path,
                                                                                               monkeypatch):
    from gradio_client import handle_file

    from pipeline import limits
    from pipeline.ingest.budgets import text_cost

    stem = f"ferry-{uuid.uuid4().hex[:6]}"
    small, large = tmp_path / f"{stem}.md", tmp_path / f"{stem}-2027.md"
    small.write_text(f"---\nid: {stem}\nversion: v1\n---\n" + "The ferry leaves at nine.\n" * 20)
    large.write_text(f"---\nid: {stem}\nversion: v2\n---\n" + "The ferry leaves at ten.\n" * 5000)
    client = app_client(app_url)
    assert _upload(client, small)["added"]
    monkeypatch.setattr(limits, "SESSION_MEMORY_BYTES", text_cost(small.read_bytes()) * 3)
    with pytest.raises(Exception, match="one session's uploads may hold"):
        client.predict(stem, handle_file(str(large)), "", api_name="/replace_document")
    documents = {d["source_id"]: d for d in client.predict("", api_name="/documents")}
    assert documents[stem]["version"] == "v1"  # the previous version is kept, whole
    client.predict(stem, api_name="/delete_document")
