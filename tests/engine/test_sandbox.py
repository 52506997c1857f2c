"""Uploads are parsed and PDF pages drawn in worker processes (issue 24, finding 3): a worker past its wall-clock,
CPU or memory limit is stopped and the caller gets one line, the server keeps running meanwhile, and what a worker
sends back is unpickled with only the document classes allowed. Starting workers makes most of these slow."""

from __future__ import annotations

import threading
import time

import pytest

from pipeline import InputError, PdfLimits
from tests.conftest import ROOT, subprocess_env
from tests.costly_files import one_long_line, pdf_of_lines, slow_to_draw_pdf


@pytest.mark.slow  # starts worker processes
def test_the_server_parses_uploads_in_a_worker_and_keeps_answering_while_one_is_stopped():
    """A worker that takes too long is killed at the wall-clock limit and the caller gets one line; meanwhile
    the server's own threads run (MuPDF holding the GIL in the server stopped them for the whole parse)."""
    from pipeline.engine.sandbox import Sandbox

    from pipeline.ingest.parsers.pdf_layout import parse_pdf

    sandbox = Sandbox(workers=1, wall_s=3)
    data = slow_to_draw_pdf(6000)  # a few KB; ~19 s of drawing on a quiet 2-core machine, far past the 3 s
    document = parse_pdf(data, "slow.pdf")  # parsing ignores the strokes
    ticks, stop = [0], threading.Event()

    def tick() -> None:
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.01)

    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        try:
            drawn = sandbox.render(data, document, [(1, [], 1.0, None)])
            refused = f"drawn: {[d if isinstance(d, str) else f'{len(d)} bytes' for d in drawn]}"
        except InputError as error:
            refused = str(error)
    finally:
        stop.set()
        ticker.join()
    assert refused == "slow.pdf: this PDF page is too large to read safely: it took longer than 3 s"
    assert ticks[0] > 50  # the caller's other threads kept running while the worker drew
    assert sandbox.stopped == 1
    again = sandbox.parse("text", b"The pool starts a fresh worker after a kill.\n", "after.md")
    assert again.pages[0].lines[0].text.startswith("The pool") and sandbox.started == 2
    assert sandbox.parse("pdf", data, "slow.pdf", None, PdfLimits()) == document  # the same Document as here
    sandbox.close()


@pytest.mark.slow  # starts worker processes
def test_a_worker_over_its_cpu_or_memory_limit_is_stopped_with_one_line():
    from pipeline.engine.sandbox import Sandbox

    from pipeline.ingest.parsers.pdf_layout import parse_pdf

    slow = Sandbox(workers=1, cpu_s=1, wall_s=120)
    data = slow_to_draw_pdf(6000)
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

    from pipeline.engine.sandbox import _load

    with pytest.raises(pickle.UnpicklingError, match=r"a worker may not send (os|posix)\.system"):
        _load(pickle.dumps(__import__("os").system))
    with pytest.raises(pickle.UnpicklingError, match="lookup"):
        _load(b"cbuiltins\ngetattr\n(cpipeline.core.contracts.documents\nDocument\nVmodel_validate\ntR.")


@pytest.mark.slow  # builds the app in a subprocess
def test_the_app_parses_and_draws_through_the_worker_and_never_loads_pymupdf(tmp_path):
    """The app's engine parses uploads in the sandbox and the viewer draws there: the server process itself
    never imports PyMuPDF (nor can MuPDF hold its GIL)."""
    import subprocess
    import sys

    pdf = tmp_path / "lines.pdf"
    pdf.write_bytes(pdf_of_lines(pages=2, lines_per_page=20))
    code = ("import sys; from ui.state import load_shared; from ui.handlers import _parse_upload; "
            "from pipeline import render_page_in_worker; shared = load_shared(); "
            f"document, data = _parse_upload(shared, {str(pdf)!r}, {{}}, {{}}, set(), 10**9); "
            "png = render_page_in_worker(data, document, 2, []); "
            "print(len(document.pages), png[:4] == b'\\x89PNG', 'pymupdf' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                            cwd=ROOT, env=subprocess_env())
    assert result.stdout.strip().splitlines()[-1:] == ["2 True False"], result.stderr[-2000:]


def test_the_registrations_say_what_a_worker_parses_and_draws():
    from pipeline import PARSERS
    from pipeline.engine.sandbox import draws_in_worker, runs_in_worker
    from pipeline.ingest.parsers.text import TextParser

    assert runs_in_worker("text") and runs_in_worker("pdf") and draws_in_worker("pdf")
    with PARSERS.registered("text-elsewhere", TextParser):  # a type registered without the trait: in-process
        assert not runs_in_worker("text-elsewhere")
    assert not runs_in_worker("unknown") and not draws_in_worker("text")


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":  # exited, not yet reaped
                    return True
        except OSError:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow  # starts worker processes
def test_an_idle_worker_leaves_and_the_next_task_starts_a_fresh_one():
    """A worker holds ~70-100 MiB while it lives: on a 512 MiB host an idle one must give that back."""
    from pipeline.engine.sandbox import Sandbox

    sandbox = Sandbox(workers=1, idle_s=1)
    sandbox.parse("text", b"A first line for the first worker.\n", "first.md")
    [pid] = sandbox.workers()
    assert _gone(pid, within_s=20) and sandbox.workers() == []
    again = sandbox.parse("text", b"A second worker reads this.\n", "second.md")
    assert again.pages[0].lines[0].text == "A second worker reads this." and sandbox.started == 2
    sandbox.close()


@pytest.mark.slow  # starts worker processes
def test_a_worker_still_large_after_its_task_leaves_and_the_kernel_stops_it_before_the_server(monkeypatch):
    """A worker that stayed large after a big parse would hold that memory until it idled out."""
    from pipeline.engine.sandbox import Sandbox

    monkeypatch.setenv("RAG_WORKER_RECYCLE_MB", "1")  # every worker is over 1 MiB after a task
    sandbox = Sandbox(workers=1)
    sandbox.parse("text", b"Read by a worker that then leaves.\n", "one.md")
    assert sandbox.workers() == [] and sandbox.started == 1
    second = sandbox.parse("text", b"Read by a fresh worker.\n", "two.md")
    assert second.pages[0].lines[0].text == "Read by a fresh worker." and sandbox.started == 2 and sandbox.stopped == 0
    sandbox.close()
    monkeypatch.delenv("RAG_WORKER_RECYCLE_MB")
    kept = Sandbox(workers=1)
    kept.parse("text", b"Read by a worker that stays.\n", "three.md")
    [pid] = kept.workers()
    with open(f"/proc/{pid}/oom_score_adj") as handle:
        assert handle.read().strip() == "1000"  # under memory pressure the kernel picks the worker
    with open("/proc/self/oom_score_adj") as handle:
        assert int(handle.read()) < 1000
    kept.close()
