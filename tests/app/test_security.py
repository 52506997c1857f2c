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

from benchmarks.bench_chunking import prose as big_text
from tests.conftest import app_client, subprocess_env

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


@pytest.fixture(scope="session")
def shared_samples(engine):
    """The app's shared state (engine + samples), as `create_app` builds it."""
    from ui.state import load_shared

    return load_shared(engine)


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
    from gradio_client import handle_file

    document = tmp_path / "real-upload.md"
    document.write_text("---\nid: real-upload\ntopic: travel\n---\nThe parrot allowance is 3 birds.\n",
                        encoding="utf-8")
    client = app_client(app_url)
    report = client.predict([handle_file(str(document))], "", "", "", "", "", api_name="/upload")
    assert [a["source_id"] for a in report["added"]] == ["real-upload"] and not report["errors"]


# --------------------------------------------------------------------------- 2. YAML alias bomb, front-matter bounds


def alias_bomb(depth: int, key: str = "valid_from") -> str:
    """Nested anchors: 9**depth list items once `key`'s value is turned into a string (~390 bytes at depth 9)."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, depth):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    return "---\n" + "\n".join(lines) + f"\n{key}: *a{depth - 1}\n---\nThe body.\n"


@pytest.mark.parametrize("depth", [6, 9])
def test_an_alias_bomb_in_front_matter_is_refused_with_one_short_line(depth):
    from pipeline.core.errors import InputError
    from pipeline.ingest.parsers import parse

    text = alias_bomb(depth)
    assert depth < 9 or len(text.encode()) < 500
    with pytest.raises(InputError) as caught:
        parse(text.encode(), "bomb.md")
    message = str(caught.value)
    assert "\n" not in message and len(message) < 200
    assert "alias" in message or "anchor" in message


def test_an_aliased_card_line_range_is_refused():
    from pipeline.core.errors import InputError
    from pipeline.ingest.parsers import parse

    text = ('---\nr: &r [1, 2, 3]\ncards:\n  - {id: c, text: t, lines: *r}\n---\none\ntwo\nthree\n')
    with pytest.raises(InputError, match="alias|anchor"):
        parse(text.encode(), "cards.md")


@pytest.mark.parametrize("front_matter,expected", [
    ("valid_from: [2026-01-01, 2026-01-02]", "valid_from: expected a date YYYY-MM-DD, got a list"),
    ("cards:\n  - {id: c, text: t, lines: [1, 2]}", "lines must look like 1-3, got a list"),
    ("topic: {a: 1}", "topic: expected a single value, got a dict"),
])
def test_non_scalar_values_where_scalars_are_expected_are_refused(front_matter, expected):
    from pipeline.core.errors import InputError
    from pipeline.ingest.parsers import parse

    with pytest.raises(InputError, match=expected):
        parse(f"---\n{front_matter}\n---\none\ntwo\n".encode(), "values.md")


def test_user_values_in_error_messages_are_truncated():
    from pipeline.core.errors import InputError
    from pipeline.ingest.parsers import parse

    from pipeline.ingest.document import document_warnings

    long_value = "x" * 5000
    for front_matter in (f"valid_from: {long_value}", f"id: {long_value}"):
        with pytest.raises(InputError) as caught:
            parse(f"---\n{front_matter}\n---\nbody\n".encode(), "long.md")
        assert len(str(caught.value)) < 200 and "…" in str(caught.value)
    kept = parse(f"---\n{long_value[:900]}: 1\n---\nbody\n".encode(), "long.md")  # another tool's key: kept, cut
    [(key, value)] = kept.meta.extra
    assert len(key) <= 64 and key.endswith("…") and value == "1"
    assert all(len(warning) < 200 for warning in document_warnings(kept))


def test_front_matter_size_is_bounded():
    from pipeline.core.errors import InputError
    from pipeline.ingest.front_matter import MAX_FRONT_MATTER_CHARS
    from pipeline.ingest.parsers import parse

    padding = "\n".join(f"# comment {i}" for i in range(MAX_FRONT_MATTER_CHARS // 10))
    with pytest.raises(InputError, match="front matter is .* characters; the limit is"):
        parse(f"---\n{padding}\ntopic: travel\n---\nbody\n".encode(), "big.md")


# --------------------------------------------------------------------------- 3. HTML in toasts


def queue_messages(app_url: str, api_name: str, data: list, session_hash: str) -> list[dict]:
    """Run an event the way the browser does (/queue/join + /queue/data) and return every message,
    toasts ("log") included."""
    import httpx

    config = httpx.get(app_url + "config", timeout=30).json()
    fn_index = next(d["id"] for d in config["dependencies"] if d.get("api_name") == api_name)
    body = {"data": data, "fn_index": fn_index, "session_hash": session_hash, "event_data": None,
            "trigger_id": None}
    httpx.post(app_url + "gradio_api/queue/join", json=body, timeout=30).raise_for_status()
    messages = []
    with httpx.stream("GET", app_url + "gradio_api/queue/data", params={"session_hash": session_hash},
                      timeout=300) as stream:
        for line in stream.iter_lines():
            if line.startswith("data:"):
                message = json.loads(line[5:])
                messages.append(message)
                if message.get("msg") in ("process_completed", "close_stream"):
                    break
    return messages


def upload_raw(app_url: str, path: Path) -> dict:
    """Upload a file the way the browser does (/gradio_api/upload); returns its FileData."""
    import httpx

    with path.open("rb") as handle:
        response = httpx.post(app_url + "gradio_api/upload", files={"files": (path.name, handle)}, timeout=60)
    response.raise_for_status()
    return {"path": response.json()[0], "orig_name": path.name, "meta": {"_type": "gradio.FileData"}}


def test_document_values_in_toasts_are_escaped(app_url, tmp_path):
    crafted = tmp_path / "crafted.md"
    crafted.write_text('---\nvalid_from: "<img src=x>"\n---\nBody.\n', encoding="utf-8")
    messages = queue_messages(app_url, "upload", [[upload_raw(app_url, crafted)], "", "", "", "", "", None],
                              f"s-{uuid.uuid4().hex[:8]}")
    toasts = [m["log"] for m in messages if m.get("msg") == "log"]
    assert toasts and any("valid_from" in t for t in toasts)
    assert all("<img" not in t for t in toasts)
    assert any("&lt;img" in t for t in toasts)


# --------------------------------------------------------------------------- 4. restricted documents stay unseen

RESTRICTED = "executive-travel"
RESTRICTED_TEXT = "1200 yuan"


def test_healthz_reports_only_what_anyone_may_read(app_url, sample_documents):
    from pipeline.index.corpus import corpus_digest

    with urllib.request.urlopen(app_url + "healthz", timeout=10) as response:
        body = json.loads(response.read())
    public = [d for d in sample_documents if d.meta.access is None]
    assert len(public) < len(sample_documents)
    assert body["documents"] == len(public)
    assert body.get("corpus_digest") in (None, corpus_digest(public))


@pytest.mark.parametrize("variant", ["same-bytes", "same-id"])
def test_an_upload_matching_a_restricted_document_does_not_reveal_it(app_url, tmp_path, variant):
    from gradio_client import handle_file

    original = (Path(__file__).resolve().parents[2] / "sample_docs" / "corpus" / f"{RESTRICTED}.md").read_bytes()
    path = tmp_path / f"{RESTRICTED}.md"
    path.write_bytes(original if variant == "same-bytes"
                     else f"---\nid: {RESTRICTED}\n---\nA harmless note.\n".encode())
    report = app_client(app_url).predict([handle_file(str(path))], "", "", "", "", "", api_name="/upload")
    said = json.dumps(report["errors"])
    assert "already" not in said and RESTRICTED not in said
    assert [a["source_id"] for a in report["added"]] == [RESTRICTED]  # accepted like any new document


def test_the_restricted_demo_uses_the_callers_declared_groups(app_url):
    client = app_client(app_url)
    undeclared = client.predict("restricted-readable", api_name="/run_demo")
    assert RESTRICTED_TEXT not in json.dumps(undeclared) and RESTRICTED not in json.dumps(undeclared["answer"])
    assert undeclared["answer"]["status"] == "abstained"
    declared = client.predict("restricted-readable", "executives", api_name="/run_demo")
    assert declared["answer"]["status"] == "answered"
    assert RESTRICTED in json.dumps(declared["answer"])


def test_the_app_says_groups_are_self_declared(app_url):
    import httpx

    config = httpx.get(app_url + "config", timeout=30).text
    assert "self-declared" in config


# --------------------------------------------------------------------------- 5. costs stay linear, inputs are capped


def test_windows_name_exactly_the_lines_they_touch(sample_documents):
    from pipeline.index.chunk import window_chunks
    from pipeline.ingest.parsers import parse

    documents = [*sample_documents, parse(big_text(0.05).encode(), "prose.md")]
    for document in documents:
        for chunk in window_chunks(document):
            page = document.page(chunk.parent.page) if document.kind == "pdf" else document.pages[0]
            touched = [line.number for line in page.lines if line.start < chunk.end and line.end > chunk.start]
            assert (chunk.parent.start_line, chunk.parent.end_line) == (touched[0], touched[-1])


@pytest.mark.slow  # chunks 5 MB of text
def test_five_megabytes_of_text_chunk_in_linear_time():
    """Window count grows with the text, and 5 MB finishes (the bound is a hang guard, not a benchmark:
    `python -m benchmarks.bench_security` times it; the quadratic version took over a minute here)."""
    import time

    from pipeline.index.chunk import retrieval_chunks
    from pipeline.ingest.parsers import parse

    document = parse(big_text(5).encode(), "five.md")
    started = time.perf_counter()
    chunks = retrieval_chunks(document)
    elapsed = time.perf_counter() - started
    assert len(chunks) > 5_000_000 / 800
    assert chunks[-1].parent.end_line == len(document.pages[0].lines)
    assert elapsed < 30, f"chunking 5 MB took {elapsed:.1f} s"


def test_the_chunks_panel_shows_the_chunks_the_corpus_indexed(sample_documents, logic_engine):
    """The panel lists the corpus's chunks (here a corpus chunked by line) instead of chunking again."""
    from pipeline.index.chunk import line_chunks
    from pipeline.index.corpus import build_corpus
    from ui.panels import chunks_html

    document = next(d for d in sample_documents if d.source_id == "travel-v2")
    corpus = build_corpus([document], logic_engine.embedder, chunker=line_chunks)
    html = chunks_html(corpus, [document])
    assert f"{len(corpus.chunks)} indexed retrieval chunks" in html
    assert ">line<" in html and ">window<" not in html


