"""What any model reply must be before a caller reads it: a JSON object (in a Markdown fence or not), or an
`UnreadableReply` saying why not."""

from __future__ import annotations

import json
import re

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(?P<body>.*?)\n?\s*```\s*$", re.DOTALL | re.IGNORECASE)


class UnreadableReply(ValueError):
    """The reply is neither the proposal JSON nor text with citation markers; `kind` says which way, as a code."""

    def __init__(self, message: str, kind: str = "unreadable"):
        super().__init__(message)
        self.kind = kind


def json_object(reply: str) -> dict | None:
    """The reply as a JSON object, allowing a Markdown code fence around it; None if it is not one."""
    fenced = _FENCE.match(reply)
    body = (fenced["body"] if fenced else reply).strip()
    if not body.startswith("{"):
        return None
    try:
        value = json.loads(body)
    except json.JSONDecodeError as error:
        raise UnreadableReply(f"the reply looks like JSON but does not parse ({error.msg} at character {error.pos})",
                              "json_syntax") from None
    if not isinstance(value, dict):
        raise UnreadableReply("the reply's JSON is not an object", "json_not_object")
    return value
