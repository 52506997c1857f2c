"""A vector store in this process only: for one session's private uploads and for tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class MemoryVectorStore:
    """Vectors in this process only: for one session's private uploads and for tests."""

    location = "memory"

    def __init__(self) -> None:
        self._vectors: dict[str, np.ndarray] = {}

    def fetch(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        return {key: self._vectors[key] for key in keys if key in self._vectors}

    def store(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        self._vectors.update(zip(keys, np.asarray(vectors, dtype=np.float32)))

    def delete(self, keys: Sequence[str]) -> None:
        for key in keys:
            self._vectors.pop(key, None)
