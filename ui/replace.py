"""/replace_document: a new file for an existing document id (a new version), in place.

One of the session's uploads is replaced in the session (BM25 at once, dense vectors in the background);
a shared library document is replaced in the library by a signed-in member of library-admin (parsed and
embedded before the commit). Either way the old version's chunks and vectors leave the index, and a
failure before the swap leaves the previous version in place. The rules are in `pipeline.library.versions`.
"""

from __future__ import annotations

import gradio as gr

from pipeline import (Document, InputError, acting_for, check_replacement, document_cost, megabytes, replacement_metadata,
                      upload_budget)

from .accounts import requester_groups
from .clients import fairness_key, request_clients
from .endpoints import readable_ids
from .handlers import INDEXING, UPLOADS, _chosen_paths, _read_upload, guarded, parse_turn, session_of, toast
from .state import MAX_FILE_BYTES, MAX_PDF_PAGES, Session, Shared, session_quota_left


def _summary(document: Document) -> dict:
    return {"source_id": document.source_id, "version": document.meta.version, "digest": document.digest,
            "filename": document.filename, "pages": len(document.pages),
            "lines": sum(len(p.lines) for p in document.pages)}


def _limits():
    from pipeline import PdfLimits

    return PdfLimits(max_pages=MAX_PDF_PAGES, max_bytes=MAX_FILE_BYTES)


def _replace_upload(shared: Shared, session: Session, source_id: str, path: str, version) -> tuple[Document, Document]:
    old = session.uploads[source_id]
    with parse_turn(shared):  # the parse lane's turn of this client (ui.handlers), as for an upload
        name, data = _read_upload(path)
        allowed = session_quota_left(session) + session.upload_sizes.get(source_id, 0)
        if len(data) > allowed:
            raise InputError(name, f"is {megabytes(len(data))}; this session may upload {megabytes(allowed)} more "
                                   "(the uploads of one session are bounded)")
        metadata = replacement_metadata(data, name, old, version,
                                        front_matter=shared.engine.takes_front_matter(data, name))
        document = shared.engine.parse(data, name, metadata, _limits(),
                                       admit=lambda summary: _fits(session, source_id, name, summary))
    check_replacement(old, document, name)
    same = [d.source_id for d in session.visible_documents(shared)
            if d.digest == document.digest and d.source_id != source_id]
    if same:
        raise InputError(name, f"is already loaded (as {same[0]})")
    with INDEXING.turn():
        return session.replace(shared, document, data), document


def _fits(session: Session, source_id: str, name: str, summary: dict) -> None:
    """The new version, in place of the old one, must fit the memory budget (pipeline.ingest.budgets)."""
    upload_budget().check(session, {source_id: document_cost(summary)}, name, clients=session.clients)


def _replace_library(shared: Shared, session: Session, source_id: str, path: str, version, request,
                     progress) -> tuple[Document, Document]:
    from pipeline import LIBRARY_ADMIN, Incoming

    if LIBRARY_ADMIN not in requester_groups(shared.accounts, session, "", request):
        raise InputError("replace", f"{source_id!r} is a shared library document: only signed-in members of "
                                    f"{LIBRARY_ADMIN} may replace it")
    name, data = _read_upload(path)
    return shared.library.replace(
        shared.engine, source_id, Incoming(name, data), version=version, keep=shared.samples, limits=_limits(),
        progress=lambda done, total, stage: progress((done, max(total, 1)), desc=stage))


@guarded
def do_replace_document(shared: Shared, source_id, file, version, session, request: gr.Request = None,
                        progress=gr.Progress()):
    """Replace a document by a new file under the same id (a new version): one of this session's uploads,
    or a shared library document (signed-in members of library-admin). The old version's chunks and vectors
    leave the index; a failure before the swap keeps the previous version. A file without front matter
    inherits the replaced document's metadata except its version label (`version`, optional).
    Returns {"replaced", "where" ("session" or "library"), "previous": {...}, "current": {...}}."""
    session = session_of(session)
    source_id = (source_id or "").strip()
    paths = _chosen_paths(file, "replace")
    if len(paths) != 1:
        raise InputError("replace", "choose one file: the new version")
    if not source_id:
        raise InputError("replace", "choose the document to replace")
    readable = set() if source_id in session.uploads else readable_ids(shared, session, request)
    if source_id in session.uploads:
        where = "session"
        session.clients = request_clients(request) if request is not None else session.clients
        client = fairness_key(request)
        with acting_for(client), UPLOADS.hold(client):
            old, new = _replace_upload(shared, session, source_id, paths[0], version)
    elif shared.library is not None and source_id in shared.library_ids() and source_id in readable:
        where = "library"
        old, new = _replace_library(shared, session, source_id, paths[0], version, request, progress)
    elif source_id in readable:
        raise InputError("replace", f"{source_id!r} is a sample document (read-only)")
    else:  # unknown, or restricted from this caller: the same answer (no existence oracle)
        raise InputError("replace", f"{source_id!r} is not one of your uploads or a library document")
    gr.Info(toast(f"Replaced {source_id}: {old.meta.version or 'no version'} → {new.meta.version or 'no version'}"))
    return {"replaced": source_id, "where": where, "previous": _summary(old), "current": _summary(new),
            "status": session.document_status(source_id) if where == "session" else "ready"}, session
