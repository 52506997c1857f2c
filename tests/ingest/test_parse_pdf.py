"""parse_pdf on PDFs built here with known text at known places, the public eval PDFs, and bad PDFs."""

from __future__ import annotations

import re

import pymupdf
import pytest

from pipeline.core.errors import InputError
from pipeline.ingest.document import pages_without_text
from pipeline.ingest.parsers import parse
from pipeline.ingest.parsers.pdf_layout import CELL_SEPARATOR, PdfLimits, parse_pdf
from tests.conftest import SHARED, needs_public_pdfs

PDFS = SHARED / "eval" / "pdfs"


def make_pdf(pages: list[list[tuple[float, float, str]]], width: float = 612, height: float = 792,
             fontsize: float = 11) -> bytes:
    doc = pymupdf.open()
    for items in pages:
        page = doc.new_page(width=width, height=height)
        for x, y, text in items:
            page.insert_text((x, y), text, fontsize=fontsize)
    return doc.tobytes()


def assert_offsets_exact(document) -> None:
    for page in document.pages:
        assert page.text == "\n".join(line.text for line in page.lines)
        for number, line in enumerate(page.lines, start=1):
            assert line.number == number
            assert page.text[line.start:line.end] == line.text
            assert "\n" not in line.text and "  " not in line.text
            pieces = re.split(r"[ \t]", line.text)
            assert [page.text[w.start:w.end] for w in line.words] == pieces
            for word in line.words:
                assert line.start <= word.start < word.end <= line.end
                assert line.box.x0 <= word.box.x0 < word.box.x1 <= line.box.x1


# --------------------------------------------------------------------------- known layouts


def test_lines_offsets_and_boxes_are_exact():
    items = [(72, 100, "Alpha beta gamma"), (72, 120, "second line here"), (300, 200, "far right words")]
    document = parse_pdf(make_pdf([items]), "known.pdf")
    assert document.kind == "pdf" and document.filename == "known.pdf"
    assert document.source_id == "known"
    (page,) = document.pages
    assert page.number == 1 and (page.width, page.height) == (612, 792)
    assert [line.text for line in page.lines] == ["Alpha beta gamma", "second line here", "far right words"]
    assert page.text == "Alpha beta gamma\nsecond line here\nfar right words"
    assert [(line.start, line.end) for line in page.lines] == [(0, 16), (17, 33), (34, 49)]
    assert_offsets_exact(document)
    for (x, y, text), line in zip(items, page.lines):
        first = line.words[0].box
        # the insertion point (left end of the baseline) lies in the first word's box
        assert first.x0 == pytest.approx(x, abs=1.0)
        assert first.y0 < y - 2 < first.y1 and first.y1 < y + 5
        assert len(line.words) == len(text.split())
    # words are left to right, separated
    words = page.lines[0].words
    assert words[0].box.x1 < words[1].box.x0 < words[1].box.x1 < words[2].box.x0


def test_two_columns_read_column_by_column():
    left = [f"left column sentence part {i} of the story" for i in range(12)]
    right = [f"right column sentence part {i} of more text" for i in range(12)]
    items = [(72, 60, "A Title That Spans Both Of The Two Columns On This Page In Full Width Text")]
    items += [(72, 100 + 14 * i, text) for i, text in enumerate(left)]
    items += [(320, 100 + 14 * i, text) for i, text in enumerate(right)]
    document = parse_pdf(make_pdf([items]), "cols.pdf")
    texts = [line.text for line in document.pages[0].lines]
    assert texts == [items[0][2], *left, *right]
    assert_offsets_exact(document)


def test_uneven_columns_with_gaps_still_read_by_column():
    # Widely spaced lines leave horizontal gaps across both columns at every line, and the
    # left column runs longer: it must still be read to its end before the right column.
    left = [f"left column line number {i} goes on" for i in range(10)]
    right = [f"right column line number {i} goes on" for i in range(6)]
    items = [(72, 100 + 24 * i, t) for i, t in enumerate(left)] + [(330, 100 + 24 * i, t) for i, t in enumerate(right)]
    items.append((72, 700, "A closing paragraph that spans the whole width of the page at the bottom"))
    texts = [line.text for line in parse_pdf(make_pdf([items]), "uneven.pdf").pages[0].lines]
    assert texts == [*left, *right, items[-1][2]]


