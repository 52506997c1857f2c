"""Table lines in extracted text: which lines are rows, which rows are headers, and the header
a run of rows sits under.

PyMuPDF writes a PDF table row as one tab-separated line; Markdown writes `| a | b |`. A row
far down a long table loses its column names once it is cut into a chunk or packed alone, so
the chunk stage indexes a window of rows with the header above it, the pack stage shows that
header beside the rows, and the composer scores a row with it. The header is context, never
cited: a citation still names only the rows' own lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pipeline.lang.names import english_names, unmentioned_names
from pipeline.lang.tokenize import has_cjk

_MD_TABLE = re.compile(r"^\s*\|.*\|\s*$")
# A table without outer bars ("uid   | name   | description"): two or more bars with spaces around them.
_BARE_TABLE = re.compile(r"^\s*[^|\s][^|]*(?:\s\|\s[^|]*){2,}$")
# The rule under a table's header: "| --- | :--: |", "------+--------+-----", or "---\t---\t---" (TAB-separated
# text). The DOCX, HTML and spreadsheet parsers write none: they record their tables on the page (`Page.tables`).
# Between two runs of dashes: spaces around one bar or plus, or spaces holding a TAB. The possessive spaces (\s*+) and
# the one place a TAB may stand keep a line that is no rule from retrying every choice of which TAB separates
# ("---\t\t" repeated, as \s*[|+\t]\s* let it: exponential, 100 characters took 1 s).
TABLE_RULE = re.compile(r"^\s*+[|+]?\s*+:?-{3,}:?(?:(?:\s*+[|+]|[^\S\t]*+\t)\s*+:?-{3,}:?)*\s*[|+]?\s*$")
_NUMERIC_FIELD = re.compile(r"[\d\s.,$%()/:\-–]+")
HEADER_ROWS = 3  # at most this many stacked header rows (a two-level header plus a title row)
WRAPPED_LINES = 2  # at most this many lines of wrapped cell text between two rows of a table


def is_table_row(text: str) -> bool:
    # TABs before a line's first text indent it ("\t\tgit://… master" under a command); a row with an empty first
    # cell ("\tQ1\tQ2") still has a TAB between texts.
    return (text.count("\t") >= 2 and "\t" in text.lstrip(" \t") and not _sentence_spacing(text)) \
        or (bool(_MD_TABLE.match(text)) and text.count("|") >= 3) or bool(_BARE_TABLE.match(text))


# `col -b` (how `man foo | col -b` saves a manual page) writes runs of spaces as TABs, so the two spaces after a
# sentence become one: "Specifies the number of bits in the key to create.\t For RSA keys,". Such a line is prose: each
# TAB inside its text ends a sentence and every piece is several words.
_SENTENCE_TAB = re.compile(r"(?<=[.!?])\t")


def _sentence_spacing(text: str) -> bool:
    inner = text.lstrip(" \t")
    pieces = _SENTENCE_TAB.split(inner)
    return "\t" not in "".join(pieces) and len(pieces) > 1 and all(len(piece.split()) >= 3 for piece in pieces)


def is_table_rule(text: str) -> bool:
    """The rule under a table's header (with bars, "+" or TAB joints; a bare "-----" is a heading's underline)."""
    return bool(TABLE_RULE.match(text)) and ("|" in text or "+" in text or "\t" in text)


def _rule_marked(lines: Sequence[str], rule: int) -> str:
    """The header a rule marks: the rows directly above it (at most HEADER_ROWS) and the rule itself, one per line,
    so a reader of the header knows the rows below are data however wordy they are ("" when no row is above)."""
    start = rule
    while start > 0 and rule - start < HEADER_ROWS and is_table_row(lines[start - 1]) and not is_table_rule(lines[start - 1]):
        start -= 1
    return "\n".join(lines[start:rule + 1]) if start < rule else ""


def _rule_above(lines: Sequence[str], first: int) -> int | None:
    """The rule over the run of rows that `first` is in (rows only between them), else None."""
    index = first
    while index >= 0 and is_table_row(lines[index]):
        if is_table_rule(lines[index]):
            return index
        index -= 1
    return None


def known_header(page, number: int) -> str | None:
    """The column names of the table a parser found line `number` of `page` in (`Page.tables`), one per TAB, a
    stacked header's rows combined ("Region\t2023 Spring\t2023 Autumn"); "" for one of its header rows or a
    table without a header; None when the parser found no table there (the header is then told by its words)."""
    table = page.table_of(number) if page.tables else None
    if table is None:
        return None
    return "\t".join(table.columns) if number in table.rows and table.columns else ""


def cells_in_place(text: str) -> list[str]:
    """A tab-separated line's cells by position, an empty one kept ("\t2022\t2023": the stub column has no
    name); other lines' fields."""
    return [part.strip() for part in text.split("\t")] if "\t" in text else fields(text)


