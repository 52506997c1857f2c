"""The Source panel: a cited PDF page as an image with the cited words highlighted, or the
text document with the cited lines marked (both from `pipeline.render`), and the table a cited row sits in."""

from __future__ import annotations

import io
import html
from collections.abc import Callable

from pipeline import (Citation, Document, InputError, Trace, draws_pages, highlight_for, render_page_in_worker,
                      render_text_html)

from .panels import citation_label
from .source_table import source_table_html

LONG_DOCUMENT_LINES = 400


def citations_of(trace: Trace | None) -> list[Citation]:
    if trace is None:
        return []
    return [*trace.answer.citations, *trace.answer.dropped_citations]


def citation_choices(trace: Trace | None) -> list[tuple[str, str]]:
    return [(f"{i + 1}. {citation_label(c)}", str(i)) for i, c in enumerate(citations_of(trace))]


def source_view(
    trace: Trace | None,
    documents: dict[str, Document],
    pdf_bytes: Callable[[str], bytes | None],
    choice: str | None,
    page: int | None = None,
    zoom: float | None = None,
):
    """(PIL image or None, HTML or None, note) for the chosen citation; for a PDF, `page` shows another
    page of the cited document (with whichever citations fall on it) and `zoom` scales the image."""
    citations = citations_of(trace)
    if not citations:
        return None, None, "No citation to show: this answer has none (an abstention before generation, or no " \
                           "citation was proposed)."
    try:
        chosen = citations[int(choice)] if choice not in (None, "") else citations[0]
    except (ValueError, IndexError):
        chosen = citations[0]
    document = documents.get(chosen.source_id)
    if document is None:
        return None, None, f"{chosen.source_id} is not a document in this collection (or not readable by you)."
    same_doc = [c for c in citations if c.source_id == chosen.source_id]
    if draws_pages(document):
        return _page_view(trace, document, same_doc, chosen, pdf_bytes, page, zoom)
    long = len(document.pages[0].lines) > LONG_DOCUMENT_LINES
    lines = render_text_html(document, [highlight_for(c) for c in same_doc], context_lines=20 if long else None)
    # A cited table row is drawn as a table too, above the lines: the lines stay, as the exact text the check read.
    table = source_table_html(document, same_doc, chosen, trace)
    body = f"{table}<div class='rag-scroll'>{lines}</div>"
    return None, body, (f"{citation_label(chosen)} — {document.meta.title or chosen.source_id}{_support_note(chosen)}"
                        f"{_dropped_note(trace, chosen)}")


def _page_view(trace: Trace | None, document: Document, same_doc: list[Citation], chosen: Citation,
               pdf_bytes: Callable[[str], bytes | None], page: int | None, zoom: float | None):
    """A PDF's page drawn with the citations on it highlighted, and the table a cited row of it sits in."""
    from PIL import Image

    data = pdf_bytes(document.digest)
    page = page or chosen.page or 1
    if data is None:
        return None, None, "The original PDF bytes are not available for this document."
    if document.page(page) is None:
        return None, None, f"{chosen.source_id} has no page {page}."
    # The chosen citation last, so its label is drawn on top of any other on that page.
    on_page = [c for c in same_doc if c.page == page and c is not chosen] + ([chosen] if chosen.page == page else [])
    try:  # a PDF's page is drawn by a worker process, under its limits
        png = render_page_in_worker(data, document, page, [highlight_for(c) for c in on_page], zoom)
    except InputError as error:  # e.g. a page whose content is too large to draw safely
        return None, None, str(error)
    image = Image.open(io.BytesIO(png))
    image.load()
    cited_here = "" if chosen.page == page else f" (the citation is on page {chosen.page}; "
    cited_here = cited_here and cited_here + f"{len(on_page)} citation(s) on this page)"
    note = (f"{citation_label(chosen)} — {document.meta.title or chosen.source_id}, page {page} of "
            f"{len(document.pages)}{cited_here}{_support_note(chosen)}{_dropped_note(trace, chosen)}")
    # A cited row of a table the PDF parser recorded is drawn as a table too, under the page it is on.
    table = source_table_html(document, same_doc, chosen, trace) if chosen.page == page else ""
    return image, table or None, note


def _dropped_note(trace: Trace | None, citation: Citation) -> str:
    """For a dropped citation: the claim it was offered for (the answer lists dropped citations in claim order)
    and the checks it failed."""
    if citation.verified or trace is None:
        return ""
    offered = [(claim.text, c) for claim in trace.answer.claims for c in claim.citations if not c.verified]
    dropped = trace.answer.dropped_citations
    position = next((i for i, c in enumerate(dropped) if c is citation), None)
    claim = offered[position][0] if position is not None and len(offered) == len(dropped) else None
    said = f"; dropped claim “{claim}”" if claim else ""
    return f"{said}; failed: {', '.join(citation.failed_checks)}"


def _support_note(citation: Citation) -> str:
    """Which lines hold the sentence(s) that support the claim (marked deeper, framed and underlined)."""
    if not citation.support:
        return ""
    lines = ", ".join(str(s.start_line) if s.start_line == s.end_line else f"{s.start_line}-{s.end_line}"
                      for s in citation.support)
    return f"; the supporting sentence (line {lines}) is framed and underlined"


def document_details(document: Document) -> list[str]:
    """What a document says about itself beyond our metadata, one plain line each: a PDF's or Office file's own title,
    author and dates, the pages read by OCR, and other tools' front-matter keys (shown, never used for access or
    validity)."""
    lines = []
    if document.info is not None:
        info = document.info.model_dump(exclude_none=True)
        if info:
            lines.append("Document info: " + "; ".join(f"{key} {value}" for key, value in info.items()))
    ocr = [page.number for page in document.pages if page.ocr and page.number is not None]
    if ocr:
        listed = ", ".join(str(n) for n in ocr[:20]) + (" …" if len(ocr) > 20 else "")
        lines.append(f"Page(s) {listed} were read by OCR from a scanned image: a quote may differ from the print.")
    if document.meta.extra:
        lines.append("Other metadata (not used for access or dates): "
                     + "; ".join(f"{key}: {value}" for key, value in document.meta.extra))
    return lines


def document_details_html(document: Document | None) -> str:
    """`document_details` as escaped HTML paragraphs (the values are the file's, never markup)."""
    if document is None:
        return ""
    return "".join(f"<p class='rag-note rag-details'>{html.escape(line)}</p>" for line in document_details(document))
