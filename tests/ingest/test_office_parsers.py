"""DOCX, HTML, EPUB, XLSX and CSV files, made by the tests, read into addressable lines: a paragraph, heading, list
item or table row is one line; a table's header row comes first and the table machinery attaches it to each row;
bad files (corrupt, encrypted, empty, too large, a ZIP bomb, another type under the name) are refused in one line."""

from __future__ import annotations

import datetime as dt
import io
import time
import zipfile

import pytest

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.core.errors import InputError
from pipeline.core.limits import PdfLimits
from pipeline.ingest.parsers import choose_parser, parse, registered_parsers
from pipeline.ingest.parsers import sheets as sheets_module
from pipeline.ingest.parsers.zipped import MAX_UNPACKED_BYTES
from pipeline.text.tables import fields, is_table_row, known_header
from tests.office_files import HEADER, INTRO, ITEMS, ROWS, STEPS, make_csv, make_docx, make_epub, make_html, make_xlsx, zip_bomb


def texts(document) -> list[str]:
    return [line.text for line in document.pages[0].lines]


def row_index(lines: list[str], first_cell: str) -> int:
    return next(i for i, text in enumerate(lines) if text.split("\t")[0] == first_cell)


def assert_rows_under_their_header(document, header=HEADER, rows=ROWS) -> None:
    """Every row is one TAB-separated line, read as a table row, and the page records its table: the header row's
    line as the header, the row's line as a body row (data, however wordy), the header's cells as column names."""
    page, lines = document.pages[0], texts(document)
    for row in rows:
        index = row_index(lines, row[0])
        assert is_table_row(lines[index]) and fields(lines[index]) == list(row)
        table = page.table_of(index + 1)
        assert table is not None and index + 1 in table.rows
        assert [fields(lines[number - 1]) for number in table.header] == [list(header)]
        assert known_header(page, index + 1) == "\t".join(header)


# --------------------------------------------------------------------------- each type's lines


def test_a_docx_keeps_headings_lists_and_table_rows_under_their_header():
    document = parse(make_docx(), "harbour.docx")
    lines = texts(document)
    assert (document.kind, document.meta.title, document.paged) == ("docx", "Harbour dues", False)
    assert lines[0] == "# Harbour dues" and "## Dues by boat" in lines and INTRO in lines
    assert [f"- {item}" for item in ITEMS] == [line for line in lines if line.startswith("- ")]
    assert [f"{n}. {step}" for n, step in enumerate(STEPS, 1)] == [line for line in lines if line[:1].isdigit()]
    assert_rows_under_their_header(document)
    assert "Season\t\tOffice hours" in lines  # a cell merged across two columns: once, the column kept
    assert "Summer\tJune to August\t8 to 20" in lines and "Summer\tSeptember\t9 to 18" in lines  # down: repeated


def test_upload_metadata_wins_over_the_files_own_title():
    document = parse(make_docx(), "harbour.docx", {"title": "Dues 2026", "version": "v2"})
    assert (document.meta.title, document.meta.version) == ("Dues 2026", "v2")


def test_an_html_page_keeps_its_list_and_table_and_drops_scripts_and_navigation():
    document = parse(make_html(), "harbour.html")
    lines = texts(document)
    assert (document.kind, document.meta.title) == ("html", "Harbour dues")
    assert lines[0] == "# Harbour dues" and INTRO in lines and [f"- {i}" for i in ITEMS] == lines[3:5]
    assert not any("notText" in line or line == "Home" for line in lines)
    assert_rows_under_their_header(document)


def test_html_spans_nested_lists_line_breaks_and_declared_encodings():
    page = ('<html><head><meta charset="windows-1252"></head><body><p>Caf\xe9 rules<br>second line</p>'
            '<ol start="3"><li>Three<ul><li>inner</li></ul></li><li>Four</li></ol>'
            '<table><tr><th colspan="2">Dates</th><th>Fee</th></tr><tr><th>Start</th><th>End</th><th></th></tr>'
            '<tr><td rowspan="2">May</td><td>June</td><td>40</td></tr><tr><td>July</td><td>45</td></tr></table>'
            '<table><tr><td><h2>Layout</h2><p>Column text.</p></td></tr></table></body></html>').encode("cp1252")
    lines = texts(parse(page, "page.htm"))
    assert lines[:2] == ["Café rules", "second line"]  # a <br> breaks the line, not the paragraph
    assert ["3. Three", "  - inner", "4. Four"] == [line for line in lines if line.strip() and line.lstrip()[0] in "-34"][:3]
    assert "Dates\t\tFee" in lines and "May\tJune\t40" in lines and "May\tJuly\t45" in lines
    assert "## Layout" in lines and "Column text." in lines  # a layout table is read as its blocks


