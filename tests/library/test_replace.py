"""Replacing a document in place (pipeline.library.versions, Library.replace): same id, new version; the old
version's chunks, files and vectors go; a failure before the commit keeps the previous version."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline import EngineConfig, Incoming, InputError, Library, Request, build_engine, vector_key
from pipeline.index.chunk import Chunker
from tests.fakes import FailingTestEmbedder

OLD = b"---\nid: harbour-dues\nversion: v1\ntopic: port\naccess: [harbour]\n---\nHarbour dues are 12 euros per day.\n"
NEW = b"Harbour dues are 15 euros per day from March.\n"  # no front matter: inherits topic and access
DAY = dt.date(2026, 9, 14)


def _keys(engine, document):
    chunker = Chunker(engine.config.index.chunk_window, engine.config.index.chunk_overlap)
    return [vector_key(engine.embedder.name, c.text) for c in chunker(document)]


@pytest.fixture
def library_engine():
    return build_engine(EngineConfig(vector_store="memory"), embedder=FailingTestEmbedder())


def test_replace_swaps_the_version_and_removes_the_old_chunks_files_and_vectors(library_engine, tmp_path):
    engine = library_engine
    library = Library(tmp_path)
    library.add(engine, [Incoming("dues.md", OLD)])
    old = library.documents()[0]
    old_keys = _keys(engine, old)
    assert engine.vector_store.fetch(old_keys).keys() == set(old_keys)

    replaced, new = library.replace(engine, "harbour-dues", Incoming("dues-2026.md", NEW), version="v2")
    assert replaced.digest == old.digest and new.source_id == "harbour-dues"
    assert new.meta.version == "v2" and new.meta.topic == "port" and new.meta.access == ("harbour",)
    [current] = library.documents()
    assert current.digest == new.digest
    assert not list((tmp_path / "library").rglob(f"{old.digest}*"))  # the old document file and blob
    assert engine.vector_store.fetch(old_keys) == {}  # the old vectors
    corpus = engine.corpus(library.documents())
    assert all("15 euros" in c.text for c in corpus.chunks_of("harbour-dues"))
    trace = engine.ask(corpus, Request(question="harbour dues per day", date=DAY, groups=("harbour",)))
    assert {c.source_id for c in trace.retrieval.candidates} == {"harbour-dues"}
    assert all("12 euros" not in c.text for c in trace.retrieval.candidates)


def test_a_failure_mid_replace_keeps_the_previous_version(library_engine, tmp_path):
    engine = library_engine
    library = Library(tmp_path)
    library.add(engine, [Incoming("dues.md", OLD)])
    manifest = (tmp_path / "library" / "manifest.json").read_bytes()
    old = library.documents()[0]
    engine.embedder.failing = True  # the embedding step fails after the file was parsed
    with pytest.raises(RuntimeError, match="embedding model stopped"):
        library.replace(engine, "harbour-dues", Incoming("dues-2026.md", NEW))
    assert (tmp_path / "library" / "manifest.json").read_bytes() == manifest
    assert [d.digest for d in library.documents()] == [old.digest]
    assert library.blob(old.digest) == OLD
    engine.embedder.failing = False
    assert engine.vector_store.fetch(_keys(engine, old))  # the previous version's vectors stay


def test_a_replacement_must_keep_the_id_and_change_the_file(library_engine, tmp_path):
    library = Library(tmp_path)
    library.add(library_engine, [Incoming("dues.md", OLD)])
    with pytest.raises(InputError, match="says id 'other'"):
        library.replace(library_engine, "harbour-dues", Incoming("x.md", b"---\nid: other\n---\nText.\n"))
    with pytest.raises(InputError, match="same file as the current version"):
        library.replace(library_engine, "harbour-dues", Incoming("dues.md", OLD))
    with pytest.raises(InputError, match="not in the shared library"):
        library.replace(library_engine, "nothing", Incoming("x.md", NEW))
    # Own front matter without an id: it takes the replaced id, and its own metadata.
    _, new = library.replace(library_engine, "harbour-dues", Incoming("y.md", b"---\nversion: v3\n---\nDues: 20.\n"))
    assert new.source_id == "harbour-dues" and new.meta.version == "v3" and new.meta.access is None