def fields(text: str) -> list[str]:
    parts = text.split("\t") if "\t" in text else text.strip().strip("|").split("|")
    return [p.strip() for p in parts if p.strip()]


_AMOUNT_IN_WORDS = re.compile(r"[$€£¥]\s*\d|\d,\d{3}")  # "Up to $3,790": a value written with words
# A measurement with its unit symbol ("530 MB/s", "2200 W", "12 ms", "3.5 kg") is a figure, not a column name.
_MEASUREMENT = re.compile(r"[\d\s.,]*\d\s*(?:[KMGTP]i?B(?:/s)?|[kMG]?bps|[kMG]?Hz|[mµun]?s|k?W|k?V|mAh|[mk]?g|m?[lL]|[mck]?m|°[CF])")


def is_header(text: str) -> bool:
    """A row whose fields are mostly words (column names), not figures, or that names its columns by consecutive
    years ("Note\t2023\t2022" over an income statement's rows)."""
    cells = fields(text)
    wordy = sum(1 for f in cells if not _NUMERIC_FIELD.fullmatch(f) and not _AMOUNT_IN_WORDS.search(f)
                and not _MEASUREMENT.fullmatch(f))
    return len(cells) >= 2 and (wordy >= 0.75 * len(cells) or bool(_column_years(cells)))


# "2023", "FY2023", "2023/24", and a year's closing date: "31/12/2023", "31.12.2023", "2023-12-31"
_YEAR_COLUMN = re.compile(r"(?:FY\s?)?(?:\d{1,2}[./-]\d{1,2}[./-])?((?:19|20)\d\d)(?:[/-]\d\d(?:-\d\d)?)?", re.IGNORECASE)


def _column_years(cells: list[str]) -> list[str]:
    """The years the cells name their columns by: consecutive years after at most one label without figures ("Note",
    "in € thousands"); [] for other cells. A row of a timeline ("Phase 1\t2019\t2021") is data: its years are not
    consecutive, its label has a figure."""
    years = [match.group(1) for cell in cells if (match := _YEAR_COLUMN.fullmatch(cell))]
    labels = [cell for cell in cells if not _YEAR_COLUMN.fullmatch(cell)]
    if (len(years) < 2 or len(labels) > 1 or any(ch.isdigit() for label in labels for ch in label)
            or any(abs(int(a) - int(b)) != 1 for a, b in zip(years, years[1:]))):
        return []
    return years


def _years_only(cells: list[str]) -> bool:
    """Are the cells consecutive years or closing dates, nothing else?"""
    return len(_column_years(cells)) == len(cells)


def _year_of(name: str) -> str | None:
    """The year a column name is ("2023", "FY2023") or closes ("31/12/2023"), or None."""
    year = _YEAR_COLUMN.fullmatch(name.strip())
    return year.group(1) if year else None


def years_header(text: str) -> bool:
    """A line of TAB-separated consecutive years or closing dates only ("31/12/2023\t31/12/2022"): the header of a
    statement's figure columns, whose first (label) cell is empty and so missing from the PDF's line."""
    return "\t" in text and _years_only(fields(text))


def names_columns(text: str) -> bool:
    """A header row: column names, tab-separated; a lower row of a stacked header may have only two
    ("START\tEND" under "DATES")."""
    return ("\t" in text or is_table_row(text)) and is_header(text)


