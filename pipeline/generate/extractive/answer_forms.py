"""Answer forms: units whose form answers the question's form, whatever the scorer thinks of their words.

"Who wrote this guide?" is answered by the lines of its title block that name the authors; "What is X?" by the unit
that defines X (a sentence, a footnote of X's mark, X spelled out); a question for several things by the whole list
that holds the best item; a superlative question by the table row retrieval compared to hold the most; a question
naming a row and a column by that row (the lookup is in `tables.named_row`).
"""

from __future__ import annotations

from pipeline.core.contracts import Context, Decision
from pipeline.lang.document_fields import asked_affiliation, asked_particulars
from pipeline.lang.forms import SUMMARY_LABEL, asks_about_one_document, defined_term, defines
from pipeline.lang.questions import ASKS_SEVERAL
from pipeline.question.forms.names import source_text
from pipeline.text.labelled_fields import labelled_units
from pipeline.text.footnotes import marks_of, opens_note
from pipeline.text.title_block import title_block
from pipeline.text.units import Unit, exact_between, joined, units_of

SUMMARY_LENGTH = 600  # code points: a summary answer runs on over whole sentences up to about this long


def compared_row(context: Context) -> Unit | None:
    """The packed table row retrieval's comparison chose ("Which state had the most handgun checks?"), as a unit."""
    comparison = context.comparison
    if comparison is None:
        return None
    return next((unit for source in context.sources if source.source_id == comparison.source_id
                 and source.page == comparison.page for unit in units_of(source)
                 if unit.kind == "row" and unit.start_line == comparison.line), None)


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
            summary = _run_on(units, start, length)
            return summary, Decision(by="about the document", outcome="answered", reason="summary", unit=summary.marker(),
                                     facts={"label": label.quote.splitlines()[0][:40]})
    if not sources:
        return None
    first = sources[0]
    units = [u for u in units_of(first) if u.kind not in ("list", "heading", "row", "code")]
    if not units:
        return None
    opening = _run_on(units, 0, length)
    return opening, Decision(by="about the document", outcome="answered", reason="summary_opening", unit=opening.marker(),
                             facts={"source": first.source_id, "lines": f"{first.start_line}-{first.end_line}"})


def _run_on(units: list[Unit], start: int, length: int = SUMMARY_LENGTH) -> Unit:
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


def definition_first(context: Context, scored: list) -> tuple[list, list[Decision]]:
    """For "what is X?", the first unit that defines X ("X is a …", "… (or X) …") answers, even when the scorer
    ranked a unit that only mentions X higher (under the threshold too: its form answers the question's form, see
    `LocalExtractive._structural_match`), with the decision that moved it (none when nothing moved)."""
    term = defined_term(context.question)
    if not term:
        return scored, []
    defining = first_defining(term, scored, context)
    if defining is None or defining is scored[0]:
        return scored, []
    rest = [row for row in scored if row is not defining]
    moved = Decision(by="definition", outcome="moved", reason="defines_term", unit=defining.unit.marker(),
                     facts={"term": term, "preferred_by": "scorer", "preferred": rest[0].unit.marker(),
                            "preferred_score": f"{rest[0].probability:.2f}"})
    return [defining, *rest], [moved]


def first_defining(term: str, scored: list, context: Context):
    """The best-scored unit that defines `term` ("MCAS is a function of …"), else the footnote of a mark the evidence
    puts on it ("*Other" in a header, "*Refers to frames …" below), else one that spells it out ("the maneuvering
    characteristics augmentation system (MCAS)"); None if none does."""
    marks = {source.source_id: frozenset() for source in context.sources}
    for source in context.sources:
        marks[source.source_id] |= marks_of(term, source_text(source))
    return (next((row for row in scored if defines(term, row.unit.quote, spelled_out=False)), None)
            or next((row for row in scored if opens_note(marks[row.unit.source.source_id], row.unit.quote)), None)
            or next((row for row in scored if defines(term, row.unit.quote)), None))


