"""Replace a version in place (issue 12), in a real browser and through the API: the new file keeps the id,
the old version's chunks leave the index, and a failed replacement keeps the previous version."""

from __future__ import annotations

import re

import pytest

from tests.app.test_app_browser import ask, browser, page, shot  # noqa: F401
from tests.conftest import app_client

V3 = ("---\nid: lighthouse\nversion: v3\ntopic: harbour\n---\nThe lighthouse tour costs 12 euros.\n"
      "Tours start at the north pier.\n")
V4 = "The lighthouse tour costs 15 euros.\nTours start at the south pier.\n"  # no front matter: inherits the topic
BROKEN = "---\nvalid_from: 2027-02-30\n---\nThe lighthouse tour costs 99 euros.\n"


def _replace(page, path, version=""):  # noqa: F811
    page.get_by_role("tab", name="Library").click()
    page.locator("#replace-pick input").click()
    page.get_by_role("option", name=re.compile(r"^lighthouse \(")).click()  # labelled with the current file
    page.locator("#replace-version input").fill(version)
    page.locator("#replace-file input[type=file]").set_input_files([str(path)])
    page.locator("#replace-doc").click()


def test_replace_an_upload_in_place_and_a_failed_replacement_keeps_the_previous_version(page, tmp_path):  # noqa: F811
    (tmp_path / "lighthouse.md").write_text(V3, "utf-8")
    (tmp_path / "lighthouse-2027.md").write_text(V4, "utf-8")
    (tmp_path / "lighthouse-broken.md").write_text(BROKEN, "utf-8")
    page.get_by_text("Upload documents (only you see them)").click()
    page.locator("#upload-files input[type=file]").set_input_files([str(tmp_path / "lighthouse.md")])
    page.locator("#upload").click()
    page.locator("#upload-status").get_by_text("added lighthouse").wait_for()
    page.wait_for_function("() => !document.querySelector('#upload').disabled")  # the lists are refreshed
    page.get_by_role("tab", name="Library").click()

    _replace(page, tmp_path / "lighthouse-2027.md", "v4")
    page.locator("#replace-status").get_by_text("replaced lighthouse (v3 → v4").wait_for()
    row = page.locator("#library tr", has_text="lighthouse")
    row.locator("td").nth(2).get_by_text("v4").wait_for()
    cells = row.locator("td").all_inner_texts()
    assert cells[3] == "harbour" and cells[9] == "uploaded"  # the topic is inherited
    assert page.locator("#library tr", has_text="lighthouse").count() == 1
    shot(page, "replaced.png")
    ask(page, "How much does the lighthouse tour cost?", topic="")
    page.locator("#answer").get_by_text("15 euros").first.wait_for()
    page.get_by_role("tab", name="2 Candidates").click()
    assert "12 euros" not in page.locator("#candidates").inner_text()

    _replace(page, tmp_path / "lighthouse-broken.md")
    page.locator("#replace-status").get_by_text("impossible date", exact=False).wait_for()  # under the button
    assert row.locator("td").nth(2).inner_text() == "v4"  # the previous version stays
    ask(page, "How much does the lighthouse tour cost?", topic="")
    page.get_by_role("tab", name="4 Answer").click()
    page.locator("#conversation").get_by_text("Conversation (2 turns)", exact=False).wait_for()
    assert "15 euros" in page.locator("#answer").inner_text()
    assert "99 euros" not in page.locator("#answer").inner_text()


def test_replace_document_api_refuses_samples_and_keeps_upload_argument_order(app_url, tmp_path):
    from gradio_client import handle_file

    client = app_client(app_url)
    v3, v4 = tmp_path / "lighthouse.md", tmp_path / "lighthouse-2027.md"
    v3.write_text(V3, "utf-8")
    v4.write_text(V4, "utf-8")
    with pytest.raises(Exception, match="sample document .read-only."):
        client.predict("travel-v2", handle_file(str(v4)), "", api_name="/replace_document")
    # A restricted sample this client may not read is not even named as a sample.
    with pytest.raises(Exception, match="is not one of your uploads or a library document"):
        client.predict("executive-travel", handle_file(str(v4)), "", api_name="/replace_document")
    added = client.predict([handle_file(str(v3))], "", "", "", "", "", api_name="/upload")  # order unchanged
    assert added["added"][0]["source_id"] == "lighthouse"
    with pytest.raises(Exception, match="same file as the current version"):
        client.predict("lighthouse", handle_file(str(v3)), "", api_name="/replace_document")
    report = client.predict("lighthouse", handle_file(str(v4)), "v4", api_name="/replace_document")
    assert report["where"] == "session" and report["replaced"] == "lighthouse"
    assert (report["previous"]["version"], report["current"]["version"]) == ("v3", "v4")
    documents = {d["source_id"]: d for d in client.predict("", api_name="/documents")}
    assert documents["lighthouse"]["version"] == "v4" and documents["lighthouse"]["topic"] == "harbour"


def test_the_documents_panel_fits_a_narrow_screen_in_both_themes(browser, app_url):  # noqa: F811
    from tests.app.test_app_daily import open_page

    for dark in (False, True):
        context, view = open_page(browser, app_url, width=390, dark=dark)
        view.get_by_role("tab", name="Library").click()
        view.locator("#replace-doc").wait_for()
        for element in ("#replace-pick", "#replace-file", "#replace-doc", "#delete-doc"):
            box = view.locator(element).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (element, box)
        assert view.evaluate("() => document.documentElement.scrollWidth") <= 390  # no sideways scrolling
        shot(view, f"documents-narrow-{'dark' if dark else 'light'}.png")
        context.close()
