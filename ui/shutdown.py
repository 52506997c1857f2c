"""Ctrl+C (or SIGTERM) stops the server at once, with a tab open.

Each open tab holds a streaming request (Gradio's heartbeat) that ends only when the Gradio app's `stop_event` is set,
which Gradio does in `Blocks.close()`; uvicorn serving the FastAPI app waits for every connection to close before it
runs the app's shutdown, so a first Ctrl+C waited for ever and a second one cancelled the streams, printing a
`CancelledError` traceback for each (issue 51). `PromptShutdown` sets the event as soon as the server is asked to
stop: the heartbeats end, their connections close, and the server exits cleanly.
"""

from __future__ import annotations

import asyncio

import uvicorn


def gradio_stop_event(app) -> asyncio.Event | None:
    """The mounted Gradio app's stop event (None when `app` has no Gradio app mounted)."""
    from gradio.routes import App

    mounted = (getattr(route, "app", None) for route in getattr(app, "routes", ()))
    gradio_app = next((inner for inner in mounted if isinstance(inner, App)), None)
    return getattr(gradio_app, "stop_event", None)


class PromptShutdown(uvicorn.Server):
    """A uvicorn server that ends the open tabs' streams when it is asked to stop."""

    def __init__(self, app, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stop_event = gradio_stop_event(app)
        self.loop: asyncio.AbstractEventLoop | None = None

    async def startup(self, sockets=None) -> None:
        self.loop = asyncio.get_running_loop()
        await super().startup(sockets=sockets)

    def handle_exit(self, sig, frame) -> None:
        super().handle_exit(sig, frame)
        if self.stop_event is not None and self.loop is not None:
            # a signal handler runs between two bytecodes of the loop's thread: hand the event to the loop itself
            self.loop.call_soon_threadsafe(self.stop_event.set)