def test_a_definition_lists_description_sits_under_its_term_and_answers_what_the_term_does(engine):
    # bzip2's HTML manual lists its options as <dt>/<dd>; written as two paragraphs, "-k --keep" was a sentence of its
    # own and "What does the -k option do?" abstained.
    page = (b"<html><body><p>The options are:</p><dl>"
            b"<dt><span class='term'><code>-k --keep</code></span></dt>\n<dd><p>Keep (don't delete) input files during"
            b"\n compression or decompression.</p></dd><dt><code>-s --small</code></dt><dd>\n<p>Reduce memory usage.</p>"
            b"<p>Files are decompressed more slowly.</p></dd></dl><p>After the list.</p></body></html>")
    lines = texts(parse(page, "options.html"))
    assert lines[lines.index("-k --keep") + 1] == "    Keep (don't delete) input files during compression or decompression."
    assert lines[lines.index("-s --small") + 1] == "    Reduce memory usage."
    assert lines[-1] == "After the list." and "Files are decompressed more slowly." in lines
    corpus = engine.corpus([engine.parse(page, "options.html")])
    trace = engine.ask(corpus, Request(question="What does the -k option do?", date=REQUEST_DATE), Settings())
    assert trace.answer.status == "answered", trace.explanation
    assert trace.answer.citations[0].quote == "-k --keep\n    Keep (don't delete) input files during compression or decompression."


def test_a_list_item_holding_paragraphs_and_a_listing_keeps_them_as_the_items_own_lines(engine):
    # A FAQ or a how-to writes an <li> as a question or a step over paragraphs and commands; read as one line, the
    # question, its answer and the commands ran together ("3. Is there C++ bindings ? Yes for example xmlwrapp").
    page = ("<html><body><h1>Viewer FAQ<a class='headerlink' href='#viewer-faq'>¶</a></h1><ol>".encode()
            + b"<li><em>Is there a Windows build of the viewer ?</em><p>Yes, the download page offers an installer.</p>"
            b"<p>The installer needs Windows 10 or later and 200 MB of free disk space.</p></li>"
            b"<li><p>How do I remove the old signature on macOS ?</p><pre><code>codesign --remove-signature viewer"
            b"</code><button>copy</button></pre><p>Then sign the binary again with your own certificate.</p></li>"
            b"<li><p>Tight item</p></li></ol><p>After the list.</p></body></html>")
    lines = texts(parse(page, "faq.html"))
    assert lines[0] == "# Viewer FAQ"  # a heading's permalink sign is not its text
    question = lines.index("1. Is there a Windows build of the viewer ?")
    assert lines[question + 1:question + 5] == ["", "   Yes, the download page offers an installer.", "",
                                                 "   The installer needs Windows 10 or later and 200 MB of free disk space."]
    step = lines.index("2. How do I remove the old signature on macOS ?")
    assert lines[step + 1:step + 5] == ["", "   codesign --remove-signature viewer", "",
                                         "   Then sign the binary again with your own certificate."]
    assert "3. Tight item" in lines and lines[-1] == "After the list."
    corpus = engine.corpus([engine.parse(page, "faq.html")])
    for question, said in (("How much disk space does the installer need?", "200 MB"),
                           ("How do I remove the old signature on macOS?", "codesign --remove-signature viewer")):
        trace = engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings())
        assert trace.answer.status == "answered", trace.explanation
        assert said in trace.answer.answer and all(c.verified for c in trace.answer.citations), trace.answer.answer


