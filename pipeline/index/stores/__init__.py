"""Vector stores: passage vectors by content key (`pipeline.core.interfaces.VectorStore`), a cache, never the only
copy of a document; each one class plus one registration below."""

from __future__ import annotations

from typing import Any

from pipeline.core.registry import VECTOR_STORES


def _chroma(config, embedder, **_: Any):
    from pipeline.index.stores.chroma import ChromaVectorCache

    return ChromaVectorCache(embedder.name, path=config.cache_dir, host=config.chroma_host, port=config.chroma_port)


def _memory(**_: Any):
    from pipeline.index.stores.memory import MemoryVectorStore

    return MemoryVectorStore()


VECTOR_STORES.register("chroma", _chroma)
VECTOR_STORES.register("memory", _memory)
