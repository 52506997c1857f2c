"""A DOCX, an XLSX and an HTML page with a table, uploaded and asked end to end: the answer is a table cell, cited
with its row's line and verified; through the app, the upload is parsed in the worker processes and the Source
panel marks the cited row."""

from __future__ import annotations


import pytest

from pipeline import EngineConfig, Request, build_engine
from tests.conftest import REQUEST_DATE, upload_and_ask
from tests.office_files import make_docx, make_html, make_xlsx

pytestmark = pytest.mark.slow  # the real model; the app in a thread

QUESTION = "What are the harbour dues per day for a small boat?"


def row_line(document, first_cell: str) -> int:
    return next(line.number for line in document.pages[0].lines if line.text.split("\t")[0] == first_cell)


@pytest.fixture(scope="module")
def office_engine():
    return build_engine(EngineConfig(vector_store="memory"))


@pytest.mark.parametrize(("make", "name", "value"), [(make_docx, "dues.docx", "12 euros"),
                                                     (make_html, "dues.html", "12 euros"),
                                                     (make_xlsx, "dues.xlsx", "12")])
def test_a_table_cell_is_answered_with_its_row_cited(office_engine, make, name, value):
    document = office_engine.parse(make(), name, {"topic": "harbour"})
    trace = office_engine.ask(office_engine.corpus([document]),
                              Request(question=QUESTION, date=REQUEST_DATE, topic="harbour"))
    assert trace.answer.status == "answered", trace.explanation
    citation = trace.answer.citations[0]
    assert citation.verified and citation.start_line == citation.end_line == row_line(document, "Small boat")
    assert value in citation.quote and value in trace.answer.answer


def test_the_app_uploads_a_docx_answers_from_its_table_and_marks_the_row(office_engine, tmp_path):
    path = tmp_path / "harbour-dues.docx"
    path.write_bytes(make_docx())
    file_inputs, added, trace, shown = upload_and_ask(office_engine, path, "harbour", QUESTION)
    assert file_inputs and all({".docx", ".xlsx", ".html", ".epub", ".csv"} <= set(types) for types in file_inputs)
    assert added["errors"] == [] and added["added"][0]["kind"] == "docx"
    assert trace["answer"]["status"] == "answered", trace["explanation"]
    citation = trace["answer"]["citations"][0]
    row = row_line(office_engine.parse(make_docx(), "harbour-dues.docx"), "Small boat")
    assert (citation["source_id"], citation["start_line"], citation["verified"]) == ("harbour-dues", row, True)
    assert f'<div class="ln verified" data-line="{row}">' in shown  # the Source panel marks the cited row
    assert "12 euros" in shown
