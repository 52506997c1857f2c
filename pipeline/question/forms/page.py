"""A question form: a page named by number or place ("… on page 3", "the proposal on the last page"), and the chunks on
that page of each PDF."""

from __future__ import annotations

import numpy as np

from pipeline.index.corpus import Corpus
from pipeline.lang.page_refs import page_reference
from pipeline.question.forms.boost import Boost


class Page:
    name = "page"

    def found(self, question: str) -> str | None:
        reference = page_reference(question)
        if reference is None:
            return None
        return "the last page" if reference.number == -1 else (
            f"page {reference.number}" if reference.number > 0 else f"page {-reference.number} from the end")

    def boost(self, corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None:
        reference = page_reference(question)
        if reference is None or not len(rows):
            return None
        pages: dict[str, int | None] = {}  # per document met, its named page (a question costs one pass per document)

        def on_page(chunk) -> bool:
            if chunk.source_id not in pages:
                pages[chunk.source_id] = reference.page_of(corpus.documents[chunk.source_id])
            return chunk.parent.page is not None and chunk.parent.page == pages[chunk.source_id]

        return Boost(np.fromiter((on_page(corpus.chunks[row]) for row in rows), dtype=np.float64, count=len(rows)))
