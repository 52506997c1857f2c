"""Gradio's own upload route (`POST /gradio_api/upload`) within a total size and a rate.

That route takes files before any event runs, without a session (anonymously in demo mode): a probe wrote
500 MiB in 7 s, kept up to 15 minutes. This ASGI middleware checks each upload request before Gradio reads
it: it must declare its size (Content-Length; else 411); an address may send at most UPLOAD_RATE_FILES
requests and UPLOAD_RATE_BYTES per UPLOAD_RATE_WINDOW_S (else 429 "… try again in N s"); and the files
in Gradio's folder plus the uploads under way may total at most UPLOAD_FOLDER_MAX_BYTES (else 507 "the
server's upload space is full …"). Received files leave the folder as soon as a handler reads them
(`ui.received`) and Gradio's cache sweep removes the rest after 15 minutes, so the space comes back.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections import OrderedDict, deque
from pathlib import Path

import anyio.to_thread

from pipeline import limits, megabytes

MAX_TRACKED_ADDRESSES = 10_000
_ROUTES = ("/gradio_api/upload", "/gradio_api/upload/")


def folder_bytes(folder: Path) -> int:
    """The size of every file under `folder` (0 when it does not exist yet)."""
    total, pending = 0, [str(folder)]
    while pending:
        try:
            entries = os.scandir(pending.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
    return total


class UploadGuard:
    """ASGI middleware: refuse an upload request over the folder's total or its address's rate."""

    def __init__(self, app, folder, clock=time.monotonic) -> None:
        self.app = app
        self.folder = folder  # a callable giving Gradio's upload folder
        self.clock = clock
        self._sent: OrderedDict[str, deque] = OrderedDict()  # address → (time, bytes) per request in the window
        self._in_flight = 0
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] not in _ROUTES:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if not declared.isdigit():
            await _answer(send, 411, "an upload must declare its size (Content-Length)")
            return
        size = int(declared)
        client = scope.get("client")
        # The walk over Gradio's folder runs in a worker thread: on the event loop it held every other request
        # (page loads, /healthz, other users' questions) for as long as the folder took to read.
        stored = await anyio.to_thread.run_sync(folder_bytes, Path(self.folder()))
        refusal = self._admit(client[0] if client else "unknown", size, stored)
        if refusal is not None:
            await _answer(send, *refusal)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            with self._lock:
                self._in_flight -= size

    def _admit(self, address: str, size: int, stored: int) -> tuple[int, str, float | None] | None:
        """None, or (status, message, retry-after seconds) for a refusal; `stored`: the bytes in Gradio's folder."""
        now = self.clock()
        with self._lock:
            sent = self._sent.setdefault(address, deque())
            self._sent.move_to_end(address)
            while len(self._sent) > MAX_TRACKED_ADDRESSES:
                self._sent.popitem(last=False)
            while sent and now - sent[0][0] > limits.UPLOAD_RATE_WINDOW_S:
                sent.popleft()
            if len(sent) >= limits.UPLOAD_RATE_FILES or (sent and sum(b for _, b in sent) + size > limits.UPLOAD_RATE_BYTES):
                wait = max(1.0, limits.UPLOAD_RATE_WINDOW_S - (now - sent[0][0]))
                return 429, f"too many uploads from your address; try again in {math.ceil(wait)} s", wait
            if size > limits.UPLOAD_RATE_BYTES:
                return 413, f"an upload may send at most {megabytes(limits.UPLOAD_RATE_BYTES)} at once", None
            used = stored + self._in_flight
            if used + size > limits.UPLOAD_FOLDER_MAX_BYTES:
                return (507, f"the server's upload space is full ({megabytes(limits.UPLOAD_FOLDER_MAX_BYTES)} of files "
                             "waiting to be read); try again in a few minutes", 60)
            sent.append((now, size))
            self._in_flight += size
        return None


async def _answer(send, status: int, detail: str, retry_after: float | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(math.ceil(retry_after)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
