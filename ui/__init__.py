"""The web app (Gradio on FastAPI): upload, ask, inspect every step, check an answer.

`ui.app.create_app()` returns the FastAPI application (Gradio mounted at "/", plus
GET /healthz); `app.py` at the repository root runs it with uvicorn.
"""
