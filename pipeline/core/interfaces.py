"""The engine's replaceable parts, as Protocols: what a new generator, support judge, embedder, vector store, file
parser or question form must provide, and the optional hooks a part may add. Each part is registered by name
(`pipeline.core.registry`) and chosen by an `EngineConfig`; the journey names no concrete class.

The hooks are Protocols of their own, checked with `isinstance`: a part that has one is used through it, a part
that has none works without it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pipeline.core.contracts import Context, Document, Proposal, SupportVerdict

if TYPE_CHECKING:  # annotations only: a parse worker, which imports this, never loads numpy (15 MiB)
    import numpy as np

Progress = Callable[[int, int, str], None]


@runtime_checkable
class Generator(Protocol):
    """Packed context → a proposed answer with citations (checked afterwards, never trusted)."""

    name: str

    def __call__(self, context: Context) -> Proposal: ...


@runtime_checkable
class SupportJudge(Protocol):
    """Does a cited span support a claim? Decides only `claim_supported`; the deterministic checks
    (source, eligibility, lines, quote, numbers, support span) always run beside it and always win."""

    name: str

    def __call__(self, claim: str, span: str) -> SupportVerdict: ...


@runtime_checkable
class ReadsUnderTitle(Protocol):
    """A SupportJudge that reads a cited span under its document's names (id, title, topic): a policy line "The
    allowance is 180 yuan per day" in "Meal allowance on business trips" speaks of the meal allowance. The title
    may excuse a word the span leaves implicit; it is never evidence on its own."""

    def under_title(self, claim: str, span: str, title: str) -> SupportVerdict: ...


@runtime_checkable
class Embedder(Protocol):
    """Texts → vectors (rows need not be normalised; the index normalises them)."""

    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@runtime_checkable
class VectorStore(Protocol):
    """Passage vectors by content key (`index.embed.vector_key`): a cache, never the only copy of a document."""

    location: str

    def fetch(self, keys: Sequence[str]) -> dict[str, np.ndarray]: ...

    def store(self, keys: Sequence[str], vectors: np.ndarray) -> None: ...


@runtime_checkable
class Parser(Protocol):
    """One file type's bytes → a Document of exact lines. `filename` is only a label, never a path.

    The Document's `kind` is the parser's `name` (a stored document names the parser that read it).
    `front_matter`: whether the file itself may open with YAML metadata (text does; a PDF cannot, so its
    metadata comes from a sidecar `NAME.pdf.yaml` or the upload form).
    """

    name: str
    suffixes: tuple[str, ...]  # lower-case, with the dot: (".pdf",)
    media_types: tuple[str, ...]  # "type/subtype"
    front_matter: bool

    def sniff(self, data: bytes) -> bool:
        """Do these bytes look like this type (whatever the name says)?"""
        ...

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None,
              limits: Any = None) -> Document: ...


class QuestionForm(Protocol):
    """A form of question the answer stage knows ("what does X mean?", "which is the most …?"): `found` says whether
    a question has it, with the words that show it (recorded in the trace's reading), or None."""

    name: str

    def found(self, question: str) -> str | None: ...


# --------------------------------------------------------------------------- optional hooks


@runtime_checkable
class BudgetAware(Protocol):
    """A Generator whose prompt holds more than the packed sources (a language model's instructions and chat
    template): the whole prompt's size for a context, and the fewest output tokens it can answer in. The engine
    checks both against window − reserve before calling (`engine.journey.over_budget`), so a refusal never calls
    it and the trace says `generator_called: false`."""

    min_output: int

    def prompt_size(self, context: Context) -> int: ...


@runtime_checkable
class CorpusBound(Protocol):
    """A Generator or SupportJudge that binds to the corpus it answers from: it may reuse the corpus's index-time
    vectors, and it keeps what it derives from the corpus's text (unit vectors, text profiles) in the corpus's own
    caches (`Corpus.cache`), which go when the corpus goes (a session that ends, an upload deleted)."""

    def for_corpus(self, corpus: Any) -> Any: ...


@runtime_checkable
class ModelScored(Protocol):
    """A Generator or SupportJudge whose scores come from models: each model by its role ("scorer", "reader"),
    named in the trace's components so every score shown says which model produced it."""

    @property
    def models(self) -> dict[str, str]: ...


@runtime_checkable
class SessionKeyed(Protocol):
    """A part that calls a model server: the same part asking with one session's own API key (empty: the
    configured one)."""

    def with_api_key(self, api_key: str | None) -> Any: ...


@runtime_checkable
class Deletes(Protocol):
    """A VectorStore that can delete vectors (a replaced document's that nothing else uses)."""

    def delete(self, keys: Sequence[str]) -> None: ...
