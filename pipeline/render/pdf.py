"""A PDF page drawn with its highlights (PyMuPDF), split from `render` so that PyMuPDF (143 MiB, about a
second to import) loads only when a PDF is parsed or a page is drawn, not at the app's start.

Fills are translucent over the quoted words, each highlight has a label with a drawn ✓ or ✗, the
supporting sentence gets a deeper fill with a frame, and a chunk's extent is outlined faintly.
"""

from __future__ import annotations

import pymupdf

from pipeline.core.contracts import Box, Document, Page
from pipeline.core.limits import MAX_PAGE_CONTENT_BYTES, MAX_RENDER_PIXELS
from pipeline.ingest.parsers.pdf_guard import check_page_content, fit_zoom
from pipeline.render.highlights import (
    CHUNK_RGB,
    DEFAULT_ZOOM,
    DROPPED_RGB,
    FILL_OPACITY,
    SUPPORT_RGB,
    VERIFIED_RGB,
    Highlight,
    _blocks,
    quote_span,
    span_boxes,
)


def _draw_mark(shape: pymupdf.Shape, at: pymupdf.Point, size: float, verified: bool, color, m) -> None:
    """A drawn ✓ or ✗ (base-14 fonts have neither glyph); m maps displayed → page coordinates."""
    x, y = at.x, at.y
    if verified:
        shape.draw_polyline([pymupdf.Point(x, y - 0.45 * size) * m, pymupdf.Point(x + 0.35 * size, y) * m,
                             pymupdf.Point(x + size, y - size) * m])
    else:
        shape.draw_line(pymupdf.Point(x, y - size) * m, pymupdf.Point(x + size, y) * m)
        shape.draw_line(pymupdf.Point(x, y) * m, pymupdf.Point(x + size, y - size) * m)
    shape.finish(color=color, width=max(1.0, size / 5), closePath=False)


def render_pdf_page(
    pdf_bytes: bytes,
    document: Document,
    page_number: int,
    highlights: list[Highlight],
    zoom: float = DEFAULT_ZOOM,
    max_pixels: int | None = None,
) -> bytes:
    """PNG of one page with the highlights drawn; `pdf_bytes` itself is never changed.

    Fills are translucent over the quoted words; each highlight gets a label ("✓ [1] verified")
    above it; a chunk's extent is outlined faintly (dashed, one box per column stretch). A page larger
    than `max_pixels` (MAX_RENDER_PIXELS) at `zoom` is drawn at the zoom that fits; a page whose content
    is over the cap is refused (InputError) before drawing.
    """
    parsed = document.page(page_number)
    if parsed is None:
        raise ValueError(f"{document.filename}: no page {page_number}")
    doc = pymupdf.open(stream=bytes(pdf_bytes), filetype="pdf")
    try:
        page = doc.load_page(page_number - 1)
        check_page_content(doc, page, page_number, document.filename, MAX_PAGE_CONTENT_BYTES,
                           MAX_PAGE_CONTENT_BYTES, 0)
        # Boxes are in the displayed (rotated) page; drawing happens on the unrotated page.
        m = page.derotation_matrix if page.rotation else pymupdf.Identity
        shape = page.new_shape()  # one content stream for everything (a commit per rect is slow)
        taken: list[pymupdf.Rect] = []
        for highlight in highlights:
            if highlight.page not in (None, page_number):
                continue
            color = VERIFIED_RGB if highlight.verified else DROPPED_RGB
            if highlight.chunk_start is not None and highlight.chunk_end is not None:
                chunk = _blocks(span_boxes(parsed, highlight.chunk_start, highlight.chunk_end, split_cells=False))
                for block in chunk:
                    shape.draw_rect((pymupdf.Rect(block.x0, block.y0, block.x1, block.y1) + (-3, -3, 3, 3)) * m)
                if chunk:
                    shape.finish(color=CHUNK_RGB, fill=None, width=0.8, dashes="[3 2] 0", stroke_opacity=0.6)
            boxes = span_boxes(parsed, *quote_span(parsed, highlight.start_line, highlight.end_line, highlight.quote))
            if not boxes:
                continue
            for b in boxes:
                shape.draw_rect(pymupdf.Rect(b.x0, b.y0, b.x1, b.y1) * m)
            shape.finish(color=None, fill=color, fill_opacity=FILL_OPACITY)
            _draw_support(shape, parsed, highlight, m)
            _label(shape, parsed, boxes, highlight, color, taken, m, page.rotation)
        shape.commit()
        zoom = fit_zoom(page.rect.width, page.rect.height, zoom, max_pixels or MAX_RENDER_PIXELS)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return pix.tobytes("png")
    finally:
        doc.close()


