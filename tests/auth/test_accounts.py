"""Sign-in: with a users file, a request's groups come from the account, never from what the caller types."""

from __future__ import annotations

import pytest
import requests

from pipeline import Accounts, InputError, add_user
from pipeline.cli import main
from tests.conftest import app_client, serve_app

pytestmark = pytest.mark.slow  # argon2id hashes are slow on purpose

ASK = ["executive lodging in Beijing", "2026-09-14", "travel", "executives", 3, 0.6, 0.9, 1400, 200,
       "before_cutoff", "hybrid"]


@pytest.fixture(scope="module")
def users_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("accounts") / "users.yaml"
    add_user(path, "alice", "alice-password-1", ("executives",))
    add_user(path, "bob", "bob-password-22", ())
    return path


def test_passwords_are_salted_hashes_and_verify(users_file):
    accounts = Accounts.from_file(users_file)
    text = users_file.read_text()
    assert "alice-password-1" not in text and text.count("$argon2id$") == 2
    assert accounts.verify("alice", "alice-password-1") and not accounts.verify("alice", "bob-password-22")
    assert not accounts.verify("nobody", "alice-password-1")
    assert accounts.groups("alice") == ("executives",) and accounts.groups("nobody") == ()
    assert (users_file.stat().st_mode & 0o777) == 0o600


def test_a_bad_users_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "users.yaml"
    bad.write_text("users:\n  'bad name!': {groups: [x]}\n")
    with pytest.raises(InputError, match="user name"):
        Accounts.from_file(bad)
    bad.write_text("users:\n  carol: {groups: [x], admin: true}\n")
    with pytest.raises(InputError, match="carol"):
        Accounts.from_file(bad)
    with pytest.raises(InputError, match="at least 8"):
        add_user(tmp_path / "u.yaml", "dave", "short", ())


def test_the_cli_adds_a_user(tmp_path, monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("a-long-password\n"))
    path = tmp_path / "users.yaml"
    assert main(["users", "add", "erin", "--file", str(path), "--groups", "finance, hr", "--password-stdin"]) == 0
    assert Accounts.from_file(path).groups("erin") == ("finance", "hr")
    assert Accounts.from_file(path).verify("erin", "a-long-password")


@pytest.fixture(scope="module")
def signed_in_app(users_file, engine):
    from ui.app import create_app
    from ui.state import load_shared

    app = create_app(load_shared(engine, accounts=Accounts.from_file(users_file)))
    with serve_app(app) as url:
        yield url


def test_a_member_reads_the_restricted_document(signed_in_app):
    client = app_client(signed_in_app, auth=("alice", "alice-password-1"))
    trace = client.predict(*ASK, api_name="/ask")
    assert trace["answer"]["status"] == "answered" and trace["request"]["groups"] == ["executives"]
    assert trace["answer"]["citations"][0]["source_id"] == "executive-travel"


def test_typed_groups_are_ignored_when_signed_in(signed_in_app):
    client = app_client(signed_in_app, auth=("bob", "bob-password-22"))
    trace = client.predict(*ASK, api_name="/ask")  # bob types "executives" but his account has no group
    assert trace["request"]["groups"] == [] and "executive-travel" not in str(trace)
    documents = client.predict("executives", api_name="/documents")
    assert "executive-travel" not in {d["source_id"] for d in documents}
    with pytest.raises(Exception, match="your account does not have"):
        client.predict("restricted-readable", api_name="/run_demo")


def test_wrong_passwords_and_anonymous_calls_are_refused(signed_in_app):
    with pytest.raises(ValueError):
        app_client(signed_in_app, auth=("alice", "not-her-password"))
    response = requests.post(signed_in_app + "gradio_api/call/ask", json={"data": ASK}, timeout=30)
    assert response.status_code == 401
