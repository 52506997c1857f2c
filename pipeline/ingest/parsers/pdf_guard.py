"""What a PDF page costs before MuPDF reads or draws it: its decompressed content, and its pixels.

A 3 MB PDF whose one content stream inflates to 3 GiB held MuPDF (and, in the server, the GIL) for about
a minute; a 25 KB PDF with 12000-point pages needed 2.2 GiB to draw one page at zoom 1.5. So before a
page is read or drawn, its content streams and the form XObjects they draw are measured by inflating them
into a counter that stops at the cap (never holding more than one 64 KiB piece), and a page drawn larger
than the pixel cap is drawn at a lower zoom.

Flate (deflate, up to ~1:1000) is what such a bomb uses and is counted without inflating past the cap;
a stream with any other filter is decoded by MuPDF and counted (LZW can expand too: the worker's memory
and CPU limits, `pipeline.engine.sandbox`, bound those). A form drawn many times is counted once: the worker's
CPU limit bounds the repetition.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import zlib

from pipeline.core.errors import InputError
from pipeline.core.limits import megabytes

TOO_LARGE = "this PDF's content is too large to read safely"
_PIECE = 64 * 1024
_FILTER_NAMES = re.compile(r"/(\w+)")


def _filters(doc, xref: int) -> list[str]:
    kind, value = doc.xref_get_key(xref, "Filter")
    if kind in ("name", "array"):
        return _FILTER_NAMES.findall(value)
    return []


def _inflated_size(data: bytes, cap: int) -> int:
    """Bytes `data` inflates to, counting at most cap + 1 (raw deflate, zlib or gzip headers all accepted)."""
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # zlib or gzip header, as PDF writers use
    total, pending = 0, data
    try:
        # Bytes after the stream's end (a writer's padding) stay in `unconsumed_tail` once the inflater is at its end,
        # and decompressing them gives nothing: without the eof test the loop never ends.
        while pending and total <= cap and not inflater.eof:
            total += len(inflater.decompress(pending, _PIECE))
            pending = inflater.unconsumed_tail
        if total <= cap:
            total += len(inflater.flush())
    except zlib.error:
        return total  # a damaged stream: MuPDF reads what it can, no more than was inflated here
    return total


def stream_size(doc, xref: int, cap: int) -> int:
    """The decoded size of one stream, counting at most about cap + 1 bytes for Flate."""
    filters = _filters(doc, xref)
    if not filters:
        return len(doc.xref_stream_raw(xref) or b"")
    raw = doc.xref_stream_raw(xref) or b""
    for index, name in enumerate(filters):
        if name in ("FlateDecode", "Fl") and index == len(filters) - 1:
            return _inflated_size(raw, cap)
        if name in ("ASCIIHexDecode", "AHx"):
            try:
                raw = binascii.unhexlify(re.sub(rb"\s|>.*", b"", raw, flags=re.DOTALL).ljust(2, b"0"))
            except (binascii.Error, ValueError):
                break
        elif name in ("ASCII85Decode", "A85"):
            try:
                raw = base64.a85decode(raw.strip().removesuffix(b"~>"), ignorechars=b" \t\r\n")
            except ValueError:
                break
        else:
            break
    return len(doc.xref_stream(xref) or b"")  # another filter (LZW, RunLength): MuPDF decodes it


def page_content_size(doc, page, cap: int) -> int:
    """The decompressed size of the page's content streams and every form XObject it draws (nested ones
    too), stopping once it is over `cap`."""
    seen: set[int] = set()
    total = 0
    xrefs = list(page.get_contents()) + [entry[0] for entry in page.get_xobjects()]
    for annot_xref in (a.xref for a in page.annots() or ()):
        kind, value = doc.xref_get_key(annot_xref, "AP/N")
        if kind == "xref":
            xrefs.append(int(value.split()[0]))
    for xref in xrefs:
        if xref in seen or xref <= 0:
            continue
        seen.add(xref)
        total += stream_size(doc, xref, cap - total)
        if total > cap:
            break
    return total


def check_page_content(doc, page, number: int, filename: str, page_cap: int, document_cap: int, used: int) -> int:
    """The page's content size; InputError when it is over the page cap, or takes the document's content
    (`used` so far) over the document cap."""
    size = page_content_size(doc, page, min(page_cap, document_cap - used))
    if size > page_cap:
        raise InputError(filename, f"page {number}'s content is over {megabytes(page_cap)} once decompressed; "
                                   f"{TOO_LARGE}")
    if used + size > document_cap:
        raise InputError(filename, f"its pages' content is over {megabytes(document_cap)} once decompressed "
                                   f"(at page {number}); {TOO_LARGE}")
    return size


def fit_zoom(width: float, height: float, zoom: float, max_pixels: int) -> float:
    """`zoom`, or the largest zoom at which a width × height (points) page is drawn in at most `max_pixels`
    (MuPDF rounds each side up to whole pixels: (w·z + 1)(h·z + 1) ≤ max_pixels)."""
    if width <= 0 or height <= 0 or (width * zoom + 1) * (height * zoom + 1) <= max_pixels:
        return zoom
    a, b, c = width * height, width + height, 1 - max_pixels
    return max((-b + math.sqrt(b * b - 4 * a * c)) / (2 * a), 1e-4)
