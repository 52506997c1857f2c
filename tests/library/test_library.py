"""The persistent library: survives restarts, refuses non-admins, keeps the previous version on a crash,
and is shared by two app processes on one Chroma server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import requests

from pipeline import Incoming, InputError, Library, add_user
from tests.conftest import app_client

ROOT = Path(__file__).resolve().parents[2]
MEMO = b"---\nid: harbour-dues\ntopic: port\n---\nHarbour dues are 12 euros per day for boats under ten metres.\n"


def test_add_commits_and_changes_the_version(logic_engine, tmp_path):
    library = Library(tmp_path)
    before = library.version()
    assert library.add(logic_engine, [Incoming("dues.md", MEMO)]) == (["harbour-dues"], [])
    assert library.version() != before and [d.source_id for d in library.documents()] == ["harbour-dues"]
    assert library.add(logic_engine, [Incoming("copy.md", MEMO)]) == ([], ["harbour-dues"])  # same bytes


def test_a_bad_file_stops_the_batch_before_the_commit(logic_engine, tmp_path):
    library = Library(tmp_path)
    library.add(logic_engine, [Incoming("dues.md", MEMO)])
    manifest = (tmp_path / "library" / "manifest.json").read_bytes()
    bad = Incoming("bad.md", b"---\nvalid_from: 2026-02-30\n---\nText.\n")
    good = Incoming("fees.md", b"---\nid: fees\n---\nMooring fees are 5 euros.\n")
    with pytest.raises(InputError, match="impossible date"):
        library.add(logic_engine, [good, bad])
    assert (tmp_path / "library" / "manifest.json").read_bytes() == manifest
    with pytest.raises(InputError, match="taken by a sample"):
        library.add(logic_engine, [good], reserved_ids={"fees"})


_INGEST = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from pipeline import EngineConfig, Incoming, Library, build_engine
    engine = build_engine(EngineConfig(vector_store="memory"))
    body = " ".join(f"Clause {{i}} of the long harbour code says something different." for i in range(1200))
    def progress(done, total, stage):
        print(stage, done, total, flush=True)
    Library({data!r}).add(engine, [Incoming("code.md", ("---\\nid: harbour-code\\n---\\n" + body).encode())],
                          progress=progress)
    print("committed", flush=True)
""")


@pytest.mark.slow  # kills an ingest in a subprocess
def test_kill_9_during_an_ingest_keeps_the_previous_library(logic_engine, tmp_path):
    library = Library(tmp_path)
    library.add(logic_engine, [Incoming("dues.md", MEMO)])
    manifest = (tmp_path / "library" / "manifest.json").read_bytes()
    script = _INGEST.format(root=str(ROOT), data=str(tmp_path))
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    for line in process.stdout:  # wait until it is embedding, then kill it hard
        if line.startswith("embedding"):
            break
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert (tmp_path / "library" / "manifest.json").read_bytes() == manifest
    assert [d.source_id for d in Library(tmp_path).documents()] == ["harbour-dues"]
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=900)
    assert finished.returncode == 0 and "committed" in finished.stdout, finished.stderr[-500:]
    ids = [d.source_id for d in Library(tmp_path).documents()]
    assert sorted(ids) == ["harbour-code", "harbour-dues"]  # completed, each once


# --------------------------------------------------------------------------- two app processes, one Chroma server


_SERVE = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    import uvicorn
    from ui.app import create_app
    uvicorn.run(create_app(), host="127.0.0.1", port={port}, log_level="warning")
""")


def _serve(port: int, env: dict) -> subprocess.Popen:
    process = subprocess.Popen([sys.executable, "-c", _SERVE.format(root=str(ROOT), port=port)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).ok:
                return process
        except requests.RequestException:
            time.sleep(0.5)
        if process.poll() is not None:
            raise RuntimeError(process.stderr.read()[-1000:])
    process.kill()
    raise RuntimeError("the app did not start within 180 s")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:  # Gradio's graceful shutdown may wait on open streams
        process.kill()
        process.wait(timeout=15)


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_two_app_processes_share_the_library_and_it_survives_a_restart(chroma_server, tmp_path):
    from gradio_client import handle_file

    users = tmp_path / "users.yaml"
    add_user(users, "admin", "admin-password-1", ("library-admin",))
    add_user(users, "reader", "reader-password-1", ())
    env = {**os.environ, "DATA_DIR": str(tmp_path / "data"), "AUTH_USERS_FILE": str(users),
           "CHROMA_HOST": "127.0.0.1", "CHROMA_PORT": str(chroma_server), "GRADIO_ANALYTICS_ENABLED": "False"}
    memo = tmp_path / "dues.md"
    memo.write_bytes(MEMO)
    first_port, second_port = _port(), _port()
    first, second = _serve(first_port, env), _serve(second_port, env)
    try:
        admin = app_client(f"http://127.0.0.1:{first_port}/", auth=("admin", "admin-password-1"))
        report = admin.predict([handle_file(str(memo))], "", "", "", "", "", api_name="/add_to_library")
        assert report["added"] == ["harbour-dues"]
        reader = app_client(f"http://127.0.0.1:{second_port}/", auth=("reader", "reader-password-1"))
        listed = {d["source_id"]: d["origin"] for d in reader.predict("", api_name="/documents")}
        assert listed.get("harbour-dues") == "library"  # the other process sees it
        with pytest.raises(Exception, match="only members of library-admin"):
            reader.predict([handle_file(str(memo))], "", "", "", "", "", api_name="/add_to_library")
        _stop(second)
        second = _serve(second_port, env)  # a restart keeps the library
        reader = app_client(f"http://127.0.0.1:{second_port}/", auth=("reader", "reader-password-1"))
        trace = reader.predict("harbour dues per day for boats", "2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200,
                               "before_cutoff", "hybrid", api_name="/ask")
        assert trace["answer"]["status"] == "answered", json.dumps(trace["answer"])
        assert trace["answer"]["citations"][0]["source_id"] == "harbour-dues"

        # Replace it in place (a new version, same id): only an admin may; the other process sees the new text.
        new = tmp_path / "dues-2027.md"
        new.write_bytes(b"Harbour dues are 15 euros per day for boats under ten metres.\n")
        with pytest.raises(Exception, match="only signed-in members of library-admin"):
            reader.predict("harbour-dues", handle_file(str(new)), "v2", api_name="/replace_document")
        report = admin.predict("harbour-dues", handle_file(str(new)), "v2", api_name="/replace_document")
        assert report["where"] == "library" and report["current"]["version"] == "v2"
        trace = reader.predict("harbour dues per day for boats", "2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200,
                               "before_cutoff", "hybrid", api_name="/ask")
        assert "15 euros" in trace["answer"]["answer"], json.dumps(trace["answer"])
        assert not any("12 euros" in c["text"] for c in trace["retrieval"]["candidates"])
        listed = {d["source_id"]: d for d in reader.predict("", api_name="/documents")}
        assert listed["harbour-dues"]["version"] == "v2" and listed["harbour-dues"]["topic"] == "port"
    finally:
        for process in (first, second):
            _stop(process)
