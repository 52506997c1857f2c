"""The document library: every readable document with its id, version, topic, validity, access,
pages and lines, the chunks actually indexed, and its status; the session's uploads can be deleted.

Uploads are parsed and embedded before they join the collection, so a listed document is "ready"
(both the BM25 and the dense index hold its chunks); a file that failed is reported by the upload
status with its reason and never listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pipeline import Corpus, Document

from .panels import _e, label, table


def library_rows(documents: Sequence[Document], corpus: Corpus, uploaded: set[str],
                 shared_library: set[str] = frozenset()) -> list[dict]:
    counts = Counter(chunk.source_id for chunk in corpus.chunks)
    rows = []
    for d in documents:
        m = d.meta
        rows.append({
            "source_id": m.source_id, "title": m.title or label(d), "file": label(d), "version": m.version,
            "topic": m.topic, "authority": m.authority, "valid_from": str(m.valid_from or "") or None,
            "valid_to": str(m.valid_to or "") or None, "access": list(m.access or ()) or ["everyone"],
            "kind": d.kind, "pages": len(d.pages), "lines": sum(len(p.lines) for p in d.pages),
            "chunks": counts.get(m.source_id, 0), "status": "ready" if counts.get(m.source_id) else "no chunks",
            "origin": "uploaded" if m.source_id in uploaded else "library" if m.source_id in shared_library else "sample",
        })
    return rows


def library_html(documents: Sequence[Document], corpus: Corpus, uploaded: set[str],
                 shared_library: set[str] = frozenset()) -> str:
    if not documents:
        return '<p class="rag-note">No documents are readable with these access groups.</p>'
    rows = library_rows(documents, corpus, uploaded, shared_library)
    body = [[r["source_id"], r["title"], r["version"] or "—", r["topic"] or "—",
             f"{r['valid_from'] or '—'} → {r['valid_to'] or 'open'}", ", ".join(r["access"]),
             f"{r['kind']}, {r['pages']} p., {r['lines']} lines", r["chunks"],
             ("✓ " if r["status"] == "ready" else "⚠ ") + r["status"], r["origin"]] for r in rows]
    mine = sum(r["origin"] == "uploaded" for r in rows)
    note = (f"<p class='rag-note'>{len(rows)} documents ({mine} uploaded by you). Ready = parsed, chunked and "
            "in both indexes (BM25 and dense). Samples and the shared library are read-only here; your uploads can be deleted "
            "below — to replace a version, delete it and upload the new file.</p>")
    return note + "<div id='library'>" + table(
        ["id", "title", "version", "topic", "valid", "access", "pages / lines", "chunks", "status", "origin"], body,
        row_classes=["mine" if r["origin"] == "uploaded" else "" for r in rows], num_columns=[7]) + "</div>"


def upload_choices(uploads: dict[str, Document]) -> list[tuple[str, str]]:
    return [(f"{sid} ({_e(label(d))})", sid) for sid, d in sorted(uploads.items())]
