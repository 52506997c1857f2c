"""Property tests (hypothesis): the evidence contract's invariants hold for any input, not just examples."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline import MARKER, Request, Settings, marker, marker_key
from pipeline.index.chunk import Chunker
from pipeline.ingest.document import split_lines
from pipeline.ingest.parsers.text import parse_text
from pipeline.pack import PackError, pack
from pipeline.retrieve.selection import retrieve

# Text with newlines, spaces, sentence ends, Chinese and the odd astral character.
TEXT = st.text(alphabet=st.sampled_from(list("ab cd.\n\n北京住宿。 xy!?\t12😀")), min_size=1, max_size=3000)
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@given(TEXT)
def test_line_offsets_round_trip(body):
    lines = split_lines(body)
    assert all(body[line.start : line.end] == line.text for line in lines)
    assert all("\n" not in line.text for line in lines)
    assert "\n".join(line.text for line in lines) == body.removesuffix("\n") or body == "\n"


@SLOW
@given(TEXT.filter(lambda t: t.strip()), st.integers(100, 900), st.integers(0, 90))
def test_windows_cover_every_non_empty_line_and_keep_their_address(body, size, overlap):
    document = parse_text(body.encode("utf-8"), "prop.txt")
    page = document.pages[0]
    chunks = Chunker(size, overlap)(document)
    touched = set()
    for chunk in chunks:
        assert page.text[chunk.start : chunk.end] == chunk.text and len(chunk.text) <= size
        touched.update(range(chunk.parent.start_line, chunk.parent.end_line + 1))
    assert {line.number for line in page.lines if line.text.strip()} <= touched


@given(st.from_regex(r"[A-Za-z0-9_.\-]{1,40}", fullmatch=True), st.one_of(st.none(), st.integers(1, 999)),
       st.integers(1, 5000), st.integers(0, 50))
def test_marker_write_and_parse_round_trip(source_id, page, start, extra):
    written = marker(source_id, page, start, start + extra)
    match = MARKER.fullmatch(written)
    assert match is not None and marker_key(match) == (source_id, page, start, start + extra)


@SLOW
@given(st.integers(0, 3000), st.integers(0, 400), st.integers(1, 6))
def test_the_packed_context_never_exceeds_its_capacity(sample_corpus, window, reserve, top_k):
    request = Request(question="Beijing lodging limit", date=dt.date(2026, 9, 14))
    run = Settings(window=window, reserve=reserve, top_k=top_k)
    retrieval = retrieve(sample_corpus, request, run)
    weights = retrieval.term_weights
    if not retrieval.selected:
        return
    try:
        context = pack(retrieval.selected, sample_corpus.readable_documents(()), request, run, weights)
    except PackError as failure:
        assert failure.reason_code in {"context_budget", "incomplete_source"}
        return
    assert context.length == len(context.text) <= window - reserve


@SLOW
@given(st.dates(dt.date(2020, 1, 1), dt.date(2030, 12, 31)),
       st.sampled_from([None, "travel", "ferry", "it", "nothing-like-this"]))
def test_eligibility_never_changes_bm25_statistics(sample_corpus, date, topic):
    everything = retrieve(sample_corpus, Request(question="lodging limit ferry", date=dt.date(2026, 9, 14)),
                             Settings(trace_limit=10**6))
    filtered = retrieve(sample_corpus, Request(question="lodging limit ferry", date=date, topic=topic),
                           Settings(trace_limit=10**6))
    assert {c.chunk_id: c.bm25 for c in filtered.candidates} == {c.chunk_id: c.bm25 for c in everything.candidates}


@pytest.mark.parametrize("body", ["a\nb\n", "\n", "x"])
def test_line_examples(body):
    assert [line.text for line in split_lines(body)] == body.removesuffix("\n").split("\n")
