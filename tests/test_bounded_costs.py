"""Every upload costs a bounded amount (issue 24): each test reproduces one way around the README's limits
that an attack probe of the app found, with a file the test generates, small where the full size would be
slow: the cost is shown to grow linearly and the budget to refuse what is over it. Nothing here times a
unit of work: speed and memory are measured by `python -m pipeline bench load` and `bench chunking`.

Sign-in, sessions and the library's faults are in tests/test_sessions_and_login.py and
tests/test_library_faults.py.
"""

from __future__ import annotations

import gc
import threading
import time
import tracemalloc
import uuid

import pytest

from pipeline import InputError, PdfLimits
from tests.costly_files import (huge_page_pdf, inflating_pdf, one_long_line, pdf_of_lines, short_lines,
                                slow_to_draw_pdf)


# --------------------------------------------------------------------------- 1. many short lines


def test_a_text_of_many_short_lines_is_refused_by_its_line_count_before_it_is_parsed():
    """18 MB of 9 million lines took the server from 259 to 6,476 MiB; the limits counted bytes only."""
    from pipeline import limits
    from pipeline.parse import parse

    data = short_lines(500_000)  # 1 MiB, far under the 20 MB file limit
    with pytest.raises(InputError, match=r"has 500001 lines; the limit is 200000 per document$"):
        parse(data, "lines.txt")
    assert limits.MAX_DOCUMENT_LINES == 200_000
    parse(short_lines(1000), "fine.txt")  # a small file of short lines is still a document


def test_a_pdf_is_refused_past_the_lines_of_one_document():
    from pipeline.parse_pdf import parse_pdf

    data = pdf_of_lines(pages=3, lines_per_page=100)
    assert sum(len(p.lines) for p in parse_pdf(data, "ok.pdf").pages) == 300
    with pytest.raises(InputError, match=r"has more than 250 lines \(at page 3\); the limit is 250 per document"):
        parse_pdf(data, "many.pdf", limits=PdfLimits(max_lines=250))


def test_what_a_document_holds_grows_linearly_with_its_lines_and_the_estimate_covers_it():
    """The budget prices a document by lines, characters and word boxes; the price is never below what the
    parsed document really holds (traced allocations), and both grow in proportion to the lines."""
    from pipeline.budgets import document_cost
    from pipeline.parse import parse
    from pipeline.sandbox import summary_of

    held, priced = [], []
    for count in (10_000, 20_000):
        gc.collect()
        tracemalloc.start()
        document = parse(short_lines(count), "lines.txt")
        held.append(tracemalloc.get_traced_memory()[0])
        tracemalloc.stop()
        priced.append(document_cost(summary_of(document)))
        del document
    assert 1.8 < held[1] / held[0] < 2.2 and 1.8 < priced[1] / priced[0] < 2.2
    assert all(p > h for p, h in zip(priced, held))


# --------------------------------------------------------------------------- 2. a budget across sessions


def test_the_memory_budget_refuses_past_a_session_and_past_the_server_and_frees_with_the_session():
    from pipeline.budgets import MemoryBudget

    class Owner:
        pass

    budget = MemoryBudget(capacity=100, per_owner=60)
    alice, bob, carol = Owner(), Owner(), Owner()
    budget.reserve(alice, {"a": 50}, "a.md")
    with pytest.raises(InputError, match="one session's uploads may hold"):
        budget.reserve(alice, {"b": 20}, "b.md")
    budget.reserve(alice, {"a": 55}, "a.md")  # a replacement replaces the item's reservation
    budget.reserve(bob, {"c": 40}, "c.md")
    with pytest.raises(InputError, match="the server is full: every session's uploads together may hold"):
        budget.reserve(carol, {"d": 10}, "d.md")
    budget.release(alice, ["a"])
    budget.reserve(carol, {"d": 10}, "d.md")
    del bob
    gc.collect()  # a session dropped without clear() gives its reservations back too
    assert budget.held() == 10


