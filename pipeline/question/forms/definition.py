"""A question form: "What does X mean?", "What is X?": the term asked to define, and the chunks that define it."""

from __future__ import annotations

import numpy as np

from pipeline.index.corpus import Corpus
from pipeline.lang.forms import defined_term, defines_anywhere
from pipeline.question.forms.boost import Boost
from pipeline.text.footnotes import holds_note, marks_of


class Definition:
    name = "definition"

    def found(self, question: str) -> str | None:
        return defined_term(question)

    def boost(self, corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None:
        """Which readable chunks define the term ("RapidFuzz is a fast string matching library …"): when the term is
        the document's subject, every chunk names it and neither BM25 nor meaning picks out the one that says what it
        is."""
        term = defined_term(question)
        if term is None or not len(rows):
            return None
        # A name marked in a table's header ("*Other") is defined by its document's note with that mark.
        marks: dict[str, frozenset[str]] = {}
        for row in rows:
            chunk = corpus.chunks[row]
            if found := marks_of(term, chunk.search_text):
                marks[chunk.source_id] = marks.get(chunk.source_id, frozenset()) | found
        return Boost(np.fromiter((defines_anywhere(term, (chunk := corpus.chunks[row]).text)
                                  or (chunk.source_id in marks and holds_note(marks[chunk.source_id], chunk.text))
                                  for row in rows), dtype=np.float64, count=len(rows)), passes=True)
