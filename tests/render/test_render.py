"""Highlights: quote spans, word boxes, the PNG page image and the escaped text HTML."""

from __future__ import annotations

import pymupdf
import pytest

from pipeline.ingest.parsers.pdf_layout import parse_pdf
from pipeline.ingest.parsers.text import parse_text
from pipeline.render.highlights import DEFAULT_ZOOM, Highlight, quote_span, span_boxes
from pipeline.render.pdf import render_pdf_page
from pipeline.render.text import render_text_html
from tests.conftest import SHARED, needs_public_pdfs

PDFS = SHARED / "eval" / "pdfs"


def make_pdf(items, width=612, height=792) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=width, height=height)
    for x, y, text in items:
        page.insert_text((x, y), text, fontsize=11)
    return doc.tobytes()


ITEMS = [(72, 100, "The quick brown fox jumps"), (72, 114, "over the lazy dog today."),
         (72, 300, "An unrelated line far below"), (72, 500, "Another cited line down here")]


@pytest.fixture(scope="module")
def sample():
    data = make_pdf(ITEMS)
    return data, parse_pdf(data, "sample.pdf")


def test_quote_span_across_line_break_and_whitespace(sample):
    _, document = sample
    page = document.pages[0]
    start, end = quote_span(page, 1, 2, "brown fox jumps over   the lazy")
    assert page.text[start:end] == "brown fox jumps\nover the lazy"
    # curly quotes, dashes and case are tolerated; a missing quote falls back to the lines
    assert quote_span(page, 1, 2, "BROWN FOX") == (page.text.index("brown"), page.text.index("brown") + 9)
    assert quote_span(page, 1, 2, "not there") == (0, page.lines[1].end)
    assert quote_span(page, 1, 2, None) == (0, page.lines[1].end)
    # the quote is only searched within the cited lines
    assert quote_span(page, 1, 1, "lazy dog") == (0, page.lines[0].end)


def test_quote_span_hyphenated_break_and_curly_quotes():
    document = parse_text("An ‘‘exact’’ require-\nment of the rule.\n".encode(), "q.txt")
    page = document.pages[0]
    start, end = quote_span(page, 1, 2, '"exact" requirement')
    assert page.text[start:end] == "‘‘exact’’ require-\nment"


def test_span_boxes_are_word_level_and_per_line(sample):
    _, document = sample
    page = document.pages[0]
    start, end = quote_span(page, 1, 2, "brown fox jumps over the")
    boxes = span_boxes(page, start, end)
    assert len(boxes) == 2
    first_line, second_line = page.lines[0], page.lines[1]
    brown, jumps = first_line.words[2], first_line.words[4]
    assert boxes[0].x0 == pytest.approx(brown.box.x0) and boxes[0].x1 == pytest.approx(jumps.box.x1)
    assert boxes[0].x0 > first_line.box.x0  # "The quick" is not covered
    assert boxes[1].x0 == pytest.approx(second_line.box.x0)
    assert boxes[1].x1 == pytest.approx(second_line.words[1].box.x1)
    assert boxes[1].x1 < second_line.box.x1
    assert span_boxes(page, 5, 5) == []


def test_span_boxes_split_table_cells():
    data = make_pdf([(72, 100, "Alabama"), (250, 100, "18,870"), (400, 100, "71,137")])
    page = parse_pdf(data, "t.pdf").pages[0]
    assert page.lines[0].text == "Alabama\t18,870\t71,137"
    assert len(span_boxes(page, 0, page.lines[0].end)) == 3


def _pixel(pix: pymupdf.Pixmap, x: float, y: float, zoom: float = DEFAULT_ZOOM):
    return pix.pixel(int(x * zoom), int(y * zoom))


def _greenish(rgb) -> bool:
    r, g, b = rgb
    return g > r + 30 and g > b + 20


def _reddish(rgb) -> bool:
    r, g, b = rgb
    return r > g + 40 and r > b + 40


