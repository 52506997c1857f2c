"""A stand-in for a remote language model: a local HTTP server speaking Chat Completions.

The only mock in the suite, because a hosted model cannot be reached from CI. It answers
`POST /v1/chat/completions` with scripted replies, in order (the last one repeats), and keeps
every request it received so tests can see what the real `openai` client sent.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class ScriptedReply:
    """One response: a completion with `content`, or an error `status`, optionally after `delay_s`."""

    content: str | None = None
    status: int = 200
    finish_reason: str = "stop"
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    refuse_json_mode: bool = False  # answer 400 if the request asks for response_format
    raw_body: bytes | None = None  # sent as is instead of a completion (a broken server)
    trickle_s: float = 0.0  # send the body a byte at a time, this long apart (a server too slow to finish)


def json_reply(answer: str, citations: list[dict] | None = None, **options) -> ScriptedReply:
    """A reply whose content is the proposal JSON the generator asks for."""
    return ScriptedReply(content=json.dumps({"answer": answer, "citations": citations or []}), **options)


class StandInChatServer:
    """`with StandInChatServer(replies) as server:` → `server.base_url` ends in /v1."""

    def __init__(self, replies: list[ScriptedReply], model: str = "standin-model"):
        self.replies = list(replies)
        self.model = model
        self.requests: list[dict] = []  # {"headers": {...}, "body": {...}} per request received
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]  # (host, port)
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> StandInChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopping.set()  # wakes a handler that is "hanging"
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _next(self) -> ScriptedReply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def _completion(self, reply: ScriptedReply) -> dict:
        return {
            "id": f"chatcmpl-standin-{len(self.requests)}", "object": "chat.completion", "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                         "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366},
        }

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep pytest's output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                headers = {name.lower(): value for name, value in self.headers.items()}
                server.requests.append({"path": self.path, "headers": headers, "body": body})
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "not found"}})
                if server.replies[0].refuse_json_mode and "response_format" in body:
                    return self._send(400, {"error": {"message": "response_format is not supported"}})
                reply = server._next()
                if reply.delay_s and server._stopping.wait(reply.delay_s):
                    return
                if reply.status != 200:
                    return self._send(reply.status, {"error": {"message": f"scripted {reply.status}"}}, reply.headers)
                self._send(200, server._completion(reply), reply.headers, reply.raw_body, reply.trickle_s)

            def _send(self, status: int, payload: dict, headers: dict | None = None, raw: bytes | None = None,
                      trickle_s: float = 0.0) -> None:
                data = json.dumps(payload).encode() if raw is None else raw
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    if not trickle_s:
                        self.wfile.write(data)
                    for byte in data if trickle_s else b"":
                        if server._stopping.wait(trickle_s):
                            return
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout); nothing to answer

        return Handler
