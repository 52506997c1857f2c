"""A text document as escaped, self-contained HTML with its highlights marked: the cited span as a <mark>, the
supporting sentence(s) inside it as a deeper-green, underlined <mark class="support">.
"""

from __future__ import annotations

import html

from pipeline.core.contracts import Document
from pipeline.render.highlights import Highlight, quote_span

_CSS = """
.ev{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#1a1a1a;background:#fff}
.ev h4{font:600 13px system-ui,sans-serif;margin:.8em 0 .3em}
.ev .ln{display:flex;white-space:pre-wrap;tab-size:4;border-left:4px solid transparent}
.ev .no{flex:0 0 4.5em;text-align:right;padding-right:.8em;color:#777;user-select:none}
.ev .tx{flex:1;min-width:0;overflow-wrap:anywhere}
.ev .ln.verified{background:#e8f6ec;border-left-color:#0a9e3b}
.ev .ln.dropped{background:#fdeee6;border-left-color:#dd4400}
.ev .ln.verified.dropped{background:linear-gradient(90deg,#e8f6ec,#fdeee6)}
.ev mark.verified{background:#9fe0b4;color:inherit}
.ev mark.dropped{background:#f8c4a8;color:inherit;text-decoration:underline wavy #dd4400}
.ev mark.verified.dropped{background:#f3e08a}
.ev mark.support.support{background:#5cc985;color:#111;box-shadow:inset 0 -2px 0 #0a4d22;outline:1px solid #0a4d22;font-weight:600}
.ev .tag{display:block;font:600 12px system-ui,sans-serif;margin:.25em 0 .1em 5.3em}
.ev .tag.verified{color:#0a7a2f}.ev .tag.dropped{color:#b33800}
.ev .gap{color:#999;padding-left:5.3em}
"""


def _kind(h: Highlight) -> str:
    return "verified" if h.verified else "dropped"


def render_text_html(document: Document, highlights: list[Highlight], context_lines: int | None = None) -> str:
    """Escaped, self-contained HTML of the document's lines with the highlights marked.

    Each highlight's lines get a class (verified/dropped) and a label with ✓/✗; its quote is
    wrapped in <mark>. With `context_lines`, only the cited lines and that many around them are
    shown (per page), gaps marked with "…".
    """
    parts = [f"<style>{_CSS}</style>", '<div class="ev">']
    for page in document.pages:
        mine = [h for h in highlights if not document.paged or h.page == page.number]
        if context_lines is not None and not mine:
            continue
        if document.paged:
            parts.append(f"<h4>Page {page.number}</h4>")
        line_kinds: dict[int, set[str]] = {}
        tags: dict[int, list[Highlight]] = {}
        spans: list[tuple[int, int, str]] = []
        for h in mine:
            first, last = max(h.start_line, 1), min(h.end_line, len(page.lines))
            for n in range(first, last + 1):
                line_kinds.setdefault(n, set()).add(_kind(h))
            tags.setdefault(first, []).append(h)
            start, end = quote_span(page, h.start_line, h.end_line, h.quote)
            spans.append((start, end, _kind(h)))
            spans.extend((s, e, "support") for s, e in h.support)
        if context_lines is None:
            shown = set(range(1, len(page.lines) + 1))
        else:
            shown = {n for line in line_kinds for n in range(line - context_lines, line + context_lines + 1)
                     if 1 <= n <= len(page.lines)}
        previous = 0
        for line in page.lines:
            if line.number not in shown:
                continue
            if previous and line.number != previous + 1 or not previous and line.number != 1:
                parts.append('<div class="gap">…</div>')
            previous = line.number
            for h in tags.get(line.number, []):
                icon = "✓" if h.verified else "✗"
                parts.append(f'<span class="tag {_kind(h)}">{icon} {html.escape(h.label)}</span>')
            classes = " ".join(sorted(line_kinds.get(line.number, ())))
            parts.append(f'<div class="ln {classes}" data-line="{line.number}">'
                         f'<span class="no">{line.number}</span><span class="tx">{_marked(line, spans)}</span></div>')
        if previous and previous != len(page.lines):
            parts.append('<div class="gap">…</div>')
    parts.append("</div>")
    return "".join(parts)


def _marked(line, spans: list[tuple[int, int, str]]) -> str:
    """The line's text, escaped, with the parts inside any span wrapped in <mark>."""
    cuts = {line.start, line.end}
    for start, end, _ in spans:
        if start < line.end and end > line.start:
            cuts.update(x for x in (start, end) if line.start < x < line.end)
    ordered = sorted(cuts)
    out = []
    for a, b in zip(ordered, ordered[1:]):
        piece = html.escape(line.text[a - line.start:b - line.start])
        kinds = sorted({k for start, end, k in spans if start <= a and b <= end})
        title = ' title="supports the claim"' if "support" in kinds else ""
        out.append(f'<mark class="{" ".join(kinds)}"{title}>{piece}</mark>' if kinds else piece)
    return "".join(out)