CORPUS_DIR = Path(__file__).resolve().parents[2] / "sample_docs" / "corpus"


@pytest.mark.parametrize("arguments,expected", [
    (["--question", ""], "question: type a question first"),
    (["--question", "lodging " * 700], "question: is 5599 characters; the limit is 2000"),
    (["--question", "Beijing lodging", "--date", "20260914"], "--date: '20260914' is not a date; use YYYY-MM-DD"),
    (["--question", "Beijing lodging", "--groups", ",".join(f"g{i}" for i in range(30))], "groups: 30 groups; the limit is 20"),
])
def test_the_cli_refuses_bad_requests_with_one_line_and_exit_2(capsys, arguments, expected):
    from pipeline.cli import main

    code = main(["ask", "--docs", str(CORPUS_DIR), *arguments])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.strip().splitlines()[-1] == f"error: {expected}"
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("field,value,expected", [
    ("answer", "The lodging limit is 750 yuan. [travel-v2:1-3] " * 500, "the limit is 20000"),
    ("groups", "g" * 600, "the limit is 500"),
    ("groups", ",".join(f"g{i}" for i in range(25)), "25 groups; the limit is 20"),
    ("date", "20260914", "not a date; use YYYY-MM-DD"),
])
def test_the_api_caps_every_input(app_url, field, value, expected):
    from gradio_client.exceptions import AppError

    inputs = {"answer": "The lodging limit is 750 yuan. [travel-v2:1-3]", "groups": "", "date": "2026-09-14"}
    inputs[field] = value
    client = app_client(app_url)
    with pytest.raises(AppError, match=expected):
        client.predict(inputs["answer"], "Beijing lodging", inputs["date"], "travel", inputs["groups"],
                       3, 0.6, 0.9, 1400, 200, "before_cutoff", "hybrid", api_name="/check_answer")


