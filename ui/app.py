"""The Gradio Blocks app, its named API endpoints, and the FastAPI app with GET /healthz.

Public API (gradio_client): /ask, /check_answer, /upload, /run_demo, /documents. Each
returns JSON-serialisable objects (a trace is `Trace.model_dump(mode="json")`, whose
`answer` is the public answer-v1 object). The UI's panel rendering runs as a second,
undocumented step (/panels) after each of them.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import os
import shutil
import tempfile
import uuid
from pathlib import Path

import gradio as gr
from fastapi import FastAPI
from pydantic import ValidationError

from pipeline.contracts import Request, Settings, Trace
from pipeline.engine import ask
from pipeline.errors import InputError
from pipeline.index import can_read

from . import evaluation, panels
from .check import HELP as CHECK_HELP
from .check import parse_answer
from .demos import BY_NAME, DEMOS, describe, run_demo
from .source import citation_choices, source_view
from .state import (
    MAX_FILE_BYTES, MAX_FILES_PER_UPLOAD, MAX_PDF_PAGES, ROOT, SESSION_TTL_S, Session, Shared, delete_session,
    load_shared,
)

log = logging.getLogger("auditable_rag.ui")
DEFAULTS = Settings()
TRACE_DIR = Path(tempfile.gettempdir()) / "auditable-rag-traces"
TEXT_TYPES = [".pdf", ".md", ".markdown", ".txt"]
ELIGIBILITY = [("before the top-k cut-off (filter, then rank)", "before_cutoff"),
               ("after selection (baseline: rank, then filter)", "after_selection")]


# --------------------------------------------------------------------------- errors


def _clean(message: str) -> str:
    """An error message without server paths."""
    return message.replace(str(ROOT) + os.sep, "").replace(str(ROOT), ".")


def guarded(fn):
    """Bad input → a one-line gr.Error; anything unexpected → logged, a short gr.Error (no stack trace)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except InputError as error:
            raise gr.Error(_clean(str(error)), print_exception=False) from None
        except Exception as error:  # noqa: BLE001 - the UI must never show a stack trace
            log.exception("unexpected error in %s", fn.__name__)
            first = (str(error).splitlines() or [""])[0][:300]
            raise gr.Error(f"Unexpected error ({type(error).__name__}): {_clean(first)}", print_exception=False) from None

    return wrapper


def _session(value) -> Session:
    return value if isinstance(value, Session) else Session()


# --------------------------------------------------------------------------- request parsing


def _groups(text: str | None) -> tuple[str, ...]:
    return tuple(sorted({g.strip() for g in (text or "").split(",") if g.strip()}))


def _request(question: str | None, date: str | None, topic: str | None, groups: str | None) -> Request:
    question = (question or "").strip()
    if not question:
        raise InputError("question", "type a question first")
    if len(question) > 2000:
        raise InputError("question", f"is {len(question)} characters; the limit is 2000")
    text = (date or "").strip()
    if text:
        try:
            day = dt.date.fromisoformat(text)
        except ValueError:
            raise InputError("request date", f"{text!r} is not a date; use YYYY-MM-DD") from None
    else:
        day = dt.date.today()
    topic = (topic or "").strip() or None
    if topic and topic.lower() in {"any", "all", "none"}:
        topic = None
    return Request(question=question, date=day, date_given=bool(text), topic=topic, groups=_groups(groups))


