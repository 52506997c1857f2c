"""Reading order of PDF pages drawn here: a heading set in bold at body size is a heading (and bold inside a
paragraph is not), a rotated landscape page's ruled table is read row by row, and a compound broken at its own
hyphen keeps it when joined."""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.ingest.parsers.pdf_layout import parse_pdf
from tests.pdf_files import LEFT, RIGHT, ask_pdf, bold_two_columns
from tests.decisions import decision


def _texts(page) -> list[str]:
    return [line.text for line in page.lines]


def _headings(page) -> list[str]:
    return [page.lines[n - 1].text for n in page.headings]


def _write(page, y: float, pieces: list[tuple[str, str]], x: float = 72, size: float = 10) -> None:
    """One printed line of (text, font) pieces, one after another."""
    for text, font in pieces:
        page.insert_text((x, y), text, fontsize=size, fontname=font)
        x += pymupdf.get_text_length(text, fontname=font, fontsize=size)


def bold_inside_paragraphs() -> bytes:
    """Bold that is no heading: words inside a sentence, a wrapped bold phrase filling a line of its own, a lead-in
    ("Note: …") on a paragraph's first line, a table's bold header row."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = [
        [("The station keeps ", "helv"), ("every reading", "hebo"), (" for a year before it is archived.", "helv")],
        [("Readings are checked by the harbour office, and the ", "helv")],
        [("most important rule of all", "hebo")],
        [("is that a missing reading is reported at once.", "helv")],
        [("Note: ", "hebo"), ("the office is closed on public holidays.", "helv")],
    ]
    for index, pieces in enumerate(lines):
        _write(page, 100 + 14 * index, pieces)
    for index, row in enumerate([("Station", "Readings", "Office"), ("North", "310", "Harbour"),
                                 ("South", "120", "Airport")]):
        for column, cell in enumerate(row):
            page.insert_text((72 + 110 * column, 190 + 14 * index), cell, fontsize=10,
                             fontname="hebo" if index == 0 else "helv")
    return doc.tobytes()


def test_a_bold_line_at_body_size_over_body_text_is_a_heading_in_either_column():
    page = parse_pdf(bold_two_columns(), "columns.pdf").pages[0]
    texts = _texts(page)
    assert _headings(page) == ["Networks and languages of the decade", "3.2 Swift"]
    assert texts[texts.index("3.2 Swift") - 1].endswith("to the islands")  # the left column, unfinished, read first


def test_a_bold_heading_wrapped_onto_two_lines_is_a_heading_on_both():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Methods of compliance", fontsize=10, fontname="hebo")
    assert page.insert_textbox(pymupdf.Rect(72, 66, 260, 140), LEFT[:160] + ".", fontsize=10) >= 0
    _write(page, 150, [("Explanation of certain provisions for", "hebo")])
    _write(page, 162, [("alternative methods (AMOCs)", "hebo")])
    assert page.insert_textbox(pymupdf.Rect(72, 168, 260, 300), RIGHT, fontsize=10) >= 0
    page_read = parse_pdf(doc.tobytes(), "wrapped.pdf").pages[0]
    assert _headings(page_read) == ["Methods of compliance", "Explanation of certain provisions for",
                                    "alternative methods (AMOCs)"]


def test_bold_inside_a_paragraph_or_a_table_header_is_no_heading():
    page = parse_pdf(bold_inside_paragraphs(), "bold.pdf").pages[0]
    texts = _texts(page)
    assert "most important rule of all" in texts and any(t.startswith("Note: the office") for t in texts)
    assert "Station\tReadings\tOffice" in texts
    assert page.headings == ()


ROTATED_ROWS = [["Station", "Rainfall", "Wind", "Office"], ["North", "310", "12", "Harbour"],
                ["South", "120", "8", "Airport"], ["Coast", "505", "20", "Pier"]]


def landscape_table(rotation: int) -> bytes:
    """A portrait report whose first page is turned (/Rotate) to show a ruled landscape table upright, and a second
    page of text."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.set_rotation(rotation)
    to_page = page.derotation_matrix  # drawing takes unrotated coordinates; the table is laid out as shown

    def text(x: float, y: float, words: str, size: float = 9) -> None:
        page.insert_text(pymupdf.Point(x, y) * to_page, words, fontsize=size, rotate=rotation)

    text(72, 80, "Table 4. Landscape readings by station", 10)
    shape = page.new_shape()
    edges = [72, 252, 402, 552, 702]  # wider than a portrait page
    for r, row in enumerate(ROTATED_ROWS):
        y = 120 + 18 * r
        for c, cell in enumerate(row):
            shape.draw_rect(pymupdf.Rect(edges[c], y, edges[c + 1], y + 18) * to_page)
            text(edges[c] + 3, y + 13, cell)
    shape.finish(color=(0, 0, 0), width=0.5)
    shape.commit()
    doc.new_page().insert_text((72, 72), "The readings are sent to the harbour office every hour.", fontsize=10)
    return doc.tobytes()


