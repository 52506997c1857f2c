"""Pack: the numbered, dated, delimited sources a generator gets."""

from __future__ import annotations

import datetime as dt

from pipeline.core.contracts.base import Frozen
from pipeline.core.contracts.reading import QuestionReading
from pipeline.core.contracts.retrieval import TableComparison


class PackedLine(Frozen):
    number: int
    text: str
    furniture: bool = False  # a running head/foot or page number: kept for its address, never quoted
    # What the parser knows the line is (`Page.tables`, `Page.headings`): "header" (a table's header row), "row" (a
    # table's body row), "heading", "code" (a PDF's listing); "" when it does not say (units then tell rows and headers by their words).
    role: str = ""
    header: str = ""  # a known body row's column names, one per TAB (a stacked header combined): context, never cited


class PackedSource(Frozen):
    n: int
    source_id: str
    version: str | None
    page: int | None
    start_line: int
    end_line: int
    support_span: bool
    dated: str
    sibling_group: str
    lines: tuple[PackedLine, ...]
    heading: str = ""  # the table header rows above these lines, shown as context, never cited
    in_code: bool = False  # the first line is inside a fenced code block opened above it (a window cut mid-block)
    names: str = ""  # the words that name its document (id, title, topic): in every unit's words, never cited
    continues: str = ""  # the start of the sentence its first line finishes, from the previous PDF page: context
    compounds: tuple[str, ...] = ()  # compounds its lines break at their own hyphen ("well-known"): kept when joined


class Context(Frozen):
    question: str
    request_date: dt.date
    sources: tuple[PackedSource, ...]
    text: str
    length: int
    window: int
    reserve: int
    omitted: tuple[str, ...] = ()
    term_weights: dict[str, float] = {}
    # Short form → long form, as the packed sources' documents define them ("AOA" → "angle of attack"):
    # the composer counts either form as the other. Never cited, never shown to a model as evidence.
    abbreviations: dict[str, str] = {}
    # Retrieval's table comparison, when its row is among the packed lines (the composer cites that row).
    comparison: TableComparison | None = None
    # How the question was read, once for the request (pipeline.question.reading); None when a caller packed it alone.
    reading: QuestionReading | None = None

    @property
    def capacity(self) -> int:
        return self.window - self.reserve
