"""Keep my uploads: the plain notice that session uploads are discarded, and the session export
(documents' metadata + every turn's full trace) as one JSON download or the /export_session endpoint."""

from __future__ import annotations

import datetime as dt
import json
import shutil
import tempfile
import uuid
from pathlib import Path

import gradio as gr

from . import history, library
from .accounts import parse_groups, requester_groups
from .handlers import guarded, session_of
from .retention import SESSION_TTL_S
from .state import Shared

EXPORT_DIR = Path(tempfile.gettempdir()) / "auditable-rag-exports"
EXPORT_VERSION = "session-export-v1"
#: The one notice about what a session keeps, shown beside the export.
NOTICE = ("⚠ **Your uploads and this conversation live only in this server's memory, for this browser session.** "
          f"They are discarded when you reload or close the page, after {SESSION_TTL_S // 60} minutes without use, "
          "or when the server restarts (the samples stay; after a restart the page says so on the next question). "
          "Download the session export first to keep the documents' metadata and every trace; upload the files "
          "again afterwards.")
NOTICE_POINTER = "Uploads are kept for this browser session only (see the notice in the Conversation, below the results)."
#: The browser asks before leaving once the session holds uploads (a page cannot say more than that).
GUARD_JS = ("() => { if (!window.__ragLeaveGuard) { window.__ragLeaveGuard = true; "
            "window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; }); } }")


def session_export(shared: Shared, session, groups, request=None) -> dict:
    """The export; signed in, the documents listed are the account's readable ones (typed groups are ignored)."""
    readable = session.readable(shared, parse_groups(requester_groups(shared.accounts, session, groups, request)))
    conversation = history.conversation_of(session)
    return {
        "export_version": EXPORT_VERSION,
        "exported_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "documents": library.library_rows(readable, session.corpus(shared), set(session.uploads),
                                            shared.library_ids(), status_of=session.document_status),
        "turns": [{**history.turn_summary(t), "trace": t.trace_json()} for t in conversation.turns],
    }


@guarded
def do_export(shared: Shared, groups, session, request: gr.Request = None):
    """This session as JSON: the readable documents' metadata (id, version, topic, validity, access, pages,
    lines, chunks, status, origin) and every turn with its full trace."""
    session = session_of(session)
    return session_export(shared, session, groups, request), session


@guarded
def export_file(shared: Shared, groups, session, request: gr.Request = None):
    """The export written to a fresh temporary file for the download (the previous one is removed)."""
    session = session_of(session)
    folder = EXPORT_DIR / uuid.uuid4().hex
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "auditable-rag-session.json"
    path.write_text(json.dumps(session_export(shared, session, groups, request), ensure_ascii=False, indent=1), "utf-8")
    previous = getattr(session, "export_folder", None)
    if previous:
        shutil.rmtree(previous, ignore_errors=True)
    session.export_folder = folder
    return gr.File(value=str(path), visible=True), session