def heading_above(lines: Sequence[str], first: int) -> str:
    """The header rows of the table that line index `first` (0-based) is a row of, or "".

    Walks up over the table's rows, and over cell text wrapped onto lines of its own between two rows
    ("AIRFARE FOR C NAYLOR …" under its row), to its nearest stacked header rows; "" when `first` is not
    a row (or a row's wrapped text), is itself a header, or the rows above reach prose before any header.
    Below a rule ("---\t---", "| --- |") the header is what the rule marks (`_rule_marked`), the rule included.
    """
    if 0 <= first < len(lines) and not is_table_row(lines[first]) and not names_columns(lines[first]):
        # A window may open on a row's wrapped cell text: the row below it says whether this is a table.
        first = next((i for i in range(first + 1, min(first + WRAPPED_LINES + 1, len(lines))) if is_table_row(lines[i])),
                     first)
    rule = _rule_above(lines, first) if 0 <= first < len(lines) else None
    marked = _rule_marked(lines, rule) if rule is not None else ""
    if marked:
        return marked
    if not 0 <= first < len(lines) or not is_table_row(lines[first]) or names_columns(lines[first]):
        return ""
    index, wrapped = first - 1, 0
    while index >= 0 and not names_columns(lines[index]):
        wrapped = 0 if is_table_row(lines[index]) else wrapped + 1
        if wrapped > WRAPPED_LINES:
            return ""
        index -= 1
    header: list[str] = []
    while index >= 0 and len(header) < HEADER_ROWS and names_columns(lines[index]):
        header.insert(0, lines[index])
        index -= 1
    return "\n".join(header)


class HeadingsAbove:
    """`heading_above(lines, i)` for any line of one page, from one pass over the page.

    The chunk stage asks once per window: asking `heading_above` each time tested a long line once per
    window (one 1.1 MB line: over two minutes) and walked up a long table once per window. Here each
    line is tested once, on the first question, and each row's header is found by the same pass.
    """

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._reach: list[int | None] | None = None  # per line: the header a row there would sit under

    def _scan(self) -> None:
        lines = self.lines
        self._row = [is_table_row(text) for text in lines]
        self._header = [("\t" in text or row) and is_header(text) for text, row in zip(lines, self._row)]
        self._reach, self._stack, self._rule = [], [], []
        header, run, stack_start, rule = None, 0, 0, None
        for index, text in enumerate(lines):
            self._reach.append(header)
            rule = (index if is_table_rule(text) else rule) if self._row[index] else None
            self._rule.append(rule)
            if self._header[index]:
                stack_start = stack_start if index and self._header[index - 1] else index
                header, run = index, 0
            elif self._row[index]:
                run = 0
            else:
                run += 1
                if run > WRAPPED_LINES:
                    header = None
            self._stack.append(max(stack_start, index - HEADER_ROWS + 1))

    def __call__(self, first: int) -> str:
        lines = self.lines
        if not 0 <= first < len(lines):
            return ""
        if self._reach is None:
            self._tables = any("\t" in text or "|" in text for text in lines)  # else no line can be a row
            if self._tables:
                self._scan()
            else:
                self._reach = []
        if not self._tables:
            return ""
        row, header = self._row, self._header
        if not row[first] and not header[first]:
            first = next((i for i in range(first + 1, min(first + WRAPPED_LINES + 1, len(lines))) if row[i]), first)
        rule = self._rule[first] if self._rule else None
        marked = _rule_marked(lines, rule) if rule is not None else ""
        if marked:
            return marked
        if not row[first] or header[first]:
            return ""
        above = self._reach[first] if self._reach else None
        return "" if above is None else "\n".join(lines[self._stack[above]:above + 1])


# --------------------------------------------------------------------------- a row the question names

FOOTNOTE_MARK = re.compile(r"\s+(?=\*)")  # "Long Gun *Other **Multiple": PDF cells run together at footnote marks
KEY_TRIM = " *†‡:"


