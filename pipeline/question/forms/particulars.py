"""A question form: a document's own particulars ("Who wrote this guide?", "What date is printed on the manuscript?",
"Which university is Till Tantau from?"), answered whole by the lines of its title block that give them, or by where
the document labels them ("AUTHOR", "Version:"), before any unit is scored."""

from __future__ import annotations

from pipeline.core.contracts import Context, Decision
from pipeline.lang.document_fields import asked_affiliation, asked_particulars
from pipeline.question.forms.whole import WholeAnswer
from pipeline.text.labelled_fields import labelled_units
from pipeline.text.title_block import title_block
from pipeline.text.units import Unit


class Particulars:
    name = "particulars"

    def found(self, question: str) -> str | None:
        if (author := asked_affiliation(question)) is not None:
            return f"the institution of {author}"
        asked = asked_particulars(question)
        return " and ".join(asked.fields) if asked is not None else None

    def answer(self, context: Context) -> WholeAnswer | None:
        found = particulars_units(context)
        return WholeAnswer(*found) if found is not None else None


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
