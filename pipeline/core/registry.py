"""Named factories of the engine's replaceable parts: generators, support judges, embedders, vector stores,
file parsers and question forms (`pipeline.core.interfaces`). A part is one class plus one `register(...)` call; the CLI's
and the app's choices, the file types an upload accepts and what goes with what are read from here.

A registration may carry a `label` (what a person choosing it reads) and traits, declared once where the
part is registered: a generator's paired support judge (`judge`) and context budget (`window`, `reserve`),
whether it calls a model server (`remote`), whether it can be used now (`available`, a callable); a judge
that accepts a faithful paraphrase (`paraphrase`, offered for a model's answers); a parser the app runs in its
worker processes (`sandboxed`, pipeline.engine.sandbox).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pipeline.core.errors import ConfigError
from pipeline.core.interfaces import Embedder, Generator, Parser, QuestionForm, SupportJudge, VectorStore

T = TypeVar("T")


@dataclass(frozen=True)
class Registration(Generic[T]):
    """One registered part: its name, its factory (keyword arguments: the parts built before it), and what is
    declared about it."""

    name: str
    factory: Callable[..., T]
    label: str = ""
    traits: Mapping[str, Any] = field(default_factory=dict)

    @property
    def shown(self) -> str:
        """How a choice of this part reads: its label, or its name."""
        return self.label or self.name

    def trait(self, key: str, default: Any = None) -> Any:
        return self.traits.get(key, default)

    def available(self) -> bool:
        """Whether the part can be built now (e.g. a model server is configured); True unless declared."""
        check = self.traits.get("available")
        return True if check is None else bool(check())


class Registry(Generic[T]):
    """Named factories of one kind of part, in the order they were registered."""

    def __init__(self, kind: str):
        self.kind = kind
        self._entries: dict[str, Registration[T]] = {}

    def register(self, name: str, factory: Callable[..., T], *, label: str = "", **traits: Any) -> None:
        self._entries[name] = Registration(name, factory, label, dict(traits))

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)

    @contextmanager
    def registered(self, name: str, factory: Callable[..., T], *, label: str = "", **traits: Any) -> Iterator[None]:
        """A registration that lasts for a `with` block (a test's own part)."""
        previous = self._entries.get(name)
        self.register(name, factory, label=label, **traits)
        try:
            yield
        finally:
            if previous is None:
                self.unregister(name)
            else:
                self._entries[name] = previous

    def names(self) -> list[str]:
        """Every registered name, sorted (how choices are listed)."""
        return sorted(self._entries)

    def in_order(self) -> list[str]:
        """Every registered name, in the order of registration (the order a part is tried in)."""
        return list(self._entries)

    def entry(self, name: str) -> Registration[T]:
        if name not in self._entries:
            raise ConfigError(self.kind, f"unknown {self.kind} {name!r}; registered: {', '.join(self.names())}")
        return self._entries[name]

    def entries(self) -> list[Registration[T]]:
        return [self._entries[name] for name in self.names()]

    def create(self, name: str, **parts: Any) -> T:
        return self.entry(name).factory(**parts)


GENERATORS: Registry[Generator] = Registry("generator")
JUDGES: Registry[SupportJudge] = Registry("support judge")
EMBEDDERS: Registry[Embedder] = Registry("embedder")
VECTOR_STORES: Registry[VectorStore] = Registry("vector store")
PARSERS: Registry[Parser] = Registry("parser")
FORMS: Registry[QuestionForm] = Registry("question form")
