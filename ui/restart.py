"""Uploads live in the server's memory for one session: notice when they are gone (the notice that says
so beforehand is `ui.export.NOTICE`).

After a server restart (or an expired session) the open page still lists the uploads it was told
about, while the server answers from the samples only. `uploads_gone` compares the two when the
user asks, and says so instead of letting answers quietly abstain.
"""

from __future__ import annotations

import html

import gradio as gr

from .handlers import session_of, toast


def uploads_gone(report, session):
    """A warning (toast and note) when the page lists uploads this session no longer has."""
    session = session_of(session)
    listed = report.get("documents", []) if isinstance(report, dict) else []
    missing = [str(source_id) for source_id in listed if source_id not in session.uploads]
    if not missing:
        return gr.update()
    names = ", ".join(missing[:10]) + (" …" if len(missing) > 10 else "")
    message = (f"The server no longer has your uploads ({names}): it restarted or your session expired. "
               "Answers now use the sample documents only; upload your files again.")
    gr.Warning(toast(message))
    return f"<p class='rag-note'>⚠ {html.escape(message)}</p>"
