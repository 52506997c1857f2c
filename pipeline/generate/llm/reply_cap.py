"""A language model's reply is read up to a cap, like every other input.

A 10 MB reply was accepted whole: 27 s of claim splitting and checking, a 31 MB trace and +180 MiB,
past the 20,000-character cap `/check_answer` applies to the same kind of text. The HTTP body is read
through `capped_http_client`, which stops at MAX_REPLY_BYTES (a declared Content-Length over it is refused
before any byte is read), and the reply's text is held to MAX_REPLY_CHARS (pipeline.core.limits) before it is
parsed; either way the generator abstains with one line and the trace keeps only the reply's start.
"""

from __future__ import annotations

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


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, stream, cap: int) -> None:
        self._stream, self._cap = stream, cap

    def __iter__(self):
        total = 0
        for chunk in self._stream:
            total += len(chunk)
            if total > self._cap:
                raise ReplyTooLarge(too_large_note())
            yield chunk

    def close(self) -> None:
        self._stream.close()


class _CappedTransport(httpx.BaseTransport):
    def __init__(self, cap: int) -> None:
        self._inner, self._cap = httpx.HTTPTransport(), cap

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self._inner.handle_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._cap:
            response.close()
            raise ReplyTooLarge(too_large_note())
        return httpx.Response(status_code=response.status_code, headers=response.headers,
                              stream=_CappedStream(response.stream, self._cap), extensions=response.extensions,
                              request=request)

    def close(self) -> None:
        self._inner.close()


def capped_http_client(timeout: float, cap: int = MAX_REPLY_BYTES) -> httpx.Client:
    """An httpx client (for the `openai` client) whose response bodies stop at `cap` bytes."""
    return httpx.Client(transport=_CappedTransport(cap), timeout=timeout, follow_redirects=True)


def reply_too_large(error: BaseException) -> bool:
    """Whether a client error was caused by a capped reply."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, ReplyTooLarge):
            return True
        cause = cause.__cause__ or cause.__context__
    return False