def _column_names(header: str) -> list[str]:
    """The column names of a header, its first (key) column left out; a group row stacked above it with fewer
    cells ("Pre-Pawn  Redemption … Rentals" over "State  Permit  Handgun …") names columns from its first cell."""
    rows = [cells_in_place(row) for row in header.split("\n")]
    widest = max((len(cells) for cells in rows), default=0)
    # A header of years only ("31/12/2023\t31/12/2022") has no key column's cell to leave out.
    return [name.strip(KEY_TRIM) for cells in rows
            for cell in (cells if len(cells) < widest or _years_only([c for c in cells if c]) else cells[1:])
            for name in FOOTNOTE_MARK.split(cell) if name.strip(KEY_TRIM)]


def other_years_only(asked_years: set[str], row) -> bool:
    """Does a row's header name its columns by years (`_column_years`), none of them one the question asks for
    (`asked_years`, as `lang.numbers.YEAR` finds them)? "What was the net profit in 2021?" is not answered by a
    statement of 2023 and 2022."""
    if not asked_years or not getattr(row, "header", ""):
        return False
    years = _column_years([cell for cell in widest_header_row(row.header) if cell])
    return bool(years) and not asked_years & set(years)


# The number or letter a statement's row is listed by ("21) Utile (perdita) dell'esercizio", "B) Costi", "4. Taxes").
_ROW_ENUMERATOR = re.compile(r"^(?:\d{1,3}[).]|[A-Za-z]\))\s+(?=\S)")  # not an initial: "J. Smith" stays whole


def row_key(row) -> str:
    """A row's key: its first cell, without footnote marks, emphasis, a trailing colon ("| **Encryption** |" →
    "Encryption") or the number it is listed by."""
    cells = fields(row.quote)
    return _ROW_ENUMERATOR.sub("", cells[0].strip(KEY_TRIM)) if cells else ""


NAME_CELL_WORDS = 4  # a cell of this many words at most may name its row, as a key does ("[node-clinic][]")


def names_row(question: str, row, query_tokens: set[str], tokens) -> bool:
    """Does the question say which row it asks about: a word of the row's key or of another short cell of words that
    the question asks about (`query_tokens`) other than its columns' names ("What tier does node-clinic target?" names
    "| Profiling | [node-clinic][] | No | No | 3 |" by its tool, not its first cell), every name it gives written in the
    row ("Senator Hawley's train ticket"), or the unit of measure of the row's one value ("How many watts …?" and
    "| Power | 2200 W |")? A row whose cells merely hold the asked kind of value ("| orjson | 0 | 0 |" for "how many …
    did the standard json module fail to reject?") answers another row's question."""
    return (_asked_in_cells(row, query_tokens, tokens) or bool(_rows_in_asked_unit(question, [row]))
            or _holds_names(english_names(question), row))


def _holds_names(names: list[str], row) -> bool:
    """Does the row write every name of `names` its header does not (a name the header holds names a column: "…
    compared with Chardet's"), and is there one?"""
    names = unmentioned_names(names, row.header or "")
    return bool(names) and not unmentioned_names(names, row.quote)


def _asked_in_cells(row, query_tokens: set[str], tokens) -> bool:
    """Does the row's key or another short cell of words hold an asked word (`query_tokens`) other than its columns'
    names ("How many valid JSON documents were not deserialized?" names a column, not the row "json")?"""
    cells = [row_key(row)] + [cell for cell in fields(row.quote)[1:] if not _NUMERIC_FIELD.fullmatch(cell)
                              and len(cell.split()) <= NAME_CELL_WORDS]
    asked = query_tokens - set(tokens(row.header or ""))
    return any(asked & set(tokens(cell)) for cell in cells)


MOST_KEY_WORDS = 3  # a key this many words long is named by all of them but one


