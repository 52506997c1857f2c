"""Running heads, feet and page numbers (pipeline/ingest/furniture.py) are recorded per page and never
quoted: a sentence continued from the previous page does not start with the running head."""

from __future__ import annotations

from pipeline import REQUEST_DATE, Request, Settings
from pipeline.core.contracts import Line, Page
from pipeline.ingest.furniture import running_lines
from pipeline.ingest.parsers.pdf_layout import parse_pdf
from pipeline.text.units import units_of
from tests.ingest.test_parse_pdf import make_pdf


def _page(number, texts):
    lines, offset = [], 0
    for i, text in enumerate(texts):
        lines.append(Line(number=i + 1, start=offset, end=offset + len(text), text=text))
        offset += len(text) + 1
    return Page(number=number, text="\n".join(texts), lines=tuple(lines))


def test_lines_repeated_at_the_top_or_bottom_of_most_pages_are_running_lines():
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    pages = [_page(n, [f"{4700 + n}\tJournal of Tests / Vol. 3" if n % 2 else f"Journal of Tests / Vol. 3\t{4700 + n}",
                       f"Body text of the {word} page.", f"The {word} section goes on.", f"It ends with {word}.",
                       "Printed on recycled paper", str(n)])
             for n, word in zip(range(1, 6), words)]
    marks = running_lines(pages)
    assert marks == [(1, 5, 6)] * 5  # the head on either side of the page number, the foot, the page number
    # A body line that happens to repeat on two pages is not a running line; two pages repeat nothing.
    assert running_lines(pages[:2]) == [(), ()]


def test_a_piece_of_the_running_head_set_alone_into_a_column_is_furniture():
    head = "Gazette of Tests / Vol. 9, No. 12 / Monday, May 4, 2020 / Notices"
    first = _page(1, ["Gazette of Tests", "Body text: the most helpful comments", "Monday, May 4, 2020",
                      "explain the reason for any change.", "Notices"])
    rest = [_page(n, [head, f"The {word} page goes on here.", f"And {word} ends here."])
            for n, word in zip(range(2, 5), ["second", "third", "fourth"])]
    marks = running_lines([first, *rest])
    assert marks[0] == (1, 3) and marks[1] == (1,)  # the masthead's pieces, wherever page 1 sets them
    # A one-word piece is not enough to mark a line: "Notices" alone may be a heading of the page's own.


def test_a_sentence_continued_on_the_next_page_is_quoted_without_the_running_head(engine):
    head = "Aviation Notices / Vol. 85, No. 152 / Proposed Rules"
    pages = []
    for n, word in zip(range(1, 5), ["first", "second", "third", "fourth"]):
        body = [(72, 110 + 14 * i, f"The {word} page explains {topic} in plain words.")
                for i, topic in enumerate(["fees", "dates", "forms", "appeals", "records", "contacts"])]
        pages.append([(72, 60, f"{head}   {47698 + n}"), *body])
    pages[1][1] = (72, 110, "Hatta International Airport in Jakarta, resulting in 189 fatalities.")
    document = parse_pdf(make_pdf(pages), "notices.pdf")
    assert all(page.furniture == (1,) for page in document.pages)
    corpus = engine.corpus([document])
    trace = engine.ask(corpus, Request(question="How many fatalities resulted at Hatta International Airport?",
                                       date=REQUEST_DATE), Settings())
    page_two = [s for s in trace.context.sources if s.page == 2]
    assert page_two and page_two[0].lines[0].furniture
    quotes = [u.quote for u in units_of(page_two[0])]
    assert "Hatta International Airport in Jakarta, resulting in 189 fatalities." in quotes
    assert not any(head in q for q in quotes)


def test_an_rfc_paged_with_form_feeds_marks_its_page_heads_and_feet(engine):
    pages = []
    for n, topic in enumerate(["tokens", "claims", "headers", "signatures"], start=1):
        pages.append("\n".join([
            "RFC 7519                 JSON Web Token (JWT)                  May 2015", "", "",
            f"   This page describes {topic} and how a reader processes the",
            f"   {topic} section of a token before it is accepted.", "",
            f"Jones, et al.                Standards Track                    [Page {n}]"]))
    text = "---\nid: rfc\n---\n" + "\n\f\n".join(pages) + "\n"
    document = engine.parse(text.encode("utf-8"), "rfc7519.txt")
    page = document.pages[0]
    marked = {page.lines[n - 1].text.split()[0] for n in page.furniture}
    assert marked == {"RFC", "Jones,"} and len(page.furniture) == 8