@pytest.mark.slow  # draws PDF pages
def test_render_pdf_page_draws_verified_and_dropped(sample):
    data, document = sample
    page = document.pages[0]
    highlights = [
        Highlight(page=1, start_line=1, end_line=2, quote="brown fox jumps over the", verified=True,
                  label="[1] verified"),
        Highlight(page=1, start_line=4, end_line=4, quote=None, verified=False, label="[2] dropped: numbers_match"),
    ]
    original = bytes(data)
    png = render_pdf_page(data, document, 1, highlights)
    assert data == original
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    pix = pymupdf.Pixmap(png)
    assert (pix.width, pix.height) == (round(612 * DEFAULT_ZOOM), round(792 * DEFAULT_ZOOM))
    # green inside the cited words' boxes (sample the box's left edge area between glyphs)
    brown = page.lines[0].words[2].box
    hits = [_greenish(_pixel(pix, brown.x0 + dx, brown.y0 + 1.5)) for dx in range(0, int(brown.x1 - brown.x0))]
    assert sum(hits) > len(hits) / 2
    # not over "The" (uncited words on the same line), nor the unrelated line
    the = page.lines[0].words[0].box
    assert not any(_greenish(_pixel(pix, the.x0 + dx, the.y0 + 1.5)) for dx in range(int(the.x1 - the.x0)))
    far = page.lines[2].box
    assert not any(_greenish(_pixel(pix, x, (far.y0 + far.y1) / 2)) or _reddish(_pixel(pix, x, (far.y0 + far.y1) / 2))
                   for x in range(int(far.x0), int(far.x1)))
    # the dropped line is red-orange
    dropped = page.lines[3].words[0].box
    hits = [_reddish(_pixel(pix, dropped.x0 + dx, dropped.y0 + 1.5)) for dx in range(int(dropped.x1 - dropped.x0))]
    assert sum(hits) > len(hits) / 2
    # a page with no highlights has no coloured pixels at all
    plain = pymupdf.Pixmap(render_pdf_page(data, document, 1, []))
    assert not any(_greenish(plain.pixel(x, y)) for x in range(0, plain.width, 7) for y in range(0, plain.height, 7))


@pytest.mark.slow  # draws PDF pages
def test_render_labels_and_chunk_outline(sample):
    data, document = sample
    page = document.pages[0]
    highlight = Highlight(page=1, start_line=4, end_line=4, quote="cited line", verified=True, label="[1] verified",
                          chunk_start=page.lines[2].start, chunk_end=page.lines[3].end)
    pix = pymupdf.Pixmap(render_pdf_page(data, document, 1, [highlight]))
    box = span_boxes(page, *quote_span(page, 4, 4, "cited line"))[0]
    # label sits just above the highlight: green border and dark text pixels there
    above = [pix.pixel(int(x * DEFAULT_ZOOM), int((box.y0 - 6) * DEFAULT_ZOOM)) for x in range(int(box.x0), int(box.x0) + 60)]
    assert any(sum(p) < 200 for p in above)
    # the chunk outline is drawn around the chunk's lines (left of the text, outside the words)
    line3 = page.lines[2].box
    column = [pix.pixel(int((line3.x0 - 3) * DEFAULT_ZOOM), int(y * DEFAULT_ZOOM)) for y in range(int(line3.y0), int(line3.y1))]
    assert any(p[2] > p[0] + 40 for p in column)


@pytest.mark.slow  # draws PDF pages
@needs_public_pdfs
def test_render_public_rotated_page():
    data = (PDFS / "senate-expenditures.pdf").read_bytes()
    document = parse_pdf(data, "senate.pdf")
    page = document.pages[0]
    number = next(i for i, line in enumerate(page.lines, 1) if line.text.startswith("SMITH, ALVARO R"))
    png = render_pdf_page(data, document, 1, [Highlight(page=1, start_line=number, end_line=number,
                                                        quote="LEGISLATIVE CORRESPONDENT", verified=True, label="[1]")])
    pix = pymupdf.Pixmap(png)
    assert (pix.width, pix.height) == (round(792 * DEFAULT_ZOOM), round(612 * DEFAULT_ZOOM))
    (box,) = span_boxes(page, *quote_span(page, number, number, "LEGISLATIVE CORRESPONDENT"))
    samples = [_greenish(_pixel(pix, x, (box.y0 + box.y1) / 2)) for x in range(int(box.x0) + 1, int(box.x1) - 1)]
    assert sum(samples) > len(samples) / 2


