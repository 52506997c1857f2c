"""A refusal names the file's real problem (issue 50, finding 6): running out of memory was reported as a corrupt or
damaged file, a page nested deeper than libxml2's 256 levels as "the document body is empty", and a DOCTYPE's
internal subset left "]>" as the page's first line and `&xxe;` in its title."""

from __future__ import annotations

import pytest

from pipeline.core.errors import InputError
from pipeline.engine import sandbox_worker
from pipeline.ingest.parsers import parse
from tests.office_files import make_docx, make_html, make_xlsx


def _out_of_memory(*args, **kwargs):
    raise MemoryError


@pytest.mark.parametrize("kind,data,target", [
    ("docx", make_docx(), "docx.Document"),
    ("xlsx", make_xlsx(), "openpyxl.load_workbook"),
    ("html", make_html(), "lxml.html.document_fromstring"),
])
def test_running_out_of_memory_is_reported_as_such_not_as_a_corrupt_file(monkeypatch, kind, data, target):
    """The worker answers "memory" (the server then says the file needed more memory than a worker may have)."""
    monkeypatch.setattr(target, _out_of_memory)
    monkeypatch.setattr(sandbox_worker, "_cpu_budget", lambda seconds: None)  # a worker's CPU limit, not this process's
    reply = sandbox_worker.handle(("parse", kind, data, f"big.{kind}", None, None, 30))
    assert reply[0] == "memory", reply


def test_the_server_says_a_file_needed_more_memory():
    from pipeline.engine.sandbox import Sandbox

    said = Sandbox(memory=384 * 2**20)._explain("memory", "this file")
    assert said == "this file is too large to read safely: it needed more than 384 MB of memory"


def test_a_page_nested_deeper_than_the_parser_reads_is_refused_as_such():
    page = b"<html><body>" + b"<div>" * 300 + b"The deep text." + b"</div>" * 300 + b"</body></html>"
    with pytest.raises(InputError) as refused:
        parse(page, "deep.html")
    assert str(refused.value) == "deep.html: its elements are nested too deeply to read (more than 256 levels)"
    shallow = page.replace(b"<div>" * 300, b"<div>" * 200).replace(b"</div>" * 300, b"</div>" * 200)
    assert [line.text for line in parse(shallow, "shallow.html").pages[0].lines if line.text] == ["The deep text."]


def test_an_internal_dtd_subset_leaves_no_trace_and_reads_no_file():
    page = (b'<!DOCTYPE html [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n<!ENTITY harbour "Harbour of Kiel">\n'
            b'<!ENTITY % p "x">\n]>\n<html><head><title>Dues &xxe;at the &harbour;</title></head>'
            b"<body><p>Boats pay at the &harbour; &xxe;office &amp; nowhere else.</p></body></html>")
    document = parse(page, "entities.html")
    text = [line.text for line in document.pages[0].lines if line.text]
    assert text == ["Boats pay at the Harbour of Kiel office & nowhere else."]
    assert document.meta.title == "Dues at the Harbour of Kiel"


def test_entities_that_would_expand_past_the_page_are_refused():
    page = (b'<!DOCTYPE html [<!ENTITY big "' + b"x" * 1000 + b'">]><html><body><p>'
            + b"&big;" * 50 + b"</p></body></html>")
    with pytest.raises(InputError, match="entities would expand to more text than the page holds"):
        parse(page, "bomb.html")