def test_uploads_and_answers_run_in_separate_bounded_pools(shared_samples):
    """One user's upload cannot hold every other event: uploads and answers have their own limited pools."""
    from ui.layout import build_blocks

    demo = build_blocks(shared_samples)
    pools = {fn.api_name: (fn.concurrency_id, fn.concurrency_limit) for fn in demo.fns.values() if fn.api_name}
    assert pools["upload"][0] == "upload" and pools["upload"][1] >= 1
    assert pools["replace_document"] == pools["upload"]  # a replacement parses (and may embed) like an upload
    assert pools["ask"][0] == pools["check_answer"][0] == pools["run_demo"][0] == "answer"
    assert pools["ask"][1] >= 1 and pools["ask"][0] != pools["upload"][0]


def test_a_session_upload_quota_is_enforced(app_url, tmp_path, monkeypatch):
    from gradio_client import handle_file

    import ui.state

    monkeypatch.setattr(ui.state, "MAX_SESSION_BYTES", 1000)
    client = app_client(app_url)
    paths = []
    for name in ("quota-a", "quota-b"):
        path = tmp_path / f"{name}.md"
        path.write_text(f"---\nid: {name}\n---\n" + "A line about ferries.\n" * 28, encoding="utf-8")
        paths.append(path)
    first = client.predict([handle_file(str(paths[0]))], "", "", "", "", "", api_name="/upload")
    second = client.predict([handle_file(str(paths[1]))], "", "", "", "", "", api_name="/upload")
    assert [a["source_id"] for a in first["added"]] == ["quota-a"]
    assert not second["added"] and "this session may upload" in second["errors"][0]


