"""Word, HTML and spreadsheet tables read as tables, as a ruled PDF table is: the page records each table's header
rows (stacked ones combined per column: "2023 Spring"), its body rows and its column names, merged cells spread
so the columns line up; a cell question is answered from the row, cited and verified, with the row and column
named. And what an Office file says about itself (its core properties) is kept as the document's info. Every file
is written here with python-docx, openpyxl or as a plain HTML string."""

from __future__ import annotations

import datetime as dt
import io

import pytest

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.ingest.parsers import parse
from pipeline.text.tables import known_header
from tests.office_files import make_docx, make_html
from tests.decisions import decision

pytestmark = pytest.mark.unit

RAIN = (("North", "310", "420", "295", "388"), ("South", "120", "210", "141", "199"), ("Coast", "505", "610", "530", "644"))
COLUMNS = ("Region", "2023 Spring", "2023 Autumn", "2024 Spring", "2024 Autumn")
QUESTION = "How much rain fell on the Coast in autumn 2024?"


def stacked_docx(mark_header: bool = False) -> bytes:
    """A Word table under a caption: "Region" merged down two header rows, "2023" and "2024" each merged across two
    columns over "Spring  Autumn"; `mark_header`: both header rows marked as repeating (w:tblHeader)."""
    import docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = docx.Document()
    properties = document.core_properties
    properties.title, properties.author = "Rainfall report", "Weather office"
    properties.created, properties.modified = dt.datetime(2024, 3, 1, 10, 15), dt.datetime(2024, 4, 2, 8, 0)
    document.add_paragraph("Table 3 gives the rainfall by region in millimetres.")
    table = document.add_table(rows=2 + len(RAIN), cols=5)
    table.cell(0, 0).merge(table.cell(1, 0)).text = "Region"
    table.cell(0, 1).merge(table.cell(0, 2)).text = "2023"
    table.cell(0, 3).merge(table.cell(0, 4)).text = "2024"
    for column, season in enumerate(("Spring", "Autumn", "Spring", "Autumn"), start=1):
        table.cell(1, column).text = season
    for r, row in enumerate(RAIN, start=2):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    if mark_header:
        for row in table.rows[:2]:
            row._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
            assert row._tr.trPr.find(qn("w:tblHeader")) is not None
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def stacked_html() -> bytes:
    head = ('<thead><tr><th rowspan="2">Region</th><th colspan="2">2023</th><th colspan="2">2024</th></tr>'
            '<tr><th>Spring</th><th>Autumn</th><th>Spring</th><th>Autumn</th></tr></thead>')
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in RAIN)
    # a cell spanning two body rows is repeated in both, and the cells after it keep their columns
    merged = ('<table><thead><tr><th>Season</th><th>Month</th><th>Office hours</th></tr></thead><tbody>'
              '<tr><td rowspan="2">Summer</td><td>July</td><td>8 to 20</td></tr>'
              '<tr><td>August</td><td>9 to 18</td></tr></tbody></table>')
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Rainfall</title></head><body>'
            f'<p>Table 3 gives the rainfall by region in millimetres.</p><table>{head}<tbody>{body}</tbody></table>'
            f'{merged}</body></html>').encode()


def stacked_xlsx() -> bytes:
    """A sheet: a title row, "Region" merged down two header rows, "2023" and "2024" merged across two columns."""
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.properties.title, workbook.properties.creator = "Rainfall workbook", "Weather office"
    sheet = workbook.active
    sheet.title = "Rain"
    sheet.append(["Rainfall by region (mm)"])
    sheet.append(["Region", "2023", None, "2024", None])
    sheet.append([None, "Spring", "Autumn", "Spring", "Autumn"])
    for row in RAIN:
        sheet.append([row[0], *(int(value) for value in row[1:])])
    for cells in ("A2:A3", "B2:C2", "D2:E2"):
        sheet.merge_cells(cells)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def line_of(page, first_cell: str) -> int:
    return next(line.number for line in page.lines if line.text.split("\t")[0] == first_cell)


@pytest.mark.parametrize("make, name", [(stacked_docx, "rain.docx"), (lambda: stacked_docx(mark_header=True), "rain.docx"),
                                        (stacked_html, "rain.html"), (stacked_xlsx, "rain.xlsx")])
def test_a_stacked_header_is_combined_per_column_and_named_on_every_row(make, name):
    page = parse(make(), name).pages[0]
    table = page.table_of(line_of(page, "North"))
    assert table is not None and table.columns == COLUMNS
    assert [page.lines[n - 1].text for n in table.header] == ["Region\t2023\t\t2024",  # merged: once, in place
                                                               "Region\tSpring\tAutumn\tSpring\tAutumn"]
    assert [page.lines[n - 1].text for n in table.rows] == ["\t".join(row) for row in RAIN]  # merged cells spread
    assert known_header(page, line_of(page, "Coast")) == "\t".join(COLUMNS)
    assert "Table 3 gives" not in known_header(page, line_of(page, "Coast"))


def test_a_cell_spanning_body_rows_is_repeated_and_the_columns_after_it_line_up():
    page = parse(stacked_html(), "rain.html").pages[0]
    rows = [line.text for line in page.lines if line.text.startswith("Summer")]
    assert rows == ["Summer\tJuly\t8 to 20", "Summer\tAugust\t9 to 18"]
    table = page.table_of(line_of(page, "Summer"))
    assert table.columns == ("Season", "Month", "Office hours") and len(table.rows) == 2  # wordy rows stay data


