"""A huge page is drawn within the pixel cap (issue 24, finding 5), in this process and through the worker."""

from __future__ import annotations

import pytest

from tests.costly_files import huge_page_pdf


def test_a_huge_page_is_drawn_within_the_pixel_cap():
    """A 25 KB PDF with 12000-point pages needed 2.2 GiB to draw one cited page, then PIL refused the image."""
    from pipeline.ingest.parsers.pdf_layout import parse_pdf
    from pipeline.render.pdf import render_pdf_page

    data = huge_page_pdf("A page a hundred and sixty-seven inches wide.")
    document = parse_pdf(data, "huge.pdf")
    for zoom, cap in ((1.5, 1_000_000), (0.2, 60_000)):
        image = _image(render_pdf_page(data, document, 1, [], zoom, max_pixels=cap))
        assert image.width * image.height <= cap and image.width > 0.9 * (cap ** 0.5)
    assert _image(render_pdf_page(data, document, 1, [], 0.01, max_pixels=1_000_000)).size == (120, 120)  # fits


@pytest.mark.slow  # starts worker processes
def test_the_source_viewer_draws_a_huge_cited_page_through_the_worker():
    from pipeline.core.limits import MAX_RENDER_PIXELS
    from pipeline.engine.sandbox import render_page_in_worker
    from pipeline.ingest.parsers.pdf_layout import parse_pdf
    from pipeline.render.highlights import Highlight

    data = huge_page_pdf("The lodging limit is 750 yuan.")
    document = parse_pdf(data, "huge.pdf")
    highlight = Highlight(page=1, start_line=1, end_line=1, verified=True, label="huge 1 verified")
    image = _image(render_page_in_worker(data, document, 1, [highlight]))  # within PIL's decompression-bomb limit
    assert image.width * image.height <= MAX_RENDER_PIXELS


def _image(png: bytes):
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png))
    image.load()
    return image
