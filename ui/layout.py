"""The Blocks page: the request form, the collection, the demos, the result tabs, and the events.

`build_blocks` lays the components out (one function per region, each adding its components to a
namespace `c`) and `_wire` connects them to `ui.handlers` (the public API endpoints /ask,
/check_answer, /upload, /run_demo, /documents, and the undocumented /panels) and `ui.views` (the
private panel refreshes).
"""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import gradio as gr

from pipeline import ANSWER_HELP, SESSION_MEMORY_BYTES, Settings

from . import endpoints, export, handlers, history, library_actions, panels, replace, restart, viewer, views, welcome
from .accounts import ACCOUNT_GROUPS_INFO, DEMO_GROUPS_INFO
from .demos import DEMOS
from .handlers import bind
from .retention import CACHE_MAX_AGE_S, CACHE_SWEEP_S
from .state import (
    DEFAULT_GENERATOR,
    MAX_FILE_BYTES,
    MAX_FILES_PER_UPLOAD,
    MAX_PDF_PAGES,
    MAX_SESSION_BYTES,
    SESSION_TTL_S,
    Shared,
    default_judge,
    delete_session,
    generator_choices,
    judges_for_model_answers,
)

DEFAULTS = Settings()
# Upload events enter their handler at once, up to this many: the handler waits for a parse worker in a fair lane
# (ui.handlers), so a client's uploads wait behind its own, not behind everyone's in Gradio's first-come queue.
UPLOAD_CONCURRENCY = 16
ANSWER_CONCURRENCY = 2
EMBEDDING_POLL_S = 1.5  # how often the page refreshes "embedding n of m" while a session's vectors are computed
ELIGIBILITY = [("before the top-k cut-off (filter, then rank)", "before_cutoff"),
               ("after selection (baseline: rank, then filter)", "after_selection")]
TITLE = "Auditable RAG — cited answers you can audit"
INTRO = (
    "# Auditable RAG — a cited-answer engine you can audit\n"
    "Ask about the sample policies (already loaded) or upload your own PDFs and text. Every step is shown: "
    "chunks, scored candidates, the packed context, and an answer whose citations are **verified ✓** "
    "against the source text or **dropped ✗** — or an **abstention with its reason**."
)


def build_blocks(shared: Shared) -> gr.Blocks:
    """The page with every event wired and the queue configured.

    The question, the answer and the panels stay together at the top: the form with the demos and the upload beside
    it, the result tabs right below (the library is one of them, at full width), and the conversation collapsed under
    them, so that a long history never pushes the results down (issue 51)."""
    signed_in = shared.accounts is not None
    with gr.Blocks(title=TITLE, delete_cache=(CACHE_SWEEP_S, CACHE_MAX_AGE_S)) as demo:
        c = SimpleNamespace(session=gr.State(value=None, time_to_live=SESSION_TTL_S, delete_callback=delete_session))
        gr.Markdown(INTRO, elem_id="intro")
        c.account_html = gr.HTML(elem_id="account", visible=signed_in)
        gr.HTML(welcome.first_use_html(shared.corpus.readable_documents(()).values()), elem_id="first-use")
        with gr.Row(elem_id="top-row"):
            with gr.Column(scale=3):
                _request_form(c, signed_in=signed_in, has_llm=shared.llm is not None)
            with gr.Column(scale=2):
                _demo_buttons(c)
                _upload(c, shared.engine.upload_suffixes, signed_in=signed_in)
        _result_tabs(c, shared.engine.upload_suffixes)
        _conversation(c)
        _wire(demo, c, shared)
    demo.queue(default_concurrency_limit=1, max_size=64)
    return demo


# --------------------------------------------------------------------------- layout


