"""YAML front matter at the top of a text file (and a sidecar's body): metadata as a mapping, the body apart.

Dates stay text (our metadata validation names an impossible one), and anchors and aliases are refused: a
few hundred bytes of nested aliases expand to gigabytes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import yaml

from pipeline.core.errors import InputError

MAX_FRONT_MATTER_CHARS = 16 * 1024  # metadata is a few lines; a bound keeps YAML parsing cheap


_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?---[ \t]*(?:\n|\Z)", re.DOTALL)


class _StringDatesLoader(yaml.SafeLoader):
    """YAML without implicit timestamps: dates stay text, so ours can name an impossible one."""


_StringDatesLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _FrontMatterLoader(_StringDatesLoader):
    """Also refuses anchors and aliases: ~390 bytes of nested aliases expand to gigabytes (an alias bomb)."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise yaml.composer.ComposerError(None, None, "anchors and aliases (&name, *name) are not allowed",
                                              event.start_mark)
        return super().compose_node(parent, index)


def split_front_matter(text: str, filename: str) -> tuple[dict[str, Any], str]:
    """Return (front matter mapping, body). The body starts right after the closing `---`."""
    if not text.startswith("---"):
        return {}, text
    match = _FRONT_MATTER.match(text)
    if not match:
        raise InputError(filename, "front matter: opening '---' has no closing '---' line")
    source = match.group(1) or ""
    if len(source) > MAX_FRONT_MATTER_CHARS:
        raise InputError(filename, f"front matter is {len(source)} characters; the limit is {MAX_FRONT_MATTER_CHARS}")
    try:
        loaded = yaml.load(source, Loader=_FrontMatterLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at front-matter line {mark.line + 2}" if mark else ""
        problem = (getattr(error, "problem", None) or str(error).splitlines()[0])[:120]
        raise InputError(filename, f"front matter: invalid YAML{where}: {problem}") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, Mapping):
        raise InputError(filename, "front matter: expected key: value pairs")
    return dict(loaded), text[match.end():]


def decode_text(data: bytes, filename: str) -> str:
    if b"\x00" in data[:4096]:
        raise InputError(filename, "looks like a binary file, not UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(filename, f"not valid UTF-8 (byte {error.start})") from None
    # Offsets address the body as stored, with line endings normalised to "\n".
    return text.replace("\r\n", "\n").replace("\r", "\n")
