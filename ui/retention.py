"""How long the server keeps what a session brought: state, received files, and what the access log says.

- A session's state (its uploads, their vectors, its last trace) expires SESSION_TTL_S after its last
  use, and CLOSED_SESSION_TTL_S after its browser tab closed (Gradio's own default is an hour).
- At most MAX_SESSIONS sessions are held: a new one is refused while the table is full (`ui.session_gate`, which
  also shares it out per client), never let in by dropping a live one. A session whose values have expired is
  dropped whole (Gradio would keep its copy of the page's config).
- Files Gradio received or served are deleted every CACHE_SWEEP_S once older than CACHE_MAX_AGE_S,
  and all of them when the server stops (received uploads are also deleted as soon as they are read).
- The access log never prints a session hash or a cached file's path.
"""

from __future__ import annotations

import datetime
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
    """After mounting: apply the closed-tab lifetime and the session cap to `demo`'s state holder, and drop a
    session's whole Gradio state once its values have expired (see `_drop_spent_sessions`)."""
    holder = demo.state_holder
    holder.capacity = 2 * MAX_SESSIONS  # Gradio's own least-recently-used drop: a backstop ui.session_gate never reaches
    current = _ClosedSessionsExpireSoon()
    current.update(holder.session_data)
    holder.session_data = current
    expire_values = holder.delete_all_expired_state  # Gradio calls this every second

    def expire() -> None:
        expire_values()
        _drop_spent_sessions(holder)

    holder.delete_all_expired_state = expire


def _drop_spent_sessions(holder) -> None:
    """Gradio deletes an expired session's State values but keeps its SessionState — a copy of the page's
    config, ~0.35 MiB here — until MAX_SESSIONS newer ones push it out: 200 short sessions grew the server by
    60 MiB. A session with no State value left, unused for its lifetime (closed: CLOSED_SESSION_TTL_S), goes."""
    now = datetime.datetime.now()
    for session_id, state in list(holder.session_data.items()):
        last = holder.time_last_used.get(session_id)
        lifetime = CLOSED_SESSION_TTL_S if state.is_closed else SESSION_TTL_S
        if not state.state_data and (last is None or (now - last).total_seconds() > lifetime):
            with holder.lock:
                holder.session_data.pop(session_id, None)
                holder.time_last_used.pop(session_id, None)


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
