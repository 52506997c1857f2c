"""Accounts: who may sign in, and which access groups each user's requests carry.

A users file (YAML) holds each user's salted argon2id password hash and groups:

    users:
      alice: {password_hash: "$argon2id$v=19$...", groups: [finance, library-admin]}
      bob:   {password_hash: "$argon2id$v=19$...", groups: []}

`python -m pipeline users add NAME --file users.yaml --groups finance` writes an entry (the
password is read from the terminal, or from stdin with --password-stdin). Without a users file
the app runs in demo mode, where groups are self-declared. Behind an authenticating proxy, the
proxy's user header names the user and the file (password hashes optional) supplies the groups.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pipeline.core.errors import InputError

_NAME = re.compile(r"^[\w.@\-]{1,64}$", re.UNICODE)
_HASHER = PasswordHasher()
# Verifying against this for unknown users keeps "no such user" as slow as "wrong password".
_DUMMY_HASH = _HASHER.hash("not a password: timing equaliser")
MAX_USERS_FILE_BYTES = 1024 * 1024


class Account(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    password_hash: str | None = Field(None, description="argon2id hash; absent for proxy-authenticated users")
    groups: tuple[str, ...] = ()


class Accounts:
    """The users file, validated once at start (re-read with `reload`)."""

    def __init__(self, users: dict[str, Account], path: Path | None = None):
        self.users = users
        self.path = path

    @classmethod
    def from_file(cls, path: Path) -> Accounts:
        path = Path(path)
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise InputError(str(path), f"cannot read the users file: {error.strerror}") from None
        if len(raw) > MAX_USERS_FILE_BYTES:
            raise InputError(str(path), "the users file is larger than 1 MB")
        try:
            loaded = yaml.safe_load(raw.decode("utf-8")) or {}
        except (yaml.YAMLError, UnicodeDecodeError):
            raise InputError(str(path), "the users file is not valid UTF-8 YAML") from None
        entries = loaded.get("users", {}) if isinstance(loaded, dict) else None
        if not isinstance(entries, dict):
            raise InputError(str(path), "expected 'users:' with one entry per user name")
        users: dict[str, Account] = {}
        for name, entry in entries.items():
            name = str(name)
            if not _NAME.match(name):
                raise InputError(str(path), f"user name {name[:40]!r} may only hold letters, digits, '.', '@', '_', '-'")
            try:
                users[name] = Account.model_validate(entry or {})
            except ValidationError as error:
                first = error.errors()[0]
                raise InputError(str(path), f"user {name}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None
        return cls(users, path)

    def verify(self, username: str, password: str) -> bool:
        """True when the password matches the user's hash (constant work for unknown users)."""
        account = self.users.get(username)
        stored = account.password_hash if account is not None and account.password_hash else _DUMMY_HASH
        try:
            ok = _HASHER.verify(stored, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            ok = False
        return ok and account is not None and account.password_hash is not None

    def groups(self, username: str | None) -> tuple[str, ...]:
        """The user's groups; an unknown or anonymous user has none (public documents only)."""
        account = self.users.get(username or "")
        return tuple(sorted(set(account.groups))) if account is not None else ()


def add_user(path: Path, name: str, password: str | None, groups: tuple[str, ...]) -> None:
    """Add or replace one user in the users file (written atomically)."""
    if not _NAME.match(name):
        raise InputError(name[:40], "a user name may only hold letters, digits, '.', '@', '_', '-'")
    if password is not None and len(password) < 8:
        raise InputError(name, "the password must have at least 8 characters")
    path = Path(path)
    existing = Accounts.from_file(path).users if path.exists() else {}
    entry = Account(password_hash=_HASHER.hash(password) if password else None, groups=groups)
    users = {**{n: a.model_dump(exclude_none=True) for n, a in existing.items()},
             name: entry.model_dump(exclude_none=True)}
    for account in users.values():
        account["groups"] = list(account.get("groups", ()))
    text = yaml.safe_dump({"users": users}, sort_keys=True, allow_unicode=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    from pipeline.core.atomic import atomic_write

    atomic_write(path, text.encode("utf-8"), mode=0o600, prefix=".users-")
