"""The page's library actions (delete, replace, add to the shared library): each one's result, errors included,
replaces the last one in place, and the form is left ready for the next action.

The API endpoints (/delete_document, /replace_document, /add_to_library) raise a one-line error as before; the page's
own steps call them and turn a refusal into a ✗ line under the button instead of a toast beside a stale "✓ replaced"
with an Error pill over it (issue 51). The file box is emptied after every replacement, refused or not: the server has
read and deleted the file, so sending the same selection again could only fail ("was not received by this server").
"""

from __future__ import annotations

import html
from typing import cast

import gradio as gr

from . import handlers, library, panels
from .endpoints import do_delete_document
from .handlers import session_of
from .replace import do_replace_document
from .state import Shared
from .views import poll_library_once, refresh_documents, replace_choices

REPLACE_LABEL = "Replace with this file"


def _refused(error: gr.Error) -> str:
    return html.unescape(str(error.message))


def _line(ok: bool, text_html: str, element_id: str) -> str:
    return f"<p class='rag-note rag-result {'ok' if ok else 'no'}' id='{element_id}'>{'✓' if ok else '✗'} {text_html}</p>"


def _lists(shared: Shared, session, groups, request: gr.Request | None):
    """The library, the chunk choices, and the deletable and replaceable documents, refreshed."""
    asked = cast(gr.Request, request)  # None outside a web request, as the helpers' own defaults
    docs, chunk_docs, session = refresh_documents(shared, session, groups, asked)
    return (docs, chunk_docs, gr.Dropdown(choices=library.upload_choices(session.uploads), value=None),
            gr.Dropdown(choices=replace_choices(shared, session, asked), value=None), session)


def delete_from_page(shared: Shared, source_id, session, groups, request: gr.Request | None = None):
    """Delete: its line under the button (the replace line cleared), and the lists refreshed."""
    try:
        report, session = do_delete_document(shared, source_id, session, request)
        said = _line(True, f"deleted <b>{panels._e(report['deleted'])}</b>: its chunks and vectors left your "
                           "collection.", "delete-result")
    except gr.Error as error:
        session = session_of(session)
        said = _line(False, panels._e(_refused(error)), "delete-result")
    docs, chunk_docs, delete_pick, replace_pick, session = _lists(shared, session, groups, request)
    return said, "", docs, chunk_docs, delete_pick, replace_pick, session


def replace_started():
    """Before a replacement: the button disabled (no second click), both action lines replaced by "working"."""
    return (gr.Button(value="Replacing…", interactive=False),
            "<p class='rag-note' id='replace-working'>Reading the new version and indexing it…</p>", "")


def replace_failed():
    """The button again after a step that failed outside the replacement itself (a full queue, a lost connection)."""
    return (gr.Button(value=REPLACE_LABEL, interactive=True),
            _line(False, "The replacement did not finish (the server may be busy or restarting); choose the file "
                         "again and retry.", "replace-result"), None)


def _replaced_line(report: dict) -> str:
    before, after = report["previous"], report["current"]
    where = "shared library" if report["where"] == "library" else "collection"
    return _line(True, f"replaced <b>{panels._e(report['replaced'])}</b> ({panels._e(before['version'] or 'no version')}"
                       f" → {panels._e(after['version'] or 'no version')}, {after['lines']} lines): the old version's "
                       f"chunks and vectors left the {where}.", "replace-result")


def replace_from_page(shared: Shared, source_id, file, version, session, groups, request: gr.Request | None = None,
                      progress=gr.Progress()):
    """Replace: its line (✓ or ✗, the previous one gone), the lists refreshed, the file box emptied, the version label
    kept after a refusal (to retry with another file) and cleared after a success, and the button back."""
    try:
        report, session = do_replace_document(shared, source_id, file, version, session, request, progress=progress)
        said, version = _replaced_line(report), ""
    except gr.Error as error:
        session = session_of(session)
        reason = _refused(error)
        if "choose one or more files first" in reason or "choose one file" in reason:
            reason = "choose the new version's file first (the file box is empty)"
        said = _line(False, panels._e(reason) + " — the previous version stays.", "replace-result")
    docs, chunk_docs, delete_pick, replace_pick, session = _lists(shared, session, groups, request)
    return (said, "", docs, chunk_docs, delete_pick, replace_pick, None, version, library.embedding_line(session),
            poll_library_once(), gr.Button(value=REPLACE_LABEL, interactive=True), session)


def add_to_library_from_page(shared: Shared, files, version, topic, authority, valid_from, valid_to, session, groups,
                             request: gr.Request | None = None, progress=gr.Progress()):
    """Add to the shared library: its line under the upload buttons, the lists refreshed and the file box emptied."""
    try:
        report, session = handlers.do_add_to_library(shared, files, version, topic, authority, valid_from, valid_to,
                                                     session, request, progress=progress)
        added, unchanged = report["added"], report["unchanged"]
        said = _line(True, "added to the shared library: " + (panels._e(", ".join(added)) or "nothing new")
                     + (f" (unchanged: {panels._e(', '.join(unchanged))})" if unchanged else ""), "library-result")
    except gr.Error as error:
        session = session_of(session)
        report = None
        said = _line(False, panels._e(_refused(error)), "library-result")
    docs, chunk_docs, _, replace_pick, session = _lists(shared, session, groups, request)
    return report, said, docs, chunk_docs, replace_pick, None, session