def test_an_epub_reads_its_chapters_in_spine_order_with_the_books_title():
    document = parse(make_epub(), "harbour.epub")
    lines = texts(document)
    assert (document.kind, document.meta.title) == ("epub", "Harbour book")
    assert lines.index("# Arrival") < lines.index("# Dues") and INTRO in lines
    assert_rows_under_their_header(document)


def test_an_xlsx_has_a_heading_per_sheet_and_values_as_a_person_reads_them():
    document = parse(make_xlsx(), "dues.xlsx")
    lines = texts(document)
    assert (document.kind, document.meta.title) == ("xlsx", "Harbour dues")
    assert lines[0] == "# Dues" and "# Notes" in lines and INTRO in lines
    header = ("Boat", "Dues per day (euros)", "Discount", "Valid from")
    assert_rows_under_their_header(document, header, [("Small boat", "12", "15%", "2026-01-01"),
                                                   ("Yacht", "30.5", "0%", "2026-03-01")])


def test_a_csv_or_tsv_is_one_line_per_row_whatever_its_delimiter():
    for data, name in ((make_csv(), "dues.csv"), (make_csv(delimiter=";"), "dues.csv"),
                       (make_csv(delimiter="\t"), "dues.tsv")):
        document = parse(data, name)
        assert document.kind == "csv"
        assert_rows_under_their_header(document)
    quoted = b'Boat,Note,Dues\r\nDinghy,"two\r\nlines, one cell",8\r\n'
    assert texts(parse(quoted, "q.csv"))[-1] == "Dinghy\ttwo lines, one cell\t8"


def test_a_two_column_table_row_is_still_a_row():
    lines = texts(parse(make_csv([("Dinghy", "8 euros")], delimiter=",").replace(b"Length,", b""), "two.csv"))
    assert lines[-1].rstrip("\t") == "Dinghy\t8 euros" and is_table_row(lines[-1])


# --------------------------------------------------------------------------- choosing the parser


@pytest.mark.parametrize(("make", "kind"), [(make_docx, "docx"), (make_xlsx, "xlsx"), (make_epub, "epub")])
def test_a_zip_based_type_is_chosen_by_its_contents(make, kind):
    parsers = registered_parsers()
    data = make()
    assert choose_parser(parsers, data, f"file.{kind}").name == kind
    assert choose_parser(parsers, data, "no-suffix").name == kind
    other = "xlsx" if kind != "xlsx" else "docx"
    with pytest.raises(InputError, match=f"this is a {kind.upper()} file with a {other} extension"):
        choose_parser(parsers, data, f"file.{other}")


def test_text_under_a_name_without_a_known_suffix_is_read_as_text_and_binary_is_refused():
    """A licence named "LGPL-2.1" or a "COPYING" file is text; a name is a label, the bytes decide."""
    parsers = registered_parsers()
    licence = "GNU LESSER GENERAL PUBLIC LICENSE\n\nVersion 2.1, February 1999 — ünïcode\n".encode()
    for name in ("LGPL-2.1", "COPYING", "notes.log"):
        assert choose_parser(parsers, licence, name).name == "text"
    assert parse(licence, "LGPL-2.1").pages[0].lines[0].text == "GNU LESSER GENERAL PUBLIC LICENSE"
    # Cut inside a character at the 64 KB edge it still reads as text; a NUL or a bad byte early on does not.
    assert choose_parser(parsers, b"a" * 65535 + "é".encode(), "LOG").name == "text"
    for binary in (b"\x7fELF\x02\x01\x00\x00", b"text then \xff\xfe bad bytes", b""):
        with pytest.raises(InputError, match="unsupported file type"):
            choose_parser(parsers, binary, "program.bin")


def test_the_upload_types_come_from_the_registry():
    from pipeline import EngineConfig, build_engine
    from tests.fakes import HashedWordsTestEmbedder

    engine = build_engine(EngineConfig(vector_store="memory"), embedder=HashedWordsTestEmbedder())
    assert {".docx", ".html", ".htm", ".epub", ".xlsx", ".csv", ".tsv"} <= set(engine.upload_suffixes)


# --------------------------------------------------------------------------- bad files


def _refusal(data: bytes, name: str, limits=None) -> str:
    with pytest.raises(InputError) as refused:
        parse(data, name, pdf_limits=limits)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(name)
    return message


