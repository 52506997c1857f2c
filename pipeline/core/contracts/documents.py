"""Parse and metadata: a Document of pages and exact, addressable lines (seed 000, §45.2)."""

from __future__ import annotations

import datetime as dt
from array import array
from functools import cached_property
from collections.abc import Iterable, Iterator, Sequence
from typing import Annotated, NamedTuple

from pydantic import Field, PlainSerializer, PlainValidator, WithJsonSchema

from pipeline.core.contracts.base import Frozen, prevalidated


class Box(Frozen):
    """A rectangle in PDF points, origin top-left (PyMuPDF's convention)."""

    x0: float
    y0: float
    x1: float
    y1: float


class Word(NamedTuple):
    """One word of a PDF line: its code-point span within the page text and its box.

    A plain named tuple, not a model: a PDF holds tens of thousands of words, and a tuple is
    built several times faster (it serialises as [start, end, x0, y0, x1, y1]).
    """

    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def box(self) -> Box:
        return Box(x0=self.x0, y0=self.y0, x1=self.x1, y1=self.y1)


class WordBoxes(Sequence[Word]):
    """A line's words, packed six numbers to a word in one float64 array; reading one gives a `Word`.

    Twenty pages of a three-column PDF hold about 15,000 words: as tuples of Python numbers they took
    3.4 MiB, a third of a session's memory for its upload; packed they take 0.7 MiB. Float64 keeps every
    coordinate and offset exactly. Serialises as a list of [start, end, x0, y0, x1, y1].
    """

    __slots__ = ("_values",)

    def __init__(self, words: Iterable[Sequence[float]] = ()) -> None:
        values = array("d")
        for word in words:
            if len(word) != 6:
                raise ValueError("a word is [start, end, x0, y0, x1, y1]")
            values.extend(word)
        self._values = values

    @classmethod
    def packed(cls, values: array) -> WordBoxes:
        """From a flat array of six numbers per word, as the PDF parser builds it (no copy)."""
        boxes = cls.__new__(cls)
        boxes._values = values
        return boxes

    def __len__(self) -> int:
        return len(self._values) // 6

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("word index out of range")
        start, end, x0, y0, x1, y1 = self._values[6 * index: 6 * index + 6]
        return Word(int(start), int(end), x0, y0, x1, y1)

    def __iter__(self) -> Iterator[Word]:
        values = self._values
        for i in range(0, len(values), 6):
            start, end, x0, y0, x1, y1 = values[i: i + 6]
            yield Word(int(start), int(end), x0, y0, x1, y1)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WordBoxes):
            return self._values == other._values
        if isinstance(other, (list, tuple)):
            return list(self) == [tuple(w) for w in other]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values.tobytes())

    def __repr__(self) -> str:
        return f"WordBoxes({len(self)} words)"

    def __reduce__(self):
        return (WordBoxes.packed, (self._values,))


def _word_boxes(value) -> WordBoxes:
    return value if isinstance(value, WordBoxes) else WordBoxes(value)


WordList = Annotated[
    WordBoxes,
    PlainValidator(_word_boxes),
    PlainSerializer(lambda boxes: [list(word) for word in boxes], return_type=list),
    WithJsonSchema({"type": "array", "items": {"type": "array", "items": {"type": "number"}, "minItems": 6,
                                                "maxItems": 6}}),
]


class Line(Frozen):
    """One addressable line. Numbers are 1-based within the page (PDF) or the body (text).

    `start`/`end` are zero-based, half-open code-point offsets into `Page.text`; `end`
    excludes the newline (seed 000, §45.2).
    """

    number: int
    start: int
    end: int
    text: str
    box: Box | None = None
    words: WordList = WordBoxes()


_NO_BOX = float("nan")


