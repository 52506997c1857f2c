"""Front matter other tools wrote (Jekyll, Hugo) is read, not refused: its keys are shown, never trusted."""

from __future__ import annotations

import datetime as dt
import html

import pytest

from pipeline import Request
from pipeline.core.errors import InputError
from pipeline.ingest.document import document_warnings
from pipeline.ingest.metadata import MAX_EXTRA_KEYS, MAX_EXTRA_VALUE_CHARS
from pipeline.ingest.parsers import parse


def jekyll_page(title: str, body: str) -> str:
    """A page as GitHub's docs keep it (its Terms of Service): Jekyll's redirect_from list and versions mapping."""
    return (f"---\ntitle: {title}\nredirect_from:\n  - /articles/github-terms-of-service\n  - /terms\n"
            "versions:\n  fpt: '*'\n  ghec: '*'\ntopics:\n  - Policy\n  - Legal\n---\n\n" + body)


BODY = ("## A. Definitions\n"
        "Short version: we use these basic terms throughout the agreement.\n"
        "\n"
        "## B. Account Terms\n"
        "You must be age 13 or older to use the Service.\n"
        "One person or legal entity may maintain no more than one free Account.\n")


def test_a_jekyll_page_is_read_its_foreign_keys_kept_as_shown_metadata_and_its_body_answered(engine):
    document = parse(jekyll_page("GitHub Terms of Service", BODY).encode(), "github-terms-of-service.md")
    extra = dict(document.meta.extra)
    assert document.meta.title == "GitHub Terms of Service"
    assert set(extra) == {"redirect_from", "versions", "topics"}
    assert "/terms" in extra["redirect_from"] and "ghec" in extra["versions"]
    assert document.meta.access is None and document.meta.valid_from is None  # nothing foreign decides eligibility
    warnings = document_warnings(document)
    assert len(warnings) == 1 and "redirect_from, versions, topics" in warnings[0]
    assert document.pages[0].lines[5].text == "You must be age 13 or older to use the Service."  # body lines only

    corpus = engine.corpus([document, parse(b"Harbour fees are 5 euros per boat per day.\n", "harbour.md")])
    trace = engine.ask(corpus, Request(question="How old must you be to use the Service?",
                                       date=dt.date(2026, 9, 14)))
    answer = trace.answer
    assert answer.status == "answered", answer
    cited = answer.citations[0]
    assert cited.source_id == "github-terms-of-service" and cited.start_line <= 6 <= cited.end_line
    assert "age 13 or older" in cited.quote
    record = next(r for r in trace.documents if r.source_id == "github-terms-of-service")
    assert record.extra["versions"] == extra["versions"]


def test_foreign_keys_cannot_grant_or_restrict_access_or_validity():
    text = "---\nAccess: [executives]\nvalid-from: 2030-01-01\npermalink: /x\n---\nBody text.\n"
    document = parse(text.encode(), "page.md")
    assert document.meta.access is None and document.meta.valid_from is None
    assert dict(document.meta.extra) == {"Access": '["executives"]', "valid-from": "2030-01-01", "permalink": "/x"}


@pytest.mark.parametrize(
    ("block", "warning"),
    [
        ("layout: [unclosed\n", "invalid YAML at front-matter line"),
        ("- just\n- a list\n", "expected key: value pairs"),
        ("x: " + "[" * 2000 + "]" * 2000 + "\n", "front matter"),  # nested deeper than anyone writes
        ("notes: '" + "x" * 17_000 + "'\n", "the limit is"),
    ],
)
def test_a_malformed_foreign_block_is_one_warning_and_the_body_keeps_its_line_numbers(block, warning):
    text = f"---\n{block}---\nfirst body line\nsecond body line\n"
    document = parse(text.encode(), "odd.md")
    lines = [line.text for line in document.pages[0].lines]
    assert lines == ["first body line", "second body line"]  # as a readable block's body would be numbered
    assert len(document.warnings) == 1 and warning in document.warnings[0]
    assert document.meta.extra == () and document.meta.access is None
    assert len(document_warnings(document)) == 1 and "\n" not in document_warnings(document)[0]


