"""Parse uploaded files and draw PDF pages in worker processes, so no file can freeze the server or take
its memory.

MuPDF holds the GIL while it works: in the server, a 3 MB PDF whose content inflates to 3 GiB took
`/healthz` from 5 ms to 19 s and timed out other users' questions. Here a small pool of workers
(`python -m pipeline.engine.sandbox_worker`, started on first use, each leaving after `WORKER_IDLE_S` idle)
does that work under limits (`pipeline.core.limits`): address space, CPU seconds per task and wall-clock seconds
per task, after which the worker is killed and the caller gets one line ("….pdf: this PDF's content is
too large to read safely: …"). The server waits on a pipe, so it keeps answering meanwhile.

The worker is a resource boundary, not a privilege boundary (same user, same files): what it sends back
is unpickled with only the document classes allowed, and its size is capped.

    sandbox = default_sandbox()
    document = sandbox.parse("pdf", data, "report.pdf", metadata, limits, admit=budget_check)
    png = render_page_in_worker(pdf_bytes, document, 3, highlights)

Which parsers and page renderers a worker runs is declared where they are registered (the `sandboxed` trait,
`pipeline.ingest.parsers` and `pipeline.render.pages`); another registered one runs in this process.
"""

from __future__ import annotations

import atexit
import datetime as dt
import io
import os
import pickle
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipeline.core import limits as configured
from pipeline.core.errors import InputError
from pipeline.core.limits import megabytes
from pipeline.core.registry import PARSERS
from pipeline.engine.lanes import FairLane
from pipeline.render.highlights import DEFAULT_ZOOM
from pipeline.render.pages import PAGE_RENDERERS, render_page

MAX_WORKER_REPLY_BYTES = 512 * 1024 * 1024  # a parsed document within the line and byte caps is far smaller
STARTUP_S = 120  # a worker loads its modules (about a second; much more on a busy machine) before it is timed
_ROOT = Path(__file__).resolve().parents[2]  # the repository
_FRAME = 8


class _Reader(pickle.Unpickler):
    """Unpickles only what a worker may send: documents (pipeline.core.contracts.documents), dates, arrays."""

    def find_class(self, module: str, name: str):
        from pydantic import BaseModel

        from pipeline.core.contracts import documents

        if module == documents.__name__:
            found = getattr(documents, name, None)
            if isinstance(found, type) and found.__module__ == module and (
                    issubclass(found, BaseModel) or found in (documents.WordBoxes, documents.LineTable)):
                return found
        elif (module, name) == ("datetime", "date"):
            return dt.date
        elif (module, name) in (("array", "array"), ("array", "_array_reconstructor")):
            import array as array_module

            return getattr(array_module, name)
        elif (module, name) == ("builtins", "getattr"):
            return _packed_words_only
        raise pickle.UnpicklingError(f"a worker may not send {module}.{name}")


def _packed_words_only(owner, name: str):
    """The attribute lookups a document's pickle makes: WordBoxes.packed and LineTable._from_columns (their
    __reduce__)."""
    from pipeline.core.contracts import LineTable, WordBoxes

    if owner is WordBoxes and name == "packed":
        return WordBoxes.packed
    if owner is LineTable and name == "_from_columns":
        return LineTable._from_columns
    raise pickle.UnpicklingError(f"a worker may not send a lookup of {name!r}")


def runs_in_worker(parser_name: str) -> bool:
    """Whether a worker parses this file type (its registration says `sandboxed=True`)."""
    return parser_name in PARSERS.names() and bool(PARSERS.entry(parser_name).trait("sandboxed", False))


def _load(payload: bytes) -> Any:
    return _Reader(io.BytesIO(payload)).load()


