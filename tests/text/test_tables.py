"""Long tables: a window of rows far down keeps its column names for search, packing and scoring,
and the composer runs from a sentence that names a thing to the next one that gives its value."""

from __future__ import annotations

from pipeline.core.contracts import PackedLine, PackedSource, Request, Settings
from pipeline.text.run_on import with_value
from pipeline.index.chunk import window_chunks
from pipeline.pack import pack
from pipeline.retrieve.selection import retrieve
from pipeline.text.tables import heading_above
from pipeline.text.units import units_of
from tests.conftest import REQUEST_DATE

HEADER = ["Harbour dues by vessel", "Vessel class\tBerth fee\tPilotage\tWaste levy"]
ROWS = [f"Class {chr(65 + i // 26)}{chr(65 + i % 26)}\t{100 + i},00\t{40 + i}\t{i % 7}" for i in range(120)]


def _table_document(engine):
    text = "\n".join(HEADER + ROWS) + "\n"
    return engine.parse(text.encode("utf-8"), "dues.txt")


def test_heading_above_finds_stacked_header_rows_and_stops_at_prose():
    lines = ["Title line", "Group\tA\tB", "Name\tLow\tHigh", "x\t1\t2", "y\t3\t4"]
    assert heading_above(lines, 4) == "Group\tA\tB\nName\tLow\tHigh"
    assert heading_above(lines, 2) == ""  # a header row has no heading of its own
    assert heading_above(lines, 0) == ""  # prose is not a table row
    assert heading_above(["a\t1\t2", "b\t3\t4"], 1) == ""  # rows with no header above


def test_a_window_far_down_a_table_is_indexed_with_the_header_it_lacks(engine):
    document = _table_document(engine)
    windows = window_chunks(document)
    assert len(windows) > 3
    far = windows[-1]
    assert HEADER[1] not in far.text and far.heading == HEADER[1]
    assert far.search_text.startswith(HEADER[1]) and far.search_text.endswith(far.text)
    # No window starts inside a row: each begins at a line start.
    assert all(document.pages[0].text[w.start - 1] == "\n" for w in windows[1:])


def test_a_question_naming_a_column_finds_and_packs_a_far_row_with_its_header(engine):
    corpus = engine.corpus([_table_document(engine)])
    request = Request(question="What is the waste levy for vessel class Class DP?", date=REQUEST_DATE)
    retrieval = retrieve(corpus, request, Settings())
    top = retrieval.selected[0]
    assert "Class DP\t" in top.text and "Waste levy" not in top.text
    context = pack(retrieval.selected, corpus.documents, request, Settings(), retrieval.term_weights)
    source = context.sources[0]
    assert source.heading == HEADER[1] and '"table_header"' in context.text
    rows = [u for u in units_of(source) if u.kind == "row"]
    assert rows and all(u.header == HEADER[1] for u in rows)


def _source(lines):
    return PackedSource(
        n=1, source_id="meals", version=None, page=None, start_line=1, end_line=len(lines), support_span=False,
        dated="", sibling_group="", lines=tuple(PackedLine(number=i + 1, text=t) for i, t in enumerate(lines)),
    )


def test_a_naming_sentence_runs_to_the_next_sentence_with_the_value():
    source = _source([
        "Travellers on a business trip receive a daily meal allowance.",
        "It is paid with the salary of the following month.",
        "The allowance is 180 yuan per day in large cities.",
    ])
    naming = units_of(source)[0]
    extended = with_value(naming, "What is the daily meal allowance?")
    assert (extended.start_line, extended.end_line) == (1, 3)
    assert extended.quote == "\n".join(line.text for line in source.lines)
    # Not for a question that wants no value, and not past the neighbours.
    assert with_value(naming, "Who receives a meal allowance?") is naming
    far = _source([source.lines[0].text, "One.", "Two.", "The allowance is 180 yuan."])
    assert with_value(units_of(far)[0], "What is the daily meal allowance?").end_line == 1


def test_heading_above_walks_over_cell_text_wrapped_between_rows_but_not_over_prose():
    header = ["No.\tDate\tAmount", "START\tEND"]  # a lower header row may have two cells
    rows = ["D1\t01/02\t5.00", "AIRFARE FOR A SMITH", "TO DENVER", "D2\t01/03\t7.00", "AIRFARE FOR B JONES"]
    lines = header + rows
    assert heading_above(lines, 5) == "\n".join(header)  # over two wrapped lines
    assert heading_above(lines, 3) == "\n".join(header)  # a window opening on wrapped text: the row below decides
    assert heading_above(lines, 6) == ""  # wrapped text with no row below it
    prose = header + ["D1\t01/02\t5.00", "A paragraph of prose", "that runs over", "three lines.", "D2\t01/03\t7.00"]
    assert heading_above(prose, 6) == ""  # more than two lines between rows: another table