class LineTable(Sequence[Line]):
    """A page's lines, kept by column — numbers and offsets in integer arrays, boxes in one float array, the words of
    every line in one packed array — and read back one `Line` at a time.

    As one pydantic object each (with its box, its dict and its word array), a 20-page three-column PDF's 2,559 lines
    held 3.4 MiB of a session's memory; by column they hold about a third of that. Equal to, hashed and serialised as
    the tuple of its lines; pickled by column (a parse worker sends a document to the server so)."""

    __slots__ = ("_numbers", "_spans", "_texts", "_boxes", "_word_ends", "_words")

    def __init__(self, lines: Iterable[Line] = ()) -> None:
        numbers, spans, boxes, word_ends, words = array("q"), array("q"), array("d"), array("q"), array("d")
        texts = []
        for line in lines:
            numbers.append(line.number)
            spans.extend((line.start, line.end))
            texts.append(line.text)
            box = line.box
            boxes.extend((box.x0, box.y0, box.x1, box.y1) if box is not None else (_NO_BOX,) * 4)
            words.extend(line.words._values if isinstance(line.words, WordBoxes) else WordBoxes(line.words)._values)
            word_ends.append(len(words))
        self._numbers, self._spans, self._texts, self._boxes = numbers, spans, tuple(texts), boxes
        self._word_ends, self._words = word_ends, words

    @classmethod
    def _from_columns(cls, numbers, spans, texts, boxes, word_ends, words) -> LineTable:
        """The table from its columns (its pickle), refused unless they are of one table's shapes: a parse worker's
        reply is not trusted to be."""
        count = len(numbers)
        arrays = ((numbers, "q"), (spans, "q"), (boxes, "d"), (word_ends, "q"), (words, "d"))
        if (not all(isinstance(a, array) and a.typecode == code for a, code in arrays)
                or not isinstance(texts, tuple) or not all(isinstance(t, str) for t in texts)
                or (len(spans), len(texts), len(boxes), len(word_ends)) != (2 * count, count, 4 * count, count)
                or len(words) != (word_ends[-1] if count else 0) or len(words) % 6
                or any(b < a or b % 6 for a, b in zip((0, *word_ends), word_ends))):
            raise ValueError("the line table's columns do not fit together")
        table = cls.__new__(cls)
        table._numbers, table._spans, table._texts, table._boxes = numbers, spans, texts, boxes
        table._word_ends, table._words = word_ends, words
        return table

    def __reduce__(self):
        return (LineTable._from_columns, (self._numbers, self._spans, self._texts, self._boxes, self._word_ends,
                                          self._words))

    def __len__(self) -> int:
        return len(self._numbers)

    def _line(self, i: int) -> Line:
        x0, y0, x1, y1 = self._boxes[4 * i: 4 * i + 4]
        box = None if x0 != x0 else _new_box({"x0": x0, "y0": y0, "x1": x1, "y1": y1})  # NaN: no box
        first = self._word_ends[i - 1] if i else 0
        return _new_line({"number": self._numbers[i], "start": self._spans[2 * i], "end": self._spans[2 * i + 1],
                          "text": self._texts[i], "box": box,
                          "words": WordBoxes.packed(self._words[first: self._word_ends[i]])})

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self._line(i) for i in range(*index.indices(len(self))))
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError("line index out of range")
        return self._line(index)

    def __iter__(self) -> Iterator[Line]:
        return (self._line(i) for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LineTable):
            return (self._numbers == other._numbers and self._spans == other._spans and self._texts == other._texts
                    and self._word_ends == other._word_ends and self._words == other._words
                    and self._boxes.tobytes() == other._boxes.tobytes())  # NaN boxes compare by their bytes
        if isinstance(other, (list, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._numbers.tobytes(), self._spans.tobytes(), self._texts))

    def __repr__(self) -> str:
        return f"LineTable({len(self)} lines)"


_new_box, _new_line = prevalidated(Box), prevalidated(Line)


def _line_table(value) -> LineTable:
    if isinstance(value, LineTable):
        return value
    return LineTable(line if isinstance(line, Line) else Line.model_validate(line) for line in value)


LineList = Annotated[
    LineTable,
    PlainValidator(_line_table),
    PlainSerializer(lambda table: list(table), return_type=list[Line]),
    WithJsonSchema({"type": "array", "items": {"type": "object", "description": "a Line"}}),
]


class PageTable(Frozen):
    """A table a parser found on a page, by line numbers: its header rows (stacked ones too), its body rows, and
    one name per column with a stacked header's rows combined ("2023 Spring"; "" for an unnamed stub column).
    A parser that knows its tables says so here; units then take these header rows as the rows' header (context,
    never cited) instead of guessing it from the words."""

    header: tuple[int, ...] = ()
    rows: tuple[int, ...]
    columns: tuple[str, ...] = ()


