"""The web app's entry points: the Gradio Blocks (`build_demo`) and the FastAPI app with GET /healthz.

Public API (gradio_client): /ask, /check_answer, /upload, /run_demo, /documents. Each
returns JSON-serialisable objects (a trace is `Trace.model_dump(mode="json")`, whose
`answer` is the public answer-v1 object). The UI's panel rendering runs as a second,
undocumented step (/panels) after each of them.

The page and its events are laid out in `ui.layout`; what the endpoints do is in
`ui.handlers`, how the panels refresh in `ui.views`.
"""

from __future__ import annotations

import gradio as gr
from fastapi import FastAPI

from . import page_js, panels, received, retention
from .accounts import mount_options
from .login import ClientAddress
from .session_gate import SessionGate, SessionTable
from .session_owner import SessionOwners, gradio_user_of
from .upload_guard import UploadGuard
from .layout import build_blocks
from .state import MAX_FILE_BYTES, Shared, load_shared


# Helper text (a field's info, the notes under panels) is the theme's "subdued" colour: the default's zinc-300 on
# white measured 1.91:1 in the browser; zinc-600 gives 7.7:1 (WCAG AA asks 4.5:1). The dark theme keeps its own.
THEME = gr.themes.Default(primary_hue="blue").set(body_text_color_subdued="*neutral_600",
                                                  block_info_text_color="*neutral_600")


def build_demo(shared: Shared | None = None) -> gr.Blocks:
    """The Gradio Blocks app over `shared` (the sample collection; loaded when not given)."""
    return build_blocks(shared or load_shared())


def create_app(shared: Shared | None = None) -> FastAPI:
    """FastAPI with GET /healthz and the Gradio app mounted at '/'."""
    shared = shared or load_shared()
    demo = build_demo(shared)
    app = FastAPI(title="Auditable RAG")

    @app.get("/healthz")
    def healthz() -> dict:
        # Only what anyone may read: the count or digest of every document would reveal restricted ones.
        return {"status": "ok", "documents": len(shared.corpus.readable_documents(())),
                "embedder": shared.engine.embedder.name, "corpus_digest": shared.corpus.readable_digest(())}

    options = mount_options(shared.accounts)
    app = gr.mount_gradio_app(app, demo, path="/", css=panels.CSS, theme=THEME,
                              head=page_js.head_html(signed_in=shared.accounts is not None),
                              max_file_size=MAX_FILE_BYTES, footer_links=["api"], show_error=True, **options)
    app.state.login_guard = getattr(options.get("auth"), "__self__", None)  # ui.login.LoginGuard, with sign-in
    # Before Gradio sees a request: its upload route within a total, a rate and each client's share; a new
    # session only within its client's share and the table's size (never by dropping another); with sign-in,
    # a session only for its own user; the client's address for the sign-in throttle (ui.login).
    user_of = gradio_user_of(_gradio_app(app)) if shared.accounts is not None else None
    app.add_middleware(UploadGuard, folder=received.upload_folder, user_of=user_of)
    app.add_middleware(SessionGate, table=SessionTable(demo.state_holder), user_of=user_of)
    if user_of is not None:
        app.add_middleware(SessionOwners, user_of=user_of)
    app.add_middleware(ClientAddress)
    # mount_gradio_app never sets this (launch() does); without it Gradio accepts a FileData path naming
    # any server file. With it, an API call may only pass files that were uploaded (see ui.received).
    demo.has_launched = True
    received.track(demo)
    retention.bound_sessions(demo)
    retention.redact_access_log()
    app.state.demo = demo
    return app


def _gradio_app(app: FastAPI):
    """The Gradio app `mount_gradio_app` mounted on `app` (its sign-in tokens name a request's user)."""
    from gradio.routes import App

    mounted = (getattr(route, "app", None) for route in app.routes)
    return next(inner for inner in mounted if isinstance(inner, App))
