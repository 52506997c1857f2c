"""The conversation and library endpoints through gradio_client: /history, /reopen_turn, /clear_history,
/delete_document (the app runs in-process, each client is its own session)."""

from __future__ import annotations

import re
import time

import pytest
from gradio_client.exceptions import AppError

from tests.app.test_app_client import ask, check, panels, upload
from tests.conftest import app_client


@pytest.fixture
def client(app_url):
    return app_client(app_url)


def wait_until_ready(client, source_id: str, seconds: float = 120) -> None:
    """Poll /documents until the upload's dense vectors are in (an API client's way to wait for them)."""
    deadline = time.time() + seconds
    while True:
        status = {d["source_id"]: d["status"] for d in client.predict("", api_name="/documents")}[source_id]
        if status == "ready" or time.time() > deadline:
            break
        assert re.fullmatch(r"waiting to embed \d+ chunks|embedding \d+ of \d+", status), status
        time.sleep(0.5)
    assert status == "ready"


def test_history_keeps_each_turn_and_api_asks_are_never_rewritten(client):
    ask(client, "Beijing lodging", topic="")
    second = ask(client, "What about Shanghai?", topic="")
    assert second["request"]["question"] == "What about Shanghai?"  # /ask clients: searched exactly as asked
    turns = client.predict(api_name="/history")
    assert [t["turn"] for t in turns] == [1, 2]
    assert turns[0]["asked"] == "Beijing lodging" and turns[0]["status"] == "answered"
    assert turns[1]["follow_up"] is False and turns[1]["searched"] == "What about Shanghai?"
    reopened = client.predict("1", api_name="/reopen_turn")
    assert reopened["request"]["question"] == "Beijing lodging"
    assert "750 yuan" in reopened["answer"]["answer"]
    assert client.predict(api_name="/clear_history") == []
    assert client.predict(api_name="/history") == []
    with pytest.raises(AppError, match="no turn"):
        client.predict("1", api_name="/reopen_turn")


def test_delete_an_upload_then_ask_again(client, tmp_path):
    note = tmp_path / "lighthouse.md"
    note.write_text("---\nid: lighthouse\n---\nThe lighthouse tour costs 12 euros.\n", "utf-8")
    upload(client, note)
    trace = ask(client, "How much does the lighthouse tour cost?", topic="")
    assert trace["answer"]["status"] == "answered" and "12 euros" in trace["answer"]["answer"]
    report = client.predict("lighthouse", api_name="/delete_document")
    assert report == {"deleted": "lighthouse", "documents": []}
    trace = ask(client, "How much does the lighthouse tour cost?", topic="")
    assert trace["answer"]["status"] == "abstained"
    assert all(c["source_id"] != "lighthouse" for c in trace["retrieval"]["candidates"])
    documents = client.predict("", api_name="/documents")
    assert "lighthouse" not in {d["source_id"] for d in documents}
    with pytest.raises(AppError, match="shared sample"):
        client.predict("travel-v2", api_name="/delete_document")


def test_session_export_holds_documents_metadata_and_traces(client, tmp_path):
    note = tmp_path / "ferry-note.md"
    note.write_text("---\nid: ferry-note\nversion: v2\ntopic: harbour\n---\nThe night ferry costs 30 euros.\n", "utf-8")
    upload(client, note)
    ask(client, "How much does the night ferry cost?", topic="")  # at once: BM25 while the vectors are computed
    wait_until_ready(client, "ferry-note")
    export = client.predict("", api_name="/export_session")
    assert export["export_version"] == "session-export-v1"
    mine = [d for d in export["documents"] if d["origin"] == "uploaded"]
    assert [(d["source_id"], d["version"], d["topic"], d["status"]) for d in mine] == \
        [("ferry-note", "v2", "harbour", "ready")]
    assert mine[0]["chunks"] >= 1 and mine[0]["lines"] == 1
    (turn,) = export["turns"]
    assert turn["asked"] == "How much does the night ferry cost?"
    assert turn["trace"]["answer"]["status"] == "answered" and turn["trace"]["trace_version"] == "trace-v1"


def test_check_answer_verifies_a_paraphrase_the_policy_title_qualifies(client):
    """"meal" is in the document's title, not in line 5: read under the title, the paraphrase is supported."""
    trace = check(client, "The meal allowance in Shanghai is 180 yuan per day. [meals-allowance:5]",
                  question="What is the meal allowance in Shanghai?")
    answer = trace["answer"]
    assert answer["status"] == "answered" and not answer["partial"], trace["explanation"]
    assert [(c["source_id"], c["start_line"], c["verified"]) for c in answer["citations"]] == [("meals-allowance", 5, True)]
    judged = next(r for r in trace["checks"][0]["checks"] if r["name"] == "claim_supported")
    assert "the document's title says them: meal" in judged["detail"]
    lodging = check(client, "The lodging allowance in Shanghai is 180 yuan per day. [meals-allowance:5]",
                    question="What is the lodging allowance in Shanghai?")
    assert lodging["answer"]["status"] == "abstained"  # "lodging" is in neither the line nor the title


def test_check_answer_with_a_wrong_claim_is_partial_and_struck_through(client):
    trace = check(client, "The lodging limit is 750 yuan. [travel-v2:1-3] Executives may spend 2000 yuan. [travel-v2:1-3]")
    answer = trace["answer"]
    assert answer["status"] == "answered" and answer["partial"]
    assert [(c["text"], c["status"], c["failed_checks"]) for c in answer["claims"]] == [
        ("The lodging limit is 750 yuan.", "verified", []),
        ("Executives may spend 2000 yuan.", "dropped", ["claim_supported", "numbers_match"])]
    shown = panels(client)
    assert "⚠ partly answered — 1 claim dropped" in shown and "<del>Executives may spend 2000 yuan.</del>" in shown
    assert "✓ answered" not in shown