def _settings(top_k, min_lexical, min_dense, window, reserve, eligibility, retrieval) -> Settings:
    values = {"top_k": top_k, "min_lexical": min_lexical, "min_dense": min_dense, "window": window,
              "reserve": reserve, "eligibility": eligibility, "retrieval": retrieval}
    values = {k: v for k, v in values.items() if v not in (None, "")}
    for key in ("top_k", "window", "reserve"):
        if key in values:
            try:
                values[key] = int(float(values[key]))
            except (TypeError, ValueError):
                raise InputError("settings", f"{key} must be a whole number") from None
    try:
        settings = Settings(**values)
    except ValidationError as error:
        first = error.errors()[0]
        raise InputError("settings", f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None
    if settings.top_k < 1:
        raise InputError("settings", "top-k must be at least 1")
    if settings.window < 0 or settings.reserve < 0:
        raise InputError("settings", "window and reserve must not be negative")
    return settings


def _remember(session: Session, trace: Trace, documents: dict) -> dict:
    """Keep the trace and the documents it may show (only those this requester can read)."""
    session.last_trace = trace
    session.last_documents = {sid: d for sid, d in documents.items() if can_read(d, trace.request.groups)}
    return trace.model_dump(mode="json")


# --------------------------------------------------------------------------- the app


def build_demo(shared: Shared | None = None) -> gr.Blocks:
    shared = shared or load_shared()

    # ----------------------------------------------------------------- handlers (API)

    @guarded
    def do_ask(question, date, topic, groups, top_k, min_lexical, min_dense, window, reserve, eligibility,
               retrieval, session):
        """Answer a question from the session's collection (samples + its uploads), or abstain with a reason.
        Returns the full trace (JSON): trace["answer"] is the public answer-v1 object, trace["explanation"]
        says why in plain language."""
        session = _session(session)
        request = _request(question, date, topic, groups)
        settings = _settings(top_k, min_lexical, min_dense, window, reserve, eligibility, retrieval)
        corpus = session.corpus(shared)
        trace = ask(corpus, request, settings)
        session.last_demo = None
        return _remember(session, trace, corpus.documents), session

    @guarded
    def do_check(answer_text, question, date, topic, groups, top_k, min_lexical, min_dense, window, reserve,
                 eligibility, retrieval, session):
        """Check an answer written elsewhere: citation markers like [travel-v2:1-3] or a proposal JSON
        {"answer", "citations": [{"source_id","start_line","end_line","page"?,"quote"?}]}. Each citation is
        verified or dropped against the session's documents; returns the trace (JSON)."""
        session = _session(session)
        proposal = parse_answer(answer_text)
        if not (question or "").strip():
            from pipeline.verify import MARKER

            question = MARKER.sub("", proposal.answer or "").strip() or "checked answer"
        request = _request(question, date, topic, groups)
        settings = _settings(top_k, min_lexical, min_dense, window, reserve, eligibility, retrieval)
        corpus = session.corpus(shared)
        trace = ask(corpus, request, settings, proposal=proposal)
        session.last_demo = None
        return _remember(session, trace, corpus.documents), session

    @guarded
    def do_upload(files, version, topic, authority, valid_from, valid_to, session, progress=gr.Progress()):
        """Add PDFs or text files (.pdf, .md, .txt) to this session's collection only. The metadata fields
        apply to files without front matter. Returns {"added": [...], "errors": [...], "documents": [...]}."""
        session = _session(session)
        paths = [f for f in (files or []) if f]
        if not paths:
            raise InputError("upload", "choose one or more files first")
        if len(paths) > MAX_FILES_PER_UPLOAD:
            raise InputError("upload", f"{len(paths)} files at once; the limit is {MAX_FILES_PER_UPLOAD}")
        metadata = {"version": version, "topic": topic, "authority": authority, "valid_from": valid_from,
                    "valid_to": valid_to}
        metadata = {k: v.strip() for k, v in metadata.items() if isinstance(v, str) and v.strip()}
        from pipeline.parse import parse
        from pipeline.parse_pdf import PdfLimits

        limits = PdfLimits(max_pages=MAX_PDF_PAGES, max_bytes=MAX_FILE_BYTES)
        known_digests = {d.digest: d.source_id for d in session.documents(shared)}
        known_ids = {d.source_id for d in session.documents(shared)}
        new, data_by_digest, errors = [], {}, []
        for i, path in enumerate(paths):
            path = str(getattr(path, "name", path))
            name = Path(path).name  # a label only: the file is read from Gradio's temporary copy
            progress((i, len(paths)), desc=f"parsing {name}")
            try:
                size = os.path.getsize(path)
                if size > MAX_FILE_BYTES:
                    raise InputError(name, f"is {size / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES / 1e6:.0f} MB")
                with open(path, "rb") as handle:
                    data = handle.read()
                has_front_matter = data.lstrip(b"\xef\xbb\xbf").startswith(b"---")
                given = metadata if metadata and (name.lower().endswith(".pdf") or not has_front_matter) else None
                document = parse(data, name, metadata=given, pdf_limits=limits)
                if document.digest in known_digests:
                    raise InputError(name, f"is already loaded (as {known_digests[document.digest]})")
                if document.source_id in known_ids:
                    raise InputError(name, f"its id {document.source_id!r} is already used by another document; "
                                           "give it a different `id` in its front matter")
            except InputError as error:
                errors.append(_clean(str(error)))
                continue
            except OSError as error:
                errors.append(f"{name}: cannot be read ({error.strerror})")
                continue
            new.append(document)
            data_by_digest[document.digest] = data
            known_digests[document.digest] = document.source_id
            known_ids.add(document.source_id)
        if new:
            progress((0, 1), desc="embedding")
            session.add(shared, new, data_by_digest,
                        progress=lambda done, total, stage: progress((done, max(total, 1)), desc=stage))
        for error in errors:
            gr.Warning(error)
        if new:
            gr.Info(f"Added {len(new)} document(s): {', '.join(d.source_id for d in new)}")
        added = [{"source_id": d.source_id, "filename": d.filename, "kind": d.kind, "pages": len(d.pages),
                  "lines": sum(len(p.lines) for p in d.pages), "version": d.meta.version, "topic": d.meta.topic}
                 for d in new]
        return {"added": added, "errors": errors, "documents": sorted(session.uploads)}, session

    @guarded
    def do_demo(name, session):
        """Run one seed scenario by name (e.g. "propose-600-cite-v2"); returns its trace (JSON)."""
        session = _session(session)
        scenario, trace, documents = run_demo(shared, (name or "").strip())
        session.last_demo = scenario.name
        return _remember(session, trace, documents), session

    @guarded
    def do_documents(groups, session):
        """The documents this session can read with these access groups (comma-separated)."""
        session = _session(session)
        uploaded = set(session.uploads)
        return [{"source_id": d.source_id, "title": d.meta.title, "version": d.meta.version, "topic": d.meta.topic,
                 "authority": d.meta.authority, "valid_from": str(d.meta.valid_from or "") or None,
                 "valid_to": str(d.meta.valid_to or "") or None, "kind": d.kind, "filename": panels.label(d),
                 "origin": "uploaded" if d.source_id in uploaded else "sample"}
                for d in session.readable(shared, _groups(groups))], session

    # ----------------------------------------------------------------- handlers (views)

    def _readable_choices(session: Session, groups) -> list[tuple[str, str]]:
        return [(f"{d.source_id} ({panels.label(d)})", d.source_id) for d in session.readable(shared, _groups(groups))]

    def _chunks(session: Session, groups, chosen) -> str:
        readable = {d.source_id: d for d in session.readable(shared, _groups(groups))}
        return panels.chunks_html([readable[s] for s in (chosen or []) if s in readable])

    def _trace_file(session: Session) -> str | None:
        trace = session.last_trace
        if trace is None:
            return None
        folder = TRACE_DIR / uuid.uuid4().hex
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "trace.json"
        path.write_text(trace.model_dump_json(indent=1), "utf-8")
        session.trace_files.append(folder)
        for old in session.trace_files[:-3]:  # keep the last few downloads only
            shutil.rmtree(old, ignore_errors=True)
        session.trace_files[:] = session.trace_files[-3:]
        return str(path)

    def _source(session: Session, choice):
        image, body, note = source_view(session.last_trace, session.last_documents,
                                        lambda digest: session.pdf(shared, digest), choice)
        return (gr.Image(value=image, visible=image is not None),
                gr.HTML(value=body or "", visible=body is not None),
                f"<p class='rag-note'>{panels._e(note)}</p>")

    @guarded
    def render_panels(session, groups, select="answer"):
        session = _session(session)
        trace = session.last_trace
        choices = citation_choices(trace)
        image, body, note = _source(session, choices[0][1] if choices else None)
        readable = {d.source_id for d in session.readable(shared, _groups(groups))}
        chosen = []
        if trace is not None and trace.retrieval is not None:
            for c in [*trace.retrieval.selected, *sorted(trace.retrieval.candidates, key=lambda c: c.fused_rank)[:3]]:
                if c.source_id in readable and c.source_id not in chosen:
                    chosen.append(c.source_id)
        demo_line = ""
        if session.last_demo and session.last_demo in BY_NAME:
            demo_line = f"<p class='rag-note'><b>Demo:</b> {panels._e(describe(BY_NAME[session.last_demo]))}</p>"
        answer = demo_line + panels.answer_html(trace)
        return (
            answer,
            gr.DownloadButton(value=_trace_file(session), visible=trace is not None),
            panels.candidates_html(trace),
            panels.candidates_figure(trace),
            panels.context_html(trace),
            gr.Dropdown(choices=_readable_choices(session, groups), value=chosen),
            _chunks(session, groups, chosen),
            gr.Dropdown(choices=choices, value=choices[0][1] if choices else None),
            image, body, note,
            answer,
            gr.Tabs(selected=select),
            session,
        )

    @guarded
    def show_source(session, choice):
        session = _session(session)
        return *_source(session, choice), session

    @guarded
    def show_chunks(session, groups, chosen):
        return _chunks(_session(session), groups, chosen)

    @guarded
    def refresh_documents(session, groups):
        session = _session(session)
        readable = session.readable(shared, _groups(groups))
        choices = _readable_choices(session, groups)
        return panels.documents_html(readable, set(session.uploads)), gr.Dropdown(choices=choices), session

    def upload_status(report, session, groups):
        session = _session(session)
        lines = []
        if isinstance(report, dict):
            for item in report.get("added", []):
                lines.append(f"<li>✓ added <b>{panels._e(item['source_id'])}</b> ({panels._e(item['filename'])}, "
                             f"{item['kind']}, {item['pages']} page(s), {item['lines']} lines)</li>")
            for error in report.get("errors", []):
                lines.append(f"<li>✗ {panels._e(error)}</li>")
        status = f"<ul class='rag-note'>{''.join(lines)}</ul>" if lines else ""
        docs, dropdown, session = refresh_documents(session, groups)
        return status, docs, dropdown, session

    def fill_form(name):
        scenario = BY_NAME[name]
        settings = Settings(**scenario.settings)
        from pipeline.evaluate.scenarios import REQUEST_DATE

        check_text = scenario.proposal.model_dump_json(include={"answer", "citations"}, indent=1) \
            if scenario.proposal is not None else gr.update()
        return (scenario.question, REQUEST_DATE.isoformat(), scenario.topic or "", ", ".join(scenario.groups),
                settings.top_k, settings.min_lexical, settings.min_dense, settings.window, settings.reserve,
                settings.eligibility, settings.retrieval, check_text)

    def load_evaluation():
        return evaluation.report_html(), evaluation.plots()

    # ----------------------------------------------------------------- layout

    with gr.Blocks(title="Auditable RAG — cited answers you can audit") as demo:
        session = gr.State(value=None, time_to_live=SESSION_TTL_S, delete_callback=delete_session)
        gr.Markdown(
            "# Auditable RAG — a cited-answer engine you can audit\n"
            "Ask about the sample policies (already loaded) or upload your own PDFs and text. Every step is shown: "
            "chunks, scored candidates, the packed context, and an answer whose citations are **verified ✓** "
            "against the source text or **dropped ✗** — or an **abstention with its reason**."
        )
        with gr.Row():
            with gr.Column(scale=3):
                question = gr.Textbox(label="Question", value="Beijing lodging", lines=1, max_lines=3,
                                      placeholder="e.g. What is the lodging limit in Beijing?", elem_id="question")
                with gr.Row():
                    date = gr.Textbox(label="Request date (YYYY-MM-DD)", value=dt.date.today().isoformat(),
                                      info="“Current” is judged against this date.", elem_id="request-date")
                    topic = gr.Textbox(label="Topic", value="travel", info="Empty: any topic.", elem_id="topic")
                    groups = gr.Textbox(label="Access groups", value="", placeholder="e.g. executives",
                                        info="Comma-separated; restricted documents need one.", elem_id="groups")
                with gr.Accordion("Advanced settings", open=False):
                    with gr.Row():
                        top_k = gr.Slider(1, 20, value=DEFAULTS.top_k, step=1, label="top-k")
                        min_lexical = gr.Slider(0, 1, value=DEFAULTS.min_lexical, step=0.05,
                                                label="minimum lexical coverage")
                        min_dense = gr.Slider(0, 1, value=DEFAULTS.min_dense, step=0.01,
                                              label="minimum dense similarity")
                    with gr.Row():
                        window = gr.Number(value=DEFAULTS.window, precision=0, minimum=0, label="context window")
                        reserve = gr.Number(value=DEFAULTS.reserve, precision=0, minimum=0, label="reserve")
                        eligibility = gr.Radio(ELIGIBILITY, value=DEFAULTS.eligibility, label="eligibility applied")
                        retrieval = gr.Radio(["hybrid", "bm25", "dense"], value=DEFAULTS.retrieval, label="retrieval")
                ask_button = gr.Button("Ask", variant="primary", elem_id="ask")
            with gr.Column(scale=2):
                with gr.Accordion("Documents in your collection", open=False):
                    docs_html = gr.HTML(elem_id="documents")
                with gr.Accordion("Upload documents (only you see them)", open=False):
                    files = gr.File(label="PDF or text files", file_count="multiple", file_types=TEXT_TYPES,
                                    type="filepath", elem_id="upload-files")
                    gr.Markdown(f"At most {MAX_FILES_PER_UPLOAD} files, {MAX_FILE_BYTES // 2**20} MB and "
                                f"{MAX_PDF_PAGES} pages each. For files without front matter (and PDFs):")
                    with gr.Row():
                        meta_version = gr.Textbox(value="", label="version", max_lines=1)
                        meta_topic = gr.Textbox(value="", label="topic", max_lines=1)
                        meta_authority = gr.Textbox(value="", label="authority", max_lines=1)
                    with gr.Row():
                        meta_from = gr.Textbox(value="", label="valid from (YYYY-MM-DD)", max_lines=1)
                        meta_to = gr.Textbox(value="", label="valid to (YYYY-MM-DD)", max_lines=1)
                    upload_button = gr.Button("Add to my collection", elem_id="upload")
                    upload_report = gr.JSON(visible=False, label="upload report")
                    upload_html = gr.HTML(elem_id="upload-status")
        with gr.Accordion("Demos: one click runs a seed scenario and fills every panel", open=True):
            with gr.Row():
                demo_buttons = [(gr.Button(text, size="sm", elem_id=f"demo-{name}"), name) for text, name in DEMOS]
            demo_name = gr.Textbox(value="", visible=False)
            demo_hidden = gr.Button(visible=False)

        with gr.Tabs(selected="answer") as tabs:
            with gr.Tab("1 Chunks", id="chunks"):
                chunk_docs = gr.Dropdown(label="Documents", multiselect=True, choices=[], elem_id="chunk-docs")
                chunks_out = gr.HTML(panels.chunks_html([]))
            with gr.Tab("2 Candidates", id="candidates"):
                candidates_plot = gr.Plot(label="Scores of the top candidates")
                candidates_out = gr.HTML(panels.candidates_html(None), elem_id="candidates")
            with gr.Tab("3 Context", id="context"):
                context_out = gr.HTML(panels.context_html(None), elem_id="context")
            with gr.Tab("4 Answer", id="answer"):
                answer_out = gr.HTML(panels.answer_html(None), elem_id="answer")
                download = gr.DownloadButton("Download the trace (JSON)", visible=False, elem_id="download-trace")
                with gr.Accordion("Trace (JSON)", open=False):
                    trace_json = gr.JSON(label="trace")
            with gr.Tab("5 Source", id="source"):
                citation = gr.Dropdown(label="Citation", choices=[], elem_id="citation")
                source_note = gr.HTML()
                source_image = gr.Image(label="Cited page", type="pil", format="png", interactive=False,
                                        visible=False, elem_id="source-image")
                source_html = gr.HTML(visible=False, elem_id="source-text")
            with gr.Tab("Check an answer", id="check"):
                gr.Markdown("Paste an answer written elsewhere; its citations are checked against your collection "
                            "with the request above (question, date, topic, groups). " + CHECK_HELP.capitalize())
                check_text = gr.Textbox(label="Answer with citations, or proposal JSON", lines=6,
                                        value="The lodging limit is 600 yuan. [travel-v2:1-3]", elem_id="check-text")
                check_button = gr.Button("Check citations", variant="primary", elem_id="check")
                check_out = gr.HTML(elem_id="check-result")
            with gr.Tab("Evaluation", id="evaluation"):
                eval_refresh = gr.Button("Reload the latest report", size="sm")
                eval_html = gr.HTML(elem_id="evaluation")
                eval_plots = gr.Gallery(label="Plots", columns=2, height="auto", interactive=False)

        # ----------------------------------------------------------------- events

        request_inputs = [question, date, topic, groups, top_k, min_lexical, min_dense, window, reserve, eligibility,
                          retrieval]
        panel_outputs = [answer_out, download, candidates_out, candidates_plot, context_out, chunk_docs, chunks_out,
                         citation, source_image, source_html, source_note, check_out, tabs, session]
        render = functools.partial(render_panels, select="answer")
        render_check = functools.partial(render_panels, select="check")

        ask_event = dict(fn=do_ask, inputs=[*request_inputs, session], outputs=[trace_json, session])
        ask_button.click(**ask_event, api_name="ask").success(
            render, [session, groups], panel_outputs, api_name="panels", api_visibility="undocumented")
        question.submit(**ask_event, api_visibility="private").success(
            render, [session, groups], panel_outputs, api_visibility="private")

        check_button.click(do_check, [check_text, *request_inputs, session], [trace_json, session],
                           api_name="check_answer").success(
            render_check, [session, groups], panel_outputs, api_visibility="private")

        upload_button.click(
            do_upload, [files, meta_version, meta_topic, meta_authority, meta_from, meta_to, session],
            [upload_report, session], api_name="upload",
        ).then(upload_status, [upload_report, session, groups], [upload_html, docs_html, chunk_docs, session],
               api_visibility="private")

        demo_hidden.click(do_demo, [demo_name, session], [trace_json, session], api_name="run_demo").success(
            render, [session, groups], panel_outputs, api_visibility="private")
        form = [*request_inputs, check_text]
        for button, name in demo_buttons:
            button.click(functools.partial(fill_form, name), None, form, api_visibility="private").then(
                functools.partial(do_demo, name), [session], [trace_json, session], api_visibility="private"
            ).success(render, [session, groups], panel_outputs, api_visibility="private")

        docs_state = gr.JSON(visible=False, label="documents")
        groups.change(refresh_documents, [session, groups], [docs_html, chunk_docs, session],
                      api_visibility="private")
        groups.blur(do_documents, [groups, session], [docs_state, session], api_name="documents")
        chunk_docs.change(show_chunks, [session, groups, chunk_docs], [chunks_out], api_visibility="private")
        citation.input(show_source, [session, citation], [source_image, source_html, source_note, session],
                       api_visibility="private")
        eval_refresh.click(load_evaluation, None, [eval_html, eval_plots], api_visibility="private")
        demo.load(refresh_documents, [session, groups], [docs_html, chunk_docs, session], api_visibility="private")
        demo.load(load_evaluation, None, [eval_html, eval_plots], api_visibility="private")
        # "today" is the day the page is opened, not the day the server started
        demo.load(lambda: dt.date.today().isoformat(), None, date, api_visibility="private")
    demo.queue(default_concurrency_limit=1, max_size=64)
    return demo


def create_app(shared: Shared | None = None) -> FastAPI:
    """FastAPI with GET /healthz and the Gradio app mounted at '/'."""
    shared = shared or load_shared()
    demo = build_demo(shared)
    app = FastAPI(title="Auditable RAG")

    @app.get("/healthz")
    def healthz() -> dict:
        return {"status": "ok", "documents": len(shared.documents), "embedder": shared.corpus.embedder.name,
                "corpus_digest": shared.corpus.digest}

    css = panels.CSS
    app = gr.mount_gradio_app(app, demo, path="/", css=css, theme=gr.themes.Default(primary_hue="blue"),
                              max_file_size=MAX_FILE_BYTES + 1024 * 1024, footer_links=["api"], show_error=True)
    app.state.demo = demo
    return app
