"""Chroma as the store of record for passage vectors, keyed by content hash (seed 002).

Embedded `PersistentClient` by default; a real Chroma server through `HttpClient` when
CHROMA_HOST/CHROMA_PORT are set. We always pass our own vectors: Chroma's default embedding
function would download a model at run time. Only vectors and the model's name are stored,
never document text, so the cache can be shared without sharing anyone's documents.
"""

from __future__ import annotations

import fcntl
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import numpy as np

from pipeline.core.errors import StoreError
from pipeline.core.settings import default_cache_dir

_GET_BATCH = 2000
# Embedded folders this process holds, each with its locked `.in-use` file (the OS releases it when the process ends).
_HELD: dict[Path, IO[str]] = {}
_HOLDING = threading.Lock()


def hold_embedded(path: Path) -> None:
    """Claim an embedded Chroma folder for this process, or refuse in one line. Embedded Chroma keeps its index in the
    memory of the process that opened it: a second process writing the same folder corrupts it (seen: three
    evaluations on one folder, "Error finding id" on every read after). Several processes share a Chroma server."""
    key = path.resolve()
    with _HOLDING:
        if key in _HELD:
            return
        handle = open(key / ".in-use", "a+")  # noqa: SIM115 - held open for the process's life
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise StoreError(f"chroma embedded {path}", "another process is using this vector store (an embedded "
                             "store serves one process): stop it, give this one its own RAG_CACHE_DIR, or share a "
                             "Chroma server (CHROMA_HOST)") from None
        _HELD[key] = handle


def _chroma_settings():
    from chromadb.config import Settings

    return Settings(anonymized_telemetry=False, allow_reset=False)


def collection_name(embedder_name: str) -> str:
    name = re.sub(r"[^a-zA-Z0-9_-]", "-", f"vectors-{embedder_name}")[:200].strip("-_")
    return name if len(name) >= 3 else f"vectors-{name}"


class ChromaVectorCache:
    """Vectors by content hash in one Chroma collection per embedding model."""

    def __init__(self, embedder_name: str, path: Path | None = None, host: str | None = None, port: int | None = None):
        import chromadb

        if host or port:
            self.location = f"chroma server http://{host or 'localhost'}:{port or 8000}"
            try:
                self.client = chromadb.HttpClient(host=host or "localhost", port=port or 8000, settings=_chroma_settings())
            except Exception as error:  # chromadb raises ValueError or a connection error here
                raise StoreError("CHROMA_HOST/CHROMA_PORT", f"cannot reach the {self.location}: {error}") from None
        else:
            path = Path(path or default_cache_dir())
            self.location = f"chroma embedded {path}"
            try:
                path.mkdir(parents=True, exist_ok=True)
                hold_embedded(path)
                self.client = chromadb.PersistentClient(path=str(path), settings=_chroma_settings())
            except StoreError:
                raise
            except Exception as error:  # noqa: BLE001 - a corrupt or unwritable store: one line naming it
                raise self._failed("cannot open", error) from None
        try:
            self.collection = self.client.get_or_create_collection(
                name=collection_name(embedder_name),
                metadata={"hnsw:space": "cosine", "embedder": embedder_name},
                embedding_function=None,
            )
            self._max_batch = max(1, min(self.client.get_max_batch_size(), 5000))
        except Exception as error:  # noqa: BLE001
            raise self._failed("cannot open", error) from None
        self.embedder_name = embedder_name

    def _failed(self, doing: str, error: Exception) -> StoreError:
        """One line naming the store (its path, or the server) and what went wrong."""
        first = (str(error).strip().splitlines() or [""])[0][:160]
        hint = ("vectors are a cache: move the folder aside to rebuild it" if self.location.startswith("chroma embedded")
                else "is the server running?")
        return StoreError(self.location, f"{doing} the vector store ({type(error).__name__}: {first}); {hint}")

    def fetch(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        try:
            for offset in range(0, len(keys), _GET_BATCH):
                batch = list(keys[offset : offset + _GET_BATCH])
                result = self.collection.get(ids=batch, include=["embeddings"])
                for key, vector in zip(result["ids"], result["embeddings"]):
                    found[key] = np.asarray(vector, dtype=np.float32)
        except Exception as error:  # noqa: BLE001 - the server died, the disk failed: one line, not 90
            raise self._failed("cannot read from", error) from None
        return found

    def store(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        try:
            for offset in range(0, len(keys), self._max_batch):
                batch = list(keys[offset : offset + self._max_batch])
                rows = vectors[offset : offset + self._max_batch]
                self.collection.upsert(
                    ids=batch,
                    embeddings=[row.tolist() for row in rows],
                    metadatas=[{"embedder": self.embedder_name}] * len(batch),
                )
        except Exception as error:  # noqa: BLE001
            raise self._failed("cannot write to", error) from None

    def delete(self, keys: Sequence[str]) -> None:
        """Remove vectors (a replaced document's chunks that nothing else uses)."""
        try:
            for offset in range(0, len(keys), self._max_batch):
                self.collection.delete(ids=list(keys[offset : offset + self._max_batch]))
        except Exception as error:  # noqa: BLE001
            raise self._failed("cannot delete from", error) from None