def test_table_rows_read_as_one_line_with_tab_separated_cells():
    rows = [("State", "Permit", "Handgun", "Total"), ("Alabama", "18,870", "23,022", "71,137"),
            ("New York", "2,906", "8,650", "36,421"), ("Guam", "0", "100", "171")]
    xs = (72, 200, 280, 360)
    items = [(x, 100 + 14 * r, cell) for r, row in enumerate(rows) for x, cell in zip(xs, row)]
    document = parse_pdf(make_pdf([items]), "table.pdf")
    assert [line.text for line in document.pages[0].lines] == [CELL_SEPARATOR.join(row) for row in rows]
    assert_offsets_exact(document)


def test_rotated_page_boxes_are_in_displayed_orientation():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.set_rotation(90)
    # insert_text takes displayed-page coordinates when morph/rotate is used; place via the derotation
    point = pymupdf.Point(100, 100) * page.derotation_matrix
    page.insert_text(point, "sideways page text", fontsize=11, rotate=90)
    document = parse_pdf(doc.tobytes(), "rotated.pdf")
    (page_,) = document.pages
    assert (page_.width, page_.height) == (792, 612)
    (line,) = page_.lines
    assert line.text == "sideways page text"
    assert line.box.x0 == pytest.approx(100, abs=1.5) and line.box.y0 < 100 < line.box.y1 + 3
    assert line.box.x1 - line.box.x0 > line.box.y1 - line.box.y0  # horizontal as displayed


def test_whitespace_normalised():
    items = [(72, 100, "spaced     out\twords"), (72, 130, "no\u00a0break\u00a0space")]
    document = parse_pdf(make_pdf([items]), "ws.pdf")
    texts = [line.text for line in document.pages[0].lines]
    assert texts[1] == "no break space"
    assert "  " not in texts[0] and texts[0].replace("\t", " ").split() == ["spaced", "out", "words"]
    assert_offsets_exact(document)


def test_metadata_and_cards_are_applied_and_checked():
    data = make_pdf([[(72, 100, "one"), (72, 120, "two")]])
    document = parse_pdf(data, "m.pdf", metadata={"id": "doc-1", "version": "v2",
                                                   "cards": [{"id": "c", "text": "t", "lines": "1-2", "page": 1}]})
    assert document.source_id == "doc-1" and document.meta.version == "v2"
    assert len(document.digest) == 64
    with pytest.raises(InputError, match="lines 1-3 are outside"):
        parse_pdf(data, "m.pdf", metadata={"cards": [{"id": "c", "text": "t", "lines": "1-3", "page": 1}]})


def test_parse_entry_point_routes_pdf():
    document = parse(make_pdf([[(72, 100, "routed through parse")]]), "r.pdf")
    assert document.kind == "pdf" and document.pages[0].lines[0].text == "routed through parse"


# --------------------------------------------------------------------------- public PDFs


@pytest.mark.slow  # a real 15-page PDF
@needs_public_pdfs
def test_federal_register_three_columns_are_contiguous():
    document = parse_pdf((PDFS / "federal-register-2020-17221.pdf").read_bytes(), "fr.pdf")
    assert len(document.pages) == 15 and pages_without_text(document) == []
    assert_offsets_exact(document)
    page = document.pages[0]
    texts = [line.text for line in page.lines]
    # A sentence of the summary runs down the first column over consecutive lines.
    i = texts.index("SUMMARY: The FAA proposes to")
    assert texts[i + 1:i + 4] == ["supersede Airworthiness Directive (AD)", "2018–23–51, which applies to all The",
                                  "Boeing Company Model 737–8 and 737–"]
    # The second column's first addresses follow on from the first column's end, in order.
    j = texts.index("• Fax: 202–493–2251.")
    assert texts[j + 1:j + 3] == ["• Mail: U.S. Department of", "Transportation, Docket Operations, M–"]
    assert j > i
    # No line mixes two columns.
    assert not any("\t" in t for t in texts[i:j + 3])
    joined = " ".join(texts)
    assert "The FAA proposes to supersede Airworthiness Directive (AD) 2018–23–51" in joined.replace("SUMMARY: ", "")
    # On page 2 a sentence crosses lines of the first column and a footnote stays whole.
    texts2 = [line.text for line in document.pages[1].lines]
    k = texts2.index("Hatta International Airport in Jakarta,")
    assert texts2[k + 1] == "Indonesia, resulting in 189 fatalities."


