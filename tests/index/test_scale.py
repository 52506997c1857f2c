"""Scale paths: dense search inside Chroma (HNSW, access filter in the query) agrees with the
in-process brute force and never returns what the requester may not read, embedded and on a
`chroma run` server; saved BM25 indexes load in a new process and are rebuilt when stale or corrupt."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pipeline import IndexSettings, Request
from pipeline.index.corpus import build_corpus
from pipeline.index.dense import access_filter, chunk_collection_name, chunk_metadatas
from pipeline.index.lexical_store import Bm25Store
from pipeline.index.stores.chroma import ChromaVectorCache
from pipeline.retrieve.selection import retrieve

ROOT = Path(__file__).resolve().parents[2]
DATE = dt.date(2026, 9, 14)
SMALL = dict(chunk_window=200, chunk_overlap=20)  # more, shorter chunks than the default: more to compare
QUESTIONS = [
    ("How much is the daily meal allowance?", [], None, DATE),
    ("Which class may executives book on long flights?", ["executives"], None, DATE),
    ("Which class may executives book on long flights?", [], None, DATE),
    ("How much luggage may I take on the ferry?", ["executives"], None, dt.date(2023, 6, 1)),
    ("What does the travel policy say about hotels?", [], "travel", DATE),
]


def _corpus(engine, documents, store, minimum: int, **extra):
    settings = IndexSettings(**SMALL, dense_search_min_chunks=minimum, dense_candidates=10_000)
    return build_corpus(list(documents), engine.embedder, store, tokenizer=engine.tokenizer,
                        index_settings=settings, **extra)


@pytest.fixture(params=["embedded", "server"])
def chroma_store(request, engine, tmp_path):
    if request.param == "embedded":
        return ChromaVectorCache(engine.embedder.name, path=tmp_path / "chroma")
    port = request.getfixturevalue("chroma_server")
    return ChromaVectorCache(engine.embedder.name, host="127.0.0.1", port=port)


def test_hnsw_in_chroma_gives_the_brute_force_results_on_the_sample_corpus(engine, sample_documents, chroma_store):
    brute = _corpus(engine, sample_documents, chroma_store, minimum=10**9)
    hnsw = _corpus(engine, sample_documents, chroma_store, minimum=0)
    assert brute.dense_search is None and hnsw.dense_search is not None and len(hnsw.chunks) > 20
    assert hnsw.dense_search.count() == len(hnsw.chunks)
    for question, groups, topic, date in QUESTIONS:
        request = Request(question=question, date=date, groups=groups, topic=topic)
        exact, approximate = retrieve(brute, request, engine.settings), retrieve(hnsw, request, engine.settings)
        assert (exact.dense_search, approximate.dense_search) == ("brute-force", "chroma-hnsw")
        assert [c.chunk_id for c in approximate.selected] == [c.chunk_id for c in exact.selected], question
        assert [c.chunk_id for c in approximate.candidates] == [c.chunk_id for c in exact.candidates], question
        assert [c.eligible for c in approximate.candidates] == [c.eligible for c in exact.candidates]
        assert np.allclose([c.dense for c in approximate.candidates], [c.dense for c in exact.candidates], atol=1e-4)


def test_hnsw_never_returns_a_restricted_document(engine, sample_documents, chroma_store):
    restricted = {d.source_id for d in sample_documents if d.meta.access}
    assert restricted, "the sample corpus has a restricted document"
    corpus = _corpus(engine, sample_documents, chroma_store, minimum=0)
    request = Request(question="Which class may executives book on long flights?", date=DATE, groups=[])
    retrieval = retrieve(corpus, request, engine.settings)
    assert retrieval.dense_search == "chroma-hnsw" and retrieval.candidates
    assert not {c.source_id for c in retrieval.candidates} & restricted
    # The chunk search itself, asked for every chunk on behalf of the anonymous user, returns none of them ...
    query = engine.embedder.embed_query(request.question)
    rows, _ = corpus.dense_search.search(query, [], len(corpus.chunks))
    assert rows.size and not {corpus.chunks[r].source_id for r in rows} & restricted
    # ... and a member of the group does get them (so the check above can fail).
    rows, _ = corpus.dense_search.search(query, ["executives"], len(corpus.chunks))
    assert {corpus.chunks[r].source_id for r in rows} & restricted
    # The metadata's `where` form of the rule agrees with the partitions the search may read.
    for partition in corpus.dense_search.partitions:
        for groups in ([], ["executives"]):
            admitted = partition.collection.get(where=access_filter(groups), include=[])["ids"]
            assert len(admitted) == (len(partition.rows) if partition.readable_by(groups) else 0)


def test_a_replica_finds_the_chunk_collection_filled(engine, sample_documents, tmp_path):
    store = ChromaVectorCache(engine.embedder.name, path=tmp_path / "chroma")
    first = _corpus(engine, sample_documents, store, minimum=0)
    name = chunk_collection_name(engine.embedder.name, first.digest)
    assert first.dense_search.name == name and 3 <= len(name) <= 512
    again = ChromaVectorCache(engine.embedder.name, path=tmp_path / "chroma")
    from pipeline.index.dense import open_chunk_search

    search = open_chunk_search(again, engine.embedder.name, first.digest)
    metadatas = chunk_metadatas(first.documents, [c.source_id for c in first.chunks])
    assert search.fill(first.vectors, metadatas) == 0  # nothing re-inserted
    assert search.count() == len(first.chunks) and len(search.partitions) >= 2  # public and executives
    # A fill interrupted after four chunks resumes there: the rest is inserted once, nothing twice.
    fresh = ChromaVectorCache(engine.embedder.name, path=tmp_path / "other")
    search = open_chunk_search(fresh, engine.embedder.name, first.digest)
    search._max_batch = 1
    assert search.fill(first.vectors, metadatas[:4]) == 4
    assert search.fill(first.vectors, metadatas) == len(first.chunks) - 4
    assert search.count() == len(first.chunks)


# --------------------------------------------------------------------------- saved BM25


def _bm25_corpus(logic_engine, documents, folder: Path):
    return build_corpus(list(documents), logic_engine.embedder, None, tokenizer=logic_engine.tokenizer,
                        index_settings=IndexSettings(**SMALL), lexical_store=Bm25Store(folder))


def _ranking(corpus, question="How much is the daily meal allowance?"):
    retrieval = retrieve(corpus, Request(question=question, date=DATE, groups=[]), corpus_settings())
    return [(c.chunk_id, c.bm25) for c in retrieval.candidates]


def corpus_settings():
    from pipeline import Settings

    return Settings()


def test_a_saved_bm25_index_is_loaded_without_tokenizing(logic_engine, sample_documents, tmp_path):
    built = _bm25_corpus(logic_engine, sample_documents, tmp_path)
    expected = _ranking(built)
    assert built.lexical_store.last_event == "missing" and built.chunk_tokens is not None
    loaded = _bm25_corpus(logic_engine, sample_documents, tmp_path)
    assert _ranking(loaded) == expected
    assert loaded.lexical_store.last_event == "loaded" and loaded.chunk_tokens is None  # nothing re-indexed


def test_a_second_process_loads_the_saved_index(logic_engine, sample_documents, tmp_path):
    expected = _ranking(_bm25_corpus(logic_engine, sample_documents, tmp_path))
    script = textwrap.dedent(f"""
        import json
        from pathlib import Path
        from pipeline import EngineConfig, IndexSettings, build_engine
        from tests.fakes import HashedWordsTestEmbedder
        from tests.index.test_scale import SMALL, _ranking
        engine = build_engine(EngineConfig(vector_store="memory", bm25_dir=Path({str(tmp_path)!r}),
                              index=IndexSettings(**SMALL)), embedder=HashedWordsTestEmbedder())
        corpus = engine.corpus(engine.parse_paths([Path({str(ROOT / "sample_docs" / "corpus")!r})]))
        ranking = _ranking(corpus)
        print(json.dumps([corpus.lexical_store.last_event, corpus.chunk_tokens is None, ranking]))
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    event, untokenized, ranking = json.loads(out.stdout.strip().splitlines()[-1])
    assert (event, untokenized) == ("loaded", True)
    assert [tuple(r) for r in ranking] == expected


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "stale manifest", "missing file"])
def test_a_corrupt_or_stale_saved_index_is_rebuilt(logic_engine, sample_documents, tmp_path, damage):
    expected = _ranking(_bm25_corpus(logic_engine, sample_documents, tmp_path))
    folder = next(p for p in tmp_path.iterdir() if (p / "manifest.json").exists())
    data = folder / "bm25" / "data.csc.index.npy"
    if damage == "flip a byte":
        raw = bytearray(data.read_bytes())
        raw[-3] ^= 0xFF
        data.write_bytes(bytes(raw))
    elif damage == "truncate":
        data.write_bytes(data.read_bytes()[:40])
    elif damage == "stale manifest":
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["key"] = "0" * 40
        (folder / "manifest.json").write_text(json.dumps(manifest))
    else:
        data.unlink()
    again = _bm25_corpus(logic_engine, sample_documents, tmp_path)
    assert _ranking(again) == expected
    assert again.lexical_store.last_event.startswith("rebuilt:"), again.lexical_store.last_event
    assert again.chunk_tokens is not None  # it re-indexed ...
    third = _bm25_corpus(logic_engine, sample_documents, tmp_path)
    assert _ranking(third) == expected and third.lexical_store.last_event == "loaded"  # ... and saved a good copy