def _request_form(c: SimpleNamespace, signed_in: bool = False, has_llm: bool = False) -> None:
    c.question = gr.Textbox(label="Question", value="Beijing lodging", lines=1, max_lines=3,
                            placeholder="e.g. What is the lodging limit in Beijing?", elem_id="question")
    with gr.Row():
        c.date = gr.Textbox(label="Request date (YYYY-MM-DD)", value=dt.date.today().isoformat(),
                            info="“Current” is judged against this date.", elem_id="request-date")
        c.topic = gr.Textbox(label="Topic", value="", placeholder="any topic", info="Empty: any topic.", elem_id="topic")
        c.groups = gr.Textbox(label="Access groups", value="", placeholder="" if signed_in else "e.g. executives",
                              info=ACCOUNT_GROUPS_INFO if signed_in else DEMO_GROUPS_INFO, elem_id="groups",
                              interactive=not signed_in)
    with gr.Accordion("Advanced settings", open=False):
        with gr.Row():
            c.top_k = gr.Slider(1, 20, value=DEFAULTS.top_k, step=1, label="top-k")
            c.min_lexical = gr.Slider(0, 1, value=DEFAULTS.min_lexical, step=0.05, label="minimum lexical coverage")
            c.min_dense = gr.Slider(0, 1, value=DEFAULTS.min_dense, step=0.01, label="minimum dense similarity")
        with gr.Row():
            c.window = gr.Number(value=DEFAULTS.window, precision=0, minimum=0, label="context window")
            c.reserve = gr.Number(value=DEFAULTS.reserve, precision=0, minimum=0, label="reserve")
            c.eligibility = gr.Radio(ELIGIBILITY, value=DEFAULTS.eligibility, label="eligibility applied")
            c.retrieval = gr.Radio(["hybrid", "bm25", "dense"], value=DEFAULTS.retrieval, label="retrieval")
    with gr.Row(visible=has_llm):
        c.generator = gr.Radio(generator_choices(), value=DEFAULT_GENERATOR,
                               label="Answer generator", elem_id="generator")
        c.api_key = gr.Textbox(label="API key for this session (optional)", type="password", value="",
                               info="Kept in this browser session's memory only: never logged, stored or traced.",
                               elem_id="api-key")
        c.judge = gr.Radio(judges_for_model_answers(), value=default_judge(),
                           label="Claim judge for model answers", elem_id="judge",
                           info="The deterministic checks (source, lines, quote, numbers) always run and win.")
    with gr.Row():
        c.ask_button = gr.Button("Ask", variant="primary", elem_id="ask", scale=3)
        c.follow_up = gr.Checkbox(value=True, label="Follow-ups: resolve a short question against the previous one",
                                  elem_id="follow-up", scale=2)


def _library(c: SimpleNamespace, file_types: list[str]) -> None:
    """The library at full width (its own tab), with delete and replace below it; each action's result replaces the
    last one in place (`ui.library_actions`)."""
    c.docs_html = gr.HTML(elem_id="documents")
    with gr.Row():
        c.delete_pick = gr.Dropdown(label="Your uploads", choices=[], elem_id="delete-pick", scale=3,
                                    allow_custom_value=True)
        c.delete_button = gr.Button("Delete this document", size="sm", variant="stop", elem_id="delete-doc", scale=1)
    c.delete_report = gr.JSON(visible=False, label="delete report")
    c.delete_html = gr.HTML(elem_id="delete-status")
    c.delete_hidden = gr.Button(visible=False)
    gr.Markdown("**Replace a document by a new version** (same id): the old version's chunks and vectors "
                "leave the index. A file without front matter keeps the document's metadata except the version.")
    with gr.Row():
        c.replace_pick = gr.Dropdown(label="Document to replace", choices=[], elem_id="replace-pick", scale=2,
                                     allow_custom_value=True)
        c.replace_version = gr.Textbox(value="", label="new version label", max_lines=1, elem_id="replace-version",
                                       scale=1)
        c.replace_file = gr.File(label="The new version (same kinds of file)", file_count="single",
                                 file_types=file_types, type="filepath", elem_id="replace-file", height=110, scale=2)
    c.replace_button = gr.Button("Replace with this file", size="sm", elem_id="replace-doc")
    c.replace_report = gr.JSON(visible=False, label="replace report")
    c.replace_html = gr.HTML(elem_id="replace-status")
    c.replace_hidden = gr.Button(visible=False)