def test_a_leading_rule_without_a_closing_line_is_read_as_text_with_a_warning():
    document = parse(b"---\nA memo that starts with a rule.\nSecond line.\n", "memo.md")
    assert [line.text for line in document.pages[0].lines] == ["---", "A memo that starts with a rule.", "Second line."]
    assert "no closing '---'" in document.warnings[0]


@pytest.mark.parametrize("text", [
    "---\naccess: [executives\n---\nSecret body.\n",  # skipping it would make a restricted document public
    "---\nlayout: x\n  valid_to: 2020-01-01\n: bad\n---\nOld body.\n",
    "---\naccess: [executives]\nSecret body without a closing line.\n",
])
def test_a_malformed_block_naming_an_evidence_key_is_still_refused(text):
    with pytest.raises(InputError) as raised:
        parse(text.encode(), "restricted.md")
    assert raised.value.filename == "restricted.md" and "front matter" in str(raised.value)


def test_foreign_values_are_bounded_in_keys_length_and_depth():
    keys = "".join(f"key{i}: {i}\n" for i in range(MAX_EXTRA_KEYS + 10))
    deep = "deep: " + "[" * 40 + "1" + "]" * 40 + "\n"
    long = "long: '" + "y" * 5000 + "'\n"
    wide = "wide: [" + ", ".join(str(i) for i in range(500)) + "]\n"
    markup = "script: \"<script>alert('x')</script>\"\n"
    document = parse(f"---\n{deep}{long}{wide}{markup}{keys}---\nBody.\n".encode(), "big.md")
    extra = dict(document.meta.extra)
    assert len(document.meta.extra) == MAX_EXTRA_KEYS + 1 and "more key(s) not kept" in extra["…"]
    assert all(len(value) <= MAX_EXTRA_VALUE_CHARS for value in extra.values())
    assert extra["deep"].count("[") <= 3 and "…" in extra["deep"]
    assert len(extra["long"]) == MAX_EXTRA_VALUE_CHARS and "…" in extra["wide"]
    assert extra["script"] == "<script>alert('x')</script>"  # kept as text; escaped where it is shown
    from ui.source import document_details_html

    shown = document_details_html(parse(f"---\n{markup}---\nBody.\n".encode(), "x.md"))
    assert "<script>" not in shown and html.escape("<script>alert('x')</script>") in shown


def test_replacing_a_restricted_document_with_a_page_of_only_foreign_keys_keeps_its_access_and_dates():
    from pipeline.library.versions import replacement_metadata

    old = parse(b"---\nid: board\nversion: v1\naccess: [executives]\nvalid_from: 2026-01-01\n---\nOld minutes.\n",
                "board.md")
    page = jekyll_page("Board minutes", "New minutes.\n").encode()
    metadata = replacement_metadata(page, "board-v2.md", old, "v2", front_matter=True)
    replacement = parse(page, "board-v2.md", metadata)
    assert replacement.meta.access == ("executives",) and replacement.meta.valid_from == dt.date(2026, 1, 1)
    assert replacement.source_id == "board" and replacement.meta.version == "v2"
    assert replacement.meta.title == "Board minutes"
    assert "redirect_from" in dict(replacement.meta.extra)
    skipped = b"---\nlayout: [unclosed\n---\nNew minutes.\n"  # a block the parser skips is not ours either
    assert parse(skipped, "b.md", replacement_metadata(skipped, "b.md", old, None, front_matter=True)).meta.access \
        == ("executives",)
    ours = b"---\ntopic: board\n---\nA summary.\n"  # a block with our evidence keys decides for itself, as before
    assert parse(ours, "s.md", replacement_metadata(ours, "s.md", old, None, front_matter=True)).meta.access is None


def test_an_alias_bomb_under_foreign_keys_is_never_expanded_only_skipped_with_a_warning():
    from tests.app.test_security import alias_bomb

    document = parse(alias_bomb(9, key="permalink").encode(), "bomb.md")
    assert document.meta.extra == () and [line.text for line in document.pages[0].lines] == ["The body."]
    assert len(document.warnings) == 1 and "anchors and aliases" in document.warnings[0]
    assert len(document.warnings[0]) < 200
