"""Gradio's own upload route (`POST /gradio_api/upload`) within a total size, a rate, and each client's share.

That route takes files before any event runs, without a session (anonymously in demo mode): a probe wrote
500 MiB in 7 s, kept up to 15 minutes. This ASGI middleware checks each upload request before Gradio reads
it: it must declare its size (Content-Length; else 411); an address may send at most UPLOAD_RATE_FILES
requests and UPLOAD_RATE_BYTES per UPLOAD_RATE_WINDOW_S (else 429 "… try again in N s"); the files in
Gradio's folder plus the uploads under way may total at most UPLOAD_FOLDER_MAX_BYTES (else 507 "the
server's upload space is full …"); and the files one client (its address, an IPv6 client's /64, its account
when signed in: `ui.clients`) has there and is sending may total at most UPLOAD_FOLDER_CLIENT_BYTES (else 507
"your uploads waiting to be read fill your share …"): one account filled the whole folder in ~61 s, and every
other upload was refused until Gradio's sweep. A client's files are the paths Gradio's answer names, counted
while one of them is still in the folder. Received files leave the folder as soon as a handler reads them
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

from .clients import account_key, address_key
from .session_owner import json_answer

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
    """ASGI middleware: refuse an upload request over the folder's total, its client's share or its address's rate."""

    def __init__(self, app, folder, clock=time.monotonic, user_of=None) -> None:
        self.app = app
        self.folder = folder  # a callable giving Gradio's upload folder
        self.clock = clock
        self.user_of = user_of  # the request's signed-in user (with sign-in), else None
        self._sent: OrderedDict[str, deque] = OrderedDict()  # address → (time, bytes) per request in the window
        self._in_flight = 0
        self._client_in_flight: dict[str, int] = {}
        self._stored: OrderedDict[str, list[_Received]] = OrderedDict()  # client → its requests' files
        self._lock = threading.Lock()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] not in _ROUTES:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if not declared.isdigit():
            await json_answer(send, 411, "an upload must declare its size (Content-Length)")
            return
        size = int(declared)
        client = scope.get("client")
        address = client[0] if client else "unknown"
        clients = self._clients(scope, address)
        # The walks over Gradio's folder and the client's files run in a worker thread: on the event loop they held
        # every other request (page loads, /healthz, other users' questions) for as long as the folder took to read.
        stored = await anyio.to_thread.run_sync(folder_bytes, Path(self.folder()))
        mine = await anyio.to_thread.run_sync(self._stored_by, clients)
        refusal = self._admit(address, size, stored, clients, mine)
        if refusal is not None:
            await json_answer(send, *refusal)
            return
        answer = _Answer(send)
        try:
            await self.app(scope, receive, answer.send)
        finally:
            with self._lock:
                self._in_flight -= size
                for key in clients:
                    self._client_in_flight[key] -= size
                    if not self._client_in_flight[key]:
                        del self._client_in_flight[key]
            self._remember(clients, answer.paths(), size)

    def _clients(self, scope, address: str) -> tuple[str, ...]:
        account = account_key(self.user_of(scope)) if self.user_of is not None else None
        return (address_key(address), account) if account else (address_key(address),)

    def _admit(self, address: str, size: int, stored: int, clients: tuple[str, ...] = (),
               mine: dict[str, int] | None = None) -> tuple[int, str, float | None] | None:
        """None, or (status, message, retry-after seconds) for a refusal; `stored`: the bytes in Gradio's folder,
        `mine`: each client's bytes there."""
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
            for key in clients:
                if (mine or {}).get(key, 0) + self._client_in_flight.get(key, 0) + size > limits.UPLOAD_FOLDER_CLIENT_BYTES:
                    return (507, f"your uploads waiting to be read fill your share of the server's upload space "
                                 f"({megabytes(limits.UPLOAD_FOLDER_CLIENT_BYTES)}): add or remove the files chosen, "
                                 "or try again in a few minutes", 60)
            sent.append((now, size))
            self._in_flight += size
            for key in clients:
                self._client_in_flight[key] = self._client_in_flight.get(key, 0) + size
        return None

    def _stored_by(self, clients: tuple[str, ...]) -> dict[str, int]:
        """Each client's bytes in the folder: its requests of which a file is still there (or was just received)."""
        now, found = self.clock(), {}
        with self._lock:
            records = {key: list(self._stored.get(key, ())) for key in clients}
        for key, received in records.items():
            kept = [r for r in received if r.present(now)]  # a stat per file: in a worker thread
            found[key] = sum(r.size for r in kept)
            with self._lock:
                if key in self._stored:
                    self._stored[key] = [r for r in self._stored[key] if r in kept or r not in received]
        return found

    def _remember(self, clients: tuple[str, ...], paths: list[str], size: int) -> None:
        if not paths:
            return
        record = _Received(tuple(paths), size, self.clock())
        with self._lock:
            for key in clients:
                self._stored.setdefault(key, []).append(record)
                self._stored.move_to_end(key)
            while len(self._stored) > MAX_TRACKED_ADDRESSES:
                self._stored.popitem(last=False)


class _Received:
    """One upload request's files in Gradio's folder (the paths its answer named) and its declared size."""

    GRACE_S = 10  # Gradio moves received files into its cache after answering: a path may not exist yet

    def __init__(self, paths: tuple[str, ...], size: int, at: float) -> None:
        self.paths, self.size, self.at = paths, size, at

    def present(self, now: float) -> bool:
        return now - self.at < self.GRACE_S or any(os.path.lexists(path) for path in self.paths)


class _Answer:
    """Gradio's answer to an upload passed on, its body kept (up to MAX_ANSWER_BYTES) for the paths it names."""

    MAX_ANSWER_BYTES = 1 << 20

    def __init__(self, send) -> None:
        self._send = send
        self._status = 0
        self._body = bytearray()

    async def send(self, message) -> None:
        if message["type"] == "http.response.start":
            self._status = message["status"]
        elif message["type"] == "http.response.body" and len(self._body) < self.MAX_ANSWER_BYTES:
            self._body += message.get("body", b"")[:self.MAX_ANSWER_BYTES]
        await self._send(message)

    def paths(self) -> list[str]:
        if self._status != 200:
            return []
        try:
            value = json.loads(bytes(self._body))
        except ValueError:
            return []
        return [path for path in value if isinstance(path, str)] if isinstance(value, list) else []