@pytest.mark.parametrize("rotation", [90, 270])
def test_a_rotated_pages_ruled_table_is_found_with_its_rows_where_the_page_shows_them(rotation):
    data = landscape_table(rotation)
    document = parse_pdf(data, "landscape.pdf")
    page = document.pages[0]
    (table,) = page.tables
    texts = _texts(page)
    assert [texts[n - 1] for n in table.header] == ["\t".join(ROTATED_ROWS[0])]
    assert [texts[n - 1] for n in table.rows] == ["\t".join(row) for row in ROTATED_ROWS[1:]]
    assert table.columns == tuple(ROTATED_ROWS[0])
    assert (page.width, page.height) == (842, 595)  # as shown: landscape
    shown = pymupdf.open(stream=data)[0]
    for n in table.rows:  # each word's box is where MuPDF finds the word on the page as shown (highlights)
        line = page.lines[n - 1]
        for word in line.words:
            found = shown.search_for(page.text[word.start:word.end])
            assert any(abs((rect * shown.rotation_matrix).x0 - word.x0) < 1
                       and abs((rect * shown.rotation_matrix).y0 - word.y0) < 3 for rect in found)
    assert document.pages[1].text == "The readings are sent to the harbour office every hour."


def compound_broken() -> bytes:
    """A compound broken at its own hyphen ("well-" over "known"), written whole elsewhere in the document, and a
    word broken between syllables ("ra-" over "dio")."""
    doc = pymupdf.open()
    page = doc.new_page()
    for index, text in enumerate(["The harbour office is a well-known landmark of the old town.",
                                  "",
                                  "The survey stations report to a well-",
                                  "known office by the harbour, which sends their readings by ra-",
                                  "dio to the weather service every hour."]):
        page.insert_text((72, 100 + 14 * index), text, fontsize=11)
    return doc.tobytes()


def test_a_compound_broken_at_its_own_hyphen_keeps_it_in_the_answer_and_is_quoted_exactly(engine):
    trace = ask_pdf(engine, compound_broken(), "stations.pdf", "Who do the survey stations report to?")
    assert trace.answer.status == "answered", trace.explanation
    assert "a well-known office by the harbour" in trace.answer.answer
    assert "by radio to the weather service" in trace.answer.answer
    (citation,) = trace.answer.citations
    assert citation.verified and "well-\nknown" in citation.quote and "ra-\ndio" in citation.quote


def test_numbered_headings_side_by_side_do_not_join_two_columns_into_rows():
    # "I.  NETWORKS" beside "A.  Swift": the numbers are narrow parts, so that band alone shows no columns; the
    # gutter the columns below show splits it, a full-width line above ends the columns, and a left column's ragged
    # lines running on after the right column ends stay with it.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Abstract: early networks joined stations by wire and later moved every link to radio.",
                     fontsize=10)
    for x, text in ((72, "I."), (90, "NETWORKS"), (317, "A."), (335, "Swift")):
        page.insert_text((x, 92), text, fontsize=10)
    assert page.insert_textbox(pymupdf.Rect(72, 100, 295, 330), LEFT, fontsize=10) >= 0
    assert page.insert_textbox(pymupdf.Rect(317, 100, 540, 330), RIGHT, fontsize=10) >= 0
    texts = _texts(parse_pdf(doc.tobytes(), "columns.pdf").pages[0])
    assert not any("\t" in text for text in texts)
    left, right = texts.index("I. NETWORKS"), texts.index("A. Swift")
    assert texts[0].startswith("Abstract") and left == 1 and texts[-1] == "program is built."
    assert " ".join(texts[left + 1:right]) == LEFT.replace("  ", " ")


