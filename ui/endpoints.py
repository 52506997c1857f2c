"""The named endpoints for the conversation and the document library.

/history, /reopen_turn, /clear_history: the session's turns (each with its trace, re-openable);
/delete_document: remove one of the session's uploads (its chunks and vectors go with it).
Like `ui.handlers`, each takes the app's `Shared` state first where it needs it and returns plain JSON.
"""

from __future__ import annotations

import gradio as gr

from pipeline import InputError

from . import history
from .accounts import requester_groups
from .handlers import guarded, session_of
from .state import Session, Shared


def readable_ids(shared: Shared, session: Session, request=None) -> set[str]:
    """The ids this caller may read: the account's groups when signed in, public documents in demo mode
    (these endpoints take no groups)."""
    groups = requester_groups(shared.accounts, session, "", request)
    return {d.source_id for d in session.readable(shared, groups)}


@guarded
def do_history(session):
    """This session's conversation, oldest first: each turn's number, kind (ask / check / demo), what was
    asked, what retrieval searched (a follow-up is resolved against the previous question), and its result."""
    session = session_of(session)
    return [history.turn_summary(t) for t in history.conversation_of(session).turns], session


@guarded
def do_reopen(turn, session):
    """Make an earlier turn (by number) the current result again; returns its trace (JSON)."""
    session = session_of(session)
    found = history.conversation_of(session).find(turn)
    if found is None:
        raise InputError("turn", f"no turn {turn!r} in this session's history")
    session.last_trace, session.last_documents, session.last_demo = found.trace, found.documents, found.demo
    return found.trace.model_dump(mode="json"), session


@guarded
def do_clear_history(session):
    """Forget every turn of this session's conversation (uploads stay). Returns the empty history."""
    session = session_of(session)
    history.conversation_of(session).turns.clear()
    session.last_trace, session.last_documents, session.last_demo = None, {}, None
    return [], session


@guarded
def do_delete_document(shared: Shared, source_id, session, request: gr.Request | None = None):
    """Delete one of this session's uploaded documents by id: its chunks and vectors leave the session's
    collection; the samples and other uploads stay. Returns the remaining uploads' ids."""
    session = session_of(session)
    source_id = (source_id or "").strip()
    if source_id not in session.uploads:
        # Decided over what the caller may read: a restricted document's id gets the unknown id's answer.
        why = "is a shared sample or library document (read-only here)" \
            if source_id in readable_ids(shared, session, request) else "is not one of your uploads"
        raise InputError("delete", f"{source_id!r} {why}")
    session.remove(shared, source_id)  # rebuilt from the remaining documents; its vectors and bytes go too
    return {"deleted": source_id, "documents": sorted(session.uploads)}, session