class Page(Frozen):
    """A text document has one page with `number=None`; a PDF page has a 1-based number."""

    number: int | None = None
    text: str
    lines: LineList
    width: float | None = None
    height: float | None = None
    furniture: tuple[int, ...] = ()  # numbers of running heads/feet and page numbers (layout, never quoted)
    tables: tuple[PageTable, ...] = ()  # the tables the parser found (none: rows are told by their tabs)
    headings: tuple[int, ...] = ()  # numbers of lines the parser knows are headings (set apart by their font)
    code: tuple[int, ...] = ()  # numbers of lines the parser knows are code (a PDF's listing, set in typewriter)
    ocr: bool = False  # the lines were recognised by OCR from the page's image (a scanned page), not read from text

    def table_of(self, number: int) -> PageTable | None:
        """The table line `number` is a header or body row of, if the parser found one."""
        return self.tables_by_line.get(number) if self.tables else None

    @cached_property
    def tables_by_line(self) -> dict[int, PageTable]:
        """Each table line's table (the first that lists it), built once per page: `table_of` is asked for every
        line of a page by the chunker and the table comparer, and a scan of every table's rows for each made them
        quadratic in a sheet's rows."""
        found: dict[int, PageTable] = {}
        for table in self.tables:
            for number in (*table.rows, *table.header):
                found.setdefault(number, table)
        return found


class CardSpec(Frozen):
    """An authored search summary pointing at parent lines (an annotated support span)."""

    id: str
    text: str
    start_line: int
    end_line: int
    page: int | None = None


class DocumentMeta(Frozen):
    """Versioned evidence metadata from front matter, a PDF sidecar, or the upload form."""

    source_id: str
    version: str | None = None
    topic: str | None = None
    authority: str | None = None
    valid_from: dt.date | None = None
    valid_to: dt.date | None = None
    updated: dt.date | None = None
    license: str | None = None
    uri: str | None = None
    lang: str | None = None
    title: str | None = None
    access: tuple[str, ...] | None = None
    cards: tuple[CardSpec, ...] = ()
    # Keys other tools put in front matter (Jekyll's redirect_from, versions, ...), each value as bounded text:
    # shown with the document, never used for access, validity or ranking.
    extra: tuple[tuple[str, str], ...] = ()


class DocumentInfo(Frozen):
    """What a PDF says about itself (its document information dictionary), or a DOCX or XLSX (its core properties), as
    bounded text: shown, never trusted for eligibility. Dates are ISO 8601 when the file's date is well formed, else
    as written."""

    title: str | None = None
    author: str | None = None
    subject: str | None = None
    created: str | None = None
    modified: str | None = None


# The name of the parser that read the document (`pipeline.core.interfaces.Parser.name`: "text", "pdf", or a
# registered one's): a stored document names the type it is reloaded, rendered and kept as.
DocumentKind = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_.-]{0,63}$")]


class Document(Frozen):
    meta: DocumentMeta
    kind: DocumentKind
    filename: str
    digest: str = Field(description="sha256 of the file's bytes")
    pages: tuple[Page, ...]
    info: DocumentInfo | None = None
    warnings: tuple[str, ...] = ()  # what the parser read past (a malformed front-matter block), one line each

    @property
    def source_id(self) -> str:
        return self.meta.source_id

    @property
    def paged(self) -> bool:
        """True when lines are addressed per numbered page (a PDF), False when per body (one page without a
        number: text)."""
        return bool(self.pages) and self.pages[0].number is not None

    def page(self, number: int | None) -> Page | None:
        for page in self.pages:
            if page.number == number:
                return page
        return None

    def page_for(self, number: int | None) -> Page | None:
        """The page a citation or chunk addresses: the numbered PDF page, or a text document's body.

        A PDF citation without a page number addresses nothing; a text document ignores the number.
        """
        if not self.paged:
            return self.pages[0] if self.pages else None
        return None if number is None else self.page(number)

    def span_text(self, page: int | None, start_line: int, end_line: int) -> str | None:
        """The exact text of lines start_line..end_line (1-based, inclusive), or None if they do not exist."""
        found = self.page_for(page)
        if found is None or not (1 <= start_line <= end_line <= len(found.lines)):
            return None
        return found.text[found.lines[start_line - 1].start : found.lines[end_line - 1].end]
