"""The Source panel draws a cited table row as a table (issue 51, point 2): the table's real header over the rows around
the cited one, the cited row marked ✓, the cell the question asks for framed with a label, every cell escaped, and only
a bounded number of rows. Real parsing, index and checks (the deterministic test embedder); no browser."""

from __future__ import annotations

import datetime as dt
import io
import xml.etree.ElementTree as ElementTree

from pipeline import Proposal, ProposedCitation, Request
from ui.source import source_view

CREW = (["Harbour crew of 1990"], ["Kept by the harbour office", "see the notes"], [],
        ["name", "role", "age", "active", "joined", "retired"],
        ["Mira Holm", "pilot", 61, True, "1984-03-02", "2019-11-30"],
        ["Tomas <b>Veld</b>", "diver", 58, False, "1987-06-15", "2015-04-09"],
        ["Ana Brook", "skipper", 66, False, "1979-01-20", "2012-08-01"])


def _xlsx(rows) -> bytes:
    import openpyxl

    workbook = openpyxl.Workbook()
    for row in rows:
        workbook.active.append(list(row))
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def _source(engine, files: list[tuple[str, bytes]], question: str, proposal: Proposal | None = None):
    corpus = engine.corpus([engine.parse(data, name) for name, data in files])
    trace = engine.ask(corpus, Request(question=question, date=dt.date(2026, 9, 14)), proposal=proposal)
    _, body, _ = source_view(trace, corpus.documents, lambda digest: None, "0")
    return trace, body


def _table(body: str) -> ElementTree.Element:
    """The Source panel's table, parsed (its HTML is well-formed: every text escaped)."""
    start = body.index("<table class='rag-source-table'")
    return ElementTree.fromstring(body[start:body.index("</table>", start) + len("</table>")])


def _asked(table: ElementTree.Element) -> list[ElementTree.Element]:
    """The cells marked as the one the question asks for."""
    return [cell for cell in table.iter("td") if "asked" in cell.get("class", "").split()]


def _texts(row: ElementTree.Element) -> list[str]:
    return ["".join(cell.itertext()) for cell in row]


def test_a_sheets_cited_row_is_drawn_under_its_real_header_with_the_asked_cell_framed(logic_engine):
    trace, body = _source(logic_engine, [("crew.xlsx", _xlsx(CREW))], "When did Tomas Veld retire?")
    assert trace.answer.status == "answered", trace.explanation
    table = _table(body)
    assert _texts(table.find("thead/tr")) == ["line", "name", "role", "age", "active", "joined", "retired"]
    (cited,) = table.findall("tbody/tr[@class='cited verified']")
    assert _texts(cited)[1:] == ["Tomas <b>Veld</b>", "diver", "58", "FALSE", "1987-06-15", "2015-04-09"]
    assert _texts(cited)[0].startswith("✓")
    (asked,) = _asked(table)
    assert asked.text == "2015-04-09" and asked.get("aria-label") == "the cell asked for: 2015-04-09"
    assert asked in list(cited)
    assert [th.text for th in table.findall("thead/tr/th[@class='asked']")] == ["retired"]
    assert len(table.findall("tbody/tr")) == 3  # the other rows, unmarked
    assert "<b>Veld</b>" not in body and "&lt;b&gt;Veld&lt;/b&gt;" in body
    assert "class='rag-scroll'" in body  # the document's lines stay below, as the check read them


def test_a_csv_row_is_drawn_with_the_column_the_question_names_framed(logic_engine):
    csv = (b"airline,incidents 1985-1999,fatalities 1985-1999,incidents 2000-2014,fatalities 2000-2014\n"
           b"Nordic Wings,12,79,6,41\nBlue Gull Air,20,210,9,337\nSouthwind,7,0,3,0\n")
    trace, body = _source(logic_engine, [("airline-safety.csv", csv)],
                          "How many fatalities did Blue Gull Air have in 2000-2014?")
    assert trace.answer.status == "answered", trace.explanation
    table = _table(body)
    (asked,) = _asked(table)
    assert asked.text == "337"
    (cited,) = table.findall("tbody/tr[@class='cited verified']")
    assert _texts(cited)[1] == "Blue Gull Air" and asked in list(cited)


def test_only_the_rows_around_a_cited_row_of_a_long_table_are_drawn(logic_engine):
    rows = "".join(f"Boat {n},{n * 3},{2000 + n % 20}\n" for n in range(1, 201))
    csv = ("boat,dues per day,built\n" + rows).encode()
    proposal = Proposal(answer="Boat 100 pays 300 per day. [dues:101]",
                        citations=[ProposedCitation(source_id="dues", start_line=101, end_line=101)])
    _, body = _source(logic_engine, [("dues.csv", csv)], "What are Boat 100's dues per day?", proposal)
    table = _table(body)
    lines = [int(row.get("data-line")) for row in table.findall("tbody/tr[@data-line]")]
    assert lines == list(range(91, 112))  # ten rows either side of the cited one
    gaps = [_texts(row)[0] for row in table.findall("tbody/tr[@class='gap']")]
    assert gaps == ["… 89 more rows above", "… 90 more rows below"]


def test_a_markdown_table_row_is_drawn_under_its_header(logic_engine):
    text = ("---\nid: tides\n---\nTide table for the north pier.\n\n| day | high water | low water |\n|---|---|---|\n"
            "| Monday | 06:10 | 12:25 |\n| Tuesday | 06:55 | 13:10 |\n")
    trace, body = _source(logic_engine, [("tides.md", text.encode())], "When is high water on Tuesday?")
    assert trace.answer.status == "answered", trace.explanation
    table = _table(body)
    assert _texts(table.find("thead/tr")) == ["line", "day", "high water", "low water"]
    (asked,) = _asked(table)
    assert asked.text == "06:55"


def test_a_cited_sentence_draws_no_table(logic_engine):
    text = b"---\nid: harbour\n---\nHarbour rules.\nThe harbour pass costs 42 euros per month.\n"
    proposal = Proposal(answer="The harbour pass costs 42 euros per month. [harbour:2]",
                        citations=[ProposedCitation(source_id="harbour", start_line=2, end_line=2)])
    trace, body = _source(logic_engine, [("harbour.md", text)], "How much is the harbour pass?", proposal)
    assert trace.answer.status == "answered", trace.explanation
    assert "rag-source-table" not in body and "class='rag-scroll'" in body


def test_a_pdf_tables_cited_row_is_drawn_under_the_page_with_the_asked_cell_framed(logic_engine):
    """A table the PDF parser recorded (a ruled financial statement): the page image, and under it the table with the
    cited row and the asked cell marked, as for a spreadsheet."""
    from tests.ingest.test_pdf_tables import financial_table

    data = financial_table()
    corpus = logic_engine.corpus([logic_engine.parse(data, "income.pdf")])
    trace = logic_engine.ask(corpus, Request(question="What was the net income in 2023?", date=dt.date(2026, 9, 14)))
    assert trace.answer.status == "answered", trace.explanation
    image, body, _ = source_view(trace, corpus.documents, lambda digest: data, "0")
    assert image is not None and body is not None  # the page as drawn, and the table under it
    table = _table(body)
    (asked,) = _asked(table)
    assert asked.text == "2,611"
    (cited,) = table.findall("tbody/tr[@class='cited verified']")
    assert _texts(cited)[1] == "Net income" and asked in list(cited)