def test_a_word_table_marked_as_repeating_header_keeps_wordy_rows_as_data():
    import docx
    from docx.oxml import OxmlElement

    document = docx.Document()
    table = document.add_table(rows=3, cols=3)
    for r, row in enumerate((("Column", "Type", "Meaning"), ("USAGE", "CHAR(1)", "How the row is used"),
                             ("OWNER", "VARCHAR", "Who owns the row"))):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    table.rows[0]._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))
    out = io.BytesIO()
    document.save(out)
    page = parse(out.getvalue(), "columns.docx").pages[0]
    (found,) = page.tables
    assert found.columns == ("Column", "Type", "Meaning") and len(found.header) == 1 and len(found.rows) == 2


def test_a_table_without_a_header_is_left_to_the_rows_as_text():
    page = parse(b"12,14,16\r\n18,20,22\r\n", "plain.csv").pages[0]
    assert page.tables == () and [line.text for line in page.lines] == ["12\t14\t16", "18\t20\t22"]


def test_office_core_properties_are_the_documents_info_never_its_metadata():
    document = parse(stacked_docx(), "rain.docx")
    info = document.info
    assert (info.title, info.author) == ("Rainfall report", "Weather office")
    assert info.created.startswith("2024-03-01T10:15") and info.modified.startswith("2024-04-02T08:00")
    assert document.meta.title == "Rainfall report"  # names the document when the upload gives no title
    assert document.meta.valid_from is None and document.meta.updated is None  # dates are shown, not trusted
    from ui.source import document_details

    assert any(line.startswith("Document info: ") and "author Weather office" in line
               for line in document_details(document))
    workbook = parse(stacked_xlsx(), "rain.xlsx", {"title": "Given title"})
    assert (workbook.info.title, workbook.info.author) == ("Rainfall workbook", "Weather office")
    assert workbook.meta.title == "Given title"  # the upload's title wins


@pytest.mark.parametrize("make, name", [(stacked_docx, "rain.docx"), (stacked_html, "rain.html"),
                                        (stacked_xlsx, "rain.xlsx")])
def test_a_cell_is_answered_from_its_row_named_by_row_and_column(logic_engine, make, name):
    document = logic_engine.parse(make(), name)
    trace = logic_engine.ask(logic_engine.corpus([document]), Request(question=QUESTION, date=REQUEST_DATE), Settings())
    assert trace.answer.status == "answered", trace.explanation
    (citation,) = trace.answer.citations
    coast = line_of(document.pages[0], "Coast")
    assert citation.verified and citation.start_line == citation.end_line == coast  # the row, not caption or header
    assert "644" in citation.quote.split("\t") and "644" in trace.answer.answer
    assert ("2024 Autumn", "644") in trace.proposal.row_cells and trace.proposal.asked_columns == ["2024 Autumn"]


def test_a_cell_merged_across_the_first_columns_does_not_make_the_row_under_it_a_header():
    page = parse(make_docx(), "harbour.docx").pages[0]
    season = page.table_of(line_of(page, "Season"))
    assert len(season.header) == 1 and season.columns == ("Season", "Season", "Office hours")
    assert [page.lines[n - 1].text for n in season.rows] == ["Summer\tJune to August\t8 to 20", "Summer\tSeptember\t9 to 18"]


@pytest.mark.parametrize("make, name", [(make_docx, "dues.docx"), (make_html, "dues.html")])
def test_a_which_most_question_compares_the_rows_of_a_recorded_table_however_wordy(logic_engine, make, name):
    """Rows of words and figures ("Yacht  over 10 m  30 euros") read as header rows by their words alone; the
    recorded table says they are its rows, so the comparison runs over them."""
    document = logic_engine.parse(make(), name)
    trace = logic_engine.ask(logic_engine.corpus([document]),
                             Request(question="Which boat has the highest dues per day?", date=REQUEST_DATE), Settings())
    assert trace.answer.status == "answered", trace.explanation
    (citation,) = trace.answer.citations
    assert citation.verified and citation.start_line == line_of(document.pages[0], "Yacht")
    compared = decision(trace.proposal, "compared").facts
    assert (compared["row"], compared["most"], compared["column"], compared["value"]) == ("Yacht", "highest", "Dues per day", "30 euros")


def test_notes_above_a_sheets_table_are_paragraphs_and_the_header_is_the_row_over_its_values():
    """A sheet with a title and a two-cell note above its table: the header is the row right above the first rows of
    values, not the first row of several cells (the note was the header of "Carrie Fisher actor 60 TRUE …")."""
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for row in (["Deaths of 2016"], ["I simply cannot resist writing", "some notes"], [],
                ["name", "occupation", "age", "alive", "born", "died"],
                ["Carrie Fisher", "actor", 60, True, "1956-10-21", "2016-12-27"],
                ["David Bowie", "musician", 69, False, "1947-01-08", "2016-01-10"]):
        sheet.append(row)
    out = io.BytesIO()
    workbook.save(out)
    page = parse(out.getvalue(), "deaths.xlsx").pages[0]
    (table,) = page.tables
    assert table.columns == ("name", "occupation", "age", "alive", "born", "died")
    texts = [line.text for line in page.lines]
    assert "I simply cannot resist writing some notes" in texts
    assert [texts[n - 1] for n in table.rows][0].startswith("Carrie Fisher\tactor\t60")


def test_a_stacked_sheet_header_over_its_values_stays_the_header():
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    for row in (["Region", "2023", None, "2024", None], [None, "Spring", "Autumn", "Spring", "Autumn"],
                ["North", 310, 420, 295, 388], ["South", 120, 210, 141, 199]):
        sheet.append(row)
    sheet.merge_cells("B1:C1")
    sheet.merge_cells("D1:E1")
    sheet.merge_cells("A1:A2")
    out = io.BytesIO()
    workbook.save(out)
    (table,) = parse(out.getvalue(), "rain.xlsx").pages[0].tables
    assert table.columns == ("Region", "2023 Spring", "2023 Autumn", "2024 Spring", "2024 Autumn")
