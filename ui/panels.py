"""Formatting of documents, chunks, candidates, context and answers into escaped HTML.

Every string that comes from a document, a question or a proposal goes through
`html.escape` (`_e`) before it reaches the page: a document containing `<script>` shows as
text. Verified/dropped is always said with a word and a ✓/✗ mark, not only with colour.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from pipeline import (
    MARKER,
    Candidate,
    Citation,
    Context,
    Corpus,
    Document,
    QuestionReading,
    Trace,
    decision_words,
    marker,
    marker_key,
)

from .verdict import Mark, Reading, answer_mark, citation_key, plain_words, read, term  # noqa: F401 (re-exported)

CSS = """
.rag-table{border-collapse:collapse;width:100%;font-size:13px}
.rag-table th,.rag-table td{border:1px solid var(--border-color-primary,#ddd);padding:3px 6px;vertical-align:top;text-align:left}
.rag-table th{background:var(--background-fill-secondary,#f4f4f5);position:sticky;top:0}
.rag-table td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.rag-table tr.sel td{background:rgba(10,158,59,.10)}
.rag-table tr.inel td{color:#777}
.rag-pre{white-space:pre-wrap;font:12.5px/1.45 ui-monospace,Menlo,Consolas,monospace;background:var(--background-fill-secondary,#f6f6f7);padding:8px;border-radius:6px;max-height:480px;overflow:auto}
.rag-badge{display:inline-block;padding:2px 8px;border-radius:10px;font-weight:600;font-size:13px}
.rag-badge.ok{background:#e0f5e7;color:#0a6b2c;border:1px solid #0a9e3b}
.rag-badge.no{background:#fdeee6;color:#9c3000;border:1px solid #dd4400}
.rag-badge.muted{background:#eee;color:#333;border:1px solid #bbb}
.rag-badge.partial{background:#fff4d6;color:#6b4a00;border:1px solid #c98a00}
.rag-dropped del,.rag-table del{text-decoration:line-through;text-decoration-thickness:2px}
.rag-answer{font-size:15px;line-height:1.55;margin:.6em 0;white-space:pre-wrap}
.rag-row{border-collapse:collapse;margin:.2em 0 .6em;font-size:13px}
.rag-row caption{text-align:left;color:var(--body-text-color-subdued,#555);font-size:12px;padding-bottom:2px}
.rag-row th,.rag-row td{border:1px solid var(--border-color-primary,#ddd);padding:2px 8px;text-align:right;font-variant-numeric:tabular-nums}
.rag-row th{background:var(--background-fill-secondary,#f4f4f5)}
.rag-row th:first-child,.rag-row td:first-child{text-align:left}
.rag-row .asked{font-weight:700;background:rgba(10,158,59,.18)}
.rag-mark{font:600 12px ui-monospace,monospace;padding:0 3px;border-radius:4px}
.rag-mark.ok{background:#c9efd5;color:#0a6b2c}.rag-mark.no{background:#f8d2bd;color:#9c3000;text-decoration:line-through}
.rag-cit{border-left:4px solid #bbb;padding:4px 8px;margin:6px 0}
.rag-cit.ok{border-left-color:#0a9e3b}.rag-cit.no{border-left-color:#dd4400}
.rag-bar{height:12px;background:#eee;border-radius:6px;overflow:hidden;max-width:420px}
.rag-bar > div{height:100%;background:#3b6fd8}.rag-bar.over > div{background:#dd4400}
.rag-texttable{white-space:pre;overflow-x:auto;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;background:var(--background-fill-secondary,#f6f6f7);padding:8px;border-radius:6px}
.rag-eval-table{margin:6px 0 14px;overflow-x:auto}
.rag-sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:10px}
.rag-side h4{margin:.2em 0}
mark.diff{background:#ffd84d;color:#111;border-radius:3px;padding:0 2px;font-weight:700}
#library{overflow-x:auto}
#library-table td.nowrap,#library-table th.nowrap{white-space:nowrap}
#library-table td.wrap{min-width:14em}
.rag-sortable th button{all:unset;cursor:pointer;font-weight:600}
.rag-sortable th button:focus-visible{outline:2px solid var(--color-accent,#3b6fd8);outline-offset:2px}
.rag-sortable th[aria-sort=ascending] button::after{content:" ▲"}
.rag-sortable th[aria-sort=descending] button::after{content:" ▼"}
.rag-sortable th[aria-sort=none] button::after{content:" ↕";opacity:.45}
.rag-account{font-size:14px;padding:6px 10px;border:1px solid var(--border-color-primary,#ddd);border-radius:6px}
.rag-account a{font-weight:600}
#signed-out{position:fixed;top:0;left:0;right:0;z-index:1000;background:#fdeee6;color:#5c1c00;border-bottom:2px solid #dd4400;padding:12px 16px;font-size:15px;line-height:1.45}
#signed-out a{color:#0b3ea8;font-weight:700;text-decoration:underline;margin-left:6px}
.rag-signed-out{padding-top:52px}
.rag-signed-out #results{opacity:.35}
.rag-mark.unchecked{background:#eee;color:#333}
#source-text .rag-scroll{max-height:560px;overflow:auto}
/* the cited row's table: its own sideways scroll (never the page's), the asked cell framed as well as filled */
.rag-tablebox{overflow-x:auto;max-width:100%;margin:0 0 10px}
#source-text table.rag-source-table{border-collapse:separate;border-spacing:0;font-size:13px;margin:0;padding:0;border:0;border-top:1px solid var(--border-color-primary,#ddd)}
.rag-source-table th,.rag-source-table td{border:solid var(--border-color-primary,#ddd);border-width:0 1px 1px 0;padding:2px 8px;text-align:left;white-space:nowrap;font-variant-numeric:tabular-nums}
.rag-source-table td.long{white-space:normal;min-width:14em;max-width:24em;overflow-wrap:anywhere}
.rag-source-table th{background:var(--background-fill-secondary,#f4f4f5)}
.rag-source-table .row-line{color:var(--body-text-color-subdued,#555);text-align:right;font-weight:400}
.rag-source-table td.num{text-align:right}
/* the row's key stays in sight while a wide table scrolls sideways to the asked cell (a phone); opaque, so the cells
   scrolled under it do not show through, and each cell draws its own borders (collapsed ones stay behind) */
.rag-source-table tr>:nth-child(2){position:sticky;left:0;z-index:1}
.rag-source-table tr>:first-child,.rag-source-table tr>:nth-child(2){border-left-width:1px}
.rag-source-table tr:not(.gap)>:first-child{border-right-width:0}
.rag-source-table td:nth-child(2){background:var(--background-fill-primary,#fff)}
.rag-source-table tr.cited.verified td{background:linear-gradient(rgba(10,158,59,.14),rgba(10,158,59,.14)),var(--background-fill-primary,#fff)}
.rag-source-table tr.cited.dropped td{background:linear-gradient(rgba(221,68,0,.14),rgba(221,68,0,.14)),var(--background-fill-primary,#fff)}
.rag-source-table .asked{font-weight:700}
.rag-source-table td.asked{background:rgba(10,158,59,.34)!important;outline:2px solid #0a9e3b;outline-offset:-2px}
.rag-source-table tr.gap td{color:var(--body-text-color-subdued,#555);font-style:italic;border-style:dashed}
/* the page strip: one row of thumbnails, scrolled sideways, never a second row cut off by the block's height */
#thumbnails{height:auto!important}
#thumbnails .grid-wrap{height:auto!important;overflow-x:auto!important;overflow-y:hidden!important}
#thumbnails .grid-container{grid-auto-flow:column!important;grid-template-columns:none!important;grid-auto-columns:84px!important;grid-template-rows:auto!important;padding-top:30px!important}
#source-image{overflow:auto}
#source-image img{max-width:none!important;max-height:none!important;width:auto!important;height:auto!important;object-fit:none!important}
#source-image .image-container,#source-image .image-frame{overflow:auto!important;justify-content:flex-start!important;align-items:flex-start!important}
.rag-chart{margin:4px 0 10px}
.rag-cbar{display:grid;grid-template-columns:17em minmax(60px,1fr) 9.5em;gap:6px;align-items:center;font-size:12.5px;margin:2px 0}
.rag-cbar .lbl{overflow-wrap:anywhere}
.rag-cbar .bar{background:var(--background-fill-secondary,#eee);height:12px;border-radius:3px;overflow:hidden}
.rag-cbar .bar > span{display:block;height:100%}
.rag-chart .sw{display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;border-radius:2px;vertical-align:middle}
.rag-support{font-size:12.5px;border-bottom:2px solid #0a9e3b}
.rag-note{color:var(--body-text-color-subdued,#555);font-size:13px}
.rag-decisions{margin:2px 0 0 1.2em;padding:0}
.rag-marks{margin:.5em 0;display:grid;gap:4px}
.rag-markrow{font-size:14px;line-height:1.45}
.rag-markrow .rag-badge{margin-right:4px}
.rag-term[title]{text-decoration:underline dotted;text-underline-offset:2px;cursor:help}
.rag-demo{border:1px solid var(--color-accent,#3b6fd8);border-radius:6px;padding:6px 10px;margin:4px 0 8px;font-size:13px}
#intro h1{font-family:system-ui,"Liberation Sans","DejaVu Sans","Noto Sans CJK SC",sans-serif!important;font-weight:700;letter-spacing:0;font-variant:normal}
@media (max-width:640px){
 #demo-row{gap:4px!important}
 .rag-cbar{grid-template-columns:11em minmax(40px,1fr) 7.5em}
 #demo-row button{min-width:0!important;flex:0 1 auto!important;width:auto!important;font-size:12px!important;padding:2px 7px!important;line-height:1.3!important}
}
/* dark theme: every coloured background keeps dark text, and plain text follows the theme's colour */
.dark .rag-table tr.inel td{color:#9aa0a6}
.dark .rag-table tr.sel td{background:rgba(10,158,59,.22)}
.dark .rag-badge.muted{background:#333;color:#eee}
.dark .rag-bar{background:#333}
.dark .ev{color:#e8e8e8;background:#1b1d22}
.dark .ev .no{color:#9aa0a6}
.dark .ev .ln.verified{background:#133a22}
.dark .ev .ln.dropped{background:#3f2214}
.dark .ev .ln.verified.dropped{background:linear-gradient(90deg,#133a22,#3f2214)}
.dark .ev mark.verified{background:#9fe0b4;color:#111}
.dark .ev mark.dropped{background:#f8c4a8;color:#111}
.dark .ev mark.verified.dropped{background:#f3e08a;color:#111}
.dark .ev mark.support.support{background:#5cc985;color:#111;box-shadow:inset 0 -2px 0 #d8ffe6;outline-color:#d8ffe6}
.dark .ev .tag.verified{color:#7fdc9c}.dark .ev .tag.dropped{color:#ffab80}
.dark .ev .gap{color:#9aa0a6}
.dark .rag-mark.ok,.dark .rag-mark.no,.dark .rag-mark.unchecked{color:#111}
"""


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _lines(start: int, end: int) -> str:
    return f"{start}" if start == end else f"{start}–{end}"


def _page(page: int | None) -> str:
    return "—" if page is None else str(page)


def _num(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], row_classes: Sequence[str] | None = None,
          raw_columns: Iterable[int] = (), num_columns: Iterable[int] = ()) -> str:
    """An HTML table; cells are escaped unless their column is in `raw_columns` (already escaped)."""
    raw, nums = set(raw_columns), set(num_columns)
    out = ['<table class="rag-table"><thead><tr>', *(f"<th>{_e(h)}</th>" for h in headers), "</tr></thead><tbody>"]
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes else ""
        out.append(f'<tr class="{cls}">')
        for j, cell in enumerate(row):
            text = str(cell) if j in raw else _e(cell)
            out.append(f'<td class="num">{text}</td>' if j in nums else f"<td>{text}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def label(document: Document) -> str:
    """The file's base name only: server paths never reach the page."""
    return document.filename.replace("\\", "/").rsplit("/", 1)[-1]


# --------------------------------------------------------------------------- documents and chunks


def documents_html(documents: Sequence[Document], uploaded: set[str]) -> str:
    if not documents:
        return '<p class="rag-note">No documents are readable with these access groups.</p>'
    rows = []
    for d in documents:
        m = d.meta
        rows.append([
            m.source_id, m.title or label(d), m.version, m.topic, m.authority,
            m.valid_from or "—", m.valid_to or "open", d.kind + (f", {len(d.pages)} p." if d.paged else ""),
            ", ".join(m.access) if m.access else "everyone", "uploaded" if m.source_id in uploaded else "sample",
        ])
    return table(["id", "title", "version", "topic", "authority", "valid from", "valid to", "kind", "access", "origin"],
                 rows)


def chunks_html(corpus: Corpus | None, documents: Sequence[Document], limit: int = 400) -> str:
    """The chunks the corpus actually indexed for `documents` (never re-chunked here)."""
    if not documents or corpus is None:
        return '<p class="rag-note">Choose one or more documents above to see their chunks.</p>'
    rows, shown = [], 0
    for document in documents:
        for chunk in corpus.chunks_of(document.source_id):
            if shown >= limit:
                break
            shown += 1
            parent = chunk.parent
            span = document.span_text(parent.page, parent.start_line, parent.end_line) or ""
            if chunk.kind == "card":
                text = (f"<b>card {_e(chunk.card_id)}:</b> {_e(chunk.text)}<details><summary>parent span, lines "
                        f"{_lines(parent.start_line, parent.end_line)}</summary><div class='rag-pre'>{_e(span)}</div></details>")
            else:
                text = f"<div class='rag-pre' style='max-height:160px'>{_e(chunk.text)}</div>"
            if chunk.section:  # what word search reads with the window (`Chunk.lexical_text`)
                text = f"<div class='rag-note'>under: {_e(chunk.section)}</div>" + text
            rows.append([label(document), chunk.source_id, chunk.kind, _page(parent.page),
                         _lines(parent.start_line, parent.end_line), text, chunk.chunk_id])
    size = corpus.index_settings.chunk_window
    note = (f'<p class="rag-note">{shown} indexed retrieval chunks (cards and windows of at most {size} characters; '
            "a window never crosses a page).")
    if shown >= limit:
        note += f" Only the first {limit} are shown."
    return note + "</p>" + table(["file", "source", "kind", "page", "lines", "text (card or window)", "chunk id"],
                                 rows, raw_columns=[5])


# --------------------------------------------------------------------------- candidates


def _candidate_label(c: Candidate) -> str:
    page = f" p{c.parent.page}" if c.parent.page is not None else ""
    return f"{c.source_id}{page}:{_lines(c.parent.start_line, c.parent.end_line)}"


CANDIDATE_COLORS = {"selected": "#0a9e3b", "eligible": "#3b6fd8", "below threshold": "#d89a2b",
                    "ineligible": "#9a9a9a"}
SHOWN_CANDIDATES = 20


def candidate_status(c: Candidate) -> str:
    """selected / eligible / below threshold / ineligible: the bar colour and the row's words."""
    if c.selected:
        return "selected"
    if not c.eligible:
        return "ineligible"
    return "eligible" if c.passes_threshold else "below threshold"


def _candidate_row(c: Candidate) -> list:
    eligible = "✓ eligible" if c.eligible else "✗ " + ", ".join(c.ineligible_reasons or ("ineligible",))
    if c.superseded_by:
        eligible += f" (superseded by {c.superseded_by})"
    selected = f"✓ {c.selected_as}" if c.selected else "—"
    return [c.fused_rank, c.source_id, c.version or "—", c.kind, _page(c.parent.page),
            _lines(c.parent.start_line, c.parent.end_line), _num(c.bm25), c.bm25_rank or "—",
            _num(c.lexical_coverage, 2), _num(c.dense), c.dense_rank or "—", _num(c.fused, 4),
            "✓" if c.passes_threshold else "✗ below", eligible, selected, c.text[:160]]


_CANDIDATE_HEADERS = ["fused rank", "source", "version", "kind", "page", "lines", "BM25", "BM25 rank",
                      "lexical coverage", "dense", "dense rank", "fused", "passes threshold", "eligible", "selected",
                      "text"]


def _candidate_table(candidates: Sequence[Candidate]) -> str:
    classes = ["sel" if c.selected else ("inel" if candidate_status(c) in ("ineligible", "below threshold") else "")
               for c in candidates]
    return table(_CANDIDATE_HEADERS, [_candidate_row(c) for c in candidates], row_classes=classes,
                 num_columns=[0, 6, 7, 8, 9, 10, 11])


def candidates_html(trace: Trace | None, shown: int = SHOWN_CANDIDATES) -> str:
    """The scored candidates: the top `shown` by fused rank, the rest behind one "show all" fold."""
    if trace is None or trace.retrieval is None:
        return '<p class="rag-note">Ask a question to see every scored chunk.</p>'
    r = trace.retrieval
    if not r.candidates:
        return '<p class="rag-note">No chunk was scored (no readable documents).</p>'
    ranked = sorted(r.candidates, key=lambda c: c.fused_rank)
    notes = "".join(f"<li>{_e(n)}</li>" for n in r.notes)
    fused = " + ".join({"bm25": "BM25", "dense": "dense"}.get(name, name) for name in r.rankings)
    rankings = f" Rankings fused: <b id='rankings'>{_e(fused)}</b>." if fused else ""
    head = (f'<p class="rag-note">{len(r.candidates)} candidates shown of {r.scored} scored; eligibility applied '
            f'<b>{_e(r.eligibility.replace("_", " "))}</b>; {len(r.selected)} selected.{rankings}</p>')
    if notes:
        head += f"<ul class='rag-note'>{notes}</ul>"
    body = _candidate_table(ranked[:shown])
    if len(ranked) > shown:
        body += (f"<details id='more-candidates'><summary>Show the other {len(ranked) - shown} candidates "
                 f"(fused ranks {shown + 1}–{ranked[-1].fused_rank})</summary>{_candidate_table(ranked[shown:])}"
                 "</details>")
    return head + body


def candidates_chart_html(trace: Trace | None, top: int = 12) -> str:
    """Horizontal bars for the top candidates: each bar is the fused (RRF) score scaled to the top one's,
    so 1.00 is the best candidate; labels are the whole "source page:lines"; colour and word say
    selected / eligible / below threshold / ineligible."""
    if trace is None or trace.retrieval is None or not trace.retrieval.candidates:
        return ""
    candidates = sorted(trace.retrieval.candidates, key=lambda c: c.fused_rank)[:top]
    best = max(c.fused for c in candidates) or 1.0
    low = min(c.fused for c in candidates)
    rows = []
    for c in candidates:
        status = candidate_status(c)
        share = c.fused / best
        rows.append(
            f"<div class='rag-cbar' data-status='{_e(status)}'><span class='lbl'>{c.fused_rank}. {_e(_candidate_label(c))}"
            f"</span><span class='bar'><span style='width:{share * 100:.1f}%;background:{CANDIDATE_COLORS[status]}'>"
            f"</span></span><span class='val'>{share:.2f} · {_e(status)}</span></div>")
    legend = " ".join(f"<span class='sw' style='background:{color}'></span>{_e(name)}"
                      for name, color in CANDIDATE_COLORS.items())
    fused = term("combined ranking score", "fused score: reciprocal rank fusion (RRF) of the BM25 and dense ranks")
    return (f"<div class='rag-chart'><p class='rag-note'>Top {len(candidates)} candidates by fused rank. Bar = {fused}"
            f" ÷ the top candidate's ({best:.4f}; lowest shown {low:.4f}), so ranks stay "
            f"readable. Colour: {legend}</p>{''.join(rows)}</div>")


# --------------------------------------------------------------------------- context


def context_html(trace: Trace | None) -> str:
    """What was (or was not) sent to the generator, with one length count: the payload that was sent,
    or, when packing failed, the count the pack step reported (the abstention's detail)."""
    if trace is None:
        return '<p class="rag-note">Ask a question to see the packed context.</p>'
    context: Context | None = trace.context
    if context is None:
        return ('<p><b>Nothing was sent to the generator</b>: no candidate was selected, so no context was packed '
                "and the generator was not called.</p>")
    capacity = context.capacity
    rows = [[s.n, s.source_id, s.version or "—", _page(s.page), _lines(s.start_line, s.end_line),
             "yes" if s.support_span else "no", s.dated, s.sibling_group] for s in context.sources]
    sources = table(["n", "source", "version", "page", "lines", "support span", "dated", "group"], rows) if rows else ""
    omitted = ("<p><b>Omitted sources:</b> " + ", ".join(_e(o) for o in context.omitted) + "</p>") if context.omitted else \
        "<p class='rag-note'>No source was omitted.</p>"
    abstention = trace.abstention
    if not trace.generator_called and abstention is not None and abstention.stage == "pack":
        return (f"<p><b>Nothing was sent to the generator</b> (budget {capacity} = window {context.window} − reserve "
                f"{context.reserve}): {_e(abstention.detail)}.</p>" + omitted + sources
                + "<details><summary>The empty envelope (question and date, no sources; not sent)</summary>"
                f'<div class="rag-pre">{_e(context.text)}</div></details>')
    share = min(context.length / capacity, 1.0) if capacity > 0 else 1.0
    over = context.length > capacity
    sent = "Sent to the generator" if trace.generator_called else "Packed but <b>not</b> sent (the generator was not called)"
    head = (f"<p>{sent}: <b>{context.length}</b> characters against a budget of <b>{capacity}</b> "
            f"(window {context.window} − reserve {context.reserve}){' — <b>over budget</b>' if over else ''}.</p>"
            f'<div class="rag-bar{" over" if over else ""}"><div style="width:{share * 100:.1f}%"></div></div>')
    return (head + omitted + sources + "<p class='rag-note'>Exactly this text:</p>"
            + f'<div class="rag-pre">{_e(context.text)}</div>')


# --------------------------------------------------------------------------- answer
#
# Every line that judges the result (the badge, the two marks, each marker's ✓/✗, why) comes from one
# `verdict.Reading` of the trace; this section only formats it.


def _check_of(citation: Citation, unshown: list):
    """The check behind a shown citation, taken from `unshown`: two claims citing the same lines have a check each
    (one may pass, the other fail), so a check is matched on its result too and shown once."""
    for index, check in enumerate(unshown):
        if ((citation_key(check.citation), check.citation.page) == (citation_key(citation), citation.page)
                and list(check.failed_checks) == list(citation.failed_checks)):
            return unshown.pop(index)
    return None


# A command the answer quotes from a Markdown code block: shown as code, not as its fences.
_FENCED = re.compile(r"\n*^[ \t]*(?:```|~~~)[^\n]*\n(.*?)\n[ \t]*(?:```|~~~)[ \t]*$\n*", re.DOTALL | re.MULTILINE)


# The same command inside a claim, whose line breaks the claim splitter joined: "… run: ``` npm init ``` This …".
_INLINE_FENCED = re.compile(r"(?:```|~~~)[\w+-]*\s+(.*?)\s+(?:```|~~~)", re.DOTALL)


def _code_shown(text: str, fenced: re.Pattern, template: str) -> str:
    """`text` escaped, each command `fenced` finds in it written as `template` makes code of it."""
    out, position = [], 0
    for block in fenced.finditer(text):
        out += [_e(text[position:block.start()]), template.format(_e(block.group(1)))]
        position = block.end()
    out.append(_e(text[position:]))
    return "".join(out)


def _claim_text_html(text: str) -> str:
    return _code_shown(text, _INLINE_FENCED, "<code>{}</code>")


def _answer_text_html(text: str) -> str:
    return _code_shown(text, _FENCED, '<pre class="rag-pre rag-code"><code>{}</code></pre>')


_MARKER_TITLES = {"ok": "verified", "no": "dropped", "unchecked": "not checked"}


def _answer_with_marks(answer: str, markers: dict[tuple[str, int, int], str]) -> str:
    """The answer text with each citation marker marked as the checks left it: ✓ verified, ✗ dropped, or plain and
    titled "not checked" when no check ran on it."""
    out, position = [], 0
    for match in MARKER.finditer(answer):
        out.append(_answer_text_html(answer[position:match.start()]))
        sid, _, start, end = marker_key(match)
        state = markers.get((sid, start, end), "unchecked")
        sign = {"ok": "✓ ", "no": "✗ "}.get(state, "")
        out.append(f'<span class="rag-mark {state}" title="{_MARKER_TITLES[state]}">{sign}{_e(match.group(0))}</span>')
        position = match.end()
    out.append(_answer_text_html(answer[position:]))
    return "".join(out)


def citation_label(c: Citation) -> str:
    mark = "✓ verified" if c.verified else "✗ dropped"
    page = f" page {c.page}" if c.page is not None else ""
    lines = "line" if c.start_line == c.end_line else "lines"
    return f"{mark}: {c.source_id}{page} {lines} {_lines(c.start_line, c.end_line)}"


def claims_html(answer) -> str:
    """Each sentence of the proposed answer, ✓ verified (shown) or ✗ dropped (struck through), with its citations'
    failed checks."""
    if not answer.claims:
        return ""
    rows = []
    for claim in answer.claims:
        mark = "✓ verified" if claim.status == "verified" else "✗ dropped"
        cited = "; ".join(_e(citation_label(c)) + (f" (failed: {_e(', '.join(c.failed_checks))})" if c.failed_checks else "")
                          + _supported_by(c) for c in claim.citations) or "no citation"
        text = _claim_text_html(claim.text) if claim.status == "verified" else f"<del>{_claim_text_html(claim.text)}</del>"
        rows.append([mark, text, cited])
    return "<h4>Claims</h4>" + table(["status", "claim", "citations"], rows, raw_columns=[1, 2])


def dropped_claims_html(answer) -> str:
    """The claims left out of the answer, struck through, each with the checks that dropped it."""
    dropped = [claim for claim in answer.claims if claim.status == "dropped"]
    if not dropped:
        return ""
    items = []
    for claim in dropped:
        marks = " ".join(f'<span class="rag-mark no" title="dropped">✗ {_e(marker(c.source_id, c.page, c.start_line, c.end_line))}'
                         "</span>" for c in claim.citations)
        why = ", ".join(claim.failed_checks) or "no verified citation"
        items.append(f"<li><del>{_claim_text_html(claim.text)}</del> {marks} <span class='rag-note'>failed: {_e(why)}</span></li>")
    return ("<div class='rag-dropped'><p class='rag-note'>Dropped from the answer (no citation of "
            f"{'it' if len(dropped) == 1 else 'them'} passed its checks):</p><ul>{''.join(items)}</ul></div>")


def _supported_by(c: Citation) -> str:
    """The sentence(s) of the cited lines that say the claim (marked on the source too), escaped."""
    if not c.support:
        return ""
    said = " ".join(f"line {_lines(s.start_line, s.end_line)}: “{_e(s.text)}”" for s in c.support)
    return f"<br><span class='rag-support'>supported by {said}</span>"


def answer_html(trace: Trace | None) -> str:
    if trace is None:
        return '<p class="rag-note">Ask a question, run a demo or check an answer.</p>'
    a = trace.answer
    reading = read(trace)
    parts = _status_html(trace, reading)
    parts.append(_words_only_html(trace))
    parts.append(marks_html(reading))
    parts.append(why_html(reading))
    parts.append(_chosen_by_html(trace))
    parts.append(reading_html(trace.reading))
    parts.append(claims_html(a))
    parts.append(_citations_html(trace, reading))
    parts.append(_generation_html(trace))
    meta = (f"{term('answered by', 'producer')} <code>{_e(a.producer)}</code> · "
            f"{term('model or composer called', 'generator called')}: {'yes' if trace.generator_called else 'no'}"
            f" · request date {trace.request.date}{'' if trace.request.date_given else ' (today)'}"
            f" · topic {_e(trace.request.topic or 'any')} · {len(trace.documents)} readable documents"
            f" · timings {', '.join(f'{k} {v:.0f} ms' for k, v in trace.timings_ms.items())}")
    parts.append(f"<p class='rag-note'>{meta}</p>")
    return "".join(parts)


def _words_only_html(trace: Trace) -> str:
    """Asked while a readable document was still being embedded: every document was ranked by its words only, and the
    answer may change once its vectors are in (`Retrieval.dense_pending`)."""
    if trace.retrieval is None or not trace.retrieval.dense_pending:
        return ""
    return (f"<p class='rag-note rag-words-only'><b>Ranked by words only</b> (BM25) while vectors are computed "
            f"({_e(trace.retrieval.pending_named())}). Ask again once the document list says “ready” to rank by meaning too: the "
            "answer may change.</p>")


def _badge(reading: Reading) -> str:
    return f'<span class="rag-badge {reading.badge.kind}">{reading.badge.text}</span>'


def _status_html(trace: Trace, reading: Reading) -> list[str]:
    """The status badge and the answer with its marks, or the reason code and the proposal not shown as supported."""
    a = trace.answer
    if a.status == "answered":
        return [_badge(reading), f'<div class="rag-answer">{_answer_with_marks(a.answer or "", reading.markers)}</div>',
                _row_cells_html(trace), dropped_claims_html(a)]
    parts = [_badge(reading), f'<div class="rag-answer"><b>Reason code:</b> <code>{_e(a.reason_code)}</code></div>']
    if trace.proposal is not None and trace.proposal.answer:
        parts.append("<p class='rag-note'>Proposed answer (not shown as supported):</p>"
                     f'<div class="rag-answer" id="proposed-answer">'
                     f'{_answer_with_marks(trace.proposal.answer, reading.markers)}</div>')
    parts.append(dropped_claims_html(a))
    return parts


def asked_columns(trace: Trace | None, names: Sequence[str]) -> list[bool]:
    """Which of a table's column names the question names, as the answerer found them (`Proposal.asked_columns`): the
    cell under such a column is the figure asked for, marked in the Answer panel's row and the Source panel's table
    alike."""
    asked = set(trace.proposal.asked_columns) if trace is not None and trace.proposal is not None else set()
    return [name in asked for name in names]


def _row_cells_html(trace: Trace) -> str:
    """A quoted table row under its column names, so that "(81,337)" reads as 2023's personnel costs."""
    cells = trace.proposal.row_cells if trace.proposal is not None else []
    if not cells:
        return ""
    marks = [" class='asked'" if asked else "" for asked in asked_columns(trace, [n for n, _ in cells])]
    names = "".join(f"<th{mark}>{_e(name)}</th>" for mark, (name, _) in zip(marks, cells))
    values = "".join(f"<td{mark}>{_e(cell)}</td>" for mark, (_, cell) in zip(marks, cells))
    # The row and the column asked, said as a person would: "David Bowie — died: 2016-01-10".
    asked = [f"{name}: {cell}" for mark, (name, cell) in zip(marks, cells) if mark and cell]
    said = (f"<p class='rag-row-answer' id='answer-cell'><b>{_e(cells[0][1])}</b> — {_e('; '.join(asked))}</p>"
            if asked and not marks[0] else "")
    return (f"{said}<table class='rag-row' id='answer-row'><caption>The quoted row under its table's header</caption>"
            f"<tr>{names}</tr><tr>{values}</tr></table>")


def why_html(reading: Reading) -> str:
    """The explanation in plain words; the engine's own wording in the tooltip when it differs."""
    title = f" title='{_e(reading.why_engine)}'" if reading.why != reading.why_engine else ""
    return f"<p class='rag-why'{title}><b>Why:</b> {_e(reading.why)}</p>"


def _mark(mark: Mark, label: str, technical: str, name: str) -> str:
    return (f"<div class='rag-markrow' data-mark='{name}' data-result='{mark.kind}'><span class='rag-badge {mark.kind}'>"
            f"{mark.sign}</span> <b>{term(label, technical)}:</b> {mark.text}</div>")


def marks_html(reading: Reading) -> str:
    """The two separate marks: the quote is exactly in the source (citation check), and this answers the question
    (the answerer's confidence, with its reason). A ✓ on the first never implies the second."""
    return ("<div class='rag-marks' id='answer-marks'>"
            + _mark(reading.quote, "Quote is in the source",
                    "citation check: source, lines, exact quote, numbers, names, support", "quote")
            + _mark(reading.answers, "Answers your question",
                    "answerer confidence: answer scorer / reader score against its threshold", "answers")
            + "</div>")


def _scorer_name(trace: Trace) -> str:
    """Which model gave the scores (the trace's `scorer` component), as the reader's line names the reader."""
    name = trace.components.get("scorer")
    return f" ({_e(name)})" if name else ""


def _chosen_by_html(trace: Trace) -> str:
    """The answer scorer's best unit and runner-up, the reader's check, and how the answer was chosen (the technical
    trace, folded)."""
    proposal, answered = trace.proposal, trace.answer.status == "answered"
    if proposal is None:
        return ""
    lines = []
    if proposal.score is not None and proposal.threshold is not None:
        # Where the reader ranked, the score is its reading combined with the answer scorer's, not the scorer's own.
        ranked = proposal.reader is not None and proposal.reader_score == proposal.score
        who = (term("Reader's ranking", "the reader's logit combined with the answer scorer's (reader record: ranking)")
               if ranked else term("Answer scorer", "the producer’s answer-model score per unit") + _scorer_name(trace))
        lines.append(f"{who}: best {term('passage', 'unit')} {proposal.score:.2f} (threshold {proposal.threshold:.2f}): "
                     f"{_e(proposal.best_unit or '')}")
    if proposal.runner_up:
        score = f" {proposal.runner_up_score:.2f}" if proposal.runner_up_score is not None else ""
        lines.append(f"runner-up{score}: {_e(proposal.runner_up)}")
    if proposal.reader_score is not None and proposal.reader_threshold is not None:
        lines.append(f"Reader ({_e(proposal.reader)}): the chosen {term('passage', 'unit')} answers with probability "
                     f"{proposal.reader_score:.2f} (threshold {proposal.reader_threshold:.2f})")
    chosen = _chosen_steps(proposal) if answered else ""
    if not lines:  # chosen without a score: a table comparison, a document's particulars or summary
        return f"<div class='rag-note' id='chosen-by'>{chosen}</div>" if chosen else ""
    return ("<details class='rag-note'><summary>How the passage was chosen (scores and thresholds)</summary>"
            + "<br>".join(lines) + (f"<div id='chosen-by'>{chosen}</div>" if chosen else "") + "</details>")


def _chosen_steps(proposal) -> str:
    """"Chosen by:" and each step of the choice on a line of its own, in plain words, with what decided; the step's
    reason code is its `data-reason` (and its tooltip). A producer that records no steps: its note."""
    if not proposal.decisions:
        return f"Chosen by: {_e(proposal.note)}" if proposal.note else ""
    steps = "".join(f"<li data-by='{_e(d.by)}' data-reason='{_e(d.reason)}' title='reason code: {_e(d.reason)}'>"
                    f"<b>{_e(d.by)}</b>: {_e(decision_words(d, plain=True))}</li>" for d in proposal.decisions)
    return f"Chosen by:<ul class='rag-decisions'>{steps}</ul>"


def reading_html(reading: QuestionReading | None) -> str:
    """How the answer stage read the question (`trace.reading`), in one line ("" for a trace without one)."""
    if reading is None:
        return ""
    asked = "a search of a few words (the scorer decides, not the reader)" if reading.keywords else "a question"
    forms = "; ".join(f"{_e(f.form)}: {_e(f.evidence)}" for f in reading.forms) or "none the answerer treats apart"
    cased = f" (typed in capitals, read as “{_e(reading.as_read)}”)" if reading.as_read else ""
    return (f"<p class='rag-note' id='question-reading'>{term('Question read as', 'trace.reading')}: {asked}"
            f"{' in Chinese' if reading.chinese else ''}{cased} · forms: {forms}</p>")


def _citation_block(kind: str, title: str, after: str, version: str | None, quote: str | None, check) -> str:
    rows = [["✓ passed" if r.passed else "✗ failed", r.name, r.detail] for r in check.checks] if check else []
    return (f'<div class="rag-cit {kind}"><b>{_e(title)}</b>{_e(after)}'
            f' <span class=\'rag-note\'>(version {_e(version or "—")})</span>'
            + (f'<div class="rag-pre" style="max-height:140px">{_e(quote)}</div>' if quote else "")
            + (table(["result", "check", "detail"], rows) if rows else "") + "</div>")


def _citations_html(trace: Trace, reading: Reading) -> str:
    """Each citation checked, verified or dropped, with its quote and every check's result; a citation whose answer a
    later stage withheld (a conflict) is listed with its checks too."""
    a = trace.answer
    unshown = list(trace.checks)
    all_citations = [*a.citations, *a.dropped_citations]
    parts = ["<h4>Citations</h4>"] if all_citations or reading.unshown_checks else []
    for c in all_citations:
        failed = f" — failed: {', '.join(c.failed_checks)}" if c.failed_checks else ""
        parts.append(_citation_block("ok" if c.verified else "no", citation_label(c), failed, c.version, c.quote,
                                     _check_of(c, unshown)))
    versions = {d.source_id: d.version for d in trace.documents}
    for check in reading.unshown_checks:
        cited = check.citation
        mark = "✓ verified" if check.verified else "✗ dropped"
        page = f" page {cited.page}" if cited.page is not None else ""
        title = f"{mark}: {cited.source_id}{page} lines {_lines(cited.start_line, cited.end_line)}"
        parts.append(_citation_block("ok" if check.verified else "no", title, " — checked, then the answer was "
                                     "withheld (see Why)", versions.get(cited.source_id), cited.quote, check))
    return "".join(parts)


def _generation_html(trace: Trace) -> str:
    """A language model's call: its model, host, latency, tokens, how it finished and its attempts."""
    generation = trace.proposal.generation if trace.proposal is not None else None
    if generation is None:
        return ""
    tokens = f"{generation.prompt_tokens or '?'} + {generation.completion_tokens or '?'} tokens"
    return (f"<p class='rag-note'>Model <code>{_e(generation.model)}</code> at {_e(generation.host)}: "
            f"{generation.latency_ms:.0f} ms, {_e(tokens)}, finish {_e(generation.finish_reason or '—')}, "
            f"{len(generation.attempts)} attempt(s); the exact messages and raw reply are in the trace.</p>")