@needs_public_pdfs
def test_nics_table_rows_are_lines():
    document = parse_pdf((PDFS / "nics-background-checks-2015-11.pdf").read_bytes(), "nics.pdf")
    texts = [line.text for line in document.pages[0].lines]
    alabama = next(t for t in texts if t.startswith("Alabama"))
    cells = alabama.split("\t")
    assert cells[:4] == ["Alabama", "18,870", "23,022", "22,650"] and cells[-1] == "71,137"
    alaska = next(t for t in texts if t.startswith("Alaska"))
    assert alaska.split("\t")[-1] == "7,095"
    # each state is on its own line: no line holds two states
    states = ("Alabama", "Alaska", "Arizona", "Arkansas", "California", "Wyoming")
    for state in states:
        assert sum(t.startswith(state) for t in texts) == 1
        assert sum(state in t for t in texts) == 1
    assert_offsets_exact(document)


@needs_public_pdfs
def test_senate_rotated_table_rows_are_lines():
    document = parse_pdf((PDFS / "senate-expenditures.pdf").read_bytes(), "senate.pdf")
    page = document.pages[0]
    assert (page.width, page.height) == (792, 612)
    texts = [line.text for line in page.lines]
    assert ("DHAW20190029\t05/16/2019\tCITIBANK - TRAVEL CBA CARD\t05/07/2019\t05/09/2019\t"
            "STAFF TRANSPORTATION\t477.60") in texts
    assert "SMITH, ALVARO R\tLEGISLATIVE CORRESPONDENT\t21,000.00" in texts
    for line in page.lines:  # boxes inside the displayed page
        assert 0 <= line.box.x0 <= line.box.x1 <= 792 and 0 <= line.box.y0 <= line.box.y1 <= 612
    assert_offsets_exact(document)


# --------------------------------------------------------------------------- bad PDFs


def test_encrypted_pdf_is_refused():
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="x", owner_pw="y")
    with pytest.raises(InputError, match="is password-protected; remove the password and upload it again"):
        parse_pdf(data, "locked.pdf")


@needs_public_pdfs
def test_truncated_pdf_is_refused():
    data = (PDFS / "nics-background-checks-2015-11.pdf").read_bytes()
    with pytest.raises(InputError) as error:
        parse_pdf(data[: len(data) // 2], "cut.pdf")
    assert error.value.filename == "cut.pdf"
    assert error.value.problem == "is truncated (the end of the file is missing); upload the complete file"


def test_garbage_after_header_is_corrupt():
    with pytest.raises(InputError, match="is corrupt and cannot be opened"):
        parse_pdf(b"%PDF-1.7\n" + bytes(range(256)) * 4, "junk.pdf")


def test_png_named_pdf_is_refused():
    png = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False).tobytes("png")
    with pytest.raises(InputError, match=r"is not a PDF \(it looks like a PNG image\)"):
        parse_pdf(png, "image.pdf")


def test_text_named_pdf_is_refused_by_parse_too():
    with pytest.raises(InputError, match=r"is not a PDF \(it looks like a text file\)"):
        parse(b"just some notes\n", "notes.pdf")


def test_empty_file_is_refused():
    with pytest.raises(InputError, match=r"is not a PDF \(it looks like an empty file\)"):
        parse_pdf(b"", "empty.pdf")


def _image_page(doc: pymupdf.Document) -> None:
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 50, 50), False)
    pix.clear_with(128)
    page.insert_image(pymupdf.Rect(72, 72, 300, 300), pixmap=pix)
    page.draw_rect(pymupdf.Rect(50, 400, 200, 500), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))