def _upload(c: SimpleNamespace, file_types: list[str], signed_in: bool = False) -> None:
    with gr.Accordion("Upload documents (only you see them)", open=False, elem_id="upload-box"):
        c.files = gr.File(label="PDF, text, Word, web page, EPUB or spreadsheet files", file_count="multiple", file_types=file_types,
                          type="filepath", elem_id="upload-files")
        gr.Markdown(f"{export.NOTICE_POINTER} At most {MAX_FILES_PER_UPLOAD} files, {MAX_FILE_BYTES // 2**20} MB and "
                    f"{MAX_PDF_PAGES} pages each, {MAX_SESSION_BYTES // 2**20} MB in all, and what the server's "
                    f"memory allows: once indexed, a session's uploads may hold {SESSION_MEMORY_BYTES // 2**20} MiB "
                    "(prose takes about 20 times its size). You can ask as soon as a "
                    "file is parsed; its dense vectors follow in the background. For files without front matter "
                    "(and PDFs):")
        with gr.Row():
            c.meta_version = gr.Textbox(value="", label="version", max_lines=1)
            c.meta_topic = gr.Textbox(value="", label="topic", max_lines=1)
            c.meta_authority = gr.Textbox(value="", label="authority", max_lines=1)
        with gr.Row():
            c.meta_from = gr.Textbox(value="", label="valid from (YYYY-MM-DD)", max_lines=1)
            c.meta_to = gr.Textbox(value="", label="valid to (YYYY-MM-DD)", max_lines=1)
        c.upload_button = gr.Button("Add to my collection", elem_id="upload")
        c.library_button = gr.Button("Add to the shared library (library-admin)", elem_id="add-to-library",
                                     visible=signed_in)
        c.library_report = gr.JSON(visible=False, label="library report")
        c.upload_report = gr.JSON(visible=False, label="upload report")
        c.upload_html = gr.HTML(elem_id="upload-status")
        c.upload_hidden = gr.Button(visible=False)
        c.library_hidden = gr.Button(visible=False)
        c.embedding_html = gr.HTML(elem_id="embedding-status")
        c.embedding_timer = gr.Timer(EMBEDDING_POLL_S, active=False)


def _demo_buttons(c: SimpleNamespace) -> None:
    with gr.Accordion("Demos: one click runs a seed scenario and fills every panel", open=True, elem_id="demos"):
        with gr.Row(elem_id="demo-row"):
            c.demo_buttons = [(gr.Button(text, size="sm", elem_id=f"demo-{name}"), name) for text, name in DEMOS]
        c.demo_name = gr.Textbox(value="", visible=False)
        c.demo_hidden = gr.Button(visible=False)


def _conversation(c: SimpleNamespace) -> None:
    with gr.Accordion(history.accordion_label(0), open=False, elem_id="conversation") as c.conversation_box:
        c.history_html = gr.HTML(history.history_html(history.Conversation()), elem_id="history")
        with gr.Row():
            c.turn_pick = gr.Dropdown(label="Re-open a turn in the panels", choices=[], elem_id="turn-pick", scale=3)
            c.clear_history = gr.Button("Clear history", size="sm", elem_id="clear-history", scale=1)
        gr.Markdown(export.NOTICE, elem_id="keep-notice")
        with gr.Row():
            c.export_button = gr.Button("Prepare the session export (documents + traces, JSON)", size="sm",
                                        elem_id="export-session")
            c.export_file = gr.File(label="Session export", interactive=False, visible=False, elem_id="export-file")
        c.history_state = gr.JSON(visible=False, label="history")
        c.export_state = gr.JSON(visible=False, label="session export")
        c.export_hidden = gr.Button(visible=False)
        c.turn_number = gr.Textbox(visible=False)
        c.history_hidden = gr.Button(visible=False)
        c.reopen_hidden = gr.Button(visible=False)