def whole_list_first(question: str, scored: list, threshold: float,
                     decisions: list[Decision] | None = None) -> tuple[list, list[Decision]]:
    """A question for several things, best answered by one item of a list: the whole list answers, when it
    too reaches the threshold ("What are the dependencies?" wants every library, not the first one); `decisions` with
    the one that moved it."""
    decisions = list(decisions or [])
    best = scored[0].unit
    if best.kind != "item" or not ASKS_SEVERAL.search(question):
        return scored, decisions
    whole = next((row for row in scored if row.unit.kind == "list" and row.probability >= threshold and row.unit.source.n == best.source.n
                  and row.unit.start_line <= best.start_line and best.end_line <= row.unit.end_line), None)
    if whole is None:
        return scored, decisions
    rest = [row for row in scored if row is not whole]
    return [whole, *rest], [*decisions, Decision(by="several things", outcome="moved", reason="several_things",
                                                 unit=whole.unit.marker(), facts={"item": best.marker()})]


def rows_best_first(context: Context, scored: list) -> list[Unit]:
    """Every table row of the evidence: those the scorer ranked first, in its order, then the rest."""
    rows = [row.unit for row in scored if row.unit.kind == "row"]
    seen = {(u.source.n, u.start_line) for u in rows}
    rest = [u for source in context.sources for u in units_of(source)
            if u.kind == "row" and (source.n, u.start_line) not in seen]
    return rows + rest


def particulars_units(context: Context) -> tuple[list[Unit], Decision] | None:
    """For "Who wrote this guide?", "What date is printed on the manuscript?": the lines of the asked document's title
    block that give the asked particulars (`text.title_block`), with how they were found; None when the question asks
    for none, names another document, or the title block is not packed or does not give them (the question is then
    answered as any other)."""
    if (author := asked_affiliation(context.question)) is not None:
        return _affiliation_units(context, author)
    asked = asked_particulars(context.question)
    if asked is None:
        return None
    for source_id in dict.fromkeys(source.source_id for source in context.sources):  # in rank order
        sources = [source for source in context.sources if source.source_id == source_id]
        if not asked.about(sources[0].names):
            continue
        block = next((found for source in sources if (found := title_block(source)) is not None), None)
        given = {field: block.units(field) for field in asked.fields} if block is not None else {}
        if block is None or not all(given.values()):  # "What is the title … which version …?": the block must give all
            return _labelled_units(context, sources, source_id, asked.fields)
        units = list({u.start_line: u for field in asked.fields for u in given[field]}.values())
        first, last = block.span()
        lines = ", ".join(str(u.start_line) if u.start_line == u.end_line else f"{u.start_line}-{u.end_line}" for u in units)
        where = f"page {block.source.page}, " if block.source.page else ""
        return units, Decision(by="particulars", outcome="answered", reason="title_block", unit=units[0].marker(),
                               facts={"fields": " and ".join(asked.fields), "source": source_id, "where": where,
                                      "block": f"{first}-{last}", "lines": f"line{'s' if len(units) > 1 else ''} {lines}"})
    return None


def _labelled_units(context: Context, sources: list, source_id: str,
                    fields: tuple[str, ...]) -> tuple[list[Unit], Decision] | None:
    """For "Who wrote the timeout utility?", "Which version does this manual describe?" of a document whose title block
    does not give it: the lines where the document labels each asked particular ("AUTHOR", "Authors:", "Version:";
    `text.labelled_fields`), when packed; None unless every one asked is found."""
    if "title" in fields:  # a title is a title block's
        return None
    units: list[Unit] = []
    for field in fields:
        found = next((found for source in sources if (found := labelled_units(source, field, context.question))), None)
        if found is None:
            return None
        units.extend(found)
    spans = ", ".join((f"page {u.source.page} " if u.source.page else "") +
                      (f"line {u.start_line}" if u.start_line == u.end_line else f"lines {u.start_line}-{u.end_line}")
                      for u in units)
    return units, Decision(by="particulars", outcome="answered", reason="labelled", unit=units[0].marker(),
                           facts={"fields": " and ".join(fields), "source": source_id,
                                  "them": "them" if len(fields) > 1 else "it", "spans": spans})


def _affiliation_units(context: Context, author: str) -> tuple[list[Unit], Decision] | None:
    """For "Which university is Till Tantau from?": the lines of the first title block packed that names the author
    and gives an institution for them."""
    for source in context.sources:
        block = title_block(source)
        if block is None:
            continue
        units = block.affiliation_of(author)
        if units:
            first, last = block.span()
            lines = ", ".join(str(u.start_line) for u in units)
            return units, Decision(by="particulars", outcome="answered", reason="affiliation", unit=units[0].marker(),
                                   facts={"author": author, "source": source.source_id, "block": f"{first}-{last}",
                                          "lines": f"line{'s' if len(units) > 1 else ''} {lines}"})
    return None