class _Stopped(Exception):
    """The worker ended (killed at the wall-clock limit, SIGXCPU, out of memory, a crash) or broke the protocol."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


class _Worker:
    def __init__(self, memory: int) -> None:
        env = dict(os.environ)  # the worker runs in this process's environment, the repository on its path
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_ROOT), env.get("PYTHONPATH")) if p)
        self.process = subprocess.Popen([sys.executable, "-m", "pipeline.engine.sandbox_worker", str(memory)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True)
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None  # both are pipes
        self.writer, self.reader = stdin.fileno(), stdout.fileno()
        os.set_blocking(self.writer, False)
        os.set_blocking(self.reader, False)
        self.last_used = time.monotonic()
        self.tasks = 0
        self.leaving = False  # the worker said it leaves after this task (out of memory, or still large)

    def ready(self, deadline: float) -> None:
        """Wait for the worker's first frame: it has loaded its modules and set its limits."""
        size = int.from_bytes(self._read(_FRAME, deadline), "big")
        if size > 1024 or _load(self._read(size, deadline)) != ("ready",):
            raise _Stopped("did not start")

    def alive(self) -> bool:
        return self.process.poll() is None

    def call(self, request: tuple, deadline: float) -> tuple:
        payload = pickle.dumps(request, protocol=pickle.HIGHEST_PROTOCOL)
        self._write(len(payload).to_bytes(_FRAME, "big") + payload, deadline)
        size = int.from_bytes(self._read(_FRAME, deadline), "big")
        if size > MAX_WORKER_REPLY_BYTES:
            raise _Stopped(f"sent a reply of {megabytes(size)}")
        reply, self.leaving = _load(self._read(size, deadline))
        self.tasks += 1
        self.last_used = time.monotonic()
        return reply

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            if not select.select([], [self.writer], [], max(0.0, deadline - time.monotonic()))[1]:
                raise _Stopped("timeout")
            try:
                view = view[os.write(self.writer, view[:1 << 20]):]
            except BlockingIOError:
                continue
            except OSError:  # the worker is gone (EPIPE)
                raise _Stopped(self._ended()) from None

    def _read(self, size: int, deadline: float) -> bytes:
        buffer = bytearray(size)
        view, got = memoryview(buffer), 0
        while got < size:
            if not select.select([self.reader], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise _Stopped("timeout")
            try:
                count = os.readv(self.reader, [view[got:got + (1 << 20)]])
            except BlockingIOError:
                continue
            if count == 0:
                raise _Stopped(self._ended())
            got += count
        return bytes(buffer)

    def _ended(self) -> str:
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        return {-24: "cpu", -9: "killed", 3: "memory"}.get(code, f"exit {code}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self.process.wait()


class Sandbox:
    """A pool of at most `workers` worker processes, started when first needed; one task per worker at a time.
    Tasks wait for a worker in a fair lane (`pipeline.engine.lanes`): each client's behind its own, a free worker
    going to the client served least recently. `turn()` holds a worker's slot across more than one task (an upload
    reads its file and has it parsed in one turn, so waiting uploads hold no file in memory)."""

    def __init__(self, workers: int | None = None, memory: int | None = None, cpu_s: int | None = None,
                 wall_s: int | None = None, idle_s: int | None = None) -> None:
        self.size = workers or configured.WORKERS
        self.memory = memory or configured.WORKER_MEMORY_BYTES
        self.cpu_s = cpu_s or configured.WORKER_CPU_S
        self.wall_s = wall_s or configured.WORKER_WALL_S
        self.idle_s = idle_s or configured.WORKER_IDLE_S
        self._idle: list[_Worker] = []
        self._lane = FairLane(self.size)
        self._changed = threading.Condition()
        self._closed = False
        self.started = self.stopped = 0  # workers started, and killed or lost (for tests and the bench)
        self._reaper: threading.Thread | None = None

    # ------------------------------------------------------------------ the pool

    def turn(self):
        """A context: the current client (`pipeline.engine.lanes.acting_for`) holds a worker's slot meanwhile; the
        tasks it sends inside it do not wait again."""
        return self._lane.turn()

    @property
    def lane(self) -> FairLane:
        return self._lane

    def _take(self) -> _Worker | None:
        """An idle worker, or None when the caller may start one (the caller holds a slot of the lane)."""
        with self._changed:
            if self._closed:
                raise InputError("server", "is shutting down")
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.stop()
            return None

    def _give_back(self, worker: _Worker | None) -> None:
        with self._changed:
            if worker is not None and not self._closed:
                self._idle.append(worker)
            elif worker is not None:
                worker.stop()

    def _start(self) -> _Worker:
        worker = _Worker(self.memory)
        try:
            worker.ready(time.monotonic() + STARTUP_S)
        except _Stopped:
            worker.stop()
            raise InputError("server", "the worker that reads files did not start; try again") from None
        with self._changed:
            self.started += 1
            if self._reaper is None:
                self._reaper = threading.Thread(target=self._reap, name="sandbox-reaper", daemon=True)
                self._reaper.start()
        return worker

    def _reap(self) -> None:
        """Stop workers idle for longer than idle_s: their memory goes back to the host."""
        while True:
            time.sleep(max(1.0, min(self.idle_s / 4, 15.0)))
            with self._changed:
                now = time.monotonic()
                stale = [w for w in self._idle if now - w.last_used > self.idle_s]
                self._idle = [w for w in self._idle if w not in stale]
            for worker in stale:
                worker.stop()

    def workers(self) -> list[int]:
        """The process ids of the live idle workers (the bench adds their memory to the server's)."""
        with self._changed:
            return [w.process.pid for w in self._idle if w.alive()]

    def close(self) -> None:
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            self._changed.notify_all()
        self._lane.close()
        for worker in idle:
            worker.stop()

    def _run(self, request: tuple, label: str, what: str) -> tuple:
        """Send one request to a worker, when the lane gives this client a turn; one line (InputError) when the worker
        had to be stopped."""
        with self._lane.turn():
            return self._run_now(request, label, what)

    def _run_now(self, request: tuple, label: str, what: str) -> tuple:
        worker = self._take()
        kept, reply = None, ("stopped", "interrupted")
        try:
            worker = worker or self._start()
            reply = worker.call(request, time.monotonic() + self.wall_s)
            if not worker.leaving:  # out of memory, or still large after its task, a worker answers, then leaves
                kept = worker
        except _Stopped as stopped:
            reply = ("stopped", stopped.why)
        except pickle.UnpicklingError as error:
            reply = ("stopped", str(error))
        finally:
            if kept is None and worker is not None:
                worker.stop()
                if not worker.leaving or reply[0] == "memory":
                    with self._changed:
                        self.stopped += 1
            self._give_back(kept)
        if reply[0] in ("stopped", "memory"):
            raise InputError(label, self._explain(reply[1] if reply[0] == "stopped" else "memory", what))
        return reply

    def _explain(self, why: str, what: str) -> str:
        cause = {"timeout": f"it took longer than {self.wall_s} s", "cpu": f"it took over {self.cpu_s} s of CPU",
                 "memory": f"it needed more than {megabytes(self.memory)} of memory",
                 "killed": "the worker reading it was stopped"}.get(why, f"the worker reading it stopped ({why})")
        return f"{what} is too large to read safely: {cause}"

    # ------------------------------------------------------------------ the tasks

    def parse(self, parser_name: str, data: bytes, filename: str, metadata: Any = None, limits: Any = None,
              admit: Callable[[dict], None] | None = None):
        """The Document a worker parsed from `data`; InputError (one line) for a bad or too costly file.

        `admit(summary)` may refuse the document (raise InputError) from its size — pages, lines,
        characters, word boxes — before the server unpacks it."""
        what = "this PDF's content" if parser_name == "pdf" else "this file"
        reply = self._run(("parse", parser_name, data, filename, dict(metadata) if metadata else None, limits,
                           self.cpu_s), filename, what)
        if reply[0] != "ok":
            raise InputError(filename, reply[1].removeprefix(f"{filename}: "))
        _, summary, payload = reply
        if admit is not None:
            admit(summary)
        return _load(payload)

    def render(self, data: bytes, document, items: Sequence[tuple]) -> list[bytes | str]:
        """PNGs of pages of `document` (page, highlights, zoom, max_pixels per item), drawn by one worker in
        one call with its kind's page renderer; an item that cannot be drawn gives its one-line reason (a str)."""
        numbers = {item[0] for item in items}
        pages = {n: document.page(n) for n in numbers if document.page(n) is not None}
        for number in numbers - set(pages):
            raise ValueError(f"{document.filename}: no page {number}")
        what = "this PDF page" if document.kind == "pdf" else "this page"
        reply = self._run(("render", bytes(data), document.filename, document.kind, pages, list(items), self.cpu_s),
                          document.filename, what)
        if reply[0] != "ok":
            raise InputError(document.filename, reply[1].removeprefix(f"{document.filename}: "))
        return reply[1]


_default: Sandbox | None = None
_default_lock = threading.Lock()


def default_sandbox() -> Sandbox:
    """The process's pool (workers start on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Sandbox()
            atexit.register(_default.close)
        return _default


def draws_in_worker(kind: str) -> bool:
    """Whether a worker draws this kind's pages (its page renderer's registration says `sandboxed=True`)."""
    return kind in PAGE_RENDERERS.names() and bool(PAGE_RENDERERS.entry(kind).trait("sandboxed", False))


def render_page_in_worker(data: bytes, document, page_number: int, highlights: list, zoom: float | None = None,
                          max_pixels: int | None = None) -> bytes:
    """`pipeline.render.pages.render_page`, drawn by a worker when the kind's renderer is sandboxed (a PDF's);
    InputError (one line) when it cannot be drawn."""
    zoom = zoom or DEFAULT_ZOOM
    if not draws_in_worker(document.kind):
        return render_page(data, document, page_number, highlights, zoom=zoom)
    [image] = default_sandbox().render(data, document, [(page_number, highlights, zoom, max_pixels)])
    if isinstance(image, str):
        raise InputError(document.filename, image.removeprefix(f"{document.filename}: "))
    return image


def render_pages_in_worker(data: bytes, document, pages: Sequence[int], zoom: float,
                           max_pixels: int) -> list[bytes | None]:
    """Several pages without highlights (thumbnails) in one call; None for a page that cannot be drawn."""
    if not draws_in_worker(document.kind):
        return [render_page(data, document, n, [], zoom=zoom) for n in pages]
    images = default_sandbox().render(data, document, [(n, [], zoom, max_pixels) for n in pages])
    return [None if isinstance(image, str) else image for image in images]

