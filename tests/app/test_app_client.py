"""The web app driven through its public API with gradio_client (the app runs in-process)."""

from __future__ import annotations

import json
import urllib.request

import pytest
from gradio_client import handle_file
from gradio_client.exceptions import AppError

from pipeline.evaluate.scenarios import SCENARIOS
from ui.demos import DEMOS
from tests.conftest import app_client

DATE = "2026-09-14"
DEFAULT_SETTINGS = (3, 0.6, 0.9, 1400, 200, "before_cutoff", "hybrid")


def ask(client, question, topic="travel", groups="", date=DATE, settings=DEFAULT_SETTINGS):
    return client.predict(question, date, topic, groups, *settings, api_name="/ask")


def check(client, text, question="Beijing lodging", topic="travel", groups=""):
    return client.predict(text, question, DATE, topic, groups, *DEFAULT_SETTINGS, api_name="/check_answer")


def upload(client, *paths, version="", topic="", authority="", valid_from="", valid_to=""):
    return client.predict([handle_file(str(p)) for p in paths], version, topic, authority, valid_from, valid_to,
                          api_name="/upload")


def panels(client, groups="") -> str:
    """Every HTML panel of the last result, joined (the undocumented /panels step the UI runs)."""
    return "\n".join(json.dumps(part, ensure_ascii=False) if not isinstance(part, str) else part
                     for part in client.predict(groups, api_name="/panels"))


@pytest.fixture
def client(app_url):
    return app_client(app_url)


def test_healthz(app_url):
    with urllib.request.urlopen(app_url + "healthz", timeout=10) as response:
        assert response.status == 200
        body = json.loads(response.read())
    assert body["status"] == "ok"
    assert body["documents"] >= 13  # the samples anyone may read


def test_api_lists_the_named_endpoints(client):
    names = set(client.view_api(print_info=False, return_format="dict")["named_endpoints"])
    assert {"/ask", "/check_answer", "/upload", "/run_demo", "/documents"} <= names


def test_ask_about_the_samples_is_answered_with_a_verified_citation(client):
    trace = ask(client, "Beijing lodging")
    answer = trace["answer"]
    assert answer["status"] == "answered"
    cited = [(c["source_id"], c["start_line"], c["end_line"], c["verified"]) for c in answer["citations"]]
    assert ("travel-v2", 1, 3, True) in cited
    assert "750 yuan" in answer["answer"]
    assert trace["generator_called"] is True and trace["retrieval"]["candidates"]
    html = panels(client)
    assert "✓ answered" in html and "✓ verified: travel-v2 lines 1–3" in html
    assert "characters against a budget of <b>1200</b>" in html  # the context panel
    assert "trace.json" in html  # the download button got a file


@pytest.mark.parametrize("label,name", DEMOS)
def test_each_demo_runs_its_seed_scenario(client, label, name):
    scenario = next(s for s in SCENARIOS if s.name == name)
    expected = scenario.expected
    trace = client.predict(name, ", ".join(scenario.groups), api_name="/run_demo")  # groups are self-declared
    assert trace["answer"]["status"] == expected.status
    assert trace["answer"]["reason_code"] == expected.reason_code
    html = panels(client)
    if expected.status == "abstained":
        assert f"✗ abstained — {expected.reason_code}" in html
        assert trace["explanation"] and trace["explanation"].split(" (")[0][:60] in html


def test_an_unknown_demo_is_a_clear_error(client):
    with pytest.raises(AppError, match="unknown demo"):
        client.predict("no-such-demo", api_name="/run_demo")


def test_check_answer_drops_600_citing_v2_with_numbers_match(client):
    trace = check(client, "The lodging limit is 600 yuan. [travel-v2:1-3]")
    answer = trace["answer"]
    assert answer["status"] == "abstained" and answer["reason_code"] == "unsupported_claim"
    dropped = answer["dropped_citations"]
    assert len(dropped) == 1 and dropped[0]["source_id"] == "travel-v2" and not dropped[0]["verified"]
    assert "numbers_match" in dropped[0]["failed_checks"]
    assert "✗ dropped: travel-v2 lines 1–3" in panels(client)


