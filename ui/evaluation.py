"""The Evaluation tab: whatever reports/eval.json, reports/bench.json and reports/plots/*.png hold."""

from __future__ import annotations

import json
import re
from pathlib import Path

from .panels import _e, table

REPORTS = Path(__file__).resolve().parents[1] / "reports"
NOT_YET = "<p class='rag-note'><b>Not yet measured.</b> {name} does not exist yet (run the evaluation to write it).</p>"


def _scalar(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return "—" if value is None else str(value)


def json_html(value, depth: int = 0) -> str:
    """Render arbitrary JSON as nested tables: scalars as key/value rows, lists of objects as tables."""
    if _scalar(value):
        return _e(_fmt(value))
    if isinstance(value, list):
        return _list_html(value, depth)
    if isinstance(value, dict):
        return _object_html(value, depth)
    return _e(str(value))


def _list_html(value: list, depth: int) -> str:
    if value and all(isinstance(v, dict) for v in value) and all(all(_scalar(x) for x in v.values()) for v in value):
        headers = list(dict.fromkeys(k for v in value for k in v))
        return table(headers, [[_fmt(v.get(h)) for h in headers] for v in value])
    if all(_scalar(v) for v in value):
        return _e(", ".join(_fmt(v) for v in value))
    return "".join(f"<div>{json_html(v, depth + 1)}</div>" for v in value)


def _object_html(value: dict, depth: int) -> str:
    """Its scalar (and scalar list) fields as one key/value table, each nested one below it (folded past depth 3)."""
    flat = {k: v for k, v in value.items() if _scalar(v) or (isinstance(v, list) and all(_scalar(x) for x in v))}
    nested = {k: v for k, v in value.items() if k not in flat}
    out = ""
    if flat:
        out += table(["key", "value"], [[k, _fmt(v) if _scalar(v) else ", ".join(_fmt(x) for x in v)]
                                        for k, v in flat.items()])
    for key, sub in nested.items():
        if depth < 3:
            out += f"<details {'open' if depth == 0 else ''}><summary><b>{_e(key)}</b></summary>" \
                   f"{json_html(sub, depth + 1)}</details>"
        else:
            out += f"<p><b>{_e(key)}</b></p><div class='rag-pre'>{_e(json.dumps(sub, indent=1))}</div>"
    return out


def text_tables_html(text: str) -> str:
    """Each blank-line-separated block of a results text (several tables may share one) as its own table;
    when some block is not a column table, the whole text keeps its layout in one preformatted block."""
    blocks = [block for block in re.split(r"\n\s*\n", text) if block.strip()]
    parts = [text_table_html(block) for block in blocks]
    if len(parts) > 1 and any(part.startswith("<pre") for part in parts):
        return text_table_html(text)
    return "".join(parts)


def text_table_html(text: str) -> str:
    """A plain-text results table (title lines, a header, a dashed rule, aligned rows) as an HTML table.

    Columns come from the dashed rule's segments ("-----  -----"); a table whose rule is one unbroken
    line keeps its alignment in a preformatted block, never as one run-on paragraph.
    """
    lines = text.splitlines()
    rule = next((i for i, line in enumerate(lines) if line.strip() and set(line.strip()) <= {"-", " "}), None)
    segments = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])] if rule else []
    if rule is None or rule == 0 or len(segments) < 2:
        return f"<pre class='rag-texttable'>{_e(text)}</pre>"
    bounds = [start for start, _ in segments] + [None]

    def cells(line: str) -> list[str]:
        return [line[bounds[i]:bounds[i + 1]].strip() for i in range(len(segments))]

    title = "".join(f"<p class='rag-note'>{_e(line)}</p>" for line in lines[:rule - 1] if line.strip())
    rows = [cells(line) for line in lines[rule + 1:] if line.strip()]
    return title + table(cells(lines[rule - 1]), rows)


def _summary(meta: dict) -> str:
    keys = ("date", "command", "machine", "seconds", "data")
    return "<p class='rag-note'>" + " · ".join(f"<b>{_e(k)}</b> {_e(_fmt(meta[k]))}" for k in keys if k in meta) + "</p>"


def report_html(reports: Path = REPORTS) -> str:
    """The results first (each text table as a table), the raw JSON last and folded."""
    parts = ["<h3>Evaluation report</h3>"]
    for name in ("eval.json", "bench.json"):
        path = reports / name
        parts.append(f"<h4>{_e(name)}</h4>")
        if not path.is_file():
            parts.append(NOT_YET.format(name=f"reports/{name}"))
            continue
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as error:
            parts.append(f"<p class='rag-note'>reports/{_e(name)} cannot be read: {_e(error)}</p>")
            continue
        if not isinstance(data, dict):
            parts.append(json_html(data))
            continue
        parts.append(_summary(data.get("meta") or {}))
        tables = data.get("tables")
        tables = tables if isinstance(tables, dict) else {"table": data["table"]} if isinstance(data.get("table"), str) else {}
        for title, text in tables.items():
            if isinstance(text, str):
                parts.append(f"<div class='rag-eval-table' data-table='{_e(title)}'>{text_tables_html(text)}</div>")
        parts.append(f"<details><summary>All of reports/{_e(name)} (raw values)</summary>{json_html(data)}</details>")
    return "".join(parts)


def plots(reports: Path = REPORTS) -> list:
    """The PNG plots as (PIL image, caption) pairs; empty when none exist yet."""
    folder = reports / "plots"
    if not folder.is_dir():
        return []
    from PIL import Image

    images = []
    for path in sorted(folder.glob("*.png"))[:24]:
        try:
            image = Image.open(path)
            image.load()
        except OSError:
            continue
        images.append((image, path.stem))
    return images