def named_row(question: str, rows: Sequence, tokens) -> tuple[object, str, list[str]] | None:
    """The table row a question names by its key (first cell) and at least one of its columns, with that
    key and those column names (none for a two-column table); None when no row is named or when rows with
    different keys are (a comparison is not a lookup).

    "How many permit checks were run in Texas?" names the row "Texas" and the column "Permit". A
    question naming only the key ("How many checks were denied in Texas?", and the table has no such
    column) is not answered by the row: the column is what says the row holds the asked value — except
    in a table of two columns, names and their values ("| Voltage | 220-240 V |"), where the row holds
    nothing else. A key named whole wins; failing that, the names the question gives may name one row's
    key ("the Seattle office" → "Seattle ACO Branch"; "Virginia" still means Virginia, not West Virginia).
    `rows` are units with `.quote` and `.header`, best first; `tokens` is the tokenizer's `tokens`.
    """
    asked = question.casefold()
    names = english_names(question)
    asked_tokens = set(tokens(question))
    whole, by_words, by_names, by_cells, by_most = [], [], [], [], []
    for row in rows:
        key = row_key(row)
        if not row.header or sum(c.isalpha() for c in key) < 2 or len(key) > 60:
            continue
        if re.search(rf"(?<!\w){re.escape(key.casefold())}(?!\w)", asked):
            whole.append((row, key))
        elif (key_tokens := set(tokens(key))) and key_tokens <= asked_tokens:  # "Totals" named by "the total number"
            by_words.append((row, key))
        elif names and not unmentioned_names(names, key):
            by_names.append((row, key))
        elif _holds_names(names, row):
            by_cells.append((row, key))
        elif len(key_tokens) >= MOST_KEY_WORDS and len(key_tokens - asked_tokens) == 1:
            by_most.append((row, key))  # "the net profit in 2023" names "Net profit for the year"
    named = whole or by_words or by_names or by_cells or by_most or _rows_in_asked_unit(question, rows)
    found = [(row, key, columns) for row, key in named
             if (columns := _asked_columns(asked_tokens, row, key, tokens)) is not None]
    if len({key.casefold() for _, key, _ in found}) != 1:
        return None
    return found[0]


# "How many watts …?" asks for the value written "2200 W" in a spec sheet that names the row "Power".
_UNIT_SYMBOLS = {"watt": "W", "kilowatt": "kW", "volt": "V", "amp": "A", "ampere": "A", "hertz": "Hz", "litre": "L",
                 "liter": "L", "millilitre": "ml", "milliliter": "ml", "kilogram": "kg", "kilo": "kg", "gram": "g",
                 "metre": "m", "meter": "m", "centimetre": "cm", "centimeter": "cm", "millimetre": "mm",
                 "millimeter": "mm", "inch": "in", "pound": "lb", "decibel": "dB", "byte": "B", "gigabyte": "GB",
                 "megabyte": "MB", "terabyte": "TB", "hour": "h", "minute": "min", "second": "s"}
_ASKED_UNIT = re.compile(r"\bhow many (" + "|".join(sorted(_UNIT_SYMBOLS, key=len, reverse=True)) + r")e?s\b", re.IGNORECASE)


def asked_unit(question: str) -> tuple[str, str] | None:
    """("watt", "W") for "How many watts …?"; None when the question asks for no unit of measure."""
    asked = _ASKED_UNIT.search(question)
    return (asked.group(1).lower(), _UNIT_SYMBOLS[asked.group(1).lower()]) if asked else None


def _rows_in_asked_unit(question: str, rows: Sequence) -> list[tuple[object, str]]:
    """The one row of a two-column table of names and values whose value is in the unit the question asks for
    ("How many watts …?" → "| Power | 2200 W |"); none when no row or several rows are."""
    unit = asked_unit(question)
    if unit is None:
        return []
    symbol = re.escape(unit[1])
    found = [(row, cells[0].strip(KEY_TRIM)) for row in rows if row.header and len(cells := fields(row.quote)) == 2
             and re.search(rf"\d\s*{symbol}\b", cells[1])]
    return found if len(found) == 1 else []


# The words a form's columns are named by, as questions ask for them: "When did the trip begin?" asks for START.
COLUMN_WORDS = {"begin": "start", "began": "start", "begun": "start", "commenc": "start", "finish": "end",
                "cost": "amount", "price": "amount", "paid": "amount", "pay": "amount", "spent": "amount",
                "spend": "amount", "charg": "amount", "fee": "amount"}


def column_words(asked_tokens: set[str]) -> set[str]:
    """The question's tokens with the column names they ask for added (stems, as `Tokenizer.tokens` gives)."""
    return asked_tokens | {COLUMN_WORDS[token] for token in asked_tokens if token in COLUMN_WORDS}


