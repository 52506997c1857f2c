"""Highlights written to files: one PNG per cited PDF page, one HTML file per cited text document (the CLI's --highlights)."""

from __future__ import annotations

from pipeline.core.contracts import Document
from pipeline.render.highlights import Highlight, highlight_for
from pipeline.render.text import render_text_html


def write_highlights(answer, documents: dict[str, Document], original_bytes, out_dir) -> list[str]:
    """One PNG per cited PDF page and one HTML file per cited text document; returns the paths.

    `original_bytes(document)` gives a PDF's bytes (pages are rendered from the original file).
    """
    from pathlib import Path

    from pipeline.render.pdf import render_pdf_page  # PyMuPDF is loaded only when a PDF page is drawn

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    grouped: dict[tuple[str, int | None], list[Highlight]] = {}
    for citation in [*answer.citations, *answer.dropped_citations]:
        if citation.source_id in documents:
            grouped.setdefault((citation.source_id, citation.page), []).append(highlight_for(citation))
    written = []
    for (source_id, page), highlights in grouped.items():
        document = documents[source_id]
        if document.paged:
            if document.page_for(page) is None:
                continue
            path = out / f"{source_id}-p{page}.png"
            path.write_bytes(render_pdf_page(original_bytes(document), document, page, highlights))
        else:
            path = out / f"{source_id}.html"
            path.write_text(render_text_html(document, highlights), "utf-8")
        written.append(str(path))
    return written