def _upload(client, path):
    from gradio_client import handle_file

    return client.predict([handle_file(str(path))], "", "", "", "", "", api_name="/upload")


def test_uploads_are_refused_with_one_line_once_every_session_together_is_at_the_budget(app_url, tmp_path,
                                                                                       monkeypatch):
    """Four anonymous sessions took the server from 395 to 1,111 MiB: there was no budget across sessions."""
    from gradio_client import Client

    from pipeline import limits
    from pipeline.budgets import text_cost, upload_budget

    documents = []
    for name in ("budget-one", "budget-two"):
        path = tmp_path / f"{name}-{uuid.uuid4().hex[:6]}.md"
        path.write_text(f"---\nid: {path.stem}\n---\n" + "A line about the ferry timetable.\n" * 2000)
        documents.append(path)
    each = text_cost(documents[0].read_bytes())
    monkeypatch.setattr(limits, "UPLOAD_MEMORY_BYTES", upload_budget().held() + each + each // 2)
    first, second = Client(app_url, verbose=False), Client(app_url, verbose=False)
    assert _upload(first, documents[0])["added"]
    refused = _upload(second, documents[1])
    assert not refused["added"] and len(refused["errors"]) == 1
    assert "the server is full" in refused["errors"][0] and "\n" not in refused["errors"][0]
    first.predict(documents[0].stem, api_name="/delete_document")  # its memory is given back
    assert _upload(second, documents[1])["added"]
    second.predict(documents[1].stem, api_name="/delete_document")


def test_one_session_may_not_hold_more_than_its_share(app_url, tmp_path, monkeypatch):
    from gradio_client import Client

    from pipeline import limits

    monkeypatch.setattr(limits, "SESSION_MEMORY_BYTES", 2 * 2**20)
    path = tmp_path / f"share-{uuid.uuid4().hex[:6]}.md"
    path.write_text(f"---\nid: {path.stem}\n---\n" + "A line about the ferry timetable.\n" * 5000)  # ~5.5 MiB held
    report = _upload(Client(app_url, verbose=False), path)
    assert not report["added"] and "one session's uploads may hold 2 MiB" in report["errors"][0]


# --------------------------------------------------------------------------- 3. content that inflates


def test_a_pdf_whose_content_inflates_past_the_cap_is_refused_before_mupdf_reads_it():
    """A 3 MB PDF inflating to 3 GiB held MuPDF, and the GIL, for a minute; here 40 MB from ~80 KB."""
    from pipeline.parse_pdf import parse_pdf

    data = inflating_pdf(40)
    assert len(data) < 200_000
    with pytest.raises(InputError, match=r"page 1's content is over 32 MB once decompressed; this PDF's content is "
                                         r"too large to read safely$"):
        parse_pdf(data, "bomb.pdf")
    import pymupdf

    from pipeline.pdf_guard import page_content_size

    doc = pymupdf.open(stream=data, filetype="pdf")
    counted = [page_content_size(doc, doc[0], cap) for cap in (2**20, 4 * 2**20)]
    assert 2**20 < counted[0] <= 2**20 + 65536 and 4 * 2**20 < counted[1] <= 4 * 2**20 + 65536  # stops at the cap
    with pytest.raises(InputError, match=r"its pages' content is over 0.5 MB once decompressed \(at page 1\)"):
        parse_pdf(inflating_pdf(0.6) , "two.pdf", limits=PdfLimits(max_page_content=2**20, max_content=2**20 // 2))


def test_the_server_parses_uploads_in_a_worker_and_keeps_answering_while_one_is_stopped():
    """A worker that takes too long is killed at the wall-clock limit and the caller gets one line; meanwhile
    the server's own threads run (MuPDF holding the GIL in the server stopped them for the whole parse)."""
    from pipeline.sandbox import Sandbox

    from pipeline.parse_pdf import parse_pdf

    sandbox = Sandbox(workers=1, wall_s=3)
    data = slow_to_draw_pdf(1500)  # ~1 KB; about 10 s of drawing
    document = parse_pdf(data, "slow.pdf")  # parsing ignores the strokes
    ticks, stop = [0], threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        with pytest.raises(InputError, match=r"^slow\.pdf: this PDF page is too large to read safely: it took longer "
                                             r"than 3 s$"):
            sandbox.render(data, document, [(1, [], 1.0, None)])
    finally:
        stop.set()
        ticker.join()
    assert ticks[0] > 50  # the caller's other threads kept running while the worker drew
    assert sandbox.stopped == 1
    again = sandbox.parse("text", b"The pool starts a fresh worker after a kill.\n", "after.md")
    assert again.pages[0].lines[0].text.startswith("The pool") and sandbox.started == 2
    assert sandbox.parse("pdf", data, "slow.pdf", None, PdfLimits()) == document  # the same Document as here
    sandbox.close()


def test_a_worker_over_its_cpu_or_memory_limit_is_stopped_with_one_line():
    from pipeline.sandbox import Sandbox

    from pipeline.parse_pdf import parse_pdf

    slow = Sandbox(workers=1, cpu_s=1, wall_s=120)
    data = slow_to_draw_pdf(1500)
    with pytest.raises(InputError, match="too large to read safely: it took over 1 s of CPU$"):
        slow.render(data, parse_pdf(data, "slow.pdf"), [(1, [], 1.0, None)])
    slow.close()
    small = Sandbox(workers=1, memory=160 * 2**20)
    with pytest.raises(InputError, match=r"^big\.md: this file is too large to read safely: it needed more than "
                                         r"160 MB of memory$"):
        small.parse("text", one_long_line(19 * 2**20), "big.md")
    small.close()


def test_a_worker_may_only_send_documents_back():
    import pickle

    from pipeline.sandbox import _load

    with pytest.raises(pickle.UnpicklingError, match=r"a worker may not send (os|posix)\.system"):
        _load(pickle.dumps(__import__("os").system))
    with pytest.raises(pickle.UnpicklingError, match="lookup"):
        _load(b"cbuiltins\ngetattr\n(cpipeline.contracts\nDocument\nVmodel_validate\ntR.")


def test_the_app_parses_and_draws_through_the_worker_and_never_loads_pymupdf(tmp_path):
    """The app's engine parses uploads in the sandbox and the viewer draws there: the server process itself
    never imports PyMuPDF (nor can MuPDF hold its GIL)."""
    import subprocess
    import sys
    from pathlib import Path

    pdf = tmp_path / "lines.pdf"
    pdf.write_bytes(pdf_of_lines(pages=2, lines_per_page=20))
    code = ("import sys; from ui.state import load_shared; from ui.handlers import _parse_upload; "
            "from pipeline.sandbox import render_pdf_page; shared = load_shared(); "
            f"document, data = _parse_upload(shared, {str(pdf)!r}, {{}}, {{}}, set(), 10**9); "
            "png = render_pdf_page(data, document, 2, []); "
            "print(len(document.pages), png[:4] == b'\\x89PNG', 'pymupdf' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                            cwd=Path(__file__).resolve().parents[1])
    assert result.stdout.strip().splitlines()[-1:] == ["2 True False"], result.stderr[-2000:]


# --------------------------------------------------------------------------- 4. one long line


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_one_long_line_is_chunked_with_linear_work(monkeypatch, separator):
    """`heading_above` ran the table-row patterns over the whole line once per window: 400 KiB took 60 s
    (with tabs the line is one huge table row, and the patterns do run over it: once)."""
    import pipeline.tables as tables
    from pipeline.chunk import retrieval_chunks
    from pipeline.parse import parse

    examined = [0]
    real = tables.is_table_row

    def counting(text: str) -> bool:
        examined[0] += len(text)
        return real(text)

    monkeypatch.setattr(tables, "is_table_row", counting)
    work, chunks = [], []
    for size in (100_000, 200_000):
        document = parse(one_long_line(size).replace(b"night. ", b"night." + separator.encode()), "long.md")
        examined[0] = 0
        chunks.append(len(retrieval_chunks(document)))
        work.append(examined[0])
    assert chunks[1] > 1.8 * chunks[0] > 200
    assert work[1] <= 2 * 200_000 and work[0] <= 2 * 100_000  # each character is looked at a bounded number of times


# --------------------------------------------------------------------------- 5. huge pages


def test_a_huge_page_is_drawn_within_the_pixel_cap():
    """A 25 KB PDF with 12000-point pages needed 2.2 GiB to draw one cited page, then PIL refused the image."""
    from pipeline.parse_pdf import parse_pdf
    from pipeline.render_pdf import render_pdf_page

    data = huge_page_pdf("A page a hundred and sixty-seven inches wide.")
    document = parse_pdf(data, "huge.pdf")
    for zoom, cap in ((1.5, 1_000_000), (0.2, 60_000)):
        image = _image(render_pdf_page(data, document, 1, [], zoom, max_pixels=cap))
        assert image.width * image.height <= cap and image.width > 0.9 * (cap ** 0.5)
    assert _image(render_pdf_page(data, document, 1, [], 0.01, max_pixels=1_000_000)).size == (120, 120)  # fits


def test_the_source_viewer_draws_a_huge_cited_page_through_the_worker():
    from pipeline.limits import MAX_RENDER_PIXELS
    from pipeline.parse_pdf import parse_pdf
    from pipeline.render import Highlight
    from pipeline.sandbox import render_pdf_page

    data = huge_page_pdf("The lodging limit is 750 yuan.")
    document = parse_pdf(data, "huge.pdf")
    highlight = Highlight(page=1, start_line=1, end_line=1, verified=True, label="huge 1 verified")
    image = _image(render_pdf_page(data, document, 1, [highlight]))  # within PIL's decompression-bomb limit
    assert image.width * image.height <= MAX_RENDER_PIXELS


def _image(png: bytes):
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png))
    image.load()
    return image


# --------------------------------------------------------------------------- 11. Gradio's own upload route


def _raw_upload(app_url: str, size: int, name: str = "x.md", **kwargs):
    import httpx

    return httpx.post(app_url + "gradio_api/upload", files={"files": (name, b"y" * size)}, timeout=60, **kwargs)


def test_gradio_upload_route_is_held_to_a_total_size(app_url, monkeypatch):
    """It accepted any number of 20 MB files without a session: 500 MiB in 7 s, kept 15 minutes."""
    from pipeline import limits
    from ui.received import upload_folder
    from ui.upload_guard import folder_bytes

    monkeypatch.setattr(limits, "UPLOAD_FOLDER_MAX_BYTES", folder_bytes(upload_folder()) + 150_000)
    from pathlib import Path

    first = _raw_upload(app_url, 100_000)
    assert first.status_code == 200
    refused = _raw_upload(app_url, 100_000)
    assert refused.status_code == 507 and "upload space is full" in refused.json()["detail"]
    for path in first.json():  # read (and so deleted) by a handler: the space comes back
        Path(path).unlink()
    third = _raw_upload(app_url, 100_000)
    assert third.status_code == 200
    for path in third.json():
        Path(path).unlink()


def test_gradio_upload_route_is_held_to_a_rate_per_address(tmp_path, monkeypatch):
    """Driven as ASGI with a clock of its own (the running app's address shares its rate with other tests)."""
    import asyncio

    from pipeline import limits
    from ui.upload_guard import UploadGuard

    monkeypatch.setattr(limits, "UPLOAD_RATE_FILES", 3)
    monkeypatch.setattr(limits, "UPLOAD_RATE_BYTES", 1000)
    now = [0.0]
    passed = []

    async def app(scope, receive, send):
        passed.append(scope["client"][0])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"[]"})

    guard = UploadGuard(app, folder=lambda: tmp_path, clock=lambda: now[0])

    def upload(address: str, size: int) -> tuple[int, dict]:
        sent = []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/gradio_api/upload", "client": (address, 1),
                 "headers": [(b"content-length", str(size).encode())]}
        asyncio.run(guard(scope, receive, send))
        return sent[0]["status"], dict(sent[0]["headers"])

    assert [upload("10.0.0.1", 10)[0] for _ in range(3)] == [200, 200, 200]
    status, headers = upload("10.0.0.1", 10)
    assert status == 429 and headers[b"retry-after"] == b"60"
    assert upload("10.0.0.2", 10)[0] == 200  # another address has its own rate
    now[0] = 61.0
    assert upload("10.0.0.1", 600)[0] == 200
    assert upload("10.0.0.1", 600)[0] == 429  # bytes count too: 1200 in the window is over 1000
    assert passed == ["10.0.0.1"] * 3 + ["10.0.0.2", "10.0.0.1"]


