"""A question form: names written as code ("What is -F shorthand for?", "Storage="), and the chunks that write them (an
option's letter case told apart: tail's -F is not its -f)."""

from __future__ import annotations

import numpy as np

from pipeline.index.corpus import Corpus
from pipeline.lang.names import code_names, unmentioned_code_names
from pipeline.question.forms.boost import Boost
from pipeline.question.forms.keep import Evidence, Refusal
from pipeline.text.units import Unit


class CodeName:
    name = "code name"
    with_reader = False

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

    def keep(self, question: str, candidates: list, evidence: Evidence) -> list | Refusal:
        """A name the question writes as code ("What k1 value …?", "Storage=", "\\noBreakRoute") must be in the unit
        that answers, or in its heading: "By default, bm25s uses method="lucene"" does not say what k1 is. A name the
        document is called by ("bm25s" in bm25s-readme) need not be."""
        titles = " ".join(source.source_id for source in evidence.sources)
        names = unmentioned_code_names(code_names(question), titles)
        if not names:
            return candidates
        kept = [c for c in candidates if not unmentioned_code_names(names, _read_under(c.unit))]
        return kept or Refusal("code_name_unmentioned", {"names": ", ".join(names)})


def _read_under(unit: Unit) -> str:
    """A unit's text with what it is read under: its heading or entry, its table header."""
    return "\n".join((unit.section, unit.read(), unit.header or ""))