def test_check_answer_accepts_a_proposal_json(client):
    proposal = {"answer": "The lodging limit is 750 yuan.",
                "citations": [{"source_id": "travel-v2", "start_line": 1, "end_line": 3}]}
    trace = check(client, json.dumps(proposal))
    assert trace["answer"]["status"] == "answered"
    assert trace["answer"]["citations"][0]["verified"] is True


def test_check_answer_without_markers_says_how_to_write_them(client):
    with pytest.raises(AppError, match="no citation marker"):
        check(client, "The lodging limit is 750 yuan.")


def test_a_bad_date_is_a_one_line_error(client):
    with pytest.raises(AppError, match="not a date; use YYYY-MM-DD"):
        ask(client, "Beijing lodging", date="14/09/2026")


def test_restricted_documents_need_the_group(client):
    everyone = {d["source_id"] for d in client.predict("", api_name="/documents")}
    executives = {d["source_id"] for d in client.predict("executives", api_name="/documents")}
    assert "executive-travel" not in everyone and "executive-travel" in executives
    trace = ask(client, "executive lodging in Beijing")
    assert "executive-travel" not in json.dumps(trace) and "executive-travel" not in panels(client)
    trace = ask(client, "executive lodging in Beijing", groups="executives")
    assert trace["answer"]["status"] == "answered"


def test_sessions_are_isolated(app_url, tmp_path):
    secret = tmp_path / "secret-memo.md"
    secret.write_text("---\nid: secret-memo\ntopic: travel\n---\n"
                      "The quokka allowance for Rottnest visits is 321 dollars.\n", "utf-8")
    alice, bob = app_client(app_url), app_client(app_url)
    report = upload(alice, secret)
    assert [d["source_id"] for d in report["added"]] == ["secret-memo"] and not report["errors"]
    trace = ask(alice, "quokka allowance Rottnest")
    assert trace["answer"]["status"] == "answered"
    assert trace["answer"]["citations"][0]["source_id"] == "secret-memo"

    assert "secret-memo" not in {d["source_id"] for d in bob.predict("", api_name="/documents")}
    trace = ask(bob, "quokka allowance Rottnest")
    assert trace["answer"]["status"] == "abstained"
    # The question's own terms (and their IDF over what bob may read) are bob's, not alice's.
    assert set(trace["retrieval"]["term_weights"]) == {"quokka", "allow", "rottnest"}
    trace["retrieval"]["term_weights"] = {}
    seen = json.dumps(trace) + panels(bob)
    assert "secret-memo" not in seen and "quokka" not in seen.replace("quokka allowance Rottnest", "")
    trace = check(bob, "The quokka allowance is 321 dollars. [secret-memo:1]", question="quokka allowance")
    assert trace["answer"]["dropped_citations"][0]["failed_checks"][0] == "source_exists"
    assert "321 dollars" not in json.dumps(trace["answer"]["dropped_citations"])


def test_document_text_is_escaped(client, tmp_path):
    evil = tmp_path / "evil.md"
    evil.write_text("---\nid: evil\ntopic: travel\n---\n"
                    "The <script>window.__xss=1</script> ferry to Zanzibar costs 99 shillings.\n", "utf-8")
    assert upload(client, evil)["added"]
    trace = ask(client, "Zanzibar ferry shillings", topic="")
    assert trace["answer"]["citations"][0]["source_id"] == "evil"
    html = panels(client)
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in html
    assert "<script>" not in html


