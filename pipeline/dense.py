"""Dense search inside Chroma (HNSW) for large collections, with the access filter in the query.

Small collections keep the in-process matrix product (exact, and faster below the switch-over
size that `python -m pipeline bench scale --crossover` measures). Above
`IndexSettings.dense_search_min_chunks` a corpus gets one Chroma collection of its chunks,
named by the embedder and the corpus digest (content-addressed: a replica that opens the same
corpus on the same server finds it filled and adds nothing). Each chunk's metadata holds what
the access and eligibility rules need, so Chroma applies them *before* it scores:

- `public` (the document has no access list) and `groups` (its access list), so the filter
  `public OR groups contains g1 OR ...` is exactly `index.can_read`;
- `valid_from`/`valid_to` (date ordinals, open ends as -1 / 10**9) and `topic` (case-folded),
  so the eligible-only query is exactly `SourceTable.eligible`.

No chunk text goes into Chroma: ids are corpus row numbers, and the text stays in the corpus.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np

from .contracts import Document
from .errors import InputError

OPEN_FROM, OPEN_TO = -1, 10**9  # the ordinals SourceTable uses for open validity ends


def chunk_collection_name(embedder_name: str, digest: str) -> str:
    """One collection per (embedding model, corpus digest); Chroma allows 3-512 characters."""
    import re

    model = re.sub(r"[^a-zA-Z0-9_-]", "-", embedder_name)[:80].strip("-_") or "model"
    return f"chunks-{model}-{digest[:32]}"


def document_metadata(document: Document) -> dict:
    """What Chroma's `where` needs to apply the access rule and eligibility to a document's chunks."""
    meta = document.meta
    fields: dict = {
        "public": meta.access is None,
        "valid_from": meta.valid_from.toordinal() if meta.valid_from else OPEN_FROM,
        "valid_to": meta.valid_to.toordinal() if meta.valid_to else OPEN_TO,
        "topic": (meta.topic or "").casefold(),
    }
    if meta.access:  # Chroma rejects empty lists; an empty access list simply matches no group
        fields["groups"] = sorted(set(meta.access))
    return fields


def access_filter(groups: Sequence[str]) -> dict:
    """`public OR groups contains g` for each requester group: the same rule as `index.can_read`."""
    clauses: list[dict] = [{"public": True}] + [{"groups": {"$contains": g}} for g in sorted(set(groups))]
    return clauses[0] if len(clauses) == 1 else {"$or": clauses}


def eligible_filter(groups: Sequence[str], date: dt.date, topic: str | None) -> dict:
    """Readable and valid on `date` (and in `topic`): the same rule as `SourceTable.eligible`."""
    day = date.toordinal()
    clauses = [access_filter(groups), {"valid_from": {"$lte": day}}, {"valid_to": {"$gte": day}}]
    if topic:
        clauses.append({"topic": topic.casefold()})
    return {"$and": clauses}


class ChromaChunkSearch:
    """HNSW search over one corpus's chunks in a Chroma collection (embedded or on a server)."""

    path = "chroma-hnsw"

    def __init__(self, client, name: str, location: str):
        self.name, self.location = name, location
        self.collection = client.get_or_create_collection(
            name=name, metadata={"hnsw:space": "cosine"}, embedding_function=None)
        self._max_batch = max(1, min(client.get_max_batch_size(), 5000))

    def count(self) -> int:
        return self.collection.count()

    def fill(self, vectors: np.ndarray, metadatas: Sequence[dict], progress=None) -> int:
        """Upsert every row unless the collection already holds them all (a replica, a restart).

        Rows are ids, so an interrupted fill is completed, never duplicated, by the next one."""
        total, present = len(metadatas), self.count()
        if present == total:
            return 0
        # Batches go in row order, so an interrupted fill resumes at its last whole batch.
        start = (present // self._max_batch) * self._max_batch if present < total else 0
        for offset in range(start, total, self._max_batch):
            end = min(total, offset + self._max_batch)
            self.collection.upsert(ids=[str(row) for row in range(offset, end)],
                                   embeddings=np.asarray(vectors[offset:end], dtype=np.float32),
                                   metadatas=[{**metadatas[row], "row": row} for row in range(offset, end)])
            if progress:
                progress(end, total, "dense index")
        return total - start

    def search(self, query_vector: np.ndarray, where: dict, limit: int) -> tuple[np.ndarray, np.ndarray]:
        """(corpus rows, cosine similarities), best first, among the rows `where` admits."""
        if limit <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        result = self.collection.query(query_embeddings=[np.asarray(query_vector, dtype=np.float32)],
                                       n_results=limit, where=where, include=["distances"])
        rows = np.array([int(i) for i in result["ids"][0]], dtype=np.int64)
        similarity = 1.0 - np.asarray(result["distances"][0], dtype=np.float32)  # cosine distance = 1 - cos
        return rows, similarity


def chunk_metadatas(documents: dict[str, Document], chunk_sources: Sequence[str]) -> list[dict]:
    by_source = {sid: document_metadata(doc) for sid, doc in documents.items()}
    return [by_source[sid] for sid in chunk_sources]


def open_chunk_search(store, embedder_name: str, digest: str) -> ChromaChunkSearch | None:
    """The vector store's Chroma client, if it has one (the in-memory store has none)."""
    client = getattr(store, "client", None)
    if client is None:
        return None
    try:
        return ChromaChunkSearch(client, chunk_collection_name(embedder_name, digest), store.location)
    except Exception as error:  # noqa: BLE001 - one line naming the store, not a traceback
        raise InputError(store.location, f"cannot open the chunk collection ({type(error).__name__}: {error})") from None


def hnsw_scores(search: ChromaChunkSearch, rows: np.ndarray, query_vector: np.ndarray, groups: Sequence[str],
                date: dt.date, topic: str | None, limit: int) -> np.ndarray:
    """Dense similarity per readable row (NaN where HNSW did not return the row).

    Two filtered queries: the best readable chunks (what the trace shows), and the best readable
    *and eligible* ones, so many high-scoring ineligible chunks cannot crowd every eligible one out
    of the candidates. A returned row outside `rows` (the requester's readable chunks, computed in
    the process) is ignored: the access rule is enforced twice."""
    scores = np.full(len(rows), np.nan, dtype=np.float32)
    if not len(rows):
        return scores
    limit = min(limit, len(rows))
    for where in (access_filter(groups), eligible_filter(groups, date, topic)):
        found, similarity = search.search(query_vector, where, limit)
        positions = np.minimum(np.searchsorted(rows, found), len(rows) - 1)
        inside = rows[positions] == found
        scores[positions[inside]] = similarity[inside]
    return scores
