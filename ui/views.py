"""How the panels refresh: after each API call, and when the user picks documents, a citation or a demo.

These handlers are the UI's own steps (the undocumented /panels endpoint and private events). Like
`ui.handlers`, each takes the app's `Shared` state first where it needs it, then its input values.
"""

from __future__ import annotations

import html
import json
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import cast

import gradio as gr

from pipeline import REQUEST_DATE, scenario_settings

from . import evaluation, handlers, history, library, panels, viewer
from .accounts import parse_groups, requester_groups
from .conflict import conflict_html
from .demos import BY_NAME, describe
from .handlers import guarded, session_of
from .source import citation_choices, source_view
from .state import DEFAULT_GENERATOR, MAX_FILE_BYTES, Session, Shared, generator_choices, judges_for_model_answers, paired_model_judge

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
    conflict = conflict_html(session.last_trace)
    if conflict is not None and not citation_choices(session.last_trace):
        return gr.Image(value=None, visible=False), gr.HTML(value=conflict, visible=True), ""
    image, body, note = source_view(session.last_trace, session.last_documents,
                                    lambda digest: session.pdf(shared, digest), choice)
    if conflict is not None:  # the conflict first, then the cited source below it
        body, note = conflict + (body or ""), note
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
    viewer.reset(session)
    source = viewer.view(shared, session)
    chosen = _chunk_documents(shared, session, groups)
    demo_line = demo_note(session.last_demo) if session.last_demo in BY_NAME else ""
    conversation = history.conversation_of(session)
    turn = next((t for t in reversed(conversation.turns) if t.holds(trace)), None)
    answer = demo_line + history.turn_line(turn) + panels.answer_html(trace)
    return (
        answer,
        gr.DownloadButton(value=_trace_file(session), visible=trace is not None),
        panels.candidates_html(trace),
        panels.candidates_chart_html(trace),
        panels.context_html(trace),
        gr.Dropdown(choices=_readable_choices(shared, session, groups), value=chosen),
        _chunks(shared, session, groups, chosen),
        *source,
        answer,
        gr.Tabs(selected=select),
        history.history_html(conversation),
        gr.Dropdown(choices=history.turn_choices(conversation), value=str(turn.number) if turn else None),
        gr.Accordion(label=history.accordion_label(len(conversation.turns))),
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
    return (library.library_html(readable, session.corpus(shared), set(session.uploads), shared.library_ids(),
                                 status_of=session.document_status), gr.Dropdown(choices=choices), session)


def replace_choices(shared: Shared, session: Session, request: gr.Request = None) -> list[tuple[str, str]]:
    """What this user may replace: their uploads, and the shared library's documents for library-admin members."""
    from pipeline import LIBRARY_ADMIN

    choices = library.upload_choices(session.uploads)
    if shared.accounts is not None and shared.library is not None:
        groups = requester_groups(shared.accounts, session, "", request)
        if LIBRARY_ADMIN in groups:  # only the library documents this admin may read
            readable = {d.source_id for d in session.readable(shared, groups)}
            choices += [(f"{sid} (shared library)", sid) for sid in sorted(shared.library_ids() & readable)]
    return choices


def refresh_replace_choices(shared: Shared, session, request: gr.Request = None):
    session = session_of(session)
    return gr.Dropdown(choices=replace_choices(shared, session, request), value=None), session


def embedding_tick(shared: Shared, session, groups, request: gr.Request = None):
    """While the session's vectors are computed: the document list and the status line, refreshed; the
    timer stops once they are done."""
    session = session_of(session)
    docs, _, session = refresh_documents(shared, session, groups, request)
    return docs, library.embedding_line(session), gr.Timer(active=session.embedding()), session


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


def run_demo_button(shared: Shared, name, session, request: gr.Request | None = None):
    """A demo button: the scenario with its own groups declared (as /run_demo with them), the form untouched."""
    return handlers.do_demo(shared, name, session, ", ".join(BY_NAME[name].groups), request)


def demo_note(name: str) -> str:
    """The visible line above a demo's answer: what ran, and that the user's own settings are unchanged."""
    scenario = BY_NAME[name]
    settings = scenario_settings(scenario)
    changed = {k: v for k, v in settings.model_dump().items() if k in scenario.settings}
    ran = (" It ran with its own settings " + ", ".join(f"<code>{panels._e(k)}={panels._e(v)}</code>"
                                                      for k, v in changed.items()) + ".") if changed else ""
    proposal = " It checked the proposed answer shown below." if scenario.proposal is not None else ""
    asked = (f" It asked “{panels._e(scenario.question)}” as of {REQUEST_DATE.isoformat()}, topic "
             f"{panels._e(scenario.topic or 'any')}, groups {panels._e(', '.join(scenario.groups) or 'none')}.")
    return (f"<div class='rag-demo' id='demo-note'><b>Demo:</b> {panels._e(describe(scenario))}.{asked}{ran}{proposal}"
            " Your form (question, date, topic, groups), Advanced settings and Check-an-answer text are unchanged, "
            "so your next question runs as usual.</div>")


def no_file_line(shared: Shared) -> str:
    """Why an Add with nothing received did nothing: the file box refuses a file of another type, a larger one, or
    one the server cannot take now (its own message names the file), so the button's click finds no file."""
    types = ", ".join(shared.engine.upload_suffixes)
    return (f"No file was received: choose one or more files of these types ({types}), at most "
            f"{MAX_FILE_BYTES // 2**20} MB each. The file box refuses other types, larger files and uploads the "
            "server cannot take now; its message (top right) names the file.")


@guarded
def upload_from_page(shared: Shared, files, version, topic, authority, valid_from, valid_to, session, groups,
                     request: gr.Request | None = None, progress=gr.Progress()):
    """The page's Add button in one step: the upload, its report as status lines, the refreshed lists, and the
    button again. A refused upload is a ✗ line here, never an error: Gradio's page runs a `.then` step only
    after a step that succeeded, so a failed upload step left the button disabled for good."""
    if not [f for f in (files if isinstance(files, (list, tuple)) else [files]) if f]:
        session = session_of(session)
        report = {"added": [], "errors": [no_file_line(shared)], "documents": sorted(session.uploads)}
    else:
        try:
            report, session = handlers.do_upload(shared, files, version, topic, authority, valid_from, valid_to,
                                                 session, request=request, progress=progress)
        except gr.Error as error:  # the whole batch refused (too many files, ...): its one line
            session = session_of(session)
            report = {"added": [], "errors": [html.unescape(str(error.message))], "documents": sorted(session.uploads)}
    asked = cast(gr.Request, request)  # None outside a web request, as the helpers' own defaults
    status, docs, chunk_docs, session = upload_status(shared, report, session, groups, asked)
    return (report, status, docs, chunk_docs, *upload_finished(shared, session, asked), session)


def upload_failed():
    """The button again after a step that failed outside the upload itself (a full queue, a lost connection)."""
    return (gr.Button(value="Add to my collection", interactive=True),
            "<ul class='rag-note'><li>✗ The upload did not finish (the server may be busy or restarting); "
            "choose the files again and retry.</li></ul>")


def upload_started():
    """Before an upload: the button is disabled (no second click) and the status says it is working."""
    return (gr.Button(value="Uploading…", interactive=False),
            "<p class='rag-note' id='upload-working'>Parsing and indexing your files…</p>")


def upload_finished(shared: Shared, session, request: gr.Request = None):
    """After an upload: the button again, the session's uploads offered for deletion and replacement, the
    embedding status (its timer runs while the vectors are computed) and an empty file box: the server has
    read and deleted the files, so sending the same selection again could only fail ("was not received")."""
    session = session_of(session)
    return (gr.Button(value="Add to my collection", interactive=True),
            gr.Dropdown(choices=library.upload_choices(session.uploads), value=None),
            gr.Dropdown(choices=replace_choices(shared, session, request), value=None),
            library.embedding_line(session), poll_library_once(), None)


def poll_library_once() -> gr.Timer:
    """The embedding timer, started after an upload or a replacement whatever the job's state: the vectors
    may be done between the list's refresh and this step, and then only a tick shows "ready" (it refreshes
    the list and stops itself when nothing is left to embed)."""
    return gr.Timer(active=True)


def clear_check():
    """A new check starts from an empty result, so an error never leaves the previous one under the new text."""
    return "<p class='rag-note'>Checking…</p>"


def load_evaluation():
    return evaluation.report_html(), evaluation.plots()


def today_js(built: str) -> str:
    """The date field's value on page load: the person's own calendar day (Sweden's locale writes YYYY-MM-DD) when
    the field still shows the day the server built the page (`built`), else what they typed."""
    return f"(shown) => (!shown || shown === {json.dumps(built)}) ? new Date().toLocaleDateString('sv-SE') : shown"


def account_groups(shared: Shared, session, request: gr.Request = None):
    """The signed-in user's groups, shown (read-only) in the form, and the header naming the account."""
    from .accounts import account_html

    session = session_of(session)
    groups = requester_groups(shared.accounts, session, "", request)
    return ", ".join(groups), account_html(getattr(request, "username", None), groups), session


# After a result: its panels scrolled into view (below the demos and the conversation, they were off screen).
SCROLL_TO_RESULTS = ("() => { const el = document.getElementById('results');"
                     " if (el) el.scrollIntoView({block: 'start'}); }")
SCROLL_TO_CHECK = ("() => { const el = document.getElementById('check-result');"
                   " if (el) el.scrollIntoView({block: 'nearest'}); }")


def apply_form_choices(follow_up, generator, api_key, judge, session):
    """The page's follow-up switch and model choice, applied before each ask (API clients never set them)."""
    return choose_generator(generator, api_key, history.set_follow_ups(follow_up, session), judge)


def choose_generator(choice, api_key, session, judge=None):
    """Remember this session's generator, its own API key (memory only; never logged or traced) and, when given,
    its claim judge ("learned", or "llm": the model also judges each claim)."""
    session = session_of(session)
    session.generator = choice if choice in {name for _, name in generator_choices()} else DEFAULT_GENERATOR
    session.api_key = (api_key or "").strip() or None
    if judge is not None:
        session.judge = judge if judge in {name for _, name in judges_for_model_answers()} else paired_model_judge()
    return session