def _asked_columns(asked_tokens: set[str], row, key: str, tokens) -> list[str] | None:
    """The row's column names the question (its `asked_tokens`) names; [] for a two-column table (names and
    values); None if none."""
    key_tokens = set(tokens(key))
    columns = _column_names(row.header)
    asked_tokens = column_words(asked_tokens)
    asked = [(name, words) for name in columns if (words := _name_words(name, tokens)) and words <= asked_tokens]
    # A column the key's words name is not asked for by them — except the Totals row's Totals column (the grand
    # total), when it is the only one the question names.
    named = [name for name, words in asked if not words <= key_tokens] or [name for name, words in asked if words == key_tokens]
    if named:
        return list(dict.fromkeys(named))
    return [] if len(fields(row.quote)) == 2 and len(columns) == 1 else None


def names_column(question: str, name: str) -> bool:
    """Does `question` name the column `name` word for word ("… in 2021?" names "2021"; "本报告期营业收入" names "本报告期"),
    by the year of the closing date it is headed by ("… nel 2023?" names "31/12/2023"), or by its words' stems, as a
    lookup names a column ("When did … die?" names "died")?"""
    from pipeline.lang.tokenize import default_tokenizer

    tokens = default_tokenizer().tokens
    if (words := _name_words(name, tokens)) and words <= column_words(set(tokens(question))):
        return True
    asked = question.casefold()
    if name and has_cjk(name) and name.casefold() in asked:  # Chinese writes no spaces: "本报告期营业收入是多少？"
        return True
    if name and re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", asked):
        return True
    year = _year_of(name)
    return year is not None and re.search(rf"(?<![\w./-]){year}(?![\w./-])", asked) is not None


def _name_words(name: str, tokens) -> set[str]:
    """A column name's words; a column named by a year's closing date ("31/12/2023") is named by its year."""
    year = _year_of(name)
    return {year} if year else set(tokens(name))


def widest_header_row(header: str) -> list[str]:
    """The cells of a (stacked) header's widest row: the one that names every column (the most named cells; a row
    padded with empty cells to the table's width is no wider for them)."""
    return max((cells_in_place(line) for line in header.split("\n")), key=lambda cells: (sum(map(bool, cells)), len(cells)))


def asked_cells(row, columns: Sequence[str]) -> list[tuple[str, str]]:
    """(column, cell) for each asked column of `row`, read off by position; [] when the row's cells do not line
    up one to one with its header's widest row (an empty cell left out, a cell split in two): a cell is
    pointed at only when it is certain."""
    if not columns:
        return []
    return [(name, cell) for name, cell in row_cells(row) if name in columns]


def row_cells(row) -> list[tuple[str, str]]:
    """(column, cell) for every cell of `row` under its header's widest row; [] when they do not line up one to one."""
    if not row.header:
        return []
    widest = widest_header_row(row.header)
    cells = cells_in_place(row.quote.split("\n")[0])
    if len(widest) != len(cells):
        widest = max((fields(line) for line in row.header.split("\n")), key=len)
        cells = fields(row.quote.split("\n")[0])
    if len(widest) == len(cells) - 1 and all(_NUMERIC_FIELD.fullmatch(cell) for cell in cells[1:]):
        # A row of a key and figures under a header one cell short: the stub column, the rows' keys, is left
        # unnamed ("Note\t2023\t2022" over "Personnel costs\t9\t(81,337)\t(76,540)").
        widest = ["", *widest]
    if len(widest) != len(cells):
        return []
    return [(name.strip(KEY_TRIM), cell) for name, cell in zip(widest, cells)]


def row_read(row) -> str:
    """A row as a reader reads it: each cell under its column's name ("Statistic: Paragraphs (body); GROBID: 9.9;
    LATEX: 93.3*"), so a model that reads sentences sees which value is which; the header above the row's own text
    when the cells do not line up with it one to one, the row alone without a header."""
    named = [(name, cell) for name, cell in row_cells(row) if cell]
    if named:
        return "; ".join(f"{name}: {cell}" if name else cell for name, cell in named)
    cells = " | ".join(" ".join(cell.split()) for cell in fields(row.quote))
    if not row.header:
        return cells
    return " | ".join(name for name in widest_header_row(row.header) if name) + "\n" + cells