def test_the_upload_limit_reads_20_mb_everywhere():
    from pipeline.core.errors import InputError
    from pipeline.ingest.parsers import parse
    from ui.state import MAX_FILE_BYTES

    assert MAX_FILE_BYTES == 20 * 2**20
    with pytest.raises(InputError, match=r"is 21 MB; the limit is 20 MB$"):
        parse(b"a" * (21 * 2**20), "big.txt")
    app_source = (Path(__file__).resolve().parents[2] / "ui" / "app.py").read_text()
    assert "max_file_size=MAX_FILE_BYTES," in app_source  # Gradio's own refusal uses the same number


# --------------------------------------------------------------------------- 6. memory stays bounded


def test_random_groups_do_not_grow_the_corpus_caches(make_corpus, logic_engine):
    """Every distinct readable set used to keep its own BM25 index and copy of the vectors, forever."""
    import datetime as dt
    import random

    from pipeline.core.contracts import Request

    files = [(f"team-{i}.md", f"---\nid: team-{i}\naccess: [g{i}]\n---\nTeam {i} may book lodging up to "
              f"{500 + i} yuan.\n") for i in range(10)]
    corpus = make_corpus(("public.md", "---\nid: public\n---\nAnyone may book lodging up to 400 yuan.\n"), *files)
    rng = random.Random(9)
    for _ in range(40):
        groups = tuple(sorted({f"g{rng.randrange(10)}" for _ in range(3)} | {f"x{rng.random()}"}))
        logic_engine.ask(corpus, Request(question="lodging limit", date=dt.date(2026, 9, 14), groups=groups))
    from pipeline.index.corpus import GROUPS_CACHE_SIZE, VIEW_CACHE_SIZE

    assert len(corpus._views) <= VIEW_CACHE_SIZE <= 16 and len(corpus._groups) <= GROUPS_CACHE_SIZE <= 1000


