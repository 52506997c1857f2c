"""Named factories of the engine's replaceable parts: generators, support judges, embedders, vector stores
and file parsers (`pipeline.core.interfaces`). A part is one class plus one `register(...)` call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from pipeline.core.errors import InputError
from pipeline.core.interfaces import Embedder, Generator, Parser, SupportJudge, VectorStore

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
