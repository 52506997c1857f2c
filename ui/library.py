"""The document library: every readable document with its id, version, topic, validity, access,
pages and lines, the chunks actually indexed, and its status; uploads can be deleted or replaced.

An upload joins the collection as soon as it is parsed (BM25 indexes it at once) and its dense
vectors are computed in the background, so its status goes parsed → embedding n of m → ready, or
failed (reason); a file that could not be parsed is reported by the upload status and never listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from pipeline import Corpus, Document

from .panels import _e, label


def library_rows(documents: Sequence[Document], corpus: Corpus, uploaded: set[str],
                 shared_library: set[str] = frozenset(), status_of: Callable[[str], str] | None = None) -> list[dict]:
    counts = Counter(chunk.source_id for chunk in corpus.chunks)
    rows = []
    for d in documents:
        m = d.meta
        rows.append({
            "source_id": m.source_id, "title": m.title or label(d), "file": label(d), "version": m.version,
            "topic": m.topic, "authority": m.authority, "valid_from": str(m.valid_from or "") or None,
            "valid_to": str(m.valid_to or "") or None, "access": list(m.access or ()) or ["everyone"],
            "kind": d.kind, "pages": len(d.pages), "lines": sum(len(p.lines) for p in d.pages),
            "chunks": counts.get(m.source_id, 0),
            "status": ((status_of or _ready)(m.source_id)) if counts.get(m.source_id) else "no chunks",
            "origin": "uploaded" if m.source_id in uploaded else "library" if m.source_id in shared_library else "sample",
        })
    return rows


def _ready(source_id: str) -> str:
    return "ready"


STATUS_HELP = ("Status: waiting to embed (searchable by BM25) → embedding n of m (every document ranked by BM25 until "
               "then) → ready (both indexes), or failed (reason: BM25 only; upload again to retry).")


# (header, the sort key's column in a row dict or None for the shown text, whether the cell may wrap)
_COLUMNS = (("id", None, False), ("title", None, True), ("version", None, False), ("topic", None, False),
            ("valid", "valid_from", False), ("access", None, True), ("pages / lines", "lines", False),
            ("chunks", "chunks", False), ("status", None, False), ("origin", None, False))


def _status_shown(status: str) -> str:
    return ("✓ " if status == "ready" else "✗ " if status.startswith("failed") else "… ") + status


def _cells(r: dict) -> list[str]:
    return [r["source_id"], r["title"], r["version"] or "—", r["topic"] or "—",
            f"{r['valid_from'] or '—'} → {r['valid_to'] or 'open'}", ", ".join(r["access"]),
            f"{r['kind']}, {r['pages']} p., {r['lines']} lines", str(r["chunks"]), _status_shown(r["status"]),
            r["origin"]]


def _sortable_table(rows: Sequence[dict]) -> str:
    """The library as a table whose column headers sort it (ui.page_js sorts in the browser, numbers as numbers, and
    keeps the order when the table refreshes); every cell escaped."""
    head = "".join(f"<th aria-sort='none' class='{'wrap' if wraps else 'nowrap'}'><button type='button' "
                   f"title='sort by {_e(name)}'>{_e(name)}</button></th>" for name, _, wraps in _COLUMNS)
    body = []
    for r in rows:
        cells = []
        for (name, key, wraps), text in zip(_COLUMNS, _cells(r)):
            sort = f" data-sort='{_e(r[key] if r[key] is not None else '')}'" if key else ""
            cells.append(f"<td class='{'wrap' if wraps else 'nowrap'}'{sort}>{_e(text)}</td>")
        body.append(f"<tr class='{'mine' if r['origin'] == 'uploaded' else ''}'>{''.join(cells)}</tr>")
    return (f"<table class='rag-table rag-sortable' id='library-table'><thead><tr>{head}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>")


def library_html(documents: Sequence[Document], corpus: Corpus, uploaded: set[str],
                 shared_library: set[str] = frozenset(), status_of: Callable[[str], str] | None = None) -> str:
    if not documents:
        return '<p class="rag-note">No documents are readable with these access groups.</p>'
    order = {"uploaded": 0, "library": 1, "sample": 2}  # your own documents first
    rows = sorted(library_rows(documents, corpus, uploaded, shared_library, status_of), key=lambda r: order[r["origin"]])
    mine = sum(r["origin"] == "uploaded" for r in rows)
    note = (f"<p class='rag-note'>{len(rows)} documents ({mine} uploaded by you); click a column's name to sort by it. "
            f"{STATUS_HELP} Samples are read-only; your uploads can be deleted or replaced by a new version below "
            "(shared library documents too, for library-admin members).</p>")
    return note + "<div id='library'>" + _sortable_table(rows) + "</div>"


def embedding_line(session) -> str:
    """The uploads whose dense vectors are not ready, one status each ("report.pdf: embedding 40 of 120"): those
    and every document is ranked by BM25 meanwhile; or the ones whose embedding failed."""
    statuses = session.embedding_statuses() if session.uploads else []
    failed = [(name, status) for name, status in statuses if status.startswith("failed")]
    busy = [(name, status) for name, status in statuses if not status.startswith("failed")]
    lines = []
    if busy:
        lines.append("… Dense vectors: " + "; ".join(f"{_e(name)}: {_e(status)}" for name, status in busy)
                     + ". You can ask now: every document is ranked by BM25 until "
                     + ("it is" if len(busy) == 1 else "they are") + " ready (the answer says so).")
    if failed:
        lines.append("✗ Dense vectors " + "; ".join(f"{_e(name)}: {_e(status)}" for name, status in failed)
                     + ": every document is ranked by BM25 only until " + ("it is" if len(failed) == 1 else "they are")
                     + " uploaded again.")
    return f"<p class='rag-note' id='embedding-line'>{'<br>'.join(lines)}</p>" if lines else ""


def upload_choices(uploads: dict[str, Document]) -> list[tuple[str, str]]:
    return [(f"{sid} ({_e(label(d))})", sid) for sid, d in sorted(uploads.items())]
