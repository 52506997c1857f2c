"""The engine's replaceable parts, as Protocols: what a new generator, judge, embedder, vector
store or file parser must provide. Each is registered by name in `pipeline.config` and chosen
by an `EngineConfig`; nothing else in the pipeline names a concrete class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from pipeline.core.contracts import Context, Document, Proposal, SupportVerdict

Progress = Callable[[int, int, str], None]


@runtime_checkable
class Generator(Protocol):
    """Packed context → a proposed answer with citations (checked afterwards, never trusted).

    Optional: `prompt_size(context) -> int` (the whole prompt, when it holds more than the packed
    sources) and `min_output` (the fewest output tokens it can answer in); the engine checks both
    against window − reserve before calling (`engine.over_budget`), so a refusal never calls it.
    """

    name: str

    def __call__(self, context: Context) -> Proposal: ...


@runtime_checkable
class SupportJudge(Protocol):
    """Does a cited span support a claim? Decides only `claim_supported`; the deterministic checks
    (source, eligibility, lines, quote, numbers, support span) always run beside it and always win."""

    name: str

    def __call__(self, claim: str, span: str) -> SupportVerdict: ...


@runtime_checkable
class Embedder(Protocol):
    """Texts → vectors (rows need not be normalised; the index normalises them)."""

    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@runtime_checkable
class VectorStore(Protocol):
    """Passage vectors by content key (`embed.vector_key`): a cache, never the only copy of a document."""

    location: str

    def fetch(self, keys: Sequence[str]) -> dict[str, np.ndarray]: ...

    def store(self, keys: Sequence[str], vectors: np.ndarray) -> None: ...


@runtime_checkable
class Parser(Protocol):
    """One file type's bytes → a Document of exact lines. `filename` is only a label, never a path."""

    name: str
    suffixes: tuple[str, ...]  # lower-case, with the dot: (".pdf",)
    media_types: tuple[str, ...]

    def sniff(self, data: bytes) -> bool:
        """Do these bytes look like this type (whatever the name says)?"""
        ...

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None,
              limits: Any = None) -> Document: ...
