"""The Source panel for a conflict: the two disagreeing spans side by side, the differing words marked.

The spans come from `trace.abstention.evidence` (exact text of each side, with its source, version,
page and lines); the difference is a word-level diff (difflib), so a changed number or an added
"not" is marked on both sides. Every string is escaped.
"""

from __future__ import annotations

import difflib
import re

from pipeline import Trace

from .panels import _e, _lines

_WORDS = re.compile(r"\S+|\s+")


def _marked_pair(left: str, right: str) -> tuple[str, str]:
    """Both texts escaped, with the words that differ wrapped in <mark class='diff'>."""
    a, b = _WORDS.findall(left), _WORDS.findall(right)
    out_a, out_b = [], []
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        piece_a, piece_b = _e("".join(a[i1:i2])), _e("".join(b[j1:j2]))
        if op == "equal":
            out_a.append(piece_a)
            out_b.append(piece_b)
        else:
            out_a.append(f"<mark class='diff'>{piece_a}</mark>" if piece_a.strip() else piece_a)
            out_b.append(f"<mark class='diff'>{piece_b}</mark>" if piece_b.strip() else piece_b)
    return "".join(out_a), "".join(out_b)


def conflict_html(trace: Trace | None) -> str | None:
    """Side-by-side HTML of a conflict's two spans, or None when the trace has no such evidence."""
    abstention = trace.abstention if trace is not None else None
    if abstention is None or len(abstention.evidence) < 2:
        return None
    first, second = abstention.evidence[:2]
    left, right = _marked_pair(first.text, second.text)
    columns = []
    for span, body in ((first, left), (second, right)):
        page = f" page {span.page}" if span.page is not None else ""
        columns.append(
            f"<div class='rag-side'><h4>{_e(span.source_id)} <span class='rag-note'>version {_e(span.version or '—')}"
            f"{page}, lines {_lines(span.start_line, span.end_line)}</span></h4>"
            f"<div class='rag-pre'>{body}</div></div>")
    return (f"<p><b>{_e(abstention.reason_code)}</b>: {_e(abstention.detail)}</p>"
            "<p class='rag-note'>The two disagreeing sources, side by side; the words that differ are marked.</p>"
            f"<div class='rag-sides' id='conflict'>{''.join(columns)}</div>")
