"""The app is safe to put on the internet: each test reproduces a hole found by a probe (issue 9).

The web tests drive the running app (the `app_url` fixture) with raw HTTP, the way an attacker
would, or with gradio_client, the way a well-behaved client does.
"""

from __future__ import annotations

import json
import tempfile
import urllib.request
import uuid
from pathlib import Path

import pytest

SECRET = "zebra-quartz-7731 is the server's secret text"


# --------------------------------------------------------------------------- raw HTTP helpers


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def call_raw(app_url: str, api: str, data: list, session_hash: str) -> str:
    """POST /gradio_api/call/<api>, then read the whole event stream (its text, events included)."""
    event = _post(f"{app_url}gradio_api/call/{api}", {"data": data, "session_hash": session_hash})
    with urllib.request.urlopen(f"{app_url}gradio_api/call/{api}/{event['event_id']}", timeout=300) as response:
        return response.read().decode("utf-8", "replace")


def forged_file(path: str) -> dict:
    return {"path": path, "orig_name": "x.txt", "meta": {"_type": "gradio.FileData"}}


ASK_DEFAULTS = ["2026-09-14", "", "", 3, 0.6, 0.9, 1400, 200, "before_cutoff", "hybrid"]


# --------------------------------------------------------------------------- 1. server files via a forged path


@pytest.fixture
def server_file():
    """A file on the server, outside Gradio's upload folder, that no user uploaded."""
    folder = Path(tempfile.mkdtemp(prefix="not-uploaded-"))
    path = folder / "notes.txt"
    path.write_text(f"{SECRET}\nThe lodging limit is 9999 yuan.\n", encoding="utf-8")
    yield path
    path.unlink(missing_ok=True)
    folder.rmdir()


@pytest.mark.parametrize("path_kind", ["outside", "symlink-in-upload-folder", "etc"])
def test_a_forged_file_path_is_refused_and_its_text_never_reaches_the_collection(app_url, server_file, path_kind):
    from gradio.utils import get_upload_folder

    link = None
    if path_kind == "outside":
        path = str(server_file)
    elif path_kind == "etc":
        path = "/etc/hostname"
    else:  # a link planted inside the upload folder must not let the handler read through it
        upload_folder = Path(get_upload_folder())
        upload_folder.mkdir(parents=True, exist_ok=True)
        link = upload_folder / f"planted-{uuid.uuid4().hex}.txt"
        link.symlink_to(server_file)
        path = str(link)
    session = f"s-{uuid.uuid4().hex[:8]}"
    try:
        upload_stream = call_raw(app_url, "upload", [[forged_file(path)], "", "", "", "", ""], session)
        ask_stream = call_raw(app_url, "ask", ["zebra quartz secret text", *ASK_DEFAULTS], session)
    finally:
        if link is not None:
            link.unlink(missing_ok=True)
    assert "zebra-quartz" not in upload_stream and "zebra-quartz" not in ask_stream and "9999" not in ask_stream
    assert '"added": [{' not in upload_stream  # nothing was added to the session's collection
    if Path("/etc/hostname").exists():
        hostname = Path("/etc/hostname").read_text().strip()
        assert not hostname or f'"source_id": "{hostname}' not in upload_stream


def test_a_real_upload_through_gradio_client_still_works(app_url, tmp_path):
    from gradio_client import Client, handle_file

    document = tmp_path / "real-upload.md"
    document.write_text("---\nid: real-upload\ntopic: travel\n---\nThe parrot allowance is 3 birds.\n",
                        encoding="utf-8")
    client = Client(app_url, verbose=False)
    report = client.predict([handle_file(str(document))], "", "", "", "", "", api_name="/upload")
    assert [a["source_id"] for a in report["added"]] == ["real-upload"] and not report["errors"]
