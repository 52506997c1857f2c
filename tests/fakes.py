"""Deterministic test doubles for the pure-logic tests (the integration tests use the real model).

`HashedWordsTestEmbedder` is not a language model: it hashes word tokens into a fixed-size
vector, so texts that share words are similar and every run gives the same numbers.
"""

from __future__ import annotations

import hashlib
import re
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