@pytest.mark.parametrize("name", ["bad.docx", "bad.xlsx", "bad.epub"])
def test_corrupt_empty_and_foreign_zips_are_refused_in_one_line(name):
    good = {"bad.docx": make_docx, "bad.xlsx": make_xlsx, "bad.epub": make_epub}[name]()
    assert "is corrupt" in _refusal(good[: len(good) // 2], name)
    assert "empty file" in _refusal(b"", name)
    assert "not a ZIP archive" in _refusal(b"just some text", name)
    other = io.BytesIO()
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("photo.jpg", b"\xff\xd8\xff")
    assert "a ZIP archive of another kind" in _refusal(other.getvalue(), name)


def test_a_zip_bomb_is_refused_from_its_directory_before_anything_is_inflated():
    bomb = zip_bomb("word/document.xml", 2 * MAX_UNPACKED_BYTES)
    assert len(bomb) < MAX_UNPACKED_BYTES // 200
    started = time.perf_counter()
    message = _refusal(bomb, "bomb.docx")
    assert "unpacks to" in message and "ZIP bomb" in message
    assert time.perf_counter() - started < 1.0  # nothing was inflated (inflating it takes seconds)


def test_encrypted_and_old_office_files_are_named_as_such():
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504
    assert "password-protected" in _refusal(ole + "EncryptionInfo".encode("utf-16-le"), "secret.docx")
    assert "old binary Office file" in _refusal(ole, "old.xlsx")
    plain = io.BytesIO()
    with zipfile.ZipFile(plain, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    locked = bytearray(plain.getvalue())  # the member says it is encrypted (zipfile writes no such flag itself)
    locked[6] |= 0x1
    locked[locked.index(b"PK\x01\x02") + 8] |= 0x1
    assert "password-protected" in _refusal(bytes(locked), "locked.docx")


def test_a_drm_protected_epub_is_refused():
    data = io.BytesIO(make_epub())
    with zipfile.ZipFile(data, "a") as archive:
        archive.writestr("META-INF/encryption.xml",
                         '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                         'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
                         '<enc:CipherReference URI="OEBPS/text/chapter 0.xhtml"/></enc:CipherData>'
                         '</enc:EncryptedData></encryption>')
    assert "DRM-protected" in _refusal(data.getvalue(), "locked.epub")


def test_too_large_and_too_many_lines_are_refused():
    assert "the limit is" in _refusal(make_html(), "big.html", PdfLimits(max_bytes=100))
    many = make_csv([(f"Boat {n}", f"{n} m", f"{n} euros") for n in range(50)])
    assert "the limit is 20 lines per document" in _refusal(many, "many.csv", PdfLimits(max_lines=20))
    assert "the limit is 20 per document" in _refusal(make_docx(paragraphs=30), "many.docx", PdfLimits(max_lines=20))


def test_a_sheet_is_bounded_by_its_columns_and_cells(monkeypatch):
    wide = make_xlsx([["x"] * (sheets_module.MAX_COLUMNS + 5)])
    assert f"the limit is {sheets_module.MAX_COLUMNS} columns" in _refusal(wide, "wide.xlsx")
    monkeypatch.setattr(sheets_module, "MAX_CELLS", 30)
    rows = [(f"Boat {n}", n, 0.1, dt.date(2026, 1, 1)) for n in range(20)]
    assert "more than 30 cells" in _refusal(make_xlsx(rows), "cells.xlsx")
    assert "more than 30 cells" in _refusal(make_csv([(f"B{n}", "1", "2") for n in range(20)]), "cells.csv")


def test_text_that_is_not_utf8_or_binary_is_refused():
    assert "CSV UTF-8" in _refusal("Boat;Dues\nJolle;8 €\n".encode("cp1252"), "latin.csv")
    assert "binary" in _refusal(b"\x00\x01\x02" * 100, "binary.html")
    assert "body is empty" in _refusal(b"<html><body><script>x()</script></body></html>", "empty.html")


def test_a_workbook_without_values_is_refused():
    import openpyxl

    out = io.BytesIO()
    openpyxl.Workbook().save(out)
    assert "hold no values" in _refusal(out.getvalue(), "empty.xlsx")
