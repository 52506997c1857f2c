"""Generate: packed context → a proposed answer with citations, never trusted. Producers are a family
(`pipeline.core.interfaces.Generator`), each one class plus one registration below: the extractive composer
(`generate.extractive`, the default) and a language model (`generate.llm`).

What goes with a language model is declared here, once: it paraphrases, so its answers are judged by the
learned judge; its prompt holds instructions besides the sources, so it needs a budget of its own (code points,
read as tokens: `generate.llm.generator`; 4000 fits the smallest common server default, Ollama's 4096-token
context, with room for the system message, and 800 tokens of output).
"""

from __future__ import annotations

from typing import Any

from pipeline.core.registry import GENERATORS

LLM_WINDOW = 4000
LLM_RESERVE = 800


def _extractive(config, tokenizer, embedder=None, **_: Any):
    from pipeline.generate.extractive.composer import LocalExtractive

    return LocalExtractive(tokenizer, min_support=config.settings.min_support, embedder=embedder)


def _llm(**_: Any):
    from pipeline.generate.llm.generator import ChatCompletionsGenerator

    return ChatCompletionsGenerator.from_env()  # LLM_BASE_URL, LLM_MODEL, …


def llm_configured() -> bool:
    """Whether a language model server is configured (LLM_BASE_URL and LLM_MODEL)."""
    from pipeline.generate.llm.generator import LlmConfig

    return LlmConfig.configured()


GENERATORS.register("extractive", _extractive, label="extractive (copies the evidence; no model)")
GENERATORS.register("llm", _llm, label="language model (every claim checked)", judge="learned", window=LLM_WINDOW,
                    reserve=LLM_RESERVE, remote=True, available=llm_configured)
