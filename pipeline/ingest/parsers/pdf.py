"""The PDF parser: pages, lines and word boxes (PyMuPDF is imported only when a PDF arrives)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.core.contracts import Document


class PdfParser:
    """PDF pages, lines and word boxes (PyMuPDF is imported only when a PDF arrives)."""

    name = "pdf"
    suffixes = (".pdf",)
    media_types = ("application/pdf",)
    front_matter = False  # its metadata comes from a sidecar NAME.pdf.yaml or the upload form

    def sniff(self, data: bytes) -> bool:
        return data[:1024].lstrip().startswith(b"%PDF")

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        from pipeline.ingest.parsers.pdf_layout import parse_pdf

        return parse_pdf(data, filename, metadata=metadata, limits=limits)
