"""Start the web app: `python app.py` (127.0.0.1:7860; 0.0.0.0:$PORT when PORT is set, as on Render;
GRADIO_SERVER_NAME/GRADIO_SERVER_PORT when set, as on Hugging Face Spaces).

The sample documents load at start; Gradio is mounted on FastAPI with GET /healthz.
`uvicorn app:app` works too.
"""

from __future__ import annotations

import os

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import sys  # noqa: E402

from pipeline import RagError, environment  # noqa: E402
from ui.app import create_app  # noqa: E402
from pipeline import keep_unused_modules_out, limit_malloc_arenas  # noqa: E402

limit_malloc_arenas()  # before the server's threads start (see pipeline/core/memory.py)
keep_unused_modules_out()  # matplotlib, which Gradio would import around every request

try:
    app = create_app()
except RagError as error:  # e.g. a corrupt vector store: one line naming it, not a traceback
    print(f"error: {error}", file=sys.stderr)
    raise SystemExit(2) from None


def main() -> None:
    import uvicorn

    from ui.shutdown import PromptShutdown

    env = environment()
    port = env.get("PORT")
    host, port = ("0.0.0.0", int(port)) if port else ("127.0.0.1", 7860)
    host = env.get("GRADIO_SERVER_NAME", host)
    port = int(env.get("GRADIO_SERVER_PORT", port))
    try:
        PromptShutdown(app, uvicorn.Config(app, host=host, port=port, log_level="info")).run()
    except KeyboardInterrupt:  # uvicorn raises the Ctrl+C again once it has shut down cleanly: no traceback for it
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
