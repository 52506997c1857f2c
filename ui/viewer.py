"""The source viewer: next/previous citation, page navigation and zoom for PDFs, a thumbnail strip
for long PDFs, and text documents scrolled to the cited lines.

The viewer's position (citation index, page, zoom) is kept on the session; every control re-renders
through `ui.source.source_view`, so a page shows each citation that falls on it, highlighted.
"""

from __future__ import annotations

import io

import gradio as gr

from pipeline import MAX_THUMBNAIL_PIXELS, InputError, draws_pages, render_pages_in_worker

from . import panels
from .conflict import conflict_html
from .handlers import guarded, session_of
from .source import citation_choices, citations_of, document_details_html, source_view
from .state import Session, Shared

THUMBNAIL_MIN_PAGES = 4
THUMBNAIL_ZOOM = 0.2
MAX_THUMBNAILS = 60
ZOOMS = [("75 %", 1.0), ("100 %", 1.5), ("150 %", 2.25), ("200 %", 3.0)]
#: Scroll the text view to its first cited line, and a cited row's table sideways to the cell asked for (a wide table
#: on a phone would hide it): the HTML is replaced, so this runs after each render.
SCROLL_JS = ("() => { setTimeout(() => { const box = document.querySelector('#source-text .rag-scroll');"
             " const line = box && box.querySelector('.ln.verified, .ln.dropped');"
             " if (line) box.scrollTop = line.offsetTop - box.offsetTop - box.clientHeight / 3;"
             " const cell = document.querySelector('#source-table td.asked');"
             " const table = cell && cell.closest('.rag-tablebox');"
             " if (table) { const c = cell.getBoundingClientRect(), t = table.getBoundingClientRect();"
             " table.scrollLeft += c.left - t.left - (t.width - c.width) / 2; } }, 150); }")


class Position:
    def __init__(self) -> None:
        self.index = 0
        self.page: int | None = None
        self.zoom = 1.5
        self.thumbs_of: str | None = None  # the document whose thumbnails are shown


def position_of(session: Session) -> Position:
    position = getattr(session, "viewer", None)
    if not isinstance(position, Position):
        position = Position()
        session.viewer = position
    return position


def _document(session: Session, index: int):
    citations = citations_of(session.last_trace)
    if not citations:
        return None
    return session.last_documents.get(citations[min(index, len(citations) - 1)].source_id)


def _thumbnails(shared: Shared, session: Session, document):
    """Small images of every page of a long PDF (None: no strip for this document)."""
    if document is None or not draws_pages(document) or len(document.pages) < THUMBNAIL_MIN_PAGES:
        return None
    data = session.pdf(shared, document.digest)
    if data is None:
        return None
    from PIL import Image

    numbers = [page.number for page in document.pages[:MAX_THUMBNAILS]]
    try:  # a PDF's pages are drawn by a worker process, under its limits
        pngs = render_pages_in_worker(data, document, numbers, THUMBNAIL_ZOOM, MAX_THUMBNAIL_PIXELS)
    except InputError:
        return None
    images = []
    for number, png in zip(numbers, pngs):
        if png is None:
            continue
        image = Image.open(io.BytesIO(png))
        image.load()
        images.append((image, f"page {number}"))
    return images


def view(shared: Shared, session: Session):
    """The Source panel's outputs for the session's position: image, text HTML, note, page number, thumbnails,
    and the citation dropdown."""
    trace = session.last_trace
    position = position_of(session)
    choices = citation_choices(trace)
    conflict = conflict_html(trace)
    if conflict is not None and not choices:
        return (gr.Image(value=None, visible=False), gr.HTML(value=conflict, visible=True), "",
                gr.Number(value=None, visible=False), gr.Gallery(value=None, visible=False),
                gr.Dropdown(choices=[], value=None))
    position.index = min(position.index, max(len(choices) - 1, 0))
    image, body, note = source_view(trace, session.last_documents, lambda digest: session.pdf(shared, digest),
                                    str(position.index) if choices else None, position.page, position.zoom)
    if conflict is not None:
        body = conflict + (body or "")
    document = _document(session, position.index)
    paged = image is not None and document is not None and draws_pages(document)
    if paged and position.page is None:
        position.page = citations_of(trace)[position.index].page or 1
    thumbs = gr.Gallery(visible=False)
    key = document.digest if document is not None else None
    if paged and len(document.pages) >= THUMBNAIL_MIN_PAGES:
        thumbs = gr.Gallery(visible=True) if position.thumbs_of == key else \
            gr.Gallery(value=_thumbnails(shared, session, document), visible=True)
        position.thumbs_of = key
    return (gr.Image(value=image, visible=image is not None),
            gr.HTML(value=body or "", visible=body is not None),
            f"<p class='rag-note' id='source-note'>{panels._e(note)}</p>{document_details_html(document)}",
            gr.Number(value=position.page if paged else None, visible=paged,
                      maximum=len(document.pages) if paged else None),
            thumbs,
            gr.Dropdown(choices=choices, value=str(position.index) if choices else None))


def reset(session: Session) -> None:
    """A new result: start at its first citation, on that citation's page."""
    position = position_of(session)
    position.index, position.page, position.thumbs_of = 0, None, None


def _move(shared, session, index=None, page=None, zoom=None, step_citation=0, step_page=0):
    session = session_of(session)
    position = position_of(session)
    citations = citations_of(session.last_trace)
    if index not in (None, ""):
        position.index, position.page = int(index), None
    if step_citation and citations:
        position.index, position.page = (position.index + step_citation) % len(citations), None
    document = _document(session, position.index)
    if document is not None and draws_pages(document):
        if page not in (None, ""):
            position.page = int(page)
        if step_page:
            position.page = (position.page or 1) + step_page
        position.page = min(max(position.page or 1, 1), len(document.pages)) if position.page else None
    if zoom:
        position.zoom = float(zoom)
    return (*view(shared, session), session)


@guarded
def choose_citation(shared: Shared, session, choice):
    return _move(shared, session, index=choice)


@guarded
def next_citation(shared: Shared, session):
    return _move(shared, session, step_citation=1)


@guarded
def previous_citation(shared: Shared, session):
    return _move(shared, session, step_citation=-1)


@guarded
def go_to_page(shared: Shared, session, page):
    return _move(shared, session, page=page)


@guarded
def next_page(shared: Shared, session):
    return _move(shared, session, step_page=1)


@guarded
def previous_page(shared: Shared, session):
    return _move(shared, session, step_page=-1)


@guarded
def set_zoom(shared: Shared, session, zoom):
    return _move(shared, session, zoom=zoom)


def thumbnail_picker(shared: Shared):
    """The gallery's select handler: Gradio passes the event data by the annotation, so no partial here."""

    @guarded
    def pick_thumbnail(session, evt: gr.SelectData):
        return _move(shared, session, page=int(evt.index) + 1)

    return pick_thumbnail
