"""A question form: "What is this report about?", "Who wrote this?": a document as a whole, and the chunks that say what
it is about."""

from __future__ import annotations

import numpy as np

from pipeline.core.settings import TUNING
from pipeline.index.corpus import Corpus
from pipeline.lang.forms import asks_about_document, opens_summary
from pipeline.question.forms.boost import Boost


class AboutTheDocument:
    name = "about the document"

    def found(self, question: str) -> str | None:
        return "asks about a document's own particulars" if asks_about_document(question) else None

    def boost(self, corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None:
        """A summary or abstract (weighted `Tuning.summary_weight`), else each document's opening window
        (`Tuning.opening_weight`)."""
        if not asks_about_document(question) or not len(rows):
            return None
        chunks = [corpus.chunks[row] for row in rows]
        first: dict[str, int] = {}  # per document, where its first window on its first page (or body) starts
        for chunk in chunks:
            if chunk.kind == "window" and chunk.parent.page in (None, 1):
                first[chunk.source_id] = min(first.get(chunk.source_id, chunk.start), chunk.start)

        def weight(chunk) -> float:
            if opens_summary(chunk.text):
                return TUNING.summary_weight
            opening = chunk.kind == "window" and chunk.parent.page in (None, 1) and chunk.start == first.get(chunk.source_id)
            return TUNING.opening_weight if opening else 0.0

        # ahead of whatever the question's words match: two first places for an opening, three for a summary
        weights = np.fromiter((weight(chunk) for chunk in chunks), dtype=np.float64, count=len(rows))
        return Boost(weights, votes=TUNING.summary_votes, passes=True)