def test_a_running_head_over_columns_stays_whole():
    # "Proposed Rules" over the first column and "Federal Register" over the last, set apart from the columns: split
    # at the columns' gutters, its right part was read as the top of the last column, mid-page.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 40), "Proposed Rules", fontsize=10)
    page.insert_text((400, 40), "Federal Register", fontsize=10)
    assert page.insert_textbox(pymupdf.Rect(72, 70, 295, 330), LEFT, fontsize=10) >= 0
    assert page.insert_textbox(pymupdf.Rect(317, 70, 540, 330), RIGHT, fontsize=10) >= 0
    page.insert_text((72, 360), "A note across both columns, so that no one gutter divides the whole page.", fontsize=10)
    texts = _texts(parse_pdf(doc.tobytes(), "columns.pdf").pages[0])
    assert texts[0] == "Proposed Rules\tFederal Register"
    assert texts[-2:] == ["program is built.", "A note across both columns, so that no one gutter divides the whole page."]


def test_numbered_headings_are_headings_though_a_wide_gap_follows_their_number():
    # LaTeX sets a quad after a section's number ("2.1<TAB>General Information"); a bold subsection right under a
    # larger section heading with a word in a plain font ("llncs" in typewriter) stands apart from body text too.
    doc = pymupdf.open()
    page = doc.new_page()
    _write(page, 100, [("2", "hebo")], size=12)
    _write(page, 100, [("Working with the ", "hebo"), ("llncs", "cour"), (" Class", "hebo")], x=100, size=12)
    _write(page, 118, [("2.1", "hebo")])
    _write(page, 118, [("General Information", "hebo")], x=100)
    for index, text in enumerate(["The class is an extension of the standard article class, so you may use all",
                                  "article commands in your manuscript. It adjusts the layout to the standard.",
                                  "Copy the class file to a directory that is searched by the typesetting system."]):
        _write(page, 134 + 12 * index, [(text, "helv")])
    page = parse_pdf(doc.tobytes(), "sections.pdf").pages[0]
    assert _headings(page) == ["2\tWorking with the llncs Class", "2.1\tGeneral Information"]


def test_tex_bold_extended_fonts_are_bold():
    from pipeline.ingest.parsers.pdf_fonts import _BOLD_NAME

    assert all(_BOLD_NAME.search(name) for name in ("ABCDEF+CMBX12", "CMSSBX10", "SFBX1200", "CMBXTI10"))
    assert not any(_BOLD_NAME.search(name) for name in ("CMR10", "CMTT10", "ECRM1000", "Times-Roman"))


def test_a_table_of_labels_and_wordy_descriptions_stays_rows():
    # Its description column is running text, its label column is not: the band of a label wide enough to look like a
    # column ("[superscriptaddress]", read apart from its description as before) shows no gutter of text columns, so
    # the other rows keep their labels ("[aps]<TAB>American Physical Society styling …").
    doc = pymupdf.open()
    page = doc.new_page()
    rows = [("[aps]", "American Physical Society styling, the default for all journals."),
            ("[aip]", "American Institute of Physics styling for the journals it publishes."),
            ("[superscriptaddress]", "Associate authors with affiliations via superscript numbers."),
            ("[twocolumn]", "Two-column formatting of the body text on every page.")]
    for index, (label, description) in enumerate(rows):
        page.insert_text((72, 100 + 14 * index), label, fontsize=10)
        page.insert_text((200, 100 + 14 * index), description, fontsize=10)
    page.insert_text((72, 170), "A note across the whole width of the page, under the table, ends the options.", fontsize=10)
    texts = _texts(parse_pdf(doc.tobytes(), "options.pdf").pages[0])
    assert all(f"{label}\t{description}" in texts for label, description in rows if label != "[superscriptaddress]")