def _result_tabs(c: SimpleNamespace, file_types: list[str]) -> None:
    # "wrap": at phone width every tab stays one tap away on a second line, none hidden behind "⋯"
    with gr.Tabs(selected="answer", elem_id="results", overflow_behavior="wrap") as c.tabs:
        with gr.Tab("1 Chunks", id="chunks"):
            c.chunk_docs = gr.Dropdown(label="Documents", multiselect=True, choices=[], elem_id="chunk-docs")
            c.chunks_out = gr.HTML(panels.chunks_html(None, []))
        with gr.Tab("2 Candidates", id="candidates"):
            c.candidates_plot = gr.HTML(elem_id="candidates-plot")
            c.candidates_out = gr.HTML(panels.candidates_html(None), elem_id="candidates")
        with gr.Tab("3 Context", id="context"):
            c.context_out = gr.HTML(panels.context_html(None), elem_id="context")
        with gr.Tab("4 Answer", id="answer"):
            c.answer_out = gr.HTML(panels.answer_html(None), elem_id="answer")
            c.download = gr.DownloadButton("Download the trace (JSON)", visible=False, elem_id="download-trace")
            with gr.Accordion("Trace (JSON)", open=False):
                c.trace_json = gr.JSON(label="trace")
        with gr.Tab("5 Source", id="source") as c.source_tab:
            c.citation = gr.Dropdown(label="Citation", choices=[], elem_id="citation")
            with gr.Row(elem_id="viewer-controls"):
                c.prev_citation = gr.Button("◀ previous citation", size="sm", elem_id="prev-citation")
                c.next_citation = gr.Button("next citation ▶", size="sm", elem_id="next-citation")
                c.prev_page = gr.Button("◀ page", size="sm", elem_id="prev-page")
                c.page_number = gr.Number(label="page", precision=0, minimum=1, visible=False, elem_id="page-number",
                                          min_width=80)
                c.next_page = gr.Button("page ▶", size="sm", elem_id="next-page")
                c.zoom = gr.Radio(viewer.ZOOMS, value=1.5, label="zoom", elem_id="zoom", min_width=240)
            c.source_note = gr.HTML()
            c.thumbnails = gr.Gallery(label="Pages (click one to open it; scroll sideways for more)", columns=10,
                                      height="auto", rows=1,
                                      allow_preview=False, object_fit="contain", visible=False, interactive=False,
                                      elem_id="thumbnails")
            c.source_image = gr.Image(label="Cited page", type="pil", format="png", interactive=False,
                                      visible=False, elem_id="source-image")
            c.source_html = gr.HTML(visible=False, elem_id="source-text")
        with gr.Tab("Check an answer", id="check"):
            gr.Markdown("Paste an answer written elsewhere; its citations are checked against your collection "
                        "with the request above (question, date, topic, groups). " + ANSWER_HELP.capitalize())
            c.check_text = gr.Textbox(label="Answer with citations, or proposal JSON", lines=6,
                                      value="The lodging limit is 600 yuan. [travel-v2:1-3]", elem_id="check-text")
            c.check_button = gr.Button("Check citations", variant="primary", elem_id="check")
            c.check_out = gr.HTML(elem_id="check-result")
        with gr.Tab("Library", id="library-tab"):
            _library(c, file_types)
        with gr.Tab("Evaluation", id="evaluation"):
            c.eval_refresh = gr.Button("Reload the latest report", size="sm")
            c.eval_html = gr.HTML(elem_id="evaluation")
            c.eval_plots = gr.Gallery(label="Plots (click one to enlarge)", columns=2, height="auto", object_fit="contain",
                                      interactive=False, elem_id="eval-plots")


