"""A question form: "What is this report about?", "Who wrote this?": a document as a whole, and the chunks that say what
it is about."""

from __future__ import annotations

import numpy as np

from pipeline.core.contracts import Context, Decision
from pipeline.core.settings import TUNING
from pipeline.index.corpus import Corpus
from pipeline.lang.forms import SUMMARY_LABEL, asks_about_document, asks_about_one_document, opens_summary
from pipeline.question.forms.boost import Boost
from pipeline.question.forms.whole import WholeAnswer
from pipeline.text.units import Unit, exact_between, joined, units_of

SUMMARY_LENGTH = 600  # code points: a summary answer runs on over whole sentences up to about this long


class AboutTheDocument:
    name = "about the document"

    def found(self, question: str) -> str | None:
        return "asks about a document's own particulars" if asks_about_document(question) else None

    def answer(self, context: Context) -> WholeAnswer | None:
        if not asks_about_document(context.question):
            return None
        found = summary_units(context)
        return WholeAnswer(*found) if found is not None else None

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


def summary_units(context: Context) -> tuple[list[Unit], Decision] | None:
    """For "What is this document about?": the packed passage that says so — a summary or an abstract (its first
    sentences), else the opening sentences of the passage retrieval ranked first (a document's opening, for such a
    question) — with how it was chosen; None when nothing quotable was packed. When the packed sources come from
    several documents ("What are these documents about?" over a collection), one such passage per document, in
    rank order, each shorter: which one the person meant, the question does not say ("this document" says one:
    the first ranked; a word that names a document picks it)."""
    documents = list(dict.fromkeys(source.source_id for source in context.sources))
    # "What is this report about?" over a crane report and a ferry guide: a word that names a document picks it.
    named = [d for d in documents if any(term in source.names.casefold() for source in context.sources
                                         if source.source_id == d for term in context.term_weights)]
    documents = named or documents
    if asks_about_one_document(context.question):
        documents = documents[:1]  # "What is this document about?": the document retrieval ranks first
    if len(documents) > 1:
        each = [_summary_of([s for s in context.sources if s.source_id == d], SUMMARY_LENGTH // 2) for d in documents]
        units = [unit for unit, _ in filter(None, each)]
        if len(units) > 1:
            return units, Decision(by="about the document", outcome="answered", reason="summaries", unit=units[0].marker(),
                                   facts={"documents": str(len(documents))})
    found = _summary_of([s for s in context.sources if s.source_id == documents[0]], SUMMARY_LENGTH) if documents else None
    return ([found[0]], found[1]) if found else None


def _summary_of(sources: list, length: int) -> tuple[Unit, Decision] | None:
    """The summary passage among `sources` (of one document, best first), else the first one's opening sentences."""
    for source in sources:
        units = [u for u in units_of(source) if u.kind != "list"]
        labelled = next((i for i, u in enumerate(units) if SUMMARY_LABEL.match(u.quote)), None)
        if labelled is None:
            continue
        label = units[labelled]
        start = labelled + 1 if label.kind == "heading" or SUMMARY_LABEL.fullmatch(label.quote.strip()) else labelled
        if start < len(units):  # a label alone ("Abstract", "## Summary") heads the passage below it
            summary = _run_over(units, start, length)
            return summary, Decision(by="about the document", outcome="answered", reason="summary", unit=summary.marker(),
                                     facts={"label": label.quote.splitlines()[0][:40]})
    if not sources:
        return None
    first = sources[0]
    units = [u for u in units_of(first) if u.kind not in ("list", "heading", "row", "code")]
    if not units:
        return None
    opening = _run_over(units, 0, length)
    return opening, Decision(by="about the document", outcome="answered", reason="summary_opening", unit=opening.marker(),
                             facts={"source": first.source_id, "lines": f"{first.start_line}-{first.end_line}"})


def _run_over(units: list[Unit], start: int, length: int = SUMMARY_LENGTH) -> Unit:
    """The unit at `start` with the following sentences on the lines right after it, up to `length` code points."""
    first = last = units[start]
    for unit in units[start + 1:]:
        if unit.kind != "sentence" or unit.start_line > last.end_line + 1 or unit.end_line < last.end_line:
            break
        if len(exact_between(first, unit)) > length:
            break
        last = unit
    if last is first:
        return first
    return joined(first, last)
