"""One configuration, one builder: `build_engine(EngineConfig(...))` gives the CLI, the app, the
scenario suite, the evaluations and the benchmark the same engine.

Each replaceable part (see `pipeline.core.interfaces`) is registered by name (`pipeline.core.registry`; the
shipped ones in `pipeline.engine.parts`); an `EngineConfig` names the parts and holds the thresholds. Adding a
generator, a judge, an embedder, a vector store or a file type is one class plus one `register(...)` call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata as package_metadata
from pathlib import Path
from typing import Any

from pipeline.core.contracts import Document, Proposal, Request, Settings, Trace
from pipeline.core.interfaces import Embedder, Generator, Parser, Progress, SupportJudge, VectorStore
from pipeline.core.registry import EMBEDDERS, GENERATORS, JUDGES, VECTOR_STORES
from pipeline.core.settings import EngineConfig
from pipeline.engine import parts as shipped
from pipeline.engine.journey import ask
from pipeline.index.corpus import Corpus, build_corpus
from pipeline.lang.tokenize import Tokenizer


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
    sandbox: Any = None  # pipeline.engine.sandbox.Sandbox: parse in worker processes (the app); None: in this process
    _registered_generator: bool = True  # False when a ready-made part was passed to build_engine
    _registered_judge: bool = True

    @property
    def settings(self) -> Settings:
        return self.config.settings

    @property
    def upload_suffixes(self) -> list[str]:
        """The file name suffixes this engine reads (for an upload form), by parser name."""
        return [suffix for parser in sorted(self.parsers, key=lambda p: p.name) for suffix in parser.suffixes]

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

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None,
              admit: Callable[[dict], None] | None = None) -> Document:
        """One file's bytes → a Document (`filename` is only a label). With a sandbox, a worker process parses
        it; `admit(summary)` may refuse the document from its size (pages, lines, chars, words) first."""
        from pipeline.engine.sandbox import runs_in_worker
        from pipeline.ingest.budgets import document_size

        parser = self.parser_for(data, filename)
        if self.sandbox is not None and runs_in_worker(parser.name):
            return self.sandbox.parse(parser.name, data, filename, metadata, limits, admit=admit)
        document = parser.parse(data, filename, metadata, limits)
        if admit is not None:
            admit(document_size(document))
        return document

    def takes_front_matter(self, data: bytes, filename: str) -> bool:
        """Whether a file of this type carries its own metadata (front matter); if not, a sidecar or a form gives it."""
        return self.parser_for(data, filename).front_matter

    def parse_paths(self, paths: Sequence[Path], warn: Callable[[str], None] | None = None) -> list[Document]:
        """Every file of a type this engine reads under `paths` (a folder is read recursively), with sidecars."""
        from pipeline.ingest.paths import parse_paths

        return parse_paths(paths, self.parsers, warn=warn)

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
                          worker: Any = None, running: Any = None) -> tuple[Corpus, Any]:
        """A corpus to ask at once (BM25 now) and the background jobs embedding the vectors its documents lack
        (`pipeline.index.background.Embeddings`, one job per document; `running` ones are kept), or None when
        every vector is stored."""
        from pipeline.index.background import searchable_corpus

        store = self.vector_store if vector_store is None else vector_store  # (a store may define __len__)
        return searchable_corpus(documents, self.embedder, store, self.tokenizer, self.config.index, worker, running)

    # ------------------------------------------------------------------ retrieve → … → verify

    def judge_named(self, name: str) -> SupportJudge:
        """Another registered judge, built with this engine's parts (e.g. "learned" for a model's paraphrases)."""
        return JUDGES.create(name, config=self.config, tokenizer=self.tokenizer, embedder=self.embedder)

    def generator_named(self, name: str) -> Generator:
        """Another registered generator, built with this engine's parts (e.g. "llm")."""
        return GENERATORS.create(name, config=self.config, tokenizer=self.tokenizer, embedder=self.embedder)

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
        from pipeline.index.background import asking

        with asking():  # the background embedding worker waits between its batches while a question is answered
            return ask(corpus, request, settings, generator=generator or default_generator, proposal=proposal,
                       judge=judge or default_judge, components=self.components())


def build_engine(config: EngineConfig | None = None, **parts: Any) -> Engine:
    """Build every part the config names. `parts` may pass ready-made parts (e.g. `embedder=`) instead."""
    config = config or EngineConfig.from_env()
    for registry, key, name in ((EMBEDDERS, "embedder", config.embedder), (VECTOR_STORES, "vector_store", config.vector_store),
                                (GENERATORS, "generator", config.generator), (JUDGES, "judge", config.judge)):
        if key not in parts:
            registry.entry(name)  # an unknown name is refused before any part is built
    tokenizer = parts.get("tokenizer") or Tokenizer(config.index.cjk)
    embedder = parts.get("embedder") or EMBEDDERS.create(config.embedder)
    store = parts.get("vector_store") or VECTOR_STORES.create(config.vector_store, config=config, embedder=embedder)
    generator = parts.get("generator") or GENERATORS.create(config.generator, config=config, tokenizer=tokenizer,
                                                             embedder=embedder)
    judge = parts.get("judge") or JUDGES.create(config.judge, config=config, tokenizer=tokenizer, embedder=embedder)
    parsers = shipped.registered_parsers(config.parsers)
    return Engine(config=config, tokenizer=tokenizer, embedder=embedder, vector_store=store, generator=generator,
                  judge=judge, parsers=parsers, _registered_generator="generator" not in parts,
                  _registered_judge="judge" not in parts)


def paired_judge(generator: str) -> str:
    """The support judge a generator's answers are checked by: its registration's, else the configured default."""
    return GENERATORS.entry(generator).trait("judge") or EngineConfig.model_fields["judge"].default


def with_budget_of(generator: str, settings: Settings) -> Settings:
    """`settings` with at least the window and reserve the generator's registration declares (a language model's
    prompt holds instructions as well as the sources)."""
    entry = GENERATORS.entry(generator)
    window, reserve = entry.trait("window"), entry.trait("reserve")
    if window is None and reserve is None:
        return settings
    return settings.model_copy(update={"window": max(settings.window, window or 0),
                                       "reserve": max(settings.reserve, reserve or 0)})


def with_llm_budget(settings: Settings) -> Settings:
    """`settings` with at least the language model's own window and reserve (its prompt holds instructions too)."""
    return with_budget_of("llm", settings)