# --------------------------------------------------------------------------- events


def _wire(demo: gr.Blocks, c: SimpleNamespace, shared: Shared) -> None:
    """Every event. The named endpoints' inputs and outputs are the public API: keep their order."""
    request_inputs = [c.question, c.date, c.topic, c.groups, c.top_k, c.min_lexical, c.min_dense, c.window,
                      c.reserve, c.eligibility, c.retrieval]
    panel_outputs = [c.answer_out, c.download, c.candidates_out, c.candidates_plot, c.context_out, c.chunk_docs,
                     c.chunks_out, c.source_image, c.source_html, c.source_note, c.page_number, c.thumbnails,
                     c.citation, c.check_out, c.tabs, c.history_html, c.turn_pick, c.conversation_box, c.session]
    render = dict(fn=bind(views.render_panels, shared, select="answer"), inputs=[c.session, c.groups],
                  outputs=panel_outputs)
    render_check = dict(render, fn=bind(views.render_panels, shared, select="check"))
    c.source_html.change(None, None, None, js=viewer.SCROLL_JS, api_visibility="private")
    private = dict(api_visibility="private")

    # Heavy work runs in bounded pools so one user cannot stall the others: uploads (parse + embed) one at
    # a time, answers (ask, check, demos) two at a time, each pool with its own queue slot.
    answering = dict(concurrency_id="answer", concurrency_limit=ANSWER_CONCURRENCY)
    ask = dict(fn=bind(handlers.do_ask, shared), inputs=[*request_inputs, c.session], outputs=[c.trace_json, c.session],
               **answering)
    # The page's follow-up switch is applied first (a private step): API clients' /ask is never rewritten.
    # So is the model choice, read from the visible form at each ask: a choice stored by its own change event
    # could be lost right after page load, when that event and a load event each started a fresh session and
    # the load's (without the choice) was written last.
    follow_up = dict(fn=views.apply_form_choices, inputs=[c.follow_up, c.generator, c.api_key, c.judge, c.session],
                     outputs=[c.session], **private)
    scroll = dict(fn=None, inputs=None, outputs=None, js=views.SCROLL_TO_RESULTS, **private)
    c.ask_button.click(**follow_up).then(**ask, api_name="ask").success(
        **render, api_name="panels", api_visibility="undocumented").then(**scroll)
    c.question.submit(**follow_up).then(**ask, **private).success(**render, **private).then(**scroll)
    for trigger in (c.ask_button.click, c.question.submit, c.check_button.click):  # after a restart, say so
        trigger(restart.uploads_gone, [c.upload_report, c.session], [c.upload_html], **private)
    _wire_conversation(c, shared, render)

    c.check_button.click(views.clear_check, None, [c.check_out], queue=False, **private).then(
        bind(handlers.do_check, shared), [c.check_text, *request_inputs, c.session], [c.trace_json, c.session],
        api_name="check_answer", **answering).success(**render_check, **private).then(
        None, None, None, js=views.SCROLL_TO_CHECK, **private)

    # The button is disabled for the whole upload (no second click) and the progress bar shows on the
    # visible status area (the report itself is a hidden JSON, where Gradio would draw it unseen). The page's
    # step never fails on a refused upload (it reports it): Gradio runs no `.then` after a failed step, and
    # `.failure` gives the button back if the step fails anyway. API clients call /upload (a hidden button).
    upload_inputs = [c.files, c.meta_version, c.meta_topic, c.meta_authority, c.meta_from, c.meta_to, c.session]
    uploading = dict(concurrency_id="upload", concurrency_limit=UPLOAD_CONCURRENCY)
    c.upload_hidden.click(bind(handlers.do_upload, shared), upload_inputs, [c.upload_report, c.session],
                          api_name="upload", **uploading)
    page_upload = c.upload_button.click(
        views.upload_started, None, [c.upload_button, c.upload_html], queue=False, **private).then(
        bind(views.upload_from_page, shared), [*upload_inputs, c.groups],
        [c.upload_report, c.upload_html, c.docs_html, c.chunk_docs, c.upload_button, c.delete_pick, c.replace_pick,
         c.embedding_html, c.embedding_timer, c.files, c.session],
        show_progress_on=[c.upload_html], **uploading, **private)
    page_upload.failure(views.upload_failed, None, [c.upload_button, c.upload_html], queue=False, **private)
    page_upload.success(None, None, None, js=export.GUARD_JS, **private)
    c.embedding_timer.tick(bind(views.embedding_tick, shared), [c.session, c.groups],
                           [c.docs_html, c.embedding_html, c.embedding_timer, c.session], queue=False, **private)
    _wire_library(c, shared)

    c.demo_hidden.click(bind(handlers.do_demo, shared), [c.demo_name, c.session, c.groups], [c.trace_json, c.session],
                        api_name="run_demo", **answering).success(**render, **private)
    # A demo runs with its own question, date, topic, groups and settings, and the Answer panel names them: the
    # form, the Advanced settings and the Check-an-answer text are never changed behind the user.
    _wire_demo_buttons(c, shared, render=render, scroll=scroll)

    docs_state = gr.JSON(visible=False, label="documents")
    refresh = dict(fn=bind(views.refresh_documents, shared), inputs=[c.session, c.groups],
                   outputs=[c.docs_html, c.chunk_docs, c.session], **private)
    c.groups.change(**refresh)
    c.groups.blur(bind(handlers.do_documents, shared), [c.groups, c.session], [docs_state, c.session],
                  api_name="documents")
    c.chunk_docs.change(bind(views.show_chunks, shared), [c.session, c.groups, c.chunk_docs], [c.chunks_out],
                        **private)
    _wire_viewer(c, shared)
    evaluation = dict(fn=views.load_evaluation, inputs=None, outputs=[c.eval_html, c.eval_plots], **private)
    c.eval_refresh.click(**evaluation)
    demo.load(**refresh)
    demo.load(**evaluation)
    # The day the page is opened, unless the person already typed a date (the load runs after the form is shown).
    demo.load(None, [c.date], [c.date], js=views.today_js(c.date.value), api_visibility="private")
    if shared.accounts is not None:
        demo.load(bind(views.account_groups, shared), [c.session], [c.groups, c.account_html, c.session], **private)
        demo.load(bind(views.refresh_replace_choices, shared), [c.session], [c.replace_pick, c.session], **private)


