"""PDFs drawn by the tests of reading order and tables: two columns whose right one opens with a heading (set apart
by a larger size or by bold alone), and one PDF asked through the engine."""

from __future__ import annotations

import pymupdf

from pipeline import REQUEST_DATE, Request, Settings

LEFT = ("Early networks joined each station to the control room by wire. The wires were costly to lay and hard to "
        "repair after storms. Later designs replaced the wires with radio links, which made the network much cheaper "
        "to extend to the remote sites on the coast and to the islands")
RIGHT = ("Swift is a programming language for apps on phones and watches. It was announced in 2014 and is open "
         "source. It checks types when the program is built.")


def two_columns() -> bytes:
    """A left column ending mid-sentence, a right column opening with a larger heading."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Networks and languages of the decade", fontsize=16)
    assert page.insert_textbox(pymupdf.Rect(72, 80, 295, 330), LEFT, fontsize=10) >= 0
    page.insert_text((317, 92), "3.2 Swift", fontsize=13)
    assert page.insert_textbox(pymupdf.Rect(317, 100, 540, 330), RIGHT, fontsize=10) >= 0
    return doc.tobytes()


def bold_two_columns() -> bytes:
    """Two columns at 10 pt; the title and the right column's "3.2 Swift" in bold 10 pt, not larger."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Networks and languages of the decade", fontsize=10, fontname="hebo")
    assert page.insert_textbox(pymupdf.Rect(72, 80, 295, 330), LEFT, fontsize=10) >= 0
    page.insert_text((317, 92), "3.2 Swift", fontsize=10, fontname="hebo")
    assert page.insert_textbox(pymupdf.Rect(317, 100, 540, 330), RIGHT, fontsize=10) >= 0
    return doc.tobytes()


def ask_pdf(engine, data: bytes, name: str, question: str):
    """The trace of `question` asked of a corpus of this one file."""
    corpus = engine.corpus([engine.parse(data, name)])
    return engine.ask(corpus, Request(question=question, date=REQUEST_DATE), Settings())


ABSTRACT = ("Harbour cranes rust where salt spray meets worn paint. We inspected forty cranes over two winters and "
            "report which coatings held and which failed, with the cost of each repair.")
BODY = ("The inspections took place at three ports on the north coast. Each crane was climbed twice a year, and every "
        "patch of rust larger than a hand was photographed and measured.")


def title_page(pages_after: tuple[str, ...] | list[str] = ()) -> bytes:
    """A paper's first page: a title in 18 pt over two lines, two lines of authors with their marks, an institution,
    an address, a mail address and a date, then the abstract and a numbered section; then a page for each of
    `pages_after`."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 70), "Salt, Paint and Steel: A Survey of", fontsize=18)
    page.insert_text((72, 94), "Corrosion on Harbour Cranes", fontsize=18)
    for y, text in ((124, "Maria Lindqvist1, Tomas Berg2 and Aino Virtanen1"), (138, "Kenji Watanabe2"),
                    (156, "1Nordic Institute of Marine Engineering"), (170, "2Port Authority of Tromsø, Norway"),
                    (184, "lindqvist@nime.example.org"), (202, "March 14, 2023")):
        page.insert_text((72, y), text, fontsize=10)
    page.insert_text((72, 232), "Abstract", fontsize=12)
    assert page.insert_textbox(pymupdf.Rect(72, 240, 520, 300), ABSTRACT, fontsize=10) >= 0
    page.insert_text((72, 320), "1 Inspections", fontsize=12)
    assert page.insert_textbox(pymupdf.Rect(72, 328, 520, 400), BODY, fontsize=10) >= 0
    for text in pages_after:
        assert doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 520, 700), text, fontsize=10) >= 0
    return doc.tobytes()


# An Italian income statement as accounting software prints it: the figure columns set close (8 pt apart, under a
# line's height), their header two closing dates over an empty label cell.
STATEMENT_ROWS = (
    ("A) Valore della produzione", "", ""),
    ("1) ricavi delle vendite e delle prestazioni", "12.845.320", "11.402.118"),
    ("5) altri ricavi e proventi", "214.560", "198.004"),
    ("Totale valore della produzione", "13.059.880", "11.600.122"),
    ("9) per il personale", "2.880.010", "2.640.554"),
    ("20) Imposte sul reddito dell'esercizio", "265.206", "118.230"),
    ("21) Utile (perdita) dell'esercizio", "685.529", "296.611"),
)


def italian_statement() -> bytes:
    """Conto economico with two years' figures and a note in running Italian text."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((40, 50), "ALFA COSTRUZIONI S.P.A.", fontsize=14)
    page.insert_text((40, 72), "Conto economico", fontsize=12)
    font = pymupdf.Font("helv")

    def right(x: float, y: float, text: str) -> None:
        page.insert_text((x - font.text_length(text, fontsize=10), y), text, fontsize=10)

    right(430, 95, "31/12/2023")
    page.insert_text((438, 95), "31/12/2022", fontsize=10)
    for n, (label, current, previous) in enumerate(STATEMENT_ROWS):
        y = 112 + 15 * n
        page.insert_text((40, y), label, fontsize=10)
        right(430, y, current)
        page.insert_text((438, y), previous, fontsize=10)
    note = ("Il numero medio dei dipendenti nel corso dell'esercizio è stato pari a 58 unità, di cui 4 dirigenti e 54 "
            "impiegati. L'incremento dei ricavi è dovuto principalmente all'acquisizione di nuove commesse.")
    assert page.insert_textbox(pymupdf.Rect(40, 240, 500, 320), note, fontsize=10) >= 0
    return doc.tobytes()