def test_a_changed_corpus_never_loads_the_old_index(logic_engine, sample_documents, tmp_path):
    _ranking(_bm25_corpus(logic_engine, sample_documents, tmp_path))
    fewer = [d for d in sample_documents if d.source_id != "meals-allowance"]
    changed = _bm25_corpus(logic_engine, fewer, tmp_path)
    _ranking(changed)
    assert changed.lexical_store.last_event == "missing"
    assert all(c.source_id != "meals-allowance" for c in retrieve(
        changed, Request(question="meal allowance", date=DATE, groups=[]), corpus_settings()).candidates)


@pytest.mark.parametrize("in_process_check", [True, False], ids=["shortcut", "where-filter"])
def test_the_eligible_list_is_the_exact_best_eligible_chunks(engine, sample_documents, tmp_path, in_process_check):
    """A small limit forces the eligibility `where` (or the in-process shortcut): both must give the
    brute-force best eligible readable chunks, for dates on which different versions are valid."""
    store = ChromaVectorCache(engine.embedder.name, path=tmp_path / "chroma")
    corpus = _corpus(engine, sample_documents, store, minimum=0)
    query = engine.embedder.embed_query("When does the ferry leave and what does the travel policy allow?")
    query = query / np.linalg.norm(query)
    for date, topic in ((DATE, None), (dt.date(2023, 6, 1), None), (DATE, "travel")):
        eligible = corpus.sources.eligible(date, topic)[corpus.chunk_source]
        readable = np.array([corpus.documents[c.source_id].meta.access is None for c in corpus.chunks])
        similarity = corpus.vectors @ query
        wanted = [int(r) for r in np.argsort(-similarity) if eligible[r] and readable[r]][:3]
        assert len(wanted) == 3 and not all(eligible[readable])  # something is ineligible on this date
        test = (lambda r, known=eligible: known[r]) if in_process_check else None
        _, (rows, _) = corpus.dense_search.readable_and_eligible(query, [], date, topic, 3, test)
        assert rows.tolist() == wanted, (date, topic)


