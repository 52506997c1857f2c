"""Deterministic test doubles for the pure-logic tests (the integration tests use the real model).

`HashedWordsTestEmbedder` is not a language model: it hashes word tokens into a fixed-size
vector, so texts that share words are similar and every run gives the same numbers.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+", re.UNICODE)


class HashedWordsTestEmbedder:
    """A test embedder: bag of hashed lower-case words (and CJK characters), 64 dimensions."""

    name = "hashed-words-test-embedder"
    dim = 64

    def _vector(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            for token in (list(word) if not word.isascii() else [word]):
                bucket = int.from_bytes(hashlib.sha256(token.encode("utf-8")).digest()[:4], "little") % self.dim
                vector[bucket] += 1.0
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


class GatedTestEmbedder:
    """An embedder (the hashed-words test embedder, or the one given) slowed on demand: while paused,
    each batch the background embedding worker sends waits for a permit (`allow`), so a test can ask
    mid-embedding. Other callers (a question, the composer's units) are never held."""

    def __init__(self, inner=None) -> None:
        self.inner = inner or HashedWordsTestEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self._open = threading.Event()
        self._open.set()
        self._permits = threading.Semaphore(0)
        self.background_batches = 0

    def pause(self) -> None:
        self._open.clear()

    def allow(self, batches: int = 1) -> None:
        for _ in range(batches):
            self._permits.release()

    def resume(self) -> None:
        self._open.set()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if threading.current_thread().name.startswith("embedding"):
            while not self._open.is_set() and not self._permits.acquire(timeout=0.05):
                pass
            self.background_batches += 1
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


class FailingTestEmbedder(HashedWordsTestEmbedder):
    """A fault: passage embedding fails (as a dead model server would) once `failing` is set."""

    def __init__(self) -> None:
        self.failing = False

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if self.failing:
            raise RuntimeError("the embedding model stopped")
        return super().embed_passages(texts)
