"""Replacing a document in place: a new file for an existing source id.

The product's versioning rules (docs/usage.md "Documents and front matter", seed 000 §45.3): versions that
must stay answerable side by side (travel-v1 expired, travel-v2 current) are separate ids with
validity intervals, and "current" is judged against the request date. Replacing in place is for a
*correction or update of one id*: the new file takes the old one's id, the old version's chunks and
vectors leave the index, and traces made before keep naming the old digest and version.

A replacement file without its own front matter (every PDF without a sidecar) inherits the replaced
document's metadata — topic, authority, validity, access, licence, URI, language — except its version
label and title, which belong to the file; a file with front matter brings its own, and may not name
another id. Access is inherited so a replacement never widens who may read a document unnoticed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.core.contracts import Document, IndexSettings
from pipeline.core.errors import InputError, shown
from pipeline.index.chunk import Chunker
from pipeline.index.embed import vector_key
from pipeline.ingest.front_matter import EVIDENCE_KEYS, decode_text, split_front_matter

INHERITED = ("topic", "authority", "valid_from", "valid_to", "updated", "license", "uri", "lang", "access")


def opens_with_front_matter(data: bytes) -> bool:
    return data.lstrip(b"\xef\xbb\xbf").startswith(b"---")


def replacement_metadata(data: bytes, name: str, old: Document, version: str | None = None, *,
                         front_matter: bool) -> dict[str, Any]:
    """The metadata to parse a replacement of `old` with (its id always; inherited fields when the file has
    no front matter). `front_matter`: whether a file of this type may carry its own (`Engine.takes_front_matter`).
    Raises InputError when the file's own front matter names another id."""
    version = (version or "").strip() or None
    # A block that names none of our evidence keys (only a title, other tools' keys like Jekyll's, or one the parser
    # skips) inherits as a file without front matter does: replacing a restricted document with it keeps it restricted.
    own, _ = split_front_matter(decode_text(data, name), name, []) if front_matter and opens_with_front_matter(data) \
        else ({}, "")
    if {str(key) for key in own} & set(EVIDENCE_KEYS):
        named = own.get("id")
        if named not in (None, "") and str(named).strip() != old.source_id:
            raise InputError(name, f"its front matter says id {shown(str(named))}, but it replaces "
                                   f"{shown(old.source_id)}; remove the id or use the same one")
        return {"id": old.source_id, **({"version": version} if version else {})}
    meta = old.meta
    inherited: dict[str, Any] = {"id": old.source_id, "version": version}
    for key in INHERITED:
        value = getattr(meta, key)
        if value is not None:
            inherited[key] = list(value) if key == "access" else str(value) if key in {
                "valid_from", "valid_to", "updated"} else value
    return {k: v for k, v in inherited.items() if v is not None}


def check_replacement(old: Document, new: Document, name: str) -> None:
    """The parsed replacement keeps the id and differs from the current version."""
    if new.source_id != old.source_id:
        raise InputError(name, f"parsed as id {shown(new.source_id)}, but it replaces {shown(old.source_id)}")
    if new.digest == old.digest:
        raise InputError(name, f"is the same file as the current version of {old.source_id}: nothing to replace")


def stale_vector_keys(old: Document, current: Sequence[Document], embedder_name: str,
                      index: IndexSettings) -> list[str]:
    """Vector keys of `old`'s chunks that no document in `current` still uses (safe to delete)."""
    chunker = Chunker(index.chunk_window, index.chunk_overlap)
    used = {vector_key(embedder_name, c.search_text) for d in current for c in chunker(d)}
    return sorted({vector_key(embedder_name, c.search_text) for c in chunker(old)} - used)