def test_scanned_pdf_without_text_layer_is_refused(monkeypatch):
    from pipeline.ingest.parsers import pdf_ocr

    doc = pymupdf.open()
    _image_page(doc)
    _image_page(doc)
    if pdf_ocr.ocr_languages()[0] is not None:  # Tesseract reads the grey squares and finds nothing
        with pytest.raises(InputError, match=r"has no text layer \(pages 1-2: scanned or image-only\); "
                                             r"OCR found no text in it either"):
            parse_pdf(doc.tobytes(), "scan.pdf")
    monkeypatch.setattr(pdf_ocr, "ocr_languages", lambda: (None, ""))  # as on a host without Tesseract
    with pytest.raises(InputError, match=r"has no text layer \(pages 1-2: scanned or image-only\); "
                                         r"OCR is not installed on this server \(the administrator can install Tesseract"):
        parse_pdf(doc.tobytes(), "scan.pdf")


def test_partly_scanned_pdf_keeps_text_pages_and_lists_empty_ones():
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "page one has text")
    _image_page(doc)
    doc.new_page().insert_text((72, 72), "page three has text")
    document = parse_pdf(doc.tobytes(), "mixed.pdf")
    assert [p.number for p in document.pages] == [1, 2, 3]
    assert pages_without_text(document) == [2]
    assert document.pages[1].lines == () and document.pages[1].text == ""
    assert document.pages[2].lines[0].text == "page three has text"
    from pipeline.ingest.document import document_warnings

    assert document_warnings(document) == [
        "mixed.pdf: page(s) 2 have no text layer (scanned or image-only); they cannot be searched or cited"
    ]


def test_zero_pages_is_refused():
    # PyMuPDF will not save a page-less PDF, so write a minimal one by hand.
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    with pytest.raises(InputError) as error:
        parse_pdf(bytes(out), "none.pdf")
    assert error.value.problem == "has no pages"


def test_page_limit():
    data = make_pdf([[(72, 72, f"page {i}")] for i in range(3)])
    with pytest.raises(InputError, match="has 3 pages; the limit is 2"):
        parse_pdf(data, "long.pdf", limits=PdfLimits(max_pages=2))
    assert len(parse_pdf(data, "long.pdf", limits=PdfLimits(max_pages=3)).pages) == 3


def test_lines_per_page_limit():
    data = make_pdf([[(72, 72 + 12 * i, f"line {i}") for i in range(10)]])
    with pytest.raises(InputError, match="page 1 has 10 lines; the limit is 5 per page"):
        parse_pdf(data, "dense.pdf", limits=PdfLimits(max_lines_per_page=5))


def test_byte_limit():
    data = make_pdf([[(72, 72, "small")]])
    with pytest.raises(InputError, match=r"MB; the limit is 0 MB"):
        parse_pdf(data, "big.pdf", limits=PdfLimits(max_bytes=100))


def test_default_limits():
    assert PdfLimits() == PdfLimits(max_pages=500, max_lines_per_page=3000, max_bytes=100 * 1024 * 1024)


def test_packed_words_read_back_exactly_through_json_and_pickle():
    """A line's words are packed in one array (contracts.WordBoxes): every offset and coordinate reads back
    exactly, through JSON (the library's manifest, a trace export) and pickle alike."""
    import pickle

    from pipeline.core.contracts import Document, Word, WordBoxes

    document = parse_pdf(make_pdf([[(72, 100, "The quick brown fox jumps"), (72, 130, "over the lazy dog")]]), "w.pdf")
    line = document.pages[0].lines[0]
    assert isinstance(line.words, WordBoxes) and len(line.words) == 5
    assert all(isinstance(w, Word) and isinstance(w.start, int) for w in line.words)
    assert line.words[-1] == list(line.words)[4] and line.words[1:3] == list(line.words)[1:3]
    assert Document.model_validate_json(document.model_dump_json()) == document
    assert pickle.loads(pickle.dumps(document)) == document
    assert document.model_dump()["pages"][0]["lines"][0]["words"][0] == list(line.words[0])
    with pytest.raises(ValueError):
        WordBoxes([[1, 2, 3]])