def _listing() -> bytes:
    """A paragraph ending with a colon over a two-line listing in Courier; a URL in Courier wrapped onto a line of its
    own inside a paragraph; a description of a page margin after the listing."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "To build the application, run these commands in a terminal:", fontsize=10)
    page.insert_text((72, 114), "pdflatex MyInvention", fontsize=10, fontname="cour")
    page.insert_text((72, 128), "% set the margin of the page \\setlength{\\oddsidemargin}{1in}", fontsize=10, fontname="cour")
    page.insert_text((72, 142), "The patent office requires a top margin of at least 2 cm on every page and", fontsize=10)
    page.insert_text((72, 156), "the forms are published at the office's site", fontsize=10)
    page.insert_text((72, 170), "https://forms.example.org/patents/", fontsize=10, fontname="cour")
    page.insert_text((72, 184), "for anyone to read. Each sheet is numbered at its foot.", fontsize=10)
    page.insert_text((72, 198), "A closing sentence of plain body text sets the usual size of the page.", fontsize=10)
    return doc.tobytes()


def test_lines_set_in_typewriter_are_code_unless_they_go_on_with_a_sentence():
    page = parse_pdf(_listing(), "listing.pdf").pages[0]
    assert [page.lines[n - 1].text for n in page.code] == [
        "pdflatex MyInvention", "% set the margin of the page \\setlength{\\oddsidemargin}{1in}"]


def test_a_listing_answers_how_do_i_with_its_introduction_and_nothing_else(engine):
    how = ask_pdf(engine, _listing(), "patent.pdf", "How do I build the application?")
    assert how.answer.status == "answered", how.explanation
    assert how.answer.citations[0].quote.endswith("pdflatex MyInvention\n% set the margin of the page "
                                                  "\\setlength{\\oddsidemargin}{1in}")
    margin = ask_pdf(engine, _listing(), "patent.pdf", "What margin does the patent office require?")
    assert not any("oddsidemargin" in c.quote for c in margin.answer.citations)


def test_a_command_over_its_description_answers_how_do_i_with_it(engine):
    # A command reference: the command in typewriter, its description on the line under it, no sentence before.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Tables and figures can be placed in several ways.", fontsize=10)
    page.insert_text((72, 114), "\\begin{turnpage}", fontsize=10, fontname="cour")
    page.insert_text((72, 128), "Rotate a table or figure by 90 degrees into landscape mode.", fontsize=10)
    page.insert_text((72, 142), "\\listoftables", fontsize=10, fontname="cour")
    page.insert_text((72, 156), "Print a list of the tables with their page numbers.", fontsize=10)
    trace = ask_pdf(engine, doc.tobytes(), "commands.pdf", "How do I rotate a table into landscape?")
    assert trace.answer.status == "answered", trace.explanation
    (citation,) = trace.answer.citations
    assert citation.quote == "\\begin{turnpage}\nRotate a table or figure by 90 degrees into landscape mode."
    assert trace.proposal.reader_score is not None  # the reader read the description


def test_an_option_in_typewriter_over_its_description_answers_what_it_does(engine):
    # bzip2's manual (DocBook): each option in typewriter, what it does on the line under it. Read as code, the entry
    # was never scored for a question that is not "how do I …", and "What does the -k option do?" abstained.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "The options are as follows.", fontsize=10)
    for y, (option, description) in zip(range(114, 300, 28), (
            ("-t --test", "Check integrity of the specified files, but do not decompress them."),
            ("-k --keep", "Keep (do not delete) input files during compression or decompression."),
            ("-s --small", "Reduce memory usage, for compression, decompression and testing."))):
        page.insert_text((72, y), option, fontsize=10, fontname="cour")
        page.insert_text((72, y + 14), description, fontsize=10)
    trace = ask_pdf(engine, doc.tobytes(), "options.pdf", "What does the -k option do?")
    assert trace.answer.status == "answered", trace.explanation
    (citation,) = trace.answer.citations
    assert citation.quote == "-k --keep\nKeep (do not delete) input files during compression or decompression."
    assert decision(trace.proposal, "definition").facts == {"term": "-k"}
    other = ask_pdf(engine, doc.tobytes(), "options.pdf", "What does the -q option do?")
    assert other.answer.status == "abstained"  # no entry for it: no other option's entry answers


def test_a_drop_cap_joins_the_word_it_begins_and_leaves_the_lines_beside_it_apart():
    """IEEE papers open their first paragraph with a letter three lines tall: its height made one row of the lines
    beside it, in a scrambled order ("T systems. … contained here … flow” of …")."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 128), "T", fontsize=40)
    lines = ["HIS is the guide to the print test, which checks", "the output of each system. It was first written",
             "for users of the class file, and most of it", "applies to anyone who needs correct output."]
    for index, text in enumerate(lines):
        page.insert_text((104 if index < 3 else 72, 100 + 12 * index), text, fontsize=10)
    parsed = parse_pdf(doc.tobytes(), "dropcap.pdf")
    assert _texts(parsed.pages[0]) == ["THIS is the guide to the print test, which checks", *lines[1:]]


