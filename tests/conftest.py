"""Shared pytest fixtures: the sample documents and corpora, and the running web app.

The vector cache is a test-only folder (RAG_CACHE_DIR), never the user's own cache.
"""

from __future__ import annotations

import datetime as dt
import os
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

os.environ["RAG_CACHE_DIR"] = tempfile.mkdtemp(prefix="rag-test-chroma-")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

ROOT = REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLES = ROOT / "sample_docs"
CORPUS = SAMPLES / "corpus"
REQUEST_DATE = dt.date(2026, 9, 14)


@pytest.fixture(scope="session")
def sample_documents():
    from pipeline.load import parse_paths

    return tuple(parse_paths([CORPUS]))


@pytest.fixture(scope="session")
def sample_corpus(sample_documents):
    from pipeline.load import corpus_from_documents

    return corpus_from_documents(list(sample_documents))


@pytest.fixture
def make_corpus():
    """make_corpus(("name.md", "text"), ...) → a Corpus of just those documents."""
    from pipeline.load import corpus_from_documents
    from pipeline.parse import parse

    def build(*files):
        return corpus_from_documents([parse(text.encode("utf-8"), name) for name, text in files])

    return build


# --------------------------------------------------------------------------- web app (ui/)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def app_url():
    """The whole app (FastAPI + Gradio + /healthz) served by uvicorn in a thread, on a free port.

    Chroma's vector cache is the test-only RAG_CACHE_DIR set above.
    """
    import uvicorn

    from ui.app import create_app

    app = create_app()
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 60
    while not server.started:
        if time.time() > deadline or not thread.is_alive():
            raise RuntimeError("the app did not start within 60 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=10)
