"""Parse and metadata: exact line addressing, front matter, and every bad-input message."""

from __future__ import annotations

import datetime as dt

import pytest

from pipeline.core.errors import InputError
from pipeline.ingest.document import sha256
from pipeline.ingest.parsers import parse

FRONT = """---
id: travel-v2
version: v2
topic: travel
authority: finance-office
valid_from: 2026-01-01
valid_to: null
updated: 2026-01-01
license: CC BY-SA 4.0
uri: book://travel/v2
lang: en
access: [finance]
cards:
  - id: B
    text: beijing lodging lodging 750
    lines: 1-3
---
"""
BODY = (
    "Fictional Beijing lodging policy; amounts are per room per night.\n"
    "Effective from 2026-01-01; replaces travel-v1.\n"
    "The lodging limit is 750 yuan.\n"
)


def test_front_matter_becomes_metadata_and_lines_count_the_body_only():
    data = (FRONT + BODY).encode()
    document = parse(data, "travel-v2.md")
    meta = document.meta
    assert (meta.source_id, meta.version, meta.topic, meta.authority) == ("travel-v2", "v2", "travel", "finance-office")
    assert meta.valid_from == dt.date(2026, 1, 1) and meta.valid_to is None and meta.updated == dt.date(2026, 1, 1)
    assert meta.access == ("finance",) and meta.license == "CC BY-SA 4.0" and meta.uri == "book://travel/v2"
    assert [(c.id, c.start_line, c.end_line) for c in meta.cards] == [("B", 1, 3)]
    page = document.pages[0]
    assert [line.number for line in page.lines] == [1, 2, 3]
    assert page.lines[0].text.startswith("Fictional Beijing")
    assert page.lines[2].text == "The lodging limit is 750 yuan."
    assert document.digest == sha256(data)


def test_offsets_are_zero_based_half_open_code_points_excluding_the_newline():
    document = parse(BODY.encode(), "policy.txt")
    page = document.pages[0]
    first, second = page.lines[0], page.lines[1]
    assert first.start == 0 and first.end == len("Fictional Beijing lodging policy; amounts are per room per night.")
    assert second.start == first.end + 1
    for line in page.lines:
        assert page.text[line.start : line.end] == line.text
        assert "\n" not in line.text


def test_chinese_is_addressed_in_its_own_code_points():
    body = "虚构的北京住宿政策；金额按每间每晚计算。\n自2026-01-01起生效；取代travel-v1。\n住宿限额为750元。\n"
    page = parse(body.encode(), "zh.md").pages[0]
    assert [(line.start, line.end) for line in page.lines] == [(0, 20), (21, 48), (49, 59)]
    assert page.text[49:59] == "住宿限额为750元。"
    # UTF-8 byte offsets would differ: the third line starts at byte 105, not 49.
    assert len(body[:49].encode("utf-8")) == 105


def test_default_id_is_the_file_stem_and_blank_lines_keep_their_numbers():
    document = parse(b"first\n\nthird\n", "notes.md")
    assert document.source_id == "notes"
    assert [(line.number, line.text) for line in document.pages[0].lines] == [(1, "first"), (2, ""), (3, "third")]


def test_crlf_is_normalised_and_bom_is_dropped():
    document = parse("\ufeffalpha\r\nbeta\r\n".encode("utf-8"), "win.txt")
    assert [line.text for line in document.pages[0].lines] == ["alpha", "beta"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\nid: [unclosed\n---\nbody\n", "front matter: invalid YAML"),
        ("---\nid: x\nbody without a closing line\n", "no closing '---'"),
        ("---\nvalid_from: 14/09/2026\n---\nbody\n", "valid_from: unknown date format '14/09/2026'"),
        ("---\nvalid_from: 2026-02-30\n---\nbody\n", "valid_from: impossible date '2026-02-30'"),
        ("---\nvalid_from: 2026-03-01\nvalid_to: 2026-01-01\n---\nbody\n", "valid_to 2026-01-01 is before valid_from"),
        ("---\ncards:\n  - id: B\n    text: x\n    lines: 2-9\n---\none\ntwo\n", "lines 2-9 are outside the body (2 lines)"),
        ("---\ncards:\n  - id: B\n    text: x\n    lines: 3-1\n---\none\n", "impossible line range 3-1"),
        ("---\naccess: [a\n---\nbody\n", "front matter: invalid YAML"),
        ("---\n- valid_to: 2026-01-01\n---\nbody\n", "expected key: value pairs"),
        ("---\nid: a/b\n---\nbody\n", "may only hold letters"),
        ("---\naccess: []\n---\nbody\n", "unreadable to everyone"),
        ("---\nid: x\n---\n   \n", "the document body is empty"),
        ("", "the document body is empty"),
    ],
)
def test_bad_front_matter_and_bodies_get_one_clear_line(text, message):
    with pytest.raises(InputError) as raised:
        parse(text.encode(), "bad.md")
    assert raised.value.filename == "bad.md"
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_binary_invalid_utf8_and_mislabelled_files_are_refused():
    with pytest.raises(InputError, match="not valid UTF-8"):
        parse(b"caf\xe9 au lait", "latin1.txt")
    with pytest.raises(InputError, match="binary file"):
        parse(b"\x89PNG\r\n\x1a\n\x00\x00\x00", "image.txt")
    with pytest.raises(InputError, match="PDF file with a text extension"):
        parse(b"%PDF-1.7\n...", "report.txt")
    with pytest.raises(InputError, match="unsupported file type .odt"):
        parse(b"PK\x03\x04", "letter.odt")
    with pytest.raises(InputError, match="is corrupt"):  # a DOCX is read now: a damaged one says so
        parse(b"PK\x03\x04", "letter.docx")


def test_huge_text_files_are_refused(monkeypatch):
    import pipeline.ingest.parsers.text as parse_module

    monkeypatch.setattr(parse_module, "MAX_TEXT_BYTES", 1000)
    with pytest.raises(InputError, match="the limit is"):
        parse(b"x" * 1001, "big.txt")


def test_metadata_from_an_upload_form_overrides_front_matter():
    document = parse((FRONT + BODY).encode(), "travel.md", metadata={"topic": "lodging", "valid_to": "2026-12-31"})
    assert document.meta.topic == "lodging" and document.meta.valid_to == dt.date(2026, 12, 31)


def test_restructured_text_is_read_as_text_with_its_titles_and_literal_blocks():
    from pipeline.core.contracts import PackedLine, PackedSource
    from pipeline.text.units import units_of

    text = ("Configuration Values\n====================\n\nBelow is an example configuration::\n\n"
            "    [profile development]\n    max_concurrent_requests = 20\n\nThe values are optional.\n")
    document = parse(text.encode("utf-8"), "s3-config.rst")
    assert document.kind == "text" and document.source_id == "s3-config"
    lines = document.pages[0].lines
    source = PackedSource(n=1, source_id="s3-config", version=None, page=None, start_line=1, end_line=len(lines),
                          support_span=False, dated="", sibling_group="",
                          lines=tuple(PackedLine(number=line.number, text=line.text) for line in lines))
    kinds = {(u.kind, u.start_line, u.end_line) for u in units_of(source)}
    assert ("heading", 1, 1) in kinds and ("code", 4, 7) in kinds and ("sentence", 9, 9) in kinds