def test_gradio_upload_route_needs_a_declared_size(app_url):
    import httpx

    def body():
        yield b"--b\r\nContent-Disposition: form-data; name=\"files\"; filename=\"x.md\"\r\n\r\nhi\r\n--b--\r\n"

    response = httpx.post(app_url + "gradio_api/upload", content=body(), timeout=30,
                          headers={"Content-Type": "multipart/form-data; boundary=b"})
    assert response.status_code == 411


# --------------------------------------------------------------------------- 12. a language model's reply


def test_a_huge_model_reply_is_refused_with_one_line_and_a_small_trace(sample_corpus, engine):
    """A 10 MB reply was accepted: 27 s, a 31 MB trace, +180 MiB, past /check_answer's 20,000-character cap."""
    import datetime as dt
    import json

    from pipeline import Request, Settings
    from pipeline.generate_llm import ChatCompletionsGenerator, LlmConfig
    from tests.llm_standin import ScriptedReply, StandInChatServer

    settings = Settings(window=4000, reserve=800)
    request = Request(question="Beijing lodging limit", date=dt.date(2026, 9, 14), topic="travel")
    long_answer = "The lodging limit is 600 yuan. [travel-v2:1-3] " * 2200  # ~105,000 characters
    for content, note in ((json.dumps({"answer": long_answer, "citations": []}), "characters; the limit is 20000"),
                          ("x" * (3 * 2**20), "is over 1 MB; the limit is 20000 characters (not read further)")):
        with StandInChatServer([ScriptedReply(content=content)]) as server:
            generator = ChatCompletionsGenerator(LlmConfig(base_url=server.base_url, model="standin-model",
                                                           timeout_s=30))
            trace = engine.ask(sample_corpus, request, settings, generator=generator)
        assert trace.answer.status == "abstained" and trace.answer.reason_code == "generator_unavailable"
        assert note in trace.proposal.note and "\n" not in trace.proposal.note
        assert len(trace.model_dump_json()) < 200_000


