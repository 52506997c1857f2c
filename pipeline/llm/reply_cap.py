"""A language model's reply is read up to a cap, like every other input.

A 10 MB reply was accepted whole: 27 s of claim splitting and checking, a 31 MB trace and +180 MiB,
past the 20,000-character cap `/check_answer` applies to the same kind of text. The HTTP body is read
through `capped_http_client`, which stops at MAX_REPLY_BYTES (a declared Content-Length over it is refused
before any byte is read), and the reply's text is held to MAX_REPLY_CHARS (pipeline.core.limits) before it is
parsed; either way the generator abstains with one line and the trace keeps only the reply's start.
"""

from __future__ import annotations

import threading
import time

import httpx

from pipeline.core.limits import MAX_REPLY_BYTES, MAX_REPLY_CHARS, megabytes

KEPT_IN_TRACE = 2000  # characters of an over-long reply kept in the trace, to show what came back


class ReplyTooLarge(httpx.TransportError):
    """The server's reply body is over MAX_REPLY_BYTES."""


def too_large_note(size: int | None = None) -> str:
    said = f"is {size} characters" if size is not None else f"is over {megabytes(MAX_REPLY_BYTES)}"
    return f"the model's reply {said}; the limit is {MAX_REPLY_CHARS} characters (not read further)"


def kept(reply: str) -> str:
    """What the trace keeps of an over-long reply."""
    return reply if len(reply) <= MAX_REPLY_CHARS else reply[:KEPT_IN_TRACE] + f" … ({len(reply)} characters)"


class _Deadline:
    """The time a whole reply may take. httpx's timeout is per read, so a server sending a byte a second never trips
    it; at the deadline the connections are closed, which ends a read waiting on them, and the reply is a timeout."""

    def __init__(self, seconds: float, close) -> None:
        self.expired = False
        self.ends = time.monotonic() + seconds
        self._timer = threading.Timer(seconds, self._expire, (close,))
        self._timer.daemon = True
        self._timer.start()

    def _expire(self, close) -> None:
        self.expired = True
        close()

    def check(self, request: httpx.Request) -> None:
        if self.expired or time.monotonic() > self.ends:
            raise httpx.ReadTimeout("the whole reply took longer than the timeout", request=request)

    def cancel(self) -> None:
        self._timer.cancel()


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, stream, cap: int, deadline: _Deadline, request: httpx.Request) -> None:
        self._stream, self._cap, self._deadline, self._request = stream, cap, deadline, request

    def __iter__(self):
        total = 0
        try:
            for chunk in self._stream:
                self._deadline.check(self._request)
                total += len(chunk)
                if total > self._cap:
                    raise ReplyTooLarge(too_large_note())
                yield chunk
        except httpx.TransportError:
            self._deadline.check(self._request)  # a read the deadline ended is a timeout, not a broken connection
            raise
        finally:
            self._deadline.cancel()

    def close(self) -> None:
        self._deadline.cancel()
        self._stream.close()


class _CappedTransport(httpx.BaseTransport):
    def __init__(self, cap: int, timeout: float) -> None:
        self._inner, self._cap, self._timeout = httpx.HTTPTransport(), cap, timeout

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = _Deadline(self._timeout, self._inner.close)
        try:
            response = self._inner.handle_request(request)
        except httpx.TransportError:
            deadline.cancel()
            deadline.check(request)
            raise
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._cap:
            deadline.cancel()
            response.close()
            raise ReplyTooLarge(too_large_note())
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_CappedStream(response.stream, self._cap, deadline, request),
                              extensions=response.extensions, request=request)

    def close(self) -> None:
        self._inner.close()


def capped_http_client(timeout: float, cap: int = MAX_REPLY_BYTES) -> httpx.Client:
    """An httpx client (for the `openai` client) whose response bodies stop at `cap` bytes and whose whole reply,
    headers and body, takes at most `timeout` seconds (a client is made per request: its connections are closed at
    the deadline)."""
    return httpx.Client(transport=_CappedTransport(cap, timeout), timeout=timeout, follow_redirects=True)


def reply_too_large(error: BaseException) -> bool:
    """Whether a client error was caused by a capped reply."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ReplyTooLarge):
            return True
        cause = cause.__cause__ or cause.__context__
    return False
