"""Page images: a paged document's page drawn with its highlights by the renderer registered for its kind (a PDF's:
`render.pdf`). A paged document of a kind without one is shown as text, page by page (`render.text`).
"""

from __future__ import annotations

from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.registry import Registry
from pipeline.render.highlights import DEFAULT_ZOOM, Highlight


def _pdf(**_: Any):
    from pipeline.render.pdf import render_pdf_page  # PyMuPDF loads with the first PDF page drawn

    return render_pdf_page


PAGE_RENDERERS: Registry = Registry("page renderer")
# sandboxed: the app draws this kind's pages in its worker processes (pipeline.engine.sandbox), so the renderer
# also takes `max_pixels`; a kind registered elsewhere is drawn in the server's process.
PAGE_RENDERERS.register("pdf", _pdf, sandboxed=True)


def draws_pages(document: Document) -> bool:
    """Whether the document's pages can be shown as images (else its text is shown)."""
    return document.paged and document.kind in PAGE_RENDERERS.names()


def render_page(data: bytes, document: Document, page: int, highlights: list[Highlight],
                zoom: float = DEFAULT_ZOOM) -> bytes:
    """PNG of one page of the original file `data`, with the highlights drawn."""
    return PAGE_RENDERERS.create(document.kind)(data, document, page, highlights, zoom=zoom)