def test_session_uploads_stay_out_of_the_shared_vector_store_and_are_embedded_per_session(shared_samples, engine):
    """Uploads used to land in the shared Chroma collection (kept forever; a cache hit revealed that another
    session had uploaded the same text, or that a restricted sample holds it)."""
    from pipeline.index.chunk import retrieval_chunks
    from pipeline.index.embed import vector_key
    from pipeline.ingest.parsers import parse
    from ui.state import Session

    shared, sample_corpus = shared_samples, shared_samples.corpus
    restricted = shared.corpus.documents[RESTRICTED]
    restricted_copy = parse((CORPUS_DIR / f"{RESTRICTED}.md").read_bytes(), "copy.md")
    note = parse(f"---\nid: ferry-note-{uuid.uuid4().hex[:6]}\n---\nThe {uuid.uuid4().hex} ferry sails at 9.\n"
                 .encode(), "note.md")
    first, second = Session(), Session()
    first.add(shared, [note], {})
    second.add(shared, [note, restricted_copy], {})
    chunks = retrieval_chunks(note) + retrieval_chunks(restricted)
    # What each session's background job embeds: nothing borrowed from another session or a sample.
    assert first.embedding_job.total == len(retrieval_chunks(note))
    assert second.embedding_job.total == len(chunks)
    assert first.embedding_job.wait(120) and second.embedding_job.wait(120)
    assert first.embedding_job.state == second.embedding_job.state == "ready"
    keys = [vector_key(sample_corpus.embedder.name, c.text) for c in retrieval_chunks(note)]
    assert engine.vector_store.fetch(keys) == {}  # the shared (Chroma) store never saw the upload
    assert not second.corpus(shared).dense_missing and len(second.corpus(shared).chunks) > len(chunks)


def test_sessions_and_received_files_expire_and_the_access_log_hides_session_hashes(shared_samples, tmp_path):
    import logging

    from ui.app import create_app
    from ui.retention import CLOSED_SESSION_TTL_S, SESSION_TTL_S, RedactSessionHashes

    demo = create_app(shared_samples).state.demo
    assert SESSION_TTL_S <= 30 * 60 and CLOSED_SESSION_TTL_S <= 5 * 60
    assert demo.state_holder["some-session"].STATE_TTL_WHEN_CLOSED == CLOSED_SESSION_TTL_S  # Gradio: 3600
    assert demo.state_holder.capacity <= 1000
    assert demo.delete_cache is not None and demo.delete_cache[1] <= 3600
    record = logging.LogRecord("uvicorn.access", logging.INFO, "", 0, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5", "GET", "/gradio_api/queue/data?session_hash=s3cr3tha5h", "1.1", 200),
                               None)
    RedactSessionHashes().filter(record)
    assert "s3cr3tha5h" not in record.getMessage() and "/gradio_api/queue/data" in record.getMessage()
    assert any(isinstance(f, RedactSessionHashes) for f in logging.getLogger("uvicorn.access").filters)


def test_a_received_upload_is_deleted_once_read_and_cannot_be_downloaded(app_url, tmp_path):
    import httpx

    note = tmp_path / "retained.md"
    note.write_text(f"---\nid: retained-{uuid.uuid4().hex[:6]}\n---\nA note that should not be kept.\n")
    received = upload_raw(app_url, note)
    assert Path(received["path"]).exists()
    messages = queue_messages(app_url, "upload", [[received], "", "", "", "", "", None], f"s-{uuid.uuid4().hex[:8]}")
    assert any(m.get("msg") == "process_completed" and m.get("success") for m in messages)
    assert not Path(received["path"]).exists()
    assert not Path(received["path"]).parent.exists()  # Gradio's folder for it too: one per upload would pile up
    response = httpx.get(f"{app_url}gradio_api/file={received['path']}", timeout=30)
    assert response.status_code >= 400 and b"should not be kept" not in response.content


