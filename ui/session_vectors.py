"""Passage vectors for one session's corpus, kept in that session's memory only.

Uploads are never written to the shared Chroma collection: it would keep them after the session
ends, and its hits are a timing side channel (a document another session uploaded embedded in
0.2 s, a never-seen one in 81 s). The samples' vectors are lent from the shared corpus, except
any whose text an upload repeats: such a chunk is embedded again, so an upload's timing never
says whether a (restricted) sample holds the same text.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipeline import Chunker, Corpus, Document, IndexSettings, vector_key


class SessionVectors:
    """A VectorStore (fetch/store by content key) over the samples' vectors plus this session's own."""

    location = "session memory"

    def __init__(self, samples: Corpus, index: IndexSettings, previous: SessionVectors | None = None) -> None:
        self.embedder_name = samples.embedder.name
        self.samples = samples  # the shared corpus lent from (it changes when the library does)
        self._chunker = Chunker(index.chunk_window, index.chunk_overlap)  # the engine's chunks, so keys match
        self._samples = {vector_key(self.embedder_name, chunk.search_text): row
                         for chunk, row in zip(samples.chunks, samples.vectors)}
        self._own: dict[str, np.ndarray] = dict(previous._own) if previous is not None else {}
        self._repeated: set[str] = set()  # sample keys an upload repeats: never lent

    def uploading(self, documents: Sequence[Document]) -> None:
        """Before embedding `documents`: their chunk texts must be embedded, not looked up in the samples."""
        self._repeated.update(vector_key(self.embedder_name, chunk.search_text)
                              for document in documents for chunk in self._chunker(document))

    def fetch(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found = {}
        for key in keys:
            if key in self._own:
                found[key] = self._own[key]
            elif key in self._samples and key not in self._repeated:
                found[key] = self._samples[key]
        return found

    def store(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        self._own.update(zip(keys, np.asarray(vectors, dtype=np.float32)))

    def forget(self, keep: Sequence[Document]) -> None:
        """Keep only the vectors of chunks of `keep` (after uploads are dropped)."""
        wanted = {vector_key(self.embedder_name, c.search_text) for d in keep for c in self._chunker(d)}
        self._own = {k: v for k, v in self._own.items() if k in wanted}
