"""The rules about documents that every stage applies the same way (seed 000, §45.3).

Who may read a document (`can_read`: before anything is scored); which documents may answer a request
(`ineligibility`: validity on the request date and the topic); which documents are siblings, parallel
policies that must be compared (`sibling_key`); and when two siblings are versions of one policy rather
than a conflict (`versions_of_each_other`: undated, and one updated later).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pipeline.core.contracts import Document, Request


def can_read(document: Document, groups: Sequence[str]) -> bool:
    return document.meta.access is None or bool(set(document.meta.access) & set(groups))


def sibling_key(document: Document) -> tuple | None:
    """Parallel policies share topic, authority and valid_from (seed 000, §45.3).

    The language is part of the key: a translation is the same policy, not a parallel one.
    Without a topic or an authority a document has no siblings.
    """
    meta = document.meta
    if not (meta.topic or meta.authority):
        return None
    return ((meta.topic or "").casefold(), (meta.authority or "").casefold(), meta.valid_from, (meta.lang or "").casefold())


def ineligibility(document: Document, request: Request) -> tuple[str, ...]:
    """Why a readable document may not answer this request (empty if it may)."""
    meta, reasons = document.meta, []
    if meta.valid_to is not None and request.date > meta.valid_to:
        reasons.append(f"expired: valid to {meta.valid_to}, request date {request.date}")
    if meta.valid_from is not None and request.date < meta.valid_from:
        reasons.append(f"not yet valid: valid from {meta.valid_from}, request date {request.date}")
    if request.topic and (meta.topic or "").casefold() != request.topic.casefold():
        reasons.append(f"out of topic: {meta.topic or 'no topic'} is not {request.topic}")
    return tuple(reasons)


def undated(document: Document) -> bool:
    return document.meta.valid_from is None and document.meta.valid_to is None


def updated_ordinal(document: Document) -> int:
    return (document.meta.updated or dt.date.min).toordinal()


def versions_of_each_other(a: Document, b: Document) -> bool:
    """Undated siblings with different `updated` dates are versions of one policy, not parallel policies: the newer
    supersedes the older (which stays visible in the trace), and they never conflict."""
    return (sibling_key(a) is not None and sibling_key(a) == sibling_key(b) and undated(a) and undated(b)
            and a.meta.updated != b.meta.updated)


def superseded_by(document: Document, others: Sequence[Document]) -> Document | None:
    """The newest of `others` that is a newer version of `document`; None when none is."""
    newer = [other for other in others
             if versions_of_each_other(document, other) and updated_ordinal(other) > updated_ordinal(document)]
    return max(newer, key=updated_ordinal, default=None)


def conflicting_siblings(cited: Document, documents: dict[str, Document], request: Request) -> list[Document]:
    """The siblings a cited document's evidence is compared with: readable (`documents`), eligible for the request,
    of its sibling group, and not merely an older or newer version of it."""
    key = sibling_key(cited)
    return [document for document in documents.values()
            if document.source_id != cited.source_id and key is not None and sibling_key(document) == key
            and not ineligibility(document, request) and not versions_of_each_other(cited, document)]
