"""The worker process that parses uploaded files and draws PDF pages (`python -m pipeline.engine.sandbox_worker`).

Started by `pipeline.engine.sandbox` with its limits: an address-space cap (RLIMIT_AS), a CPU-time cap per task
(RLIMIT_CPU, moved forward before each task: SIGXCPU ends the process) and no core files.
It reads framed requests on stdin and answers on stdout, one at a time, until stdin closes. Whatever a
file does to MuPDF — inflate gigabytes, loop, crash — happens here, never in the server.
"""

from __future__ import annotations

import os
import pickle
import resource
import sys
from typing import Any

FRAME = 8  # bytes of big-endian length before each pickled message


def read_frame(stream) -> bytes | None:
    header = stream.read(FRAME)
    if len(header) < FRAME:
        return None
    size = int.from_bytes(header, "big")
    data = stream.read(size)
    return data if len(data) == size else None


def write_frame(stream, payload: bytes) -> None:
    stream.write(len(payload).to_bytes(FRAME, "big"))
    stream.write(payload)
    stream.flush()


def _limit(kind: int, value: int) -> None:
    try:
        resource.setrlimit(kind, (value, value))
    except (ValueError, OSError):  # a platform without this limit: the parent's wall-clock limit still holds
        pass


def _cpu_budget(seconds: int) -> None:
    """Allow `seconds` more CPU from now (RLIMIT_CPU counts the process's whole life)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime) + seconds + 1
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    except (ValueError, OSError):
        pass


def _first_to_go() -> None:
    """Under memory pressure the kernel stops this process before the server (a worker's task fails with one
    line; the server never sees an out-of-memory kill)."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass


def _still_large() -> bool:
    """Give the freed heap back (glibc's malloc_trim), then: is the process still over its recycling size?"""
    from pipeline.core.limits import WORKER_RECYCLE_BYTES
    from pipeline.core.memory import release_free_memory

    release_free_memory()
    try:
        with open("/proc/self/statm") as handle:
            resident = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return False
    return resident > WORKER_RECYCLE_BYTES


def handle(request: tuple) -> tuple:
    from pipeline.core.errors import InputError, out_of_memory

    kind, *arguments = request
    try:
        if kind == "parse":
            return _parse(*arguments)
        if kind == "render":
            return _render(*arguments)
        return ("error", f"unknown request {kind!r}")
    except InputError as error:
        return ("error", str(error))
    except BaseException as error:  # noqa: BLE001 - one line back to the server, never a traceback
        if out_of_memory(error):
            return ("memory", type(error).__name__)
        return ("error", f"could not be read ({type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''})")


def _parse(parser_name: str, data: bytes, filename: str, metadata: Any, limits: Any, cpu_s: int) -> tuple:
    from pipeline.core.registry import PARSERS
    from pipeline.ingest.budgets import document_size

    parser = PARSERS.create(parser_name)
    _cpu_budget(cpu_s)
    document = parser.parse(data, filename, metadata, limits)
    return ("ok", document_size(document), pickle.dumps(document, protocol=pickle.HIGHEST_PROTOCOL))


class _Pages:
    """The little of a Document that drawing needs: its file name and the pages to draw."""

    def __init__(self, filename: str, pages: dict) -> None:
        self.filename = filename
        self._pages = pages

    def page(self, number):
        return self._pages.get(number)


def _render(data: bytes, filename: str, kind: str, pages: dict, items: list, cpu_s: int) -> tuple:
    from pipeline.core.errors import InputError
    from pipeline.render.pages import PAGE_RENDERERS

    draw = PAGE_RENDERERS.create(kind)
    _cpu_budget(cpu_s)
    document = _Pages(filename, pages)
    images = []
    for page_number, highlights, zoom, max_pixels in items:
        try:
            images.append(draw(data, document, page_number, highlights, zoom=zoom, max_pixels=max_pixels))
        except InputError as error:
            images.append(str(error))
    return ("ok", images)


def main(argv: list[str]) -> int:
    memory = int(argv[0]) if argv else 0
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print (or a library's) goes to the log, never into the replies
    requests = sys.stdin.buffer
    os.nice(5)  # parsing yields the cores to the server's answers
    import pymupdf  # loaded before the memory cap and the first request: every task starts warm

    pymupdf.TOOLS.mupdf_display_errors(False)  # a hostile file's complaints do not fill the server's log
    import pipeline.ingest.budgets

    pipeline.ingest.budgets.count_host_from(os.getppid())  # OCR checks the host's memory: the server's, this included
    import pipeline.ingest.parsers  # noqa: F401 (registers the parsers)
    import pipeline.ingest.parsers.pdf_layout  # noqa: F401
    import pipeline.render.pages  # noqa: F401 (registers the page renderers)
    import pipeline.render.pdf  # noqa: F401

    if memory:
        _limit(resource.RLIMIT_AS, memory)
    _limit(resource.RLIMIT_CORE, 0)
    _first_to_go()
    write_frame(replies, pickle.dumps(("ready",)))  # the wall-clock limit of a task starts after this
    while True:
        try:
            frame = read_frame(requests)
            if frame is None:
                return 0
            reply = handle(pickle.loads(frame))  # noqa: S301 - the server sent it
            del frame
            leaving = reply[0] == "memory" or _still_large()
            payload = pickle.dumps((reply, leaving), protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:  # reading the request or sending the reply: what is left may not even say so
            os._exit(3)
        write_frame(replies, payload)
        if leaving:  # out of memory, or still large after giving back what it freed: a fresh worker is smaller
            return 3 if reply[0] == "memory" else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