# --------------------------------------------------------------------------- 7. faults end in one clear line


def run_cli(*args: str, env: dict | None = None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=300, env=subprocess_env(**(env or {})))


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("error:") or "Traceback" in line]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr[-2000:]
    return lines[0]


@pytest.mark.slow  # the command line in a subprocess
def test_an_empty_readable_set_abstains_instead_of_crashing(tmp_path):
    (tmp_path / "secret.md").write_text("---\nid: secret\naccess: [x]\n---\nLodging is 100 yuan.\n")
    result = run_cli("ask", "--docs", str(tmp_path), "--question", "lodging")
    assert result.returncode == 0, result.stderr[-2000:]
    answer = json.loads(result.stdout)
    assert answer["status"] == "abstained" and answer["reason_code"] == "insufficient_evidence"


@pytest.mark.slow  # the command line in a subprocess
@pytest.mark.parametrize("target,expected", [("missing/dir/trace.json", "No such file or directory"),
                                             ("/dev/full", "No space left on device")])
def test_a_trace_that_cannot_be_written_keeps_the_answer_and_says_one_line(tmp_path, target, expected):
    if target == "/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here to simulate a full disk")
    path = target if target.startswith("/") else str(tmp_path / target)
    result = run_cli("ask", "--docs", str(CORPUS_DIR), "--question", "Beijing lodging", "--trace", path)
    assert result.returncode == 2
    assert json.loads(result.stdout)["status"] == "answered"  # printed before the write failed
    assert expected in one_error_line(result.stderr) and path in result.stderr


@pytest.mark.slow  # the command line in a subprocess
def test_a_corrupt_vector_store_is_one_line_naming_its_path_for_the_cli_and_the_app(tmp_path):
    import os
    import subprocess
    import sys

    store = tmp_path / "store"
    assert run_cli("ingest", "--store", str(store), str(CORPUS_DIR / "travel-v2.md")).returncode == 0
    database = store / "chroma" / "chroma.sqlite3"
    database.write_bytes(b"not a database" * 100)
    result = run_cli("ask", "--store", str(store), "--question", "Beijing lodging")
    assert result.returncode == 2 and str(store / "chroma") in one_error_line(result.stderr)
    started = subprocess.run([sys.executable, "-c", "import app"], cwd=Path(__file__).resolve().parents[2],
                             capture_output=True, text=True, timeout=300,
                             env={**os.environ, "RAG_CACHE_DIR": str(store / "chroma")})
    assert started.returncode == 2 and str(store / "chroma") in one_error_line(started.stderr)


@pytest.mark.slow  # the command line in a subprocess
def test_a_chroma_server_that_dies_is_one_line_and_the_store_stays_consistent(tmp_path):

    from pipeline.core.errors import StoreError
    from pipeline.index.stores.chroma import ChromaVectorCache
    from tests.conftest import _free_port, start_chroma_server

    port = _free_port()

    def start_server():
        return start_chroma_server(tmp_path / "server", port)

    server = start_server()
    try:
        env = {"CHROMA_HOST": "127.0.0.1", "CHROMA_PORT": str(port)}
        store = tmp_path / "store"
        assert run_cli("ingest", "--store", str(store), str(CORPUS_DIR / "travel-v2.md"), env=env).returncode == 0
        cache = ChromaVectorCache("test-embedder", host="127.0.0.1", port=port)
    finally:
        server.terminate()
        server.wait(timeout=30)
    import numpy as np

    with pytest.raises(StoreError) as caught:  # the server died between two calls of one ingest
        cache.store(["k1"], np.ones((1, 4), dtype=np.float32))
    assert "\n" not in str(caught.value) and f"chroma server http://127.0.0.1:{port}" in str(caught.value)
    manifest = (store / "manifest.json").read_text()
    result = run_cli("ingest", "--store", str(store), str(CORPUS_DIR / "travel-v1.md"), env=env)
    assert result.returncode == 2 and "chroma server" in one_error_line(result.stderr)
    assert (store / "manifest.json").read_text() == manifest  # nothing half-added
    # Restarted on the same folder and port, the server serves the stored vectors and the ingest completes.
    server = start_server()
    try:
        result = run_cli("ingest", "--store", str(store), str(CORPUS_DIR / "travel-v1.md"), env=env)
        assert result.returncode == 0, result.stderr
        assert sorted(json.loads((store / "manifest.json").read_text())["documents"]) == ["travel-v1", "travel-v2"]
    finally:
        server.terminate()
        server.wait(timeout=30)


