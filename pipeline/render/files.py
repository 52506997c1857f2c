"""Highlights written to files: one PNG per cited PDF page, one HTML file per cited text document (the CLI's --highlights)."""

from __future__ import annotations

from pipeline.core.contracts import Document
from pipeline.render.highlights import Highlight, highlight_for
from pipeline.render.pages import draws_pages, render_page
from pipeline.render.text import render_text_html


def write_highlights(answer, documents: dict[str, Document], original_bytes, out_dir) -> list[str]:
    """One PNG per cited page of a document whose pages are drawn (a PDF's) and one HTML file per other cited
    document; returns the paths. `original_bytes(document)` gives the original file (pages are drawn from it).
    """
    from pathlib import Path

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    grouped: dict[tuple[str, int | None], list[Highlight]] = {}
    for citation in [*answer.citations, *answer.dropped_citations]:
        if citation.source_id in documents:
            page = citation.page if draws_pages(documents[citation.source_id]) else None
            grouped.setdefault((citation.source_id, page), []).append(highlight_for(citation))
    written = []
    for (source_id, page), highlights in grouped.items():
        document = documents[source_id]
        if draws_pages(document):
            if document.page_for(page) is None:
                continue
            path = out / f"{source_id}-p{page}.png"
            path.write_bytes(render_page(original_bytes(document), document, page, highlights))
        else:
            path = out / f"{source_id}.html"
            path.write_text(render_text_html(document, highlights), "utf-8")
        written.append(str(path))
    return written
