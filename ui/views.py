"""How the panels refresh: after each API call, and when the user picks documents, a citation or a demo.

These handlers are the UI's own steps (the undocumented /panels endpoint and private events). Like
`ui.handlers`, each takes the app's `Shared` state first where it needs it, then its input values.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import uuid
from pathlib import Path

import gradio as gr

from pipeline import REQUEST_DATE, scenario_settings

from . import evaluation, panels
from .demos import BY_NAME, describe
from .accounts import parse_groups, requester_groups
from .handlers import guarded, session_of
from .source import citation_choices, source_view
from .state import Session, Shared

TRACE_DIR = Path(tempfile.gettempdir()) / "auditable-rag-traces"
KEEP_TRACE_FILES = 3


# --------------------------------------------------------------------------- helpers


def _readable_choices(shared: Shared, session: Session, groups) -> list[tuple[str, str]]:
    return [(f"{d.source_id} ({panels.label(d)})", d.source_id)
            for d in session.readable(shared, parse_groups(groups))]


def _chunks(shared: Shared, session: Session, groups, chosen) -> str:
    readable = {d.source_id: d for d in session.readable(shared, parse_groups(groups))}
    return panels.chunks_html(session.corpus(shared), [readable[s] for s in (chosen or []) if s in readable])


def _trace_file(session: Session) -> str | None:
    """The last trace written to a fresh temporary file for the download button (the last few are kept)."""
    trace = session.last_trace
    if trace is None:
        return None
    folder = TRACE_DIR / uuid.uuid4().hex
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "trace.json"
    path.write_text(trace.model_dump_json(indent=1), "utf-8")
    session.trace_files.append(folder)
    for old in session.trace_files[:-KEEP_TRACE_FILES]:
        shutil.rmtree(old, ignore_errors=True)
    session.trace_files[:] = session.trace_files[-KEEP_TRACE_FILES:]
    return str(path)


def _source(shared: Shared, session: Session, choice):
    image, body, note = source_view(session.last_trace, session.last_documents,
                                    lambda digest: session.pdf(shared, digest), choice)
    return (gr.Image(value=image, visible=image is not None),
            gr.HTML(value=body or "", visible=body is not None),
            f"<p class='rag-note'>{panels._e(note)}</p>")


def _chunk_documents(shared: Shared, session: Session, groups) -> list[str]:
    """The readable documents of the selected and the top three candidates: the chunks shown by default."""
    trace = session.last_trace
    readable = {d.source_id for d in session.readable(shared, parse_groups(groups))}
    chosen: list[str] = []
    if trace is not None and trace.retrieval is not None:
        top = sorted(trace.retrieval.candidates, key=lambda c: c.fused_rank)[:3]
        for c in [*trace.retrieval.selected, *top]:
            if c.source_id in readable and c.source_id not in chosen:
                chosen.append(c.source_id)
    return chosen


# --------------------------------------------------------------------------- panels after a result


@guarded
def render_panels(shared: Shared, session, groups, select="answer", request: gr.Request = None):
    """Every panel of the session's last result, and the tab to show (`select`)."""
    session = session_of(session)
    groups = requester_groups(shared.accounts, session, groups, request)
    trace = session.last_trace
    choices = citation_choices(trace)
    image, body, note = _source(shared, session, choices[0][1] if choices else None)
    chosen = _chunk_documents(shared, session, groups)
    demo_line = ""
    if session.last_demo and session.last_demo in BY_NAME:
        demo_line = f"<p class='rag-note'><b>Demo:</b> {panels._e(describe(BY_NAME[session.last_demo]))}</p>"
    answer = demo_line + panels.answer_html(trace)
    return (
        answer,
        gr.DownloadButton(value=_trace_file(session), visible=trace is not None),
        panels.candidates_html(trace),
        panels.candidates_frame(trace),
        panels.context_html(trace),
        gr.Dropdown(choices=_readable_choices(shared, session, groups), value=chosen),
        _chunks(shared, session, groups, chosen),
        gr.Dropdown(choices=choices, value=choices[0][1] if choices else None),
        image, body, note,
        answer,
        gr.Tabs(selected=select),
        session,
    )


# --------------------------------------------------------------------------- single panels


@guarded
def show_source(shared: Shared, session, choice):
    session = session_of(session)
    return *_source(shared, session, choice), session


@guarded
def show_chunks(shared: Shared, session, groups, chosen, request: gr.Request = None):
    session = session_of(session)
    return _chunks(shared, session, requester_groups(shared.accounts, session, groups, request), chosen)


@guarded
def refresh_documents(shared: Shared, session, groups, request: gr.Request = None):
    session = session_of(session)
    groups = requester_groups(shared.accounts, session, groups, request)
    readable = session.readable(shared, parse_groups(groups))
    choices = _readable_choices(shared, session, groups)
    return panels.documents_html(readable, set(session.uploads)), gr.Dropdown(choices=choices), session


def upload_status(shared: Shared, report, session, groups, request: gr.Request = None):
    """The upload report as a list of ✓/✗ lines, and the refreshed document list."""
    session = session_of(session)
    lines = []
    if isinstance(report, dict):
        for item in report.get("added", []):
            lines.append(f"<li>✓ added <b>{panels._e(item['source_id'])}</b> ({panels._e(item['filename'])}, "
                         f"{item['kind']}, {item['pages']} page(s), {item['lines']} lines)</li>")
            for warning in item.get("warnings", []):
                lines.append(f"<li>⚠ {panels._e(warning)}</li>")
        for error in report.get("errors", []):
            lines.append(f"<li>✗ {panels._e(error)}</li>")
    status = f"<ul class='rag-note'>{''.join(lines)}</ul>" if lines else ""
    docs, dropdown, session = refresh_documents(shared, session, groups, request)
    return status, docs, dropdown, session


def fill_form(name):
    """The request form and the check text of the demo scenario `name`."""
    scenario = BY_NAME[name]
    settings = scenario_settings(scenario)
    check_text = scenario.proposal.model_dump_json(include={"answer", "citations"}, indent=1) \
        if scenario.proposal is not None else gr.update()
    return (scenario.question, REQUEST_DATE.isoformat(), scenario.topic or "", ", ".join(scenario.groups),
            settings.top_k, settings.min_lexical, settings.min_dense, settings.window, settings.reserve,
            settings.eligibility, settings.retrieval, check_text)


def load_evaluation():
    return evaluation.report_html(), evaluation.plots()


def today() -> str:
    """The request date's default: the day the page is opened, not the day the server started."""
    return dt.date.today().isoformat()


def account_groups(shared: Shared, session, request: gr.Request = None):
    """The signed-in user's groups, shown (read-only) in the form."""
    session = session_of(session)
    groups = requester_groups(shared.accounts, session, "", request)
    return ", ".join(groups), session


def choose_generator(choice, api_key, session):
    """Remember this session's generator and its own API key (memory only; never logged or traced)."""
    session = session_of(session)
    session.generator = "llm" if choice == "llm" else "extractive"
    session.api_key = (api_key or "").strip() or None
    return session