def test_upload_errors_are_reported_per_file_and_metadata_applies(client, tmp_path):
    import pymupdf

    image = tmp_path / "photo.pdf"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 100)
    long = pymupdf.open()
    for _ in range(201):
        long.new_page().insert_text((72, 72), "A page of a long report.")
    too_long = tmp_path / "long-report.pdf"
    too_long.write_bytes(long.tobytes())
    plain = tmp_path / "harbour-note.txt"
    plain.write_text("Harbour parking costs 3 euros per hour.\n", "utf-8")
    report = upload(client, image, too_long, plain, version="v7", topic="harbour", valid_from="2026-01-01")
    errors = " | ".join(report["errors"])
    assert "photo.pdf: is not a PDF (it looks like a PNG image)" in errors
    assert "long-report.pdf: has 201 pages; the limit is 200" in errors
    assert "/tmp" not in errors and str(tmp_path) not in errors  # labels, never paths
    assert [(d["source_id"], d["version"], d["topic"]) for d in report["added"]] == [("harbour-note", "v7", "harbour")]
    with pytest.raises(AppError, match="choose one or more files"):
        client.predict([], "", "", "", "", "", api_name="/upload")


def test_one_bad_file_never_stops_an_upload_and_foreign_front_matter_is_read_and_shown_escaped(client, tmp_path):
    files = {
        "a-restricted.md": "---\naccess: [executives\n---\nThe board meets on Fridays.\n",  # refused, never public
        "b-empty.txt": "   \n",
        "c-terms.md": ("---\ntitle: Kayak Club Terms\nredirect_from:\n  - /old-terms\n"
                       "versions: {fpt: '*', note: \"<img src=x onerror=alert(1)>\"}\n---\n"
                       "Members must wear a life jacket on every kayak trip.\n"),
        "d-odd.md": "---\nlayout: [unclosed\n---\nThe kayak shed opens at 7 in the morning.\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    report = upload(client, *(tmp_path / name for name in files))
    assert [line.split(":")[0] for line in report["errors"]] == ["a-restricted.md", "b-empty.txt"]
    assert "front matter: invalid YAML" in report["errors"][0] and "body is empty" in report["errors"][1]
    added = {item["source_id"]: item for item in report["added"]}
    assert set(added) == {"c-terms", "d-odd"}
    assert any("redirect_from, versions" in w for w in added["c-terms"]["warnings"])
    assert any("the block was skipped" in w for w in added["d-odd"]["warnings"])

    trace = ask(client, "What must members wear on a kayak trip?", topic="")
    assert trace["answer"]["status"] == "answered"
    assert trace["answer"]["citations"][0]["source_id"] == "c-terms"
    record = next(d for d in trace["documents"] if d["source_id"] == "c-terms")
    assert "/old-terms" in record["extra"]["redirect_from"]
    html = panels(client)
    assert "Other metadata (not used for access or dates): redirect_from" in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img src=x" not in html
    documents = client.predict("", api_name="/documents")
    assert any("redirect_from" in line for d in documents if d["source_id"] == "c-terms" for line in d["details"])


def test_evaluation_tab_renders_reports_or_says_not_yet_measured(tmp_path):
    from ui import evaluation

    assert "Not yet measured" in evaluation.report_html(tmp_path)
    assert evaluation.plots(tmp_path) == []
    (tmp_path / "eval.json").write_text(json.dumps(
        {"retrieval": {"ndcg@10": 0.712, "recall@100": 0.948}, "rows": [{"system": "bm25", "<b>": 1}]}), "utf-8")
    html = evaluation.report_html(tmp_path)
    assert "ndcg@10" in html and "0.712" in html and "&lt;b&gt;" in html
    assert "reports/bench.json does not exist yet" in html


def test_a_closed_session_drops_its_uploads():
    from pipeline.ingest.parsers import parse
    from ui.state import Session, delete_session

    session = Session()
    session.uploads["x"] = parse(b"Some text.\n", "x.md")
    session.pdf_bytes["digest"] = b"%PDF"
    delete_session(session)
    assert not session.uploads and not session.pdf_bytes and session.last_trace is None
