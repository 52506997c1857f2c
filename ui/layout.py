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

from pipeline import ANSWER_HELP, Settings

from . import handlers, panels, views
from .accounts import ACCOUNT_GROUPS_INFO, DEMO_GROUPS_INFO
from .demos import DEMOS
from .handlers import bind
from .retention import CACHE_MAX_AGE_S, CACHE_SWEEP_S
from . import restart
from .state import (MAX_FILE_BYTES, MAX_FILES_PER_UPLOAD, MAX_PDF_PAGES, MAX_SESSION_BYTES, SESSION_TTL_S, Shared,
                    delete_session)

DEFAULTS = Settings()
UPLOAD_CONCURRENCY = 1  # parsing and embedding a 20 MB upload takes both cores of a small host
ANSWER_CONCURRENCY = 2
TEXT_TYPES = [".pdf", ".md", ".markdown", ".txt"]
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
    """The page with every event wired and the queue configured."""
    with gr.Blocks(title=TITLE, delete_cache=(CACHE_SWEEP_S, CACHE_MAX_AGE_S)) as demo:
        c = SimpleNamespace(session=gr.State(value=None, time_to_live=SESSION_TTL_S, delete_callback=delete_session))
        gr.Markdown(INTRO)
        with gr.Row():
            with gr.Column(scale=3):
                _request_form(c, signed_in=shared.accounts is not None, has_llm=shared.llm is not None)
            with gr.Column(scale=2):
                _collection(c, signed_in=shared.accounts is not None)
        _demo_buttons(c)
        _result_tabs(c)
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
        c.topic = gr.Textbox(label="Topic", value="travel", info="Empty: any topic.", elem_id="topic")
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
        c.generator = gr.Radio([("extractive (copies the evidence; no model)", "extractive"),
                                ("language model (every claim checked)", "llm")], value="extractive",
                               label="Answer generator", elem_id="generator")
        c.api_key = gr.Textbox(label="API key for this session (optional)", type="password", value="",
                               info="Kept in this browser session's memory only: never logged, stored or traced.",
                               elem_id="api-key")
    c.ask_button = gr.Button("Ask", variant="primary", elem_id="ask")


def _collection(c: SimpleNamespace, signed_in: bool = False) -> None:
    with gr.Accordion("Documents in your collection", open=False):
        c.docs_html = gr.HTML(elem_id="documents")
    with gr.Accordion("Upload documents (only you see them)", open=False):
        c.files = gr.File(label="PDF or text files", file_count="multiple", file_types=TEXT_TYPES,
                          type="filepath", elem_id="upload-files")
        gr.Markdown(f"At most {MAX_FILES_PER_UPLOAD} files, {MAX_FILE_BYTES // 2**20} MB and "
                    f"{MAX_PDF_PAGES} pages each, {MAX_SESSION_BYTES // 2**20} MB in all. {restart.NOTICE} "
                    "For files without front matter (and PDFs):")
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


def _demo_buttons(c: SimpleNamespace) -> None:
    with gr.Accordion("Demos: one click runs a seed scenario and fills every panel", open=True):
        with gr.Row():
            c.demo_buttons = [(gr.Button(text, size="sm", elem_id=f"demo-{name}"), name) for text, name in DEMOS]
        c.demo_name = gr.Textbox(value="", visible=False)
        c.demo_hidden = gr.Button(visible=False)


def _result_tabs(c: SimpleNamespace) -> None:
    with gr.Tabs(selected="answer") as c.tabs:
        with gr.Tab("1 Chunks", id="chunks"):
            c.chunk_docs = gr.Dropdown(label="Documents", multiselect=True, choices=[], elem_id="chunk-docs")
            c.chunks_out = gr.HTML(panels.chunks_html(None, []))
        with gr.Tab("2 Candidates", id="candidates"):
            c.candidates_plot = gr.BarPlot(
                x="candidate", y="fused", color="status", color_map=panels.CANDIDATE_COLORS, sort="x",
                tooltip="all", x_title="candidate (fused rank. source:lines)",
                y_title="fused score (RRF)", x_label_angle=-30, elem_id="candidates-plot",
                label="Fused score of the top candidates (green: selected, blue: eligible, grey ✗: ineligible; "
                      "hover for BM25 and dense)")
            c.candidates_out = gr.HTML(panels.candidates_html(None), elem_id="candidates")
        with gr.Tab("3 Context", id="context"):
            c.context_out = gr.HTML(panels.context_html(None), elem_id="context")
        with gr.Tab("4 Answer", id="answer"):
            c.answer_out = gr.HTML(panels.answer_html(None), elem_id="answer")
            c.download = gr.DownloadButton("Download the trace (JSON)", visible=False, elem_id="download-trace")
            with gr.Accordion("Trace (JSON)", open=False):
                c.trace_json = gr.JSON(label="trace")
        with gr.Tab("5 Source", id="source"):
            c.citation = gr.Dropdown(label="Citation", choices=[], elem_id="citation")
            c.source_note = gr.HTML()
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
        with gr.Tab("Evaluation", id="evaluation"):
            c.eval_refresh = gr.Button("Reload the latest report", size="sm")
            c.eval_html = gr.HTML(elem_id="evaluation")
            c.eval_plots = gr.Gallery(label="Plots", columns=2, height="auto", interactive=False)


