"""The Source panel's table: a cited table row drawn among the rows around it under the table's header, the row marked
✓/✗ as its citation's checks left it and the cell the question asks for framed (a shape, not only a colour), so "337"
reads as a column's value rather than the fifth field of a line. Every cell is the document's text, escaped."""

from __future__ import annotations

import re

from pipeline import Citation, Document, TableAround, Trace, table_around

from .panels import _e, asked_columns, label

LONG_CELL = 30  # characters: a longer cell wraps in its column instead of widening the table
_NUMBER = re.compile(r"[-+(]?[$€£]?\d[\d.,]*%?\)?")  # "337", "(81,337)", "12.5%": set right, as figures are


def source_table_html(document: Document, citations: list[Citation], chosen: Citation, trace: Trace | None) -> str:
    """The table around `chosen`'s row ("" when it cites no table row), the rows any of `citations` cites marked, and
    the columns the answerer found the question naming (`Proposal.asked_columns`)."""
    table = table_around(document, chosen.page, chosen.start_line, chosen.end_line)
    if table is None:
        return ""
    cited = _cited_rows(citations, chosen.page)
    asked = asked_columns(trace, table.columns)
    marked = any(asked) and any(number in cited for number, _ in table.rows)
    said = " The cell the question asks for is framed." if marked else ""
    note = (f"<p class='rag-note' id='source-table-note'>{_e(label(document))}: the cited row among the rows around it, "
            f"under its table's header.{said}</p>")
    width = len(table.columns) + 1  # the line number's column first
    rows = [_gap(table.above, "above", width), *(_row(n, cells, cited.get(n), asked) for n, cells in table.rows),
            _gap(table.below, "below", width)]
    return (f"{note}<div class='rag-tablebox' id='source-table-box'><table class='rag-source-table' id='source-table' "
            f"aria-label='the table around the cited row'><thead>{_header(table, asked)}</thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _cited_rows(citations: list[Citation], page: int | None) -> dict[int, str]:
    """Line number → "verified" or "dropped" for every line a citation on `page` cites (verified when any is)."""
    state: dict[int, str] = {}
    for citation in citations:
        if citation.page != page:
            continue
        for number in range(citation.start_line, citation.end_line + 1):
            if state.get(number) != "verified":
                state[number] = "verified" if citation.verified else "dropped"
    return state


def _header(table: TableAround, asked: list[bool]) -> str:
    marks = [" class='asked'" if mark else "" for mark in asked]
    names = "".join(f"<th scope='col'{mark}>{_e(name)}</th>" for name, mark in zip(table.columns, marks))
    return f"<tr><th scope='col' class='row-line'>line</th>{names}</tr>"


def _row(number: int, cells: tuple[str, ...], state: str | None, asked: list[bool]) -> str:
    if state is None:
        return f"<tr data-line='{number}'><td class='row-line'>{number}</td>{''.join(map(_cell, cells))}</tr>"
    sign = "✓" if state == "verified" else "✗"
    shown = "".join(_asked_cell(cell) if mark else _cell(cell) for cell, mark in zip(cells, asked))
    return (f"<tr class='cited {state}' data-line='{number}' title='the cited row ({state})'>"
            f"<td class='row-line'>{sign} {number}</td>{shown}</tr>")


def _cell(text: str) -> str:
    kind = " class='long'" if len(text) > LONG_CELL else " class='num'" if _NUMBER.fullmatch(text) else ""
    return f"<td{kind}>{_e(text)}</td>"


def _asked_cell(text: str) -> str:
    kind = "asked num" if _NUMBER.fullmatch(text) else "asked"
    return f"<td class='{kind}' title='the cell asked for' aria-label='the cell asked for: {_e(text)}'>{_e(text)}</td>"


def _gap(count: int, where: str, width: int) -> str:
    """A row saying how many of the table's rows are not shown on that side (none when all are)."""
    if not count:
        return ""
    return f"<tr class='gap'><td colspan='{width}'>… {count} more row{'s' if count > 1 else ''} {where}</td></tr>"