def _draw_support(shape: pymupdf.Shape, parsed: Page, highlight: Highlight, m) -> None:
    """The supporting sentence(s) inside the span: a second green fill, a solid dark frame and an underline per segment."""
    boxes = [b for start, end in highlight.support for b in span_boxes(parsed, start, end)]
    if not boxes:
        return
    for b in boxes:
        shape.draw_rect(pymupdf.Rect(b.x0, b.y0, b.x1, b.y1) * m)
    shape.finish(color=None, fill=VERIFIED_RGB, fill_opacity=FILL_OPACITY)
    for b in boxes:
        shape.draw_rect((pymupdf.Rect(b.x0, b.y0, b.x1, b.y1) + (-1, -1, 1, 1)) * m)
        shape.draw_line(pymupdf.Point(b.x0, b.y1 + 1.2) * m, pymupdf.Point(b.x1, b.y1 + 1.2) * m)
    shape.finish(color=SUPPORT_RGB, fill=None, width=1.2, closePath=False)


def _label_font(text: str) -> str:
    """"helv" (base-14, Latin-1 only) for Latin text; PyMuPDF's built-in CJK font otherwise, so a label in
    Chinese, Japanese, Korean (or any script beyond Latin-1 it covers) renders instead of dots."""
    return "helv" if all(ord(ch) < 256 for ch in text) else "china-s"


def _rect(box: Box) -> pymupdf.Rect:
    return pymupdf.Rect(box.x0, box.y0, box.x1, box.y1)


def _places(parsed: Page, boxes: list[Box], width: float, height: float) -> list[pymupdf.Rect]:
    """Where a label of this size may go, nearest first: in the gap above the highlight, in the margin left of it,
    right of its own line, in the gap below it, then in the page's side margins at its height."""
    first, last = boxes[0], boxes[-1]
    page_width = parsed.width or 612
    middle = (first.y0 + first.y1) / 2
    own = [line.box for line in parsed.lines if line.box is not None and line.box.y0 < first.y1 and line.box.y1 > first.y0
           and line.box.x0 <= first.x1 and line.box.x1 >= first.x0]  # the line (of its column) the highlight starts on
    line_end = max((b.x1 for b in own), default=first.x1)
    beside = lambda x0: pymupdf.Rect(x0, middle - height / 2, x0 + width, middle + height / 2)  # noqa: E731
    return [pymupdf.Rect(first.x0, first.y0 - 1 - height, first.x0 + width, first.y0 - 1),
            pymupdf.Rect(first.x1 - width, first.y0 - 1 - height, first.x1, first.y0 - 1),
            beside(first.x0 - 3 - width), beside(line_end + 4),
            pymupdf.Rect(last.x0, last.y1 + 1, last.x0 + width, last.y1 + 1 + height),
            beside(page_width - 4 - width), beside(4)]


def _overlap(box: pymupdf.Rect, obstacles: list[pymupdf.Rect]) -> float:
    return sum((box & other).get_area() for other in obstacles if box.intersects(other))


def _label_box(parsed: Page, boxes: list[Box], sizes: list[tuple[float, float]], taken: list) -> tuple[int, pymupdf.Rect]:
    """(which of the label's texts, where) so that it covers no text, no other label and not the highlight itself: the
    whole label where one fits, else its short form, else its mark alone (issue 51: a label drawn above a tightly set
    line covered the line above, and the column beside it). Nothing free at all: the mark where it covers least."""
    page = pymupdf.Rect(0, 0, parsed.width or 612, parsed.height or 792)
    obstacles = [_rect(line.box) + (0.5, 0.5, -0.5, -0.5) for line in parsed.lines if line.box is not None]
    obstacles += [_rect(b) for b in boxes] + list(taken)
    for which, (width, height) in enumerate(sizes):
        for box in _places(parsed, boxes, width, height):
            if box in page and not _overlap(box, obstacles):
                return which, box
    which = len(sizes) - 1
    inside = [box for box in _places(parsed, boxes, *sizes[which]) if box in page] or [
        pymupdf.Rect(0, 0, *sizes[which])]
    return which, min(inside, key=lambda box: _overlap(box, obstacles))


def _label(shape, parsed: Page, boxes: list[Box], highlight: Highlight, color, taken: list, m, rotation: int) -> None:
    """A label ("✓ source lines verified") beside the highlight, never over text (`_label_box`)."""
    size = 7.5
    texts = [highlight.label, highlight.short_label or highlight.label, ""]
    fonts = [_label_font(text) for text in texts]
    sizes = [((pymupdf.Font(font).text_length(text, fontsize=size) + 4 if text else 0) + size + 4, size + 4)
             for text, font in zip(texts, fonts)]
    which, box = _label_box(parsed, boxes, sizes, taken)
    taken.append(box)
    shape.draw_rect(box * m)
    shape.finish(color=color, fill=(1, 1, 1), width=0.8, fill_opacity=0.92)
    _draw_mark(shape, pymupdf.Point(box.x0 + 2, box.y1 - 2.5), size - 1.5, highlight.verified, color, m)
    if texts[which]:
        origin = pymupdf.Point(box.x0 + size + 4, box.y1 - 3) * m
        shape.insert_text(origin, texts[which], fontsize=size, fontname=fonts[which], color=(0, 0, 0), rotate=rotation)