# --------------------------------------------------------------------------- 8. uploads end with the session: say so


def test_the_page_says_uploads_end_with_the_session_or_a_restart(app_url):
    import httpx

    config = httpx.get(app_url + "config", timeout=30).text
    assert "when the server restarts" in config


def test_a_page_listing_uploads_the_server_lost_is_told_so(shared_samples):
    import warnings

    from ui.layout import build_blocks
    from ui.restart import uploads_gone
    from ui.state import Session

    fresh = Session()  # what a restarted server holds for the page's session
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # outside a request gr.Warning is a Python warning
        note = uploads_gone({"documents": ["my-policy", "<b>x</b>"]}, fresh)
    assert "no longer has your uploads (my-policy, &lt;b&gt;x&lt;/b&gt;)" in note
    assert uploads_gone({"documents": []}, fresh) == {"__type__": "update"}
    demo = build_blocks(shared_samples)
    checks = [fn for fn in demo.fns.values() if getattr(fn.fn, "__name__", "") == "uploads_gone"]
    assert len(checks) == 3  # on Ask, on Enter in the question, on Check


def test_front_matter_dates_are_iso_or_written_with_the_month_and_nothing_else():
    """"updated: September 11, 2020" (a real handbook's front matter) has one reading; "20260914", a week date or
    "09/11/2020" (September or November?) are refused."""
    import datetime as dt

    from pipeline.core.errors import InputError
    from pipeline.ingest.parsers import parse

    for value in ("20260914", "'20260914'", "2026-W37-1", "09/11/2020", "September 31, 2020"):
        with pytest.raises(InputError, match="valid_from: unknown date format"):
            parse(f"---\nvalid_from: {value}\n---\nbody\n".encode(), "dates.md")
    for value in ("September 11, 2020", "Sep 11, 2020", "11 September 2020"):
        document = parse(f"---\nupdated: {value}\n---\nbody\n".encode(), "dates.md")
        assert document.meta.updated == dt.date(2020, 9, 11)


# --------------------------------------------------------------------------- 9. the load test reports, it does not assert time


def test_the_load_benchmark_table_reports_latency_errors_and_memory():
    from benchmarks.bench_load import percentile, render

    figures = {"sessions": 16, "questions_per_session": 10, "upload_per_session": True, "asks_ok": 158,
               "errors": 2, "first_error": "AppError: x", "p50_s": 0.4, "p95_s": 2.5, "max_s": 3.0,
               "upload_p50_s": 1.0, "wall_s": 60.0, "asks_per_s": 2.6, "rss_idle_mb": 300.0, "rss_peak_mb": 480.0,
               "rss_end_mb": 450.0}
    table = render(figures)
    assert "16 × 10 (+1 upload each)" in table and "158 / 2" in table and "0.40 / 2.50 / 3.00" in table
    assert "300 / 480 / 450" in table and "first error: AppError: x" in table
    assert percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95) == 10


@pytest.mark.slow  # imports the app's handlers (Gradio)
def test_the_library_endpoint_reads_only_received_files_too(server_file):
    """/add_to_library (signed-in admins) takes files like /upload: a named server file is refused."""
    from pipeline.core.errors import InputError
    from ui.handlers import _read_upload

    for path in (str(server_file), "/etc/hostname"):
        with pytest.raises(InputError, match="was not uploaded through this page|was not received"):
            _read_upload(path)
    assert server_file.exists()  # refused, not read and not deleted
