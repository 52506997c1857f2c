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


# The keys a malformed block may not carry: skipping such a block could make a restricted document public or an
# expired one current, so it is refused instead (the descriptive keys title, license, uri, lang are only shown).
EVIDENCE_KEYS = ("id", "version", "topic", "authority", "valid_from", "valid_to", "updated", "access", "cards")
_EVIDENCE_KEY_LINE = re.compile(rf"^[ \t-]*[\"']?(?:{'|'.join(EVIDENCE_KEYS)})[\"']?[ \t]*:", re.MULTILINE)


def split_front_matter(text: str, filename: str, warnings: list[str] | None = None) -> tuple[dict[str, Any], str]:
    """Return (front matter mapping, body). The body starts right after the closing `---`.

    With a `warnings` list, a block that cannot be read (no closing line, too long, invalid YAML, not key: value
    pairs) is one warning there and an empty mapping, unless it names one of our evidence keys (then it is refused
    as without the list). The body still starts after the block's closing line, so a block's lines never become
    body lines: fixing the YAML later does not renumber what was cited.
    """
    if not text.startswith("---"):
        return {}, text
    match = _FRONT_MATTER.match(text)
    if not match:
        _tolerated(text[:MAX_FRONT_MATTER_CHARS], filename, "front matter: opening '---' has no closing '---' line",
                   warnings, "the file starts with '---' but no closing '---' line follows; read it all as text")
        return {}, text
    source = match.group(1) or ""
    body = text[match.end():]
    try:
        if len(source) > MAX_FRONT_MATTER_CHARS:
            raise InputError(filename, f"front matter is {len(source)} characters; the limit is {MAX_FRONT_MATTER_CHARS}")
        loaded = _load_yaml(source, filename)
        if not isinstance(loaded, Mapping):
            raise InputError(filename, "front matter: expected key: value pairs")
    except InputError as error:
        _tolerated(source, filename, error.problem, warnings,
                   f"{error.problem}; the block was skipped, the text after it read")
        return {}, body
    return dict(loaded), body


def _load_yaml(source: str, filename: str) -> Any:
    try:
        loaded = yaml.load(source, Loader=_FrontMatterLoader)  # noqa: S506 (a safe loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at front-matter line {mark.line + 2}" if mark else ""
        problem = (getattr(error, "problem", None) or str(error).splitlines()[0])[:120]
        raise InputError(filename, f"front matter: invalid YAML{where}: {problem}") from None
    except RecursionError:  # "[[[[…" thousands deep: PyYAML composes recursively
        raise InputError(filename, "front matter: invalid YAML: nested too deeply") from None
    return {} if loaded is None else loaded


def _tolerated(block: str, filename: str, refusal: str, warnings: list[str] | None, warning: str) -> None:
    """Record `warning`, or raise `refusal` when there is no list to record it in or the block names an evidence
    key."""
    if warnings is None or _EVIDENCE_KEY_LINE.search(block):
        raise InputError(filename, refusal)
    warnings.append(warning)


def decode_text(data: bytes, filename: str) -> str:
    if b"\x00" in data[:4096]:
        raise InputError(filename, "looks like a binary file, not UTF-8 text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(filename, f"not valid UTF-8 (byte {error.start})") from None
    # Offsets address the body as stored, with line endings normalised to "\n".
    return text.replace("\r\n", "\n").replace("\r", "\n")
