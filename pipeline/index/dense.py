"""Dense search inside Chroma (HNSW) for large collections, with the access rule applied before scoring.

Small collections keep the in-process matrix product (exact, and faster below the switch-over
size that `python -m pipeline bench scale --crossover` measures). From
`IndexSettings.dense_search_min_chunks` on, a corpus puts its chunk vectors into Chroma
collections named by the embedder and the corpus digest (content-addressed: a replica that opens
the same corpus on the same server finds them filled and adds nothing), one collection per
access list (see `ChromaChunkSearch`), so a requester's query never scores a chunk it may not
read. Each chunk's metadata also holds what the rules need, for Chroma's `where`:

- `public` (the document has no access list) and `groups` (its access list): `access_filter`
  is exactly `index.can_read`;
- `valid_from`/`valid_to` (date ordinals, open ends as -1 / 10**9) and `topic` (case-folded):
  `eligibility_where` is exactly `SourceTable.eligible`.

No chunk text goes into Chroma: ids are corpus row numbers, and the text stays in the corpus.

Every change of the library makes a new digest and so new collections. Each collection's
metadata holds `last_used` (epoch seconds), refreshed when a process fills (opens) it and at
most hourly while it searches; filling a corpus deletes this model's chunk collections idle for
longer than `IndexSettings.dense_idle_days`, so the store does not grow with every change while
a replica still on the previous library keeps its own.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pipeline.core.contracts import Document
from pipeline.core.errors import StoreError

OPEN_FROM, OPEN_TO = -1, 10**9  # the ordinals SourceTable uses for open validity ends
RowTest = Callable[[np.ndarray], np.ndarray]  # corpus rows -> one bool each


TOUCH_EVERY_SECONDS = 3600  # a searching process refreshes `last_used` at most this often


def chunk_collection_prefix(embedder_name: str) -> str:
    import re

    model = re.sub(r"[^a-zA-Z0-9_-]", "-", embedder_name)[:80].strip("-_") or "model"
    return f"chunks-{model}-"


def chunk_collection_name(embedder_name: str, digest: str) -> str:
    """One collection per (embedding model, corpus digest); Chroma allows 3-512 characters."""
    return f"{chunk_collection_prefix(embedder_name)}{digest[:32]}"


def prune_idle_collections(client, prefix: str, keep: str, idle_seconds: float, now: float | None = None) -> list[str]:
    """Delete the collections named `prefix…` (not `keep…`) whose `last_used` is older than
    `idle_seconds`. One without the stamp (written before stamps existed) is stamped now, so it
    is deleted only after a full idle period. Returns the deleted names."""
    now = time.time() if now is None else now
    deleted = []
    for collection in client.list_collections():
        name = collection.name
        if not name.startswith(prefix) or name.startswith(keep):
            continue
        last_used = (collection.metadata or {}).get("last_used")
        if not isinstance(last_used, (int, float)):
            collection.modify(metadata={"last_used": now})
        elif now - last_used > idle_seconds:
            client.delete_collection(name)
            deleted.append(name)
    return deleted


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


def partition_key(metadata: dict) -> str:
    """Chunks that share an access list and whether they are dated go into one collection."""
    access = "public" if metadata["public"] else "groups=" + ",".join(metadata.get("groups", ()))
    dated = metadata["valid_from"] != OPEN_FROM or metadata["valid_to"] != OPEN_TO
    return f"{access}|{'dated' if dated else 'open'}"


@dataclass
class Partition:
    collection: object
    public: bool
    groups: frozenset[str]
    dated: bool
    rows: np.ndarray  # corpus rows it holds (ids are the row numbers)

    def readable_by(self, groups: Sequence[str]) -> bool:
        return self.public or bool(self.groups & set(groups))  # the rule of `index.can_read`


class ChromaChunkSearch:
    """HNSW search over one corpus's chunks in Chroma (embedded or on a server).

    Chroma's local engine applies a `where` filter by listing every matching id first (measured
    about 4-20 us per admitted chunk, 0.47 s at 20k chunks on these cores, against 5 ms without a
    filter), so the access rule is applied by *partitioning* instead: one collection per access
    list (and dated/open documents), and a query searches only the partitions the requester may
    read; a collection it may not read is never scored. The eligibility `where` (dates, topic) runs
    only in dated partitions, or everywhere when the request names a topic."""

    path = "chroma-hnsw"

    def __init__(self, client, name: str, location: str):
        self.client, self.name, self.location = client, name, location
        self.partitions: list[Partition] = []
        self._max_batch = max(1, min(client.get_max_batch_size(), 5000))
        self._touched = time.time()

    def count(self) -> int:
        return sum(p.collection.count() for p in self.partitions)

    def fill(self, vectors, metadatas: Sequence[dict], progress=None) -> int:
        """Open (create) each partition and upsert its rows unless it already holds them all (a
        replica, a restart). Rows are ids, so an interrupted fill resumes at its last whole batch
        and never duplicates. `vectors[rows]` must give the unit vectors of an array of rows."""
        groups: dict[str, list[int]] = {}
        for row, metadata in enumerate(metadatas):
            groups.setdefault(partition_key(metadata), []).append(row)
        self.partitions, inserted, done = [], 0, 0
        for key, members in sorted(groups.items()):
            rows = np.asarray(members, dtype=np.int64)
            first = metadatas[members[0]]
            suffix = hashlib.sha256(key.encode()).hexdigest()[:10]
            collection = self.client.get_or_create_collection(
                name=f"{self.name}-{suffix}", metadata={"hnsw:space": "cosine"}, embedding_function=None)
            _touch(collection)  # stamps a new collection and refreshes an existing one
            self.partitions.append(Partition(collection, first["public"], frozenset(first.get("groups", ())),
                                             key.endswith("|dated"), rows))
            present = collection.count()
            start = 0 if present >= len(rows) else (present // self._max_batch) * self._max_batch
            for offset in range(start if present < len(rows) else len(rows), len(rows), self._max_batch):
                batch = rows[offset: offset + self._max_batch]
                collection.upsert(ids=[str(r) for r in batch], embeddings=np.asarray(vectors[batch], dtype=np.float32),
                                  metadatas=[{**metadatas[r], "row": int(r)} for r in batch])
                inserted += len(batch)
                if progress:
                    progress(done + offset + len(batch), len(metadatas), "dense index")
            done += len(rows)
        return inserted

    def touch_if_due(self) -> None:
        """Refresh every partition's `last_used`, at most once per TOUCH_EVERY_SECONDS."""
        if time.time() - self._touched >= TOUCH_EVERY_SECONDS:
            for partition in self.partitions:
                _touch(partition.collection)
            self._touched = time.time()

    def search(self, query_vector: np.ndarray, groups: Sequence[str], limit: int, date: dt.date | None = None,
               topic: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(corpus rows, cosine similarities), best first, among the chunks `groups` may read (and,
        with a `date`, that are eligible on it and in `topic`)."""
        found: list[tuple[np.ndarray, np.ndarray]] = []
        for partition in self.partitions:
            if not partition.readable_by(groups):
                continue
            where = None if date is None else eligibility_where(partition.dated, date, topic)
            found.append(self._query(partition, query_vector, where, limit))
        return _best(found, limit)

    def _query(self, partition: Partition, query_vector, where: dict | None, limit: int,
               ids: np.ndarray | None = None):
        n = min(limit, len(partition.rows) if ids is None else len(ids))
        if n <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        result = partition.collection.query(query_embeddings=[np.asarray(query_vector, dtype=np.float32)],
                                            n_results=n, where=where, include=["distances"],
                                            ids=None if ids is None else [str(int(r)) for r in ids])
        rows = np.array([int(i) for i in result["ids"][0]], dtype=np.int64)
        return rows, 1.0 - np.asarray(result["distances"][0], dtype=np.float32)  # cosine distance = 1 - cos

    def readable_and_eligible(self, query_vector: np.ndarray, groups: Sequence[str], date: dt.date,
                              topic: str | None, limit: int, is_eligible: RowTest | None = None) -> tuple[tuple, tuple]:
        """The best readable chunks and the best readable *and eligible* ones: one plain query per
        readable partition, plus, in a partition where eligibility can differ (dated, or a topic
        asked), a second query restricted to its eligible chunks: by `is_eligible` (rows -> bool, the
        in-process rule) as Chroma `ids`, or without it by the eligibility `where` (much slower).
        With `is_eligible`, the second query is skipped when the plain answer already holds the
        partition's best `limit` eligible chunks (or it has none)."""
        self.touch_if_due()
        readable, eligible = [], []
        for partition in self.partitions:
            if not partition.readable_by(groups):
                continue
            plain = self._query(partition, query_vector, None, limit)
            readable.append(plain)
            where = eligibility_where(partition.dated, date, topic)
            if where is None:
                eligible.append(plain)
                continue
            if is_eligible is None:
                eligible.append(self._query(partition, query_vector, where, limit))
                continue
            allowed = partition.rows[is_eligible(partition.rows)]
            keep = is_eligible(plain[0])
            if int(keep.sum()) >= min(limit, len(allowed)):  # exact: the partition's best eligible chunks
                eligible.append((plain[0][keep], plain[1][keep]))
            else:  # Chroma's `ids` restriction: measured 2-12 ms where the `where` took 150-170 ms
                eligible.append(self._query(partition, query_vector, None, limit, ids=allowed))
        return _best(readable, limit), _best(eligible, limit)


def _touch(collection) -> None:
    collection.modify(metadata={"last_used": time.time()})  # only the stamp: the distance is fixed at creation


def eligibility_where(dated: bool, date: dt.date, topic: str | None) -> dict | None:
    """The `where` of `SourceTable.eligible` for one partition; None when all its chunks are eligible."""
    day = date.toordinal()
    clauses: list[dict] = [{"valid_from": {"$lte": day}}, {"valid_to": {"$gte": day}}] if dated else []
    if topic:
        clauses.append({"topic": topic.casefold()})
    return None if not clauses else clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _best(found: list[tuple[np.ndarray, np.ndarray]], limit: int) -> tuple[np.ndarray, np.ndarray]:
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    rows = np.concatenate([f[0] for f in found])
    similarity = np.concatenate([f[1] for f in found])
    order = np.lexsort((rows, -similarity))[:limit]
    return rows[order], similarity[order]


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
        raise StoreError(store.location, f"cannot open the chunk collection ({type(error).__name__}: {error})") from None


def hnsw_scores(search: ChromaChunkSearch, rows: np.ndarray, query_vector: np.ndarray, groups: Sequence[str],
                date: dt.date, topic: str | None, limit: int, is_eligible: RowTest | None = None) -> np.ndarray:
    """Dense similarity per readable row (NaN where HNSW did not return the row).

    Two result lists: the best readable chunks (what the trace shows), and the best readable *and
    eligible* ones, so many high-scoring ineligible chunks cannot crowd every eligible one out of
    the candidates. A returned row outside `rows` (the requester's readable chunks, computed in
    the process) is ignored: the access rule is enforced twice."""
    scores = np.full(len(rows), np.nan, dtype=np.float32)
    if not len(rows):
        return scores
    lists = search.readable_and_eligible(query_vector, groups, date, topic, min(limit, len(rows)), is_eligible)
    for found, similarity in lists:
        positions = np.minimum(np.searchsorted(rows, found), len(rows) - 1)
        inside = rows[positions] == found
        scores[positions[inside]] = similarity[inside]
    return scores
