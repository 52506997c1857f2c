"""Sign-in for the app: with a users file, a user's groups come from the file, never from the request.

Configuration (environment): AUTH_USERS_FILE names the users file (see `pipeline.auth.accounts`);
AUTH_PROXY_HEADER (optional) names the header an authenticating proxy sets to the signed-in
user (then no password is asked here — only deploy it behind that proxy). Without a users file
the app runs in demo mode: groups are self-declared in the form, and the page says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_GROUPS_INFO = "demo: groups are self-declared (comma-separated); restricted documents need one."
ACCOUNT_GROUPS_INFO = "Your groups come from your account."


def load_accounts():
    """The users file named by AUTH_USERS_FILE, or None (demo mode)."""
    from pipeline import Accounts, environment

    path = environment().get("AUTH_USERS_FILE")
    return Accounts.from_file(Path(path)) if path else None


def mount_options(accounts) -> dict[str, Any]:
    """`gr.mount_gradio_app` keywords: a login page checking the users file, or the proxy's user header."""
    if accounts is None:
        return {}
    from pipeline import environment

    header = environment().get("AUTH_PROXY_HEADER")
    if header:
        return {"auth_dependency": lambda request: request.headers.get(header) or None}
    from .login import LoginGuard  # argon2 off the event loop, throttled per account and address

    return {"auth": LoginGuard(accounts).login, "auth_message": "Sign in to read the documents your groups allow."}


def parse_groups(value) -> tuple[str, ...]:
    from pipeline import parse_groups as bounded_groups  # length and count are capped

    if isinstance(value, tuple):
        return value
    return bounded_groups(value)


def requester_groups(accounts, session, typed, request=None) -> tuple[str, ...]:
    """The groups a request carries: the account's when signed in, the typed ones only in demo mode."""
    if accounts is None:
        return parse_groups(typed)
    username = getattr(request, "username", None) if request is not None else None
    if username:
        owner = getattr(session, "user", None)
        if owner is not None and owner != username:  # ui.session_owner refuses this before; never lend a session
            from pipeline import InputError

            raise InputError("session", "this session belongs to another user; reload the page")
        session.user = username
    return accounts.groups(getattr(session, "user", None))


def signs_out_here() -> bool:
    """Whether this app signs people in (and so out): not when an authenticating proxy does (AUTH_PROXY_HEADER)."""
    from pipeline import environment

    return not environment().get("AUTH_PROXY_HEADER")


def account_html(username: str | None, groups: tuple[str, ...]) -> str:
    """The header line of a signed-in page: who is signed in, the groups that decide what they read, and sign-out
    (this tab only: Gradio's /logout with all_session=false; the proxy signs people out when it signed them in)."""
    import html

    if not username:
        return ""
    shown = ", ".join(groups) if groups else "none (only documents open to everyone)"
    out = ("<a class='rag-sign-out' id='sign-out' href='logout?all_session=false'>Sign out</a>" if signs_out_here()
           else "<span class='rag-note'>(signed in through your organisation's sign-in)</span>")
    return (f"<div class='rag-account'>Signed in as <b id='account-name'>{html.escape(username)}</b> · groups: "
            f"<span id='account-groups'>{html.escape(shown)}</span> · {out}</div>")
