"""A page's lines kept by column (`LineTable`): read back as the same `Line`s, equal to and serialised as the tuple of
them, pickled by column, and refused by the server when a worker's columns do not fit together."""

from __future__ import annotations

import pickle
from array import array

import pytest

from pipeline.core.contracts import Box, Document, DocumentMeta, Line, LineTable, Page, WordBoxes
from pipeline.engine.sandbox import _load

LINES = (
    Line(number=1, start=0, end=11, text="Lodging 750", box=Box(x0=10.0, y0=20.0, x1=90.5, y1=31.25),
         words=WordBoxes([(0, 7, 10.0, 20.0, 50.0, 31.25), (8, 11, 55.0, 20.0, 90.5, 31.25)])),
    Line(number=2, start=12, end=12, text=""),  # no box, no words
    Line(number=3, start=13, end=19, text="Meals!", box=Box(x0=10.0, y0=40.0, x1=40.0, y1=51.0),
         words=WordBoxes([(13, 19, 10.0, 40.0, 40.0, 51.0)])),
)


def _document(lines) -> Document:
    page = Page(number=1, text="Lodging 750\n\nMeals!", lines=lines, width=200.0, height=300.0)
    return Document(meta=DocumentMeta(source_id="policy"), filename="policy.pdf", digest="0" * 64, kind="pdf",
                    pages=(page,))


def test_lines_read_back_as_given():
    table = LineTable(LINES)
    assert len(table) == 3 and list(table) == list(LINES) and table[-1] == LINES[2] and table[1:] == LINES[1:]
    assert table[1].box is None and len(table[1].words) == 0 and table[0].words == LINES[0].words
    assert table == LINES and table == LineTable(LINES) and hash(table) == hash(LineTable(LINES))
    with pytest.raises(IndexError):
        table[3]


def test_a_page_keeps_its_lines_by_column_and_round_trips_through_json_and_pickle():
    document = _document(LINES)
    assert isinstance(document.pages[0].lines, LineTable)
    assert Document.model_validate_json(document.model_dump_json()) == document
    assert document.model_dump()["pages"][0]["lines"][0]["box"] == {"x0": 10.0, "y0": 20.0, "x1": 90.5, "y1": 31.25}
    assert pickle.loads(pickle.dumps(document)) == document
    assert _load(pickle.dumps(("ok", 1, pickle.dumps(document)))) is not None  # the server's guarded unpickler


def test_the_server_refuses_columns_that_do_not_fit_together():
    table = LineTable(LINES)
    forged = LineTable._from_columns.__func__  # what a worker's pickle would call
    with pytest.raises(ValueError, match="do not fit"):
        forged(LineTable, table._numbers, table._spans, table._texts, table._boxes, array("q", [5, 12, 18]),
               table._words)  # the first line's words end inside a word
    with pytest.raises(ValueError, match="do not fit"):
        forged(LineTable, table._numbers, table._spans, table._texts[:2], table._boxes, table._word_ends, table._words)
