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