def _wire_library(c: SimpleNamespace, shared: Shared) -> None:
    """Delete, replace and add to the shared library: the API endpoints on hidden buttons, and the page's own steps,
    which report every result (errors too) in place of the last one (`ui.library_actions`)."""
    private = dict(api_visibility="private")
    uploading = dict(concurrency_id="upload", concurrency_limit=UPLOAD_CONCURRENCY)
    lists = [c.docs_html, c.chunk_docs, c.delete_pick, c.replace_pick]
    c.delete_hidden.click(bind(endpoints.do_delete_document, shared), [c.delete_pick, c.session],
                          [c.delete_report, c.session], api_name="delete_document")
    c.delete_button.click(bind(library_actions.delete_from_page, shared), [c.delete_pick, c.session, c.groups],
                          [c.delete_html, c.replace_html, *lists, c.session], **private)
    c.replace_hidden.click(
        bind(replace.do_replace_document, shared), [c.replace_pick, c.replace_file, c.replace_version, c.session],
        [c.replace_report, c.session], api_name="replace_document", **uploading)
    page_replace = c.replace_button.click(
        library_actions.replace_started, None, [c.replace_button, c.replace_html, c.delete_html], queue=False,
        **private).then(
        bind(library_actions.replace_from_page, shared),
        [c.replace_pick, c.replace_file, c.replace_version, c.session, c.groups],
        [c.replace_html, c.delete_html, *lists, c.replace_file, c.replace_version, c.embedding_html,
         c.embedding_timer, c.replace_button, c.session], show_progress_on=[c.replace_html], **uploading, **private)
    page_replace.failure(library_actions.replace_failed, None, [c.replace_button, c.replace_html, c.replace_file],
                         queue=False, **private)
    library_inputs = [c.files, c.meta_version, c.meta_topic, c.meta_authority, c.meta_from, c.meta_to, c.session]
    c.library_hidden.click(bind(handlers.do_add_to_library, shared), library_inputs, [c.library_report, c.session],
                           api_name="add_to_library", **uploading)
    c.library_button.click(bind(library_actions.add_to_library_from_page, shared), [*library_inputs, c.groups],
                           [c.library_report, c.upload_html, c.docs_html, c.chunk_docs, c.replace_pick, c.files,
                            c.session], show_progress_on=[c.upload_html], **uploading, **private)


