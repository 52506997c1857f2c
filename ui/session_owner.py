"""With sign-in, a Gradio session belongs to the user who first used it.

Gradio keys a session's state by its `session_hash` alone, and the hash is no secret: it is in every
`queue/data` URL, so proxies log it. Signed in as bob with alice's hash, a probe read her restricted answer
and packed context through `/history` and `/reopen_turn`. This ASGI middleware binds each hash to the
first signed-in user whose request carries it (query string, `/heartbeat/<hash>`, `/stream/<hash>/…`, or
the JSON body of an event); any other caller's request with that hash — another user's, or an anonymous
one — is refused with HTTP 403 before Gradio sees it, whatever the endpoint. (`ui.accounts.requester_groups`
checks the same binding inside the handlers.) In demo mode there are no users and nothing is bound: the
hash is what Gradio makes of it, as before.

At most MAX_BINDINGS bindings are kept (least recently used first out, well above the session cap), and a
binding unused for longer than a session lives is forgotten with it.
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from urllib.parse import parse_qs

from .retention import MAX_SESSIONS, SESSION_TTL_S

MAX_BINDINGS = 4 * MAX_SESSIONS
MAX_EVENT_BODY = 4 * 1024 * 1024  # an event's JSON (its inputs; files travel through /upload)
_PREFIX = "/gradio_api/"


def hash_in_path(path: str) -> str | None:
    parts = path[len(_PREFIX):].split("/")
    if len(parts) >= 2 and parts[0] == "heartbeat":
        return parts[1]
    if len(parts) >= 4 and parts[0] == "stream":  # /stream/<hash>/<run>/<component>/…
        return parts[1]
    return None


class SessionOwners:
    """ASGI middleware binding session hashes to signed-in users. `user_of(scope)` names the request's user."""

    def __init__(self, app, user_of, clock=time.monotonic) -> None:
        self.app = app
        self.user_of = user_of
        self.clock = clock
        self.owners: OrderedDict[str, tuple[str, float]] = OrderedDict()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(_PREFIX):
            await self.app(scope, receive, send)
            return
        session_hash = hash_in_path(scope["path"]) or hash_in_query(scope)
        if session_hash is None and scope["method"] == "POST" and is_json(scope):
            body, too_large = await read_body(receive)
            if too_large:
                await json_answer(send, 413, "the request is too large")
                return
            session_hash = hash_in_body(body)
            receive = replay(body, receive)
        if session_hash is not None and not self._allowed(session_hash, self.user_of(scope)):
            await json_answer(send, 403, "this session belongs to another user; reload the page")
            return
        await self.app(scope, receive, send)

    def _allowed(self, session_hash: str, user: str | None) -> bool:
        now = self.clock()
        owner = self.owners.get(session_hash)
        if owner is not None and now - owner[1] > SESSION_TTL_S:
            owner = None  # the session expired with its state
        if owner is None:
            if user:
                self.owners[session_hash] = (user, now)
                self.owners.move_to_end(session_hash)
                while len(self.owners) > MAX_BINDINGS:
                    self.owners.popitem(last=False)
            return True
        if owner[0] != user:
            return False
        self.owners[session_hash] = (user, now)
        self.owners.move_to_end(session_hash)
        return True


def hash_in_query(scope) -> str | None:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("session_hash")
    return values[0] if values else None


def is_json(scope) -> bool:
    headers = dict(scope.get("headers") or [])
    return headers.get(b"content-type", b"").split(b";")[0].strip().lower() == b"application/json"


def hash_in_body(body: bytes) -> str | None:
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        return None
    found = value.get("session_hash") if isinstance(value, dict) else None
    return found if isinstance(found, str) and found else None


async def read_body(receive) -> tuple[bytes, bool]:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_EVENT_BODY:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks), False


def replay(body: bytes, receive):
    sent = False

    async def replayed():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def json_answer(send, status: int, detail: str, retry_after: float | None = None) -> None:
    """A refusal as the app's other errors are: {"detail": …}, with Retry-After when a wait would help."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if retry_after is not None:
        headers.append((b"retry-after", str(math.ceil(retry_after)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def gradio_user_of(gradio_app):
    """`user_of(scope)` for the mounted Gradio app: its proxy header dependency, or its sign-in cookie."""
    from starlette.requests import Request

    def user_of(scope) -> str | None:
        request = Request(scope)
        if gradio_app.auth_dependency is not None:
            return gradio_app.auth_dependency(request) or None
        cookie_id = gradio_app.cookie_id
        token = request.cookies.get(f"access-token-{cookie_id}") or request.cookies.get(
            f"access-token-unsecure-{cookie_id}")
        return gradio_app.tokens.get(token) if token else None

    return user_of