def test_a_note_in_the_left_margin_is_a_line_of_its_own_not_a_word_of_the_sentence_beside_it():
    """A LaTeX manual labels paragraphs in the margin ("\\keywords" beside the lines that explain it): sharing a row
    with the body line beside it, the label ended up inside that line's sentence. Line numbers and a column of
    text left of the body stay where they are."""
    doc = pymupdf.open()
    page = doc.new_page()
    body = ["Many journals request authors to provide keywords for their", "manuscripts to make electronic indexing",
            "easier. The class provides the keywords command for that, and", "the keywords are shown beneath the abstract.",
            "For other languages the label can be changed with a command", "of its own, which the next section describes.",
            "Titles are set in bold at the size of the text, and the class", "numbers no section, so references to",
            "sections are not needed in documents written with it at all.", "The running head is set with a command too."]
    for index, text in enumerate(body):
        page.insert_text((150, 100 + 12 * index), text, fontsize=10)
    page.insert_text((80, 112), "\\keywords", fontsize=9)
    page.insert_text((80, 184), "\\section", fontsize=9)
    page.insert_text((130, 196), "12", fontsize=9)  # a line number: no note
    lines = _texts(parse_pdf(doc.tobytes(), "margin.pdf").pages[0])
    # It labels the paragraph beside it: "\keywords\tmanuscripts …" cut the sentence at its second line.
    assert lines[:2] == ["\\keywords\tMany journals request authors to provide keywords for their",
                         "manuscripts to make electronic indexing"]
    assert "\\section\tTitles are set in bold at the size of the text, and the class" in lines
    assert any(line.startswith("12") and "sections are not needed" in line for line in lines)


def _reference_page() -> bytes:
    """A macro reference: every description has its macro's name in the margin beside it, set flush right as LaTeX
    sets margin notes, under some code."""
    doc = pymupdf.open()
    page = doc.new_page()
    for index in range(8):
        page.insert_text((250, 80 + 12 * index), f"\\end{{routeResponseItem{index}}}", fontsize=10)
    entries = [("\\noBreakRoute", "Set the break value so that a route is never split across pages."),
               ("routeRequest", "Describe the content type of the request. Contains the request body."),
               ("routeParameter", "Describe the path parameter. Contains a list of parameter items."),
               ("routeResponse", "Describe the content type of the response. Contains a list of routeResponseItem"),
               ("", "environments or the command that says there is none."),
               ("\\noRouteResponse", "Show a text such as no response when a route returns nothing at all."),
               ("routeResponseItem", "Describe the http status code with a description. Contains the response body.")]
    for index, (name, text) in enumerate(entries):
        page.insert_text((154, 300 + 12 * index), text, fontsize=10)
        if name:
            page.insert_text((143 - pymupdf.get_text_length(name, fontsize=9), 300 + 12 * index), name, fontsize=9)
    return doc.tobytes()


def test_every_description_of_a_reference_page_opens_with_the_name_in_the_margin_beside_it():
    """A third of the page's lines are margin notes (a name by each description): still notes, not a column of
    names read before the text."""
    lines = [" ".join(line.split()) for line in _texts(parse_pdf(_reference_page(), "reference.pdf").pages[0])]
    assert "routeResponseItem Describe the http status code with a description. Contains the response body." in lines
    assert "routeResponse Describe the content type of the response. Contains a list of routeResponseItem" in lines
    assert "routeRequest" not in lines  # no column of names above the descriptions

