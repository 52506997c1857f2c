"""A question form: names written as code ("What is -F shorthand for?", "Storage="), and the chunks that write them (an
option's letter case told apart: tail's -F is not its -f)."""

from __future__ import annotations

import numpy as np

from pipeline.index.corpus import Corpus
from pipeline.lang.names import code_names, unmentioned_code_names
from pipeline.question.forms.boost import Boost


class CodeName:
    name = "code name"

    def found(self, question: str) -> str | None:
        return ", ".join(code_names(question)) or None

    def boost(self, corpus: Corpus, rows: np.ndarray, question: str) -> Boost | None:
        """The word search reads "-F" as the letter f, found in every chunk of a manual page: a chunk writing every
        name the question writes as code is pointed at, and passes the minimum score whatever its other words."""
        names = code_names(question)
        if not names or not len(rows):
            return None

        asked_of: dict[str, list[str]] = {}  # per document: a name it is called by ("bm25s" in bm25s-readme) points at no chunk

        def writes_them(chunk) -> bool:
            if (asked := asked_of.get(chunk.source_id)) is None:
                asked = asked_of[chunk.source_id] = unmentioned_code_names(names, chunk.source_id)
            return bool(asked) and not unmentioned_code_names(asked, chunk.text)

        return Boost(np.fromiter((writes_them(corpus.chunks[row]) for row in rows), dtype=np.float64, count=len(rows)),
                     passes=True)