def test_a_row_of_amounts_written_with_words_is_no_header():
    from pipeline.text.tables import is_header

    assert is_header("Action\tLabor cost\tParts cost\tCost per product\tCost on U.S. operators")
    # "Up to $3,790": a value, even with words around it (a cost table's row had been taken for a stacked header).
    assert not is_header("Stabilizer wiring change ....\tUp to 79 work-hours × $85 per hour =\tUp to $3,790 ...\t"
                         "Up to $10,505 ...\tUp to $766,865.")


WORDY = ["Boat\tLength\tDues per day", "---\t---\t---", "Dinghy\tunder 6 m\t8 euros", "Small boat\t6 to 10 m\t12 euros"]


def test_a_rule_marks_the_header_so_wordy_rows_below_it_are_data():
    from pipeline.text.tables import HeadingsAbove, is_table_rule

    assert is_table_rule("---\t---\t---") and not is_table_rule("Dinghy\tunder 6 m\t8 euros")
    marked = "Boat\tLength\tDues per day\n---\t---\t---"
    assert heading_above(WORDY, 3) == marked == HeadingsAbove(WORDY)(3) == HeadingsAbove(WORDY)(2)
    unmarked = [WORDY[0], *WORDY[2:]]  # without the rule, a row of words reads as another header row
    assert heading_above(unmarked, 2) == ""


def test_dashes_between_runs_of_tabs_ending_in_a_word_are_no_rule_and_are_refused_at_once():
    # A rule's pattern once tried every choice of which TAB in each run of TABs joined the dashes: exponential, so
    # this line of 200 characters never finished.
    from pipeline.text.tables import is_table_rule

    assert not is_table_rule(("---\t\t" * 40)[:199] + "x")
    assert is_table_rule("---\t\t---\t \t---") and is_table_rule("| --- | :---: |") and is_table_rule("------+--------+-----")
    assert not is_table_rule("---\t---\tx") and not is_table_rule("-----")


def test_row_units_under_a_rule_answer_with_the_header_even_when_packed_without_it():
    whole = units_of(PackedSource(
        n=1, source_id="doc", version=None, page=None, start_line=1, end_line=4, support_span=False, dated="",
        sibling_group="", lines=tuple(PackedLine(number=i + 1, text=t) for i, t in enumerate(WORDY))))
    rows = [u for u in whole if u.kind == "row" and not u.names_columns]
    assert [u.start_line for u in rows] == [3, 4] and all(u.header == WORDY[0] for u in rows)
    alone = units_of(PackedSource(
        n=1, source_id="doc", version=None, page=None, start_line=4, end_line=4, support_span=False, dated="",
        sibling_group="", lines=(PackedLine(number=4, text=WORDY[3]),), heading=heading_above(WORDY, 3)))
    assert [(u.kind, u.names_columns, u.header) for u in alone] == [("row", False, WORDY[0])]


def test_tabs_that_only_indent_a_line_make_no_table_row():
    # "\t\tgit://… master" continues a command and util-linux's "\t\t-h, --help  display usage" lists an option:
    # read as rows, they were cited under a header of unrelated lines far above.
    from pipeline.text.tables import is_table_row

    assert not is_table_row("\t\tgit://github.com/apenwarr/git-subtree.git master")
    assert not is_table_row("\t\t\t The \"Artistic License\"")
    assert is_table_row("\tQ1\tQ2")  # a header row whose first cell is empty
    assert is_table_row("Dinghy\tunder 6 m\t8 euros")
    lines = ["A short list of examples:", "", "\t\tUsing a number as an option. See '-<number>' in 'more'."]
    units = units_of(PackedSource(
        n=1, source_id="doc", version=None, page=None, start_line=1, end_line=3, support_span=False, dated="",
        sibling_group="", lines=tuple(PackedLine(number=i + 1, text=t) for i, t in enumerate(lines))))
    assert [u.kind for u in units if u.start_line == 3] == ["sentence", "sentence"]


def test_a_row_is_read_cell_by_cell_under_its_column_names():
    """What the reader reads of a row: each value beside the column that says what it is ("79 and 337" alone leaves
    the reader, as it left a person, to guess which is which)."""
    from types import SimpleNamespace

    from pipeline.text.tables import row_read

    row = SimpleNamespace(quote="Air France\t14\t79\t337", header="Airline\tincidents_00_14\tfatal_accidents\tfatalities_00_14")
    assert row_read(row) == "Airline: Air France; incidents_00_14: 14; fatal_accidents: 79; fatalities_00_14: 337"
    markdown = SimpleNamespace(quote="| Power | 2200 W |", header="| Name | Value |\n| --- | --- |")
    assert row_read(markdown) == "Name: Power; Value: 2200 W"
    unaligned = SimpleNamespace(quote="a\tb\tc\td", header="x\ty")
    assert row_read(unaligned) == "x | y\na | b | c | d"  # the header above the row when the cells do not line up
    assert row_read(SimpleNamespace(quote="| a | b |", header="")) == "a | b"
