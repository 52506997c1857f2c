"""The readers cost what a file's size allows (issue 50, finding 2): a tiny file held the one upload lane for
everyone. An 80 KB CSV built for `csv.Sniffer` took 23-42 s, a 2.5 KB EPUB whose spine lists one chapter 20,000
times ran 47 s to the CPU limit, and an XLSX of 9,990 one-cell sheets 57 s (the archive re-opened per sheet).

Nothing is timed here (`python -m pipeline bench office --worst` measures the cost against file size): the tests
check what makes each reader linear, and that each crafted file is read within a parsing worker's CPU limit set
far below what it took before."""

from __future__ import annotations

import csv
import zipfile

import pytest

from pipeline.core.errors import InputError
from pipeline.ingest.parsers import parse
from pipeline.ingest.parsers import sheets
from tests.costly_files import epub_repeating_one_chapter, sniffer_worst_csv, xlsx_of_sheets
from tests.office_files import make_csv


def lines(document) -> list[str]:
    return [line.text for line in document.pages[0].lines if line.text]


# --------------------------------------------------------------------------- CSV


def test_a_csv_delimiter_is_decided_by_counting_never_by_the_standard_sniffer(monkeypatch):
    class NoSniffer:
        def __init__(self, *args, **kwargs) -> None:
            raise AssertionError("csv.Sniffer runs quadratic patterns on untrusted text")

    monkeypatch.setattr(csv, "Sniffer", NoSniffer)
    for delimiter in (",", ";", "\t", "|"):
        document = parse(make_csv(delimiter=delimiter), "dues.csv")
        assert lines(document)[0] == "Boat\tLength\tDues per day"
    with pytest.raises(InputError, match="the limit is 100 columns"):  # the crafted file's own problem
        parse(sniffer_worst_csv(2000), "crafted.csv")


@pytest.mark.parametrize("text,expected", [
    ("a,b,c\n1,2,3\n", ","),
    ("a;b;c\n1;2,5;3\n4;5,5;6\n", ";"),  # decimal commas inside cells: the semicolon is on every row
    ('name|note\n"a|b"|c\n', "|"),  # a delimiter inside quotes is not counted
    ("one\ntwo\n", ","),  # a single column: any delimiter reads it
    ('x,"a;b;c;d;e;f"\ny,"g;h"\n', ","),
])
def test_the_delimiter_is_the_one_on_the_most_rows_outside_quotes(text, expected):
    assert sheets.delimiter_of(text) == expected


def test_the_delimiter_is_decided_on_a_bounded_prefix():
    """What lies past the prefix changes nothing, however large the file."""
    head = "Boat;Dues\n" + "Dinghy;8\n" * (sheets.SNIFF_CHARS // 9)
    assert sheets.delimiter_of(head + "a,b,c,d,e,f,g\n" * 100_000) == ";"


@pytest.mark.slow  # starts a parsing worker
def test_a_csv_built_for_the_sniffer_is_read_within_a_small_cpu_limit():
    """27,000 repeats (80 KB) took 23-42 s of CPU in csv.Sniffer; the worker here stops a task at 3 s. The file's
    own problem (a row of 27,001 cells) is what refuses it."""
    from pipeline.engine.sandbox import Sandbox

    sandbox = Sandbox(workers=1, cpu_s=3)
    try:
        with pytest.raises(InputError) as refused:
            sandbox.parse("csv", sniffer_worst_csv(), "crafted.csv")
    finally:
        sandbox.close()
    assert "the limit is 100 columns" in str(refused.value)


# --------------------------------------------------------------------------- EPUB


def test_an_epub_spine_listing_one_chapter_many_times_reads_it_once():
    document = parse(epub_repeating_one_chapter(20_000), "once.epub")
    assert lines(document) == ["The only chapter says boats keep 5 metres apart."]


# --------------------------------------------------------------------------- XLSX


def test_a_workbook_is_opened_once_not_once_per_sheet(monkeypatch):
    opened = []
    real = zipfile.ZipFile.__init__

    def counting(self, *args, **kwargs):
        opened.append(args[0] if args else kwargs.get("file"))
        real(self, *args, **kwargs)

    data = xlsx_of_sheets(300)
    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting)
    document = parse(data, "sheets.xlsx")
    assert "Sheet 300 says 300 boats" in lines(document)
    # A few: choosing the parser (each ZIP type reads the directory), the archive's check, openpyxl's; not 300 more.
    assert len(opened) < 10


@pytest.mark.slow  # starts a parsing worker and writes a 9,990-sheet workbook
def test_a_workbook_of_thousands_of_sheets_is_refused_from_its_workbook_part_at_once():
    """9,990 one-cell sheets took 57 s when each sheet re-opened the archive, and openpyxl alone still takes 3 s to
    open them: the sheets are counted first (a worker here stops a task at 3 s of CPU)."""
    from pipeline.engine.sandbox import Sandbox

    sandbox = Sandbox(workers=1, cpu_s=3)
    try:
        with pytest.raises(InputError) as refused:
            sandbox.parse("xlsx", xlsx_of_sheets(9990), "sheets.xlsx")
        document = sandbox.parse("xlsx", xlsx_of_sheets(500), "sheets.xlsx")  # the most a workbook may hold
    finally:
        sandbox.close()
    assert str(refused.value) == "sheets.xlsx: has 9,990 sheets; the limit is 500 per workbook"
    assert "Sheet 500 says 500 boats" in lines(document)