# --------------------------------------------------------------------------- events


def _wire(demo: gr.Blocks, c: SimpleNamespace, shared: Shared) -> None:
    """Every event. The named endpoints' inputs and outputs are the public API: keep their order."""
    request_inputs = [c.question, c.date, c.topic, c.groups, c.top_k, c.min_lexical, c.min_dense, c.window,
                      c.reserve, c.eligibility, c.retrieval]
    panel_outputs = [c.answer_out, c.download, c.candidates_out, c.candidates_plot, c.context_out, c.chunk_docs,
                     c.chunks_out, c.citation, c.source_image, c.source_html, c.source_note, c.check_out, c.tabs,
                     c.session]
    render = dict(fn=bind(views.render_panels, shared, select="answer"), inputs=[c.session, c.groups],
                  outputs=panel_outputs)
    render_check = dict(render, fn=bind(views.render_panels, shared, select="check"))
    private = dict(api_visibility="private")

    # Heavy work runs in bounded pools so one user cannot stall the others: uploads (parse + embed) one at
    # a time, answers (ask, check, demos) two at a time, each pool with its own queue slot.
    answering = dict(concurrency_id="answer", concurrency_limit=ANSWER_CONCURRENCY)
    ask = dict(fn=bind(handlers.do_ask, shared), inputs=[*request_inputs, c.session], outputs=[c.trace_json, c.session],
               **answering)
    c.ask_button.click(**ask, api_name="ask").success(**render, api_name="panels", api_visibility="undocumented")
    c.question.submit(**ask, **private).success(**render, **private)
    for trigger in (c.ask_button.click, c.question.submit, c.check_button.click):  # after a restart, say so
        trigger(restart.uploads_gone, [c.upload_report, c.session], [c.upload_html], **private)

    c.check_button.click(bind(handlers.do_check, shared), [c.check_text, *request_inputs, c.session],
                         [c.trace_json, c.session], api_name="check_answer", **answering).success(**render_check, **private)

    c.upload_button.click(
        bind(handlers.do_upload, shared),
        [c.files, c.meta_version, c.meta_topic, c.meta_authority, c.meta_from, c.meta_to, c.session],
        [c.upload_report, c.session], api_name="upload", concurrency_id="upload",
        concurrency_limit=UPLOAD_CONCURRENCY,
    ).then(bind(views.upload_status, shared), [c.upload_report, c.session, c.groups],
           [c.upload_html, c.docs_html, c.chunk_docs, c.session], **private)
    c.library_button.click(
        bind(handlers.do_add_to_library, shared),
        [c.files, c.meta_version, c.meta_topic, c.meta_authority, c.meta_from, c.meta_to, c.session],
        [c.library_report, c.session], api_name="add_to_library",
    ).then(bind(views.refresh_documents, shared), [c.session, c.groups], [c.docs_html, c.chunk_docs, c.session],
           **private)

    c.demo_hidden.click(bind(handlers.do_demo, shared), [c.demo_name, c.session, c.groups], [c.trace_json, c.session],
                        api_name="run_demo", **answering).success(**render, **private)
    _wire_demo_buttons(c, shared, form=[*request_inputs, c.check_text], render=render)

    docs_state = gr.JSON(visible=False, label="documents")
    refresh = dict(fn=bind(views.refresh_documents, shared), inputs=[c.session, c.groups],
                   outputs=[c.docs_html, c.chunk_docs, c.session], **private)
    c.groups.change(**refresh)
    c.groups.blur(bind(handlers.do_documents, shared), [c.groups, c.session], [docs_state, c.session],
                  api_name="documents")
    c.chunk_docs.change(bind(views.show_chunks, shared), [c.session, c.groups, c.chunk_docs], [c.chunks_out],
                        **private)
    c.citation.input(bind(views.show_source, shared), [c.session, c.citation],
                     [c.source_image, c.source_html, c.source_note, c.session], **private)
    evaluation = dict(fn=views.load_evaluation, inputs=None, outputs=[c.eval_html, c.eval_plots], **private)
    c.eval_refresh.click(**evaluation)
    demo.load(**refresh)
    demo.load(**evaluation)
    demo.load(views.today, None, c.date, **private)
    choose = dict(fn=views.choose_generator, inputs=[c.generator, c.api_key, c.session], outputs=[c.session], **private)
    c.generator.change(**choose)
    c.api_key.change(**choose)
    if shared.accounts is not None:
        demo.load(bind(views.account_groups, shared), [c.session], [c.groups, c.session], **private)


def _wire_demo_buttons(c: SimpleNamespace, shared: Shared, form: list, render: dict) -> None:
    """Each demo button fills the form with its scenario, runs it, then renders the panels."""
    for button, name in c.demo_buttons:
        button.click(bind(views.fill_form, name), None, form, api_visibility="private").then(
            bind(handlers.do_demo, shared, name), [c.session, c.groups], [c.trace_json, c.session],
            api_visibility="private", concurrency_id="answer", concurrency_limit=ANSWER_CONCURRENCY
        ).success(**render, api_visibility="private")
