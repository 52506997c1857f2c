"""Table rows for the reader: questions naming a row by its key and asking for one of its columns.

    uv run --frozen python -m training.table_pairs --out training/data/tables.jsonl

The public QA sets hold no tables, so the reader never learned to read a row. Here rows of real tables found on this
machine (no benchmark's) are read as the product reads them at run time (`pipeline.text.tables.row_read`: each cell
under its column's name) and paired with questions in several wordings:
- the asked row answers (label 1); other rows of the table do not, those whose keys share the most characters with
  the asked key first;
- a question naming a key the table does not hold: no row answers;
- a question asking for a column the table does not have ("… its licence?") of a row it holds: that row does not
  answer either (a row that names the thing is not the answer when the asked value is not in it).
Each question with its rows is one group (for the listwise loss); one group in ten is validation (by a hash of it).

Tables: Debian's installed-package database (`/var/lib/dpkg/status`), the services file (`/etc/services`), and any CSV
files given with `--csv` (a header row, then rows; the first column is the key unless `--key` names another).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from pipeline.text.tables import row_read

ROWS_PER_QUESTION = 8
MAX_ROWS = 4000


@dataclass
class Table:
    name: str
    columns: list[str]  # the first is the key column
    rows: list[list[str]]
    asks: dict[str, list[str]]  # column → question wordings, "{key}" where the key goes
    missing: list[str]  # wordings asking for a column the table does not have


def _dpkg(path: Path) -> Table | None:
    if not path.exists():
        return None
    columns = ["Package", "Version", "Installed-Size", "Maintainer", "Architecture", "Section", "Priority"]
    rows, entry = [], {}
    for line in path.read_text("utf-8", errors="replace").splitlines() + [""]:
        if not line.strip():
            if entry.get("Package"):
                rows.append([entry.get(c, "") for c in columns])
            entry = {}
        elif not line.startswith(" ") and ":" in line:
            key, _, value = line.partition(":")
            entry[key] = value.strip()
    asks = {
        "Version": ["What version of {key} is installed?", "which {key} version do we have", "{key} version?"],
        "Installed-Size": ["How much disk space does {key} take?", "how big is the {key} package installed",
                           "What is the installed size of {key}?"],
        "Maintainer": ["Who maintains {key}?", "who is the maintainer of the {key} package", "contact for {key} package?"],
        "Architecture": ["What architecture is the {key} package built for?", "is {key} arch-specific or all?"],
        "Section": ["Which section is {key} in?", "what category does {key} belong to"],
        "Priority": ["What priority does {key} have?", "is {key} required or optional?"],
    }
    missing = ["What licence is {key} released under?", "when was {key} first released?",
               "How many people download {key} each month?"]
    return Table("dpkg-status", columns, rows[:MAX_ROWS], asks, missing)


def _services(path: Path) -> Table | None:
    if not path.exists():
        return None
    rows = []
    for line in path.read_text("utf-8", errors="replace").splitlines():
        line = line.split("#")[0].strip()
        parts = line.split()
        if len(parts) >= 2 and "/" in parts[1]:
            port, _, protocol = parts[1].partition("/")
            rows.append([parts[0], port, protocol, " ".join(parts[2:])])
    asks = {"Port": ["What port does {key} use?", "{key} runs on which port", "port number for {key}?"],
            "Protocol": ["Is {key} TCP or UDP?", "what protocol does {key} use"],
            "Aliases": ["What other names does {key} go by?", "aliases of {key}?"]}
    missing = ["Who invented the {key} protocol?", "Is {key} encrypted?", "what year was {key} standardised"]
    return Table("etc-services", ["Service", "Port", "Protocol", "Aliases"], rows[:MAX_ROWS], asks, missing)


def _csv(path: Path, key: str | None) -> Table | None:
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        lines = [row for row in csv.reader(line for line in handle if not line.startswith("#"))]
    if len(lines) < 3:
        return None
    header, rows = lines[0], [row for row in lines[1:] if len(row) == len(lines[0])]
    first = header.index(key) if key in header else 0
    order = [first] + [i for i in range(len(header)) if i != first]
    columns = [header[i] for i in order]
    rows = [[row[i] for i in order] for row in rows]
    asks = {c: [f"What is the {c} of {{key}}?", f"{{key}}: {c}?", f"what {c} does {{key}} have",
                f"Tell me {{key}}'s {c}."] for c in columns[1:]}
    missing = ["What is the colour of {key}?", "Where was {key} born?", "what rank does {key} have overall"]
    return Table(path.stem, columns, rows[:MAX_ROWS], asks, missing)


def _read(columns: list[str], cells: list[str]) -> str:
    return row_read(SimpleNamespace(quote="\t".join(cells), header="\t".join(columns)))


def _near(keys: list[str], key: str, rng: random.Random, n: int) -> list[int]:
    """Indexes of rows to show beside the asked one: half whose keys look most like it, half at random."""
    others = [i for i, k in enumerate(keys) if k != key]
    close = sorted(rng.sample(others, min(300, len(others))),
                   key=lambda i: -difflib.SequenceMatcher(None, keys[i], key).ratio())[: n // 2]
    rest = [i for i in others if i not in close]
    return close + rng.sample(rest, min(n - len(close), len(rest)))


def groups(table: Table, questions: int, rng: random.Random) -> Iterator[tuple[str, list[tuple[str, int]], str]]:
    """(question, [(row text, label)], kind) for `questions` questions of `table`."""
    keys = [row[0] for row in table.rows]
    usable = [i for i, row in enumerate(table.rows) if row[0] and keys.count(row[0]) == 1] if len(keys) < 5000 else \
        list(range(len(keys)))
    for _ in range(questions):
        index = rng.choice(usable)
        row = table.rows[index]
        shown = _near(keys, row[0], rng, ROWS_PER_QUESTION - 1)
        draw = rng.random()
        filled = [c for c in table.asks if row[table.columns.index(c)].strip()]
        if draw < 0.15:  # a key the shown rows do not hold
            yield (rng.choice(rng.choice(list(table.asks.values()))).format(key=row[0]),
                   [(_read(table.columns, table.rows[i]), 0) for i in shown], "absent")
        elif draw < 0.3 or not filled:  # a column the table does not have
            yield (rng.choice(table.missing).format(key=row[0]),
                   [(_read(table.columns, row), 0)] + [(_read(table.columns, table.rows[i]), 0) for i in shown], "column")
        else:
            wording = rng.choice(table.asks[rng.choice(filled)]).format(key=row[0])
            yield (wording, [(_read(table.columns, row), 1)] + [(_read(table.columns, table.rows[i]), 0) for i in shown],
                   "row")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-table", type=int, default=1500, help="questions per table")
    parser.add_argument("--csv", type=Path, action="append", default=[])
    parser.add_argument("--key", default=None, help="the key column of the --csv tables (default: the first)")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    tables = [t for t in (_dpkg(Path("/var/lib/dpkg/status")), _services(Path("/etc/services")),
                          *(_csv(p, args.key) for p in args.csv)) if t is not None and len(t.rows) >= ROWS_PER_QUESTION]
    counts: dict[str, int] = {}
    with open(args.out, "w", encoding="utf-8") as out:
        for table in tables:
            for n, (question, rows, kind) in enumerate(groups(table, args.per_table, rng)):
                group = f"table:{table.name}:{n}"
                split = "val" if int(hashlib.sha256(group.encode()).hexdigest()[:8], 16) % 10 == 0 else "train"
                origin = "table" if kind == "row" else "table-unanswerable"
                for text, label in rows:
                    out.write(json.dumps({"task": "question", "query": question, "unit": text, "label": label,
                                          "origin": origin, "group": group, "split": split}, ensure_ascii=False) + "\n")
                counts[f"{split}/{origin}"] = counts.get(f"{split}/{origin}", 0) + 1
    print(json.dumps({"tables": [f"{t.name} ({len(t.rows)} rows)" for t in tables], "questions": counts}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