# --------------------------------------------------------------------------- memory over many short sessions


def test_a_spent_session_is_dropped_whole_not_kept_until_500_newer_ones(logic_engine):
    """Gradio deleted an expired session's values but kept its SessionState (a copy of the page's config, about
    0.35 MiB) until 500 newer sessions pushed it out: 200 short sessions grew the server by 60 MiB."""
    import datetime

    import gradio as gr

    from ui.app import create_app
    from ui.state import Session, load_shared

    demo = create_app(load_shared(logic_engine)).state.demo
    holder = demo.state_holder
    [key] = [block_id for block_id, block in demo.blocks.items() if isinstance(block, gr.State)]
    long_ago = datetime.datetime.now() - datetime.timedelta(hours=2)
    for session_id in ("spent", "closed-now", "active"):
        holder[session_id][key] = Session()
    holder["spent"].is_closed = True
    holder["spent"]._state_ttl[key] = (holder["spent"]._state_ttl[key][0], long_ago)
    holder.time_last_used["spent"] = long_ago
    holder["closed-now"].is_closed = True  # closed a moment ago: kept for its short lifetime
    holder.delete_all_expired_state()
    assert "spent" not in holder.session_data and "spent" not in holder.time_last_used
    assert "closed-now" in holder.session_data and "active" in holder.session_data