def test_idle_chunk_collections_are_deleted_when_another_corpus_is_filled(engine, sample_documents, tmp_path):
    """A library change makes new collections; the old ones go once idle past dense_idle_days,
    a recently used one (a replica still on it) stays."""
    import time

    store = ChromaVectorCache(engine.embedder.name, path=tmp_path / "chroma")
    documents = list(sample_documents)
    old = _corpus(engine, documents[:-1], store, minimum=0)
    recent = _corpus(engine, documents[:-2], store, minimum=0)
    client = store.client
    names = lambda corpus: {c.name for c in client.list_collections() if c.name.startswith(corpus.dense_search.name)}  # noqa: E731
    old_names, recent_names = names(old), names(recent)
    assert old_names and recent_names and not old_names & recent_names
    for name in old_names:  # nobody has opened or searched the old library for eight days
        client.get_collection(name).modify(metadata={"last_used": time.time() - 8 * 86_400})
    new = _corpus(engine, documents, store, minimum=0)
    left = {c.name for c in client.list_collections()}
    assert not old_names & left
    assert recent_names <= left and names(new) <= left
    # The new corpus still answers from Chroma after the clean-up.
    retrieval = retrieve(new, Request(question="How much is the daily meal allowance?", date=DATE, groups=[]),
                         corpus_settings())
    assert retrieval.dense_search == "chroma-hnsw" and retrieval.selected


def test_a_collection_without_a_stamp_is_stamped_not_deleted(engine, tmp_path):
    from pipeline.index.dense import prune_idle_collections

    store = ChromaVectorCache(engine.embedder.name, path=tmp_path / "chroma")
    legacy = store.client.get_or_create_collection("chunks-model-legacy", embedding_function=None)
    assert prune_idle_collections(store.client, "chunks-model-", "chunks-model-current", 60.0, now=1_000.0) == []
    assert store.client.get_collection(legacy.name).metadata["last_used"] == 1_000.0
    assert prune_idle_collections(store.client, "chunks-model-", "chunks-model-current", 60.0,
                                  now=1_100.0) == ["chunks-model-legacy"]