def _wire_viewer(c: SimpleNamespace, shared: Shared) -> None:
    """The source viewer's controls; each re-renders the Source panel (and scrolls text to the cited lines)."""
    outputs = [c.source_image, c.source_html, c.source_note, c.page_number, c.thumbnails, c.citation, c.session]
    private = dict(api_visibility="private", js=None)
    for event, fn, inputs in (
        (c.citation.input, viewer.choose_citation, [c.session, c.citation]),
        (c.next_citation.click, viewer.next_citation, [c.session]),
        (c.prev_citation.click, viewer.previous_citation, [c.session]),
        (c.page_number.submit, viewer.go_to_page, [c.session, c.page_number]),
        (c.next_page.click, viewer.next_page, [c.session]),
        (c.prev_page.click, viewer.previous_page, [c.session]),
        (c.zoom.input, viewer.set_zoom, [c.session, c.zoom]),
    ):
        event(bind(fn, shared), inputs, outputs, **private).then(None, None, None, js=viewer.SCROLL_JS,
                                                                 api_visibility="private")
    c.thumbnails.select(viewer.thumbnail_picker(shared), [c.session], outputs, **private)
    c.source_tab.select(None, None, None, js=viewer.SCROLL_JS, api_visibility="private")


def _wire_conversation(c: SimpleNamespace, shared: Shared, render: dict) -> None:
    """Re-open a turn, clear the history, and the named endpoints /history, /reopen_turn, /clear_history."""
    c.history_hidden.click(endpoints.do_history, [c.session], [c.history_state, c.session], api_name="history")
    c.reopen_hidden.click(endpoints.do_reopen, [c.turn_number, c.session], [c.trace_json, c.session],
                          api_name="reopen_turn")
    c.turn_pick.input(endpoints.do_reopen, [c.turn_pick, c.session], [c.trace_json, c.session],
                      api_visibility="private").success(**render, api_visibility="private")
    c.export_button.click(bind(export.export_file, shared), [c.groups, c.session], [c.export_file, c.session],
                          api_visibility="private")
    c.export_hidden.click(bind(export.do_export, shared), [c.groups, c.session], [c.export_state, c.session],
                          api_name="export_session")
    c.clear_history.click(endpoints.do_clear_history, [c.session], [c.history_state, c.session],
                          api_name="clear_history").success(**render, api_visibility="private")


def _wire_demo_buttons(c: SimpleNamespace, shared: Shared, render: dict, scroll: dict) -> None:
    """Each demo button runs its scenario (the form untouched), renders the panels and shows the answer."""
    for button, name in c.demo_buttons:
        button.click(bind(views.run_demo_button, shared, name), [c.session], [c.trace_json, c.session],
                     api_visibility="private", concurrency_id="answer", concurrency_limit=ANSWER_CONCURRENCY
                     ).success(**render, api_visibility="private").then(**scroll)
