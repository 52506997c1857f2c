"""BM25 (bm25s, Lucene variant) over one readable subset of a corpus's chunks, with its document frequencies."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import bm25s
import numpy as np

from pipeline.core.contracts import IndexSettings

_DEFAULTS = IndexSettings()


@dataclass
class LexicalIndex:
    """BM25 (bm25s, Lucene variant) over one readable subset of the chunks."""

    rows: np.ndarray  # corpus chunk indices covered, in index order
    bm25: bm25s.BM25 | None  # None when nothing readable has a term
    vocabulary: dict[str, int]
    document_frequency: np.ndarray
    vectors: np.ndarray | None = None  # the rows' unit vectors, copied once per readable set

    @classmethod
    def build(cls, rows: np.ndarray, chunk_tokens: Sequence[list[str]], k1: float = _DEFAULTS.bm25_k1,
              b: float = _DEFAULTS.bm25_b) -> LexicalIndex:
        vocabulary: dict[str, int] = {}
        ids = []
        for tokens in chunk_tokens:
            ids.append([vocabulary.setdefault(token, len(vocabulary)) for token in tokens])
        if not vocabulary:  # nothing readable (or no terms): bm25s cannot index that; every score is 0
            return cls(rows=rows, bm25=None, vocabulary={}, document_frequency=np.zeros(0, dtype=np.int64))
        bm25 = bm25s.BM25(k1=k1, b=b)
        # bm25s takes (token ids, vocabulary) so our tokenizer, not its own, defines terms.
        bm25.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocabulary), show_progress=False)
        frequency = np.zeros(len(vocabulary), dtype=np.int64)
        for token_ids in ids:
            frequency[list(set(token_ids))] += 1
        return cls(rows=rows, bm25=bm25, vocabulary=vocabulary, document_frequency=frequency)

    def idf(self, token: str) -> float:
        n = len(self.rows)
        df = self.document_frequency[self.vocabulary[token]] if token in self.vocabulary else 0
        return float(np.log(1 + (n - df + 0.5) / (df + 0.5)))

    def token_scores(self, token: str) -> np.ndarray:
        """BM25 contribution of one query token to every indexed chunk (zeros if unseen)."""
        if token not in self.vocabulary or len(self.rows) == 0 or self.bm25 is None:
            return np.zeros(len(self.rows), dtype=np.float32)
        return np.asarray(self.bm25.get_scores([self.vocabulary[token]]), dtype=np.float32)
