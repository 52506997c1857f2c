"""How long the server keeps what a session brought: state, received files, and what the access log says.

- A session's state (its uploads, their vectors, its last trace) expires SESSION_TTL_S after its last
  use, and CLOSED_SESSION_TTL_S after its browser tab closed (Gradio's own default is an hour).
- At most MAX_SESSIONS sessions are held; the least recently used beyond that is dropped.
- Files Gradio received or served are deleted every CACHE_SWEEP_S once older than CACHE_MAX_AGE_S,
  and all of them when the server stops (received uploads are also deleted as soon as they are read).
- The access log never prints a session hash or a cached file's path.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict

SESSION_TTL_S = 30 * 60
CLOSED_SESSION_TTL_S = 2 * 60
MAX_SESSIONS = 500
CACHE_SWEEP_S = 5 * 60
CACHE_MAX_AGE_S = 15 * 60

_SECRET_IN_PATH = re.compile(r"(session_hash=|/heartbeat/|file=)[^&\s\"']+")


class _ClosedSessionsExpireSoon(OrderedDict):
    """Gradio's per-session store; every new session gets the short closed-tab lifetime."""

    def __setitem__(self, key, value) -> None:
        if hasattr(value, "STATE_TTL_WHEN_CLOSED"):
            value.STATE_TTL_WHEN_CLOSED = CLOSED_SESSION_TTL_S
        super().__setitem__(key, value)


def bound_sessions(demo) -> None:
    """After mounting: apply the closed-tab lifetime and the session cap to `demo`'s state holder."""
    holder = demo.state_holder
    holder.capacity = MAX_SESSIONS
    current = _ClosedSessionsExpireSoon()
    current.update(holder.session_data)
    holder.session_data = current


class RedactSessionHashes(logging.Filter):
    """Access-log lines keep method, path and status, not the session hash or cached file path."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_SECRET_IN_PATH.sub(r"\1…", a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = _SECRET_IN_PATH.sub(r"\1…", record.msg)
        return True


def redact_access_log() -> None:
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactSessionHashes) for f in logger.filters):
        logger.addFilter(RedactSessionHashes())