def test_render_text_html_escapes_and_marks():
    body = "Intro line\n<script>alert('x')</script> is here\nThe rate is 5% & rising\nLast line\n"
    document = parse_text(body.encode(), "doc.md")
    highlights = [Highlight(start_line=2, end_line=2, quote="alert('x')", verified=False, label="[2] dropped: numbers_match"),
                  Highlight(start_line=3, end_line=3, quote="5% & rising", verified=True, label="[1] verified")]
    out = render_text_html(document, highlights)
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "&amp; rising" in out
    assert '<mark class="verified">5% &amp; rising</mark>' in out
    assert '<mark class="dropped">alert(&#x27;x&#x27;)</mark>' in out
    assert "✓ [1] verified" in out and "✗ [2] dropped: numbers_match" in out
    assert 'class="ln dropped" data-line="2"' in out and 'class="ln verified" data-line="3"' in out
    assert 'class="ln " data-line="1"' in out and '<span class="no">4</span>' in out
    assert "<style>" in out


def test_render_text_html_context_lines_and_pdf_pages(sample):
    _, document = sample
    out = render_text_html(document, [Highlight(page=1, start_line=4, end_line=4, quote=None, verified=True,
                                                label="[1] verified")], context_lines=1)
    assert "<h4>Page 1</h4>" in out
    assert 'data-line="3"' in out and 'data-line="4"' in out and 'data-line="1"' not in out
    assert '<div class="gap">…</div>' in out
    assert '<mark class="verified">Another cited line down here</mark>' in out


def _dark_pixels(pix, box, pad=0.0) -> int:
    return sum(1 for x in range(int((box.x0 - pad) * DEFAULT_ZOOM), int((box.x1 + pad) * DEFAULT_ZOOM))
               for y in range(int((box.y0 - pad) * DEFAULT_ZOOM), int((box.y1 + pad) * DEFAULT_ZOOM))
               if sum(pix.pixel(x, y)) < 250)


@pytest.mark.slow  # draws PDF pages
def test_label_never_covers_the_previous_line():
    # tightly set lines (13 pt apart): no room above the cited line, so the label goes beside it
    items = [(72, 100 + 13 * i, f"Line number {i} of a tightly set paragraph of text") for i in range(5)]
    data = make_pdf(items)
    document = parse_pdf(data, "tight.pdf")
    page = document.pages[0]
    highlight = Highlight(page=1, start_line=3, end_line=3, quote=None, verified=True,
                          label="tight 3 verified")
    plain = pymupdf.Pixmap(render_pdf_page(data, document, 1, []))
    marked = pymupdf.Pixmap(render_pdf_page(data, document, 1, [highlight]))
    previous, cited = page.lines[1].box, page.lines[2].box
    bottom = min(previous.y1, cited.y0)  # glyph boxes overlap a little; the cited line's own fill starts at y0
    changed = [(x, y) for x in range(int(previous.x0 * DEFAULT_ZOOM), int(previous.x1 * DEFAULT_ZOOM))
               for y in range(int(previous.y0 * DEFAULT_ZOOM), int(bottom * DEFAULT_ZOOM) - 1)
               if plain.pixel(x, y) != marked.pixel(x, y)]
    assert not changed, changed[:5]
    # the label is still drawn (in the left margin, level with the cited line)
    line = page.lines[2].box
    margin = type(line)(x0=2, y0=line.y0, x1=line.x0 - 2, y1=line.y1)
    assert _dark_pixels(marked, margin) > _dark_pixels(plain, margin) + 20


@pytest.mark.slow  # draws a PDF page
def test_non_latin_label_renders_glyphs():
    data = make_pdf([(200, 100, "first line"), (200, 300, "cited line here")])
    document = parse_pdf(data, "cjk.pdf")
    line = document.pages[0].lines[1].box
    region = type(line)(x0=0, y0=line.y0 - 20, x1=612, y1=line.y1 + 20)
    plain = pymupdf.Pixmap(render_pdf_page(data, document, 1, []))

    def ink(label: str) -> int:
        highlight = Highlight(page=1, start_line=2, end_line=2, quote=None, verified=True, label=label)
        return _dark_pixels(pymupdf.Pixmap(render_pdf_page(data, document, 1, [highlight])), region) \
            - _dark_pixels(plain, region)

    # four CJK glyphs ink far more than the box and mark alone (base-14 fonts would draw nothing or "?")
    assert ink("北京住宿 已验证") > ink("") + 60
