"""Evidence units: the sentences, list items and table rows an extractive answer can quote.

A packed source is a run of addressed lines. Lines are layout, not meaning: hard-wrapped
text (RFCs, PEPs, wrapped Markdown, PDF columns) breaks a sentence over several lines, and a
list or a table puts one item per line. So lines are first grouped into blocks:
- a blank line, a Markdown heading or a new list item (`-`, `*`, `+`, `•`, `1.`, `1)`, `(a)`)
  ends the block before it; a list item's wrapped continuation lines join it;
- a table row is its own block: a Markdown `| a | b |` line, or a line with at least two tab
  stops (PyMuPDF writes a PDF table row as one tab-separated line); a following line without
  tabs joins the row only when the row's last field ends in a number and the line is upper
  case or starts lower case (a wrapped description cell, as in the Senate report), never prose;
  the nearest earlier row whose fields are mostly words is kept as the row's header;
- a fenced code block (``` or ~~~) is one block, never split into sentences; the sentence that
  introduces it ("You can install it with pip:") becomes one unit with it, since a "how do I"
  question is answered by the instruction and its command together;
- a line of HTML markup only (a README's `<div>`, `<table>`, badges) is layout, like a blank;
- reStructuredText's explicit markup is layout too (a link target, a substitution, a directive's own line); a code
  directive (".. code-block:: python") makes the indented block under it code, which goes on past an empty line
  inside it; a rule under a one-line title is its underline even when made of tildes, which Markdown also uses
  for fences (`adornments.py`);
- everything else joins its neighbours and is split into sentences across line breaks; a sentence
  that opens with a pronoun ("They should not exceed 4,000 words") is also a unit together with the
  sentence before it, which says what the pronoun stands for;
- a list introduced by a heading or a colon is also one unit; a heading alone never answers.
Each unit keeps the first and last line it touches, so its citation stays exact. A unit that is
mostly markup or link targets is not quotable (it says nothing a reader asked).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import islice

from pipeline.core.citations import marker
from pipeline.core.contracts import PackedLine, PackedSource
from pipeline.lang.forms import ANAPHOR
from pipeline.lang.sentences import sentence_spans
from pipeline.lang.text import LINE_END_HYPHEN, keeps_hyphen
from pipeline.lang.tokenize import has_cjk, is_cjk_char
from pipeline.text.adornments import RULE as _UNDERLINE
from pipeline.text.adornments import FENCE, adornment_lines
from pipeline.text.footnotes import NOTE_OPENING
from pipeline.text.tables import fields, is_header, is_table_row, is_table_rule, names_columns, years_header

# A letter marker is not one before another initial: "A. N. Other", "V. S. Naipaul" are names.
LIST_ITEM = re.compile(r"^\s*(?![A-Z]\.\s+[A-Z]\.\s)(?:[-*+•▪◦‣]\s+|\(?(?:\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)]\s+)")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_NUMBER_END = re.compile(r"[\d)%][\s.…]*$")
_MARKUP_ONLY = re.compile(r"^\s*(?:<[^<>]*>\s*)+$")
_INDENTED = re.compile(r"^(?: {2,}|\t)\s*\S")
_MARKUP = re.compile(r"<[^<>]*>|\]\([^()\s]*\)|https?://\S+")  # tags, Markdown link targets, bare URLs


@dataclass(frozen=True)
class Unit:
    """A candidate piece of evidence: exact text and the lines it sits on."""

    source: PackedSource
    start_line: int
    end_line: int
    quote: str
    kind: str = "sentence"  # sentence | item | list | row | code | heading | span
    header: str = ""  # a table row's header line (shown beside it, scored with it)
    section: str = ""  # the heading over a list, a list item or a label line ("## Requirements" over "- Python 3.11",
    # "max_queue_size" over "**Default** - ``1000``"), or the start of
    # the sentence a page's first sentence finishes (PackedSource.continues): scored with it, never quoted
    names_columns: bool = False  # a table's header row: it names what the rows below hold, it answers nothing
    opened_by: str = ""  # the PDF heading lines (`Page.headings`) that open this sentence: read with it, as a sentence
    # and its heading were read before the parser knew the heading, never quoted with it

    def read(self) -> str:
        """The text its score reads: its quote, after the heading lines that open it."""
        return f"{self.opened_by}\n{self.quote}" if self.opened_by else self.quote

    def marker(self) -> str:
        return citation_marker(self.source.source_id, self.source.page, self.start_line, self.end_line)

    def lines(self) -> tuple[PackedLine, ...]:
        """The packed lines it spans."""
        first = self.source.start_line
        return self.source.lines[self.start_line - first: self.end_line - first + 1]


citation_marker = marker  # one marker format for every producer (citations.py)


def join_lines(quote: str, compounds: Collection[str] = ()) -> str:
    """A quote as one answer sentence: lines joined by a space (none between Chinese lines), a word broken at a line
    end by a hyphen joined ("ra-" + "dio" → "radio", as the verifier compares it; the quote keeps the source text),
    a compound broken at its own hyphen kept whole when it is one of `compounds` ("well-known":
    `PackedSource.compounds`)."""
    lines = [line.strip() for line in quote.split("\n") if line.strip()]
    joined = lines[0] if lines else ""
    for line in lines[1:]:
        if LINE_END_HYPHEN.match(f"{joined[-2:]}\n{line[:1]}", 1):
            joined = f"{joined}{line}" if keeps_hyphen(joined, line, compounds) else f"{joined[:-1]}{line}"
            continue
        gap = "" if is_cjk_char(joined[-1]) or is_cjk_char(line[0]) else " "
        joined = f"{joined}{gap}{line}"
    return joined


def _continues_row(row: str, line: str) -> bool:
    """A wrapped description cell under a row: upper case or lower-case start, not prose."""
    stripped = line.strip()
    if not stripped or is_table_row(line) or LIST_ITEM.match(line) or len(fields(row)) < 3:
        return False
    if not _NUMBER_END.search(row) and not _NUMBER_END.search(fields(row)[0]):
        return False
    letters = [c for c in stripped if c.isalpha()]
    return bool(letters) and (stripped.upper() == stripped or stripped[0].islower())


_LITERAL_KINDS = ("literal", "directive-literal")
_DIRECTIVE_KINDS = ("directive", "code-directive", "signature")
# reStructuredText explicit markup that is not text: a code directive, an admonition whose text is indented under
# it (".. note::"), an API entry's signature (".. function:: iteritems(dictionary)", Sphinx's domains: the text
# indented under it describes what it names), a link target (".. _proxies:"), a substitution.
_DIRECTIVE = re.compile(
    r"^\s*\.\.\s+(?:(?P<code>code-block|code|sourcecode|highlight|literalinclude|doctest|testcode|testoutput"
    r"|parsed-literal|prompt|ipython|jupyter-execute)::"
    r"|(?P<text>note|warning|tip|hint|important|attention|caution|danger|error|seealso|admonition)::\s*$"
    r"|(?:[a-z]+:)?(?:function|method|classmethod|staticmethod|class|attribute|property|data|exception|decorator"
    r"|decoratormethod|module|envvar|option|describe|object|confval|program|cmdoption|macro|member|type|var)::"
    r"\s*(?P<signature>\S.*?)\s*$"
    r"|_[^:]*:|\|[^|]+\|\s+[\w-]+::)")
# A directive's option, on the indented lines right under it (":noindex:", ":caption: Example", ":type: int").
_DIRECTIVE_OPTION = re.compile(r"^\s+:[\w-]+(?: [\w-]+)*:(?:\s|$)")

# A plain text's centred title line ("                    Apache License", an RFC's title): far indented, short,
# no sentence end. A heading names a topic; it is never an answer.
# Words are possessive (\S++): a plain \S+ retries every split of a word into pieces before failing, exponential in
# the word's length.
_CENTRED_TITLE = re.compile(r"^ {12,}(?=\S)(?![^\n]*[=+{}<>|;()])(?:\S++ ?){1,8}(?<![.:;,])$")
# A manual page's section title ("DESCRIPTION", "EXIT STATUS", "SEE ALSO"), a text README's ("INSTALLATION"): capitals
# from the line's start, at most five words, nothing else.
_CAPITALS_TITLE = re.compile(r"^[A-Z][A-Z0-9]*+(?:[ -][A-Z0-9]++){0,4}$")


def _blocks(lines: tuple[PackedLine, ...], plain_text: bool, starts_in_code: bool = False) -> list[tuple[str, list[PackedLine]]]:
    """Group lines into (kind, lines) blocks: prose, item, heading, code, row or header-row (above a Markdown rule)."""
    adornments = adornment_lines([line.text for line in lines]) if plain_text else frozenset()
    reader = _BlockReader(plain_text, starts_in_code, frozenset(lines[i].number for i in adornments))
    for line in lines:
        reader.read(line)
    # An indented literal block is code to the units (a command shown after "… then you can run:"), unless it
    # reads as prose (an RFC's definitions under "… as described in RFC 2119:").
    return [(("prose" if _reads_as_prose(block) else "code") if kind == "literal" else
             "code" if kind == "directive-literal" else
             "heading" if plain_text and kind == "prose" and _numbered_title(block) else kind, block)
            for kind, block in reader.blocks if block and kind not in ("directive", "code-directive")]


# A plain text's numbered section title standing alone ("3.3. Virtual packages for Python-version specific
# dependencies¶", "2.1. Grants"): a number of sections, a capital, no sentence end, a few words.
_NUMBERED_TITLE = re.compile(r"^\s{0,3}(?:\d{1,2}\.){1,4}\d{0,2}\.?\s+[A-Z\u4e00-\u9fff][^.!?。！？:;]*¶?\s*$")
MAX_TITLE_WORDS = 12


def _numbered_title(block: list[PackedLine]) -> bool:
    return len(block) == 1 and len(block[0].text.split()) <= MAX_TITLE_WORDS and bool(_NUMBERED_TITLE.match(block[0].text))


class _BlockReader:
    """The blocks of lines read so far, one line at a time; each step says whether it took the line."""

    def __init__(self, plain_text: bool, starts_in_code: bool, adornments: frozenset[int] = frozenset()):
        self.plain_text = plain_text
        self.adornments = adornments  # the numbers of the lines that are a title's rule, though they look like fences
        self.blocks: list[tuple[str, list[PackedLine]]] = []
        self.in_code = plain_text and starts_in_code
        if self.in_code:
            self.blocks.append(("code", []))
        self.gap: list[PackedLine | None] = []  # the empty lines since the last line of text (None: a layout line)

    def read(self, line: PackedLine) -> None:
        if self.in_code:
            self.blocks[-1][1].append(line)
            self.in_code = not FENCE.match(line.text)  # a fence inside a block closes it
            return
        if self._blank(line):
            return
        after_gap, self.gap = self.gap, []
        if self._known(line) or self._directive(line) or self._directive_option(line, after_gap):
            return
        if (self._fence(line) or self._indented(line, after_gap) or self._table_rule(line) or self._underline(line)
                or self._table_row(line)):
            return
        self._text(line)

    def _known(self, line: PackedLine) -> bool:
        """A line the parser says is a table's header or body row, a heading (its font set it apart) or code (set in
        typewriter; a listing's lines are one block): its own block, whatever its words look like
        ("USAGE\tCHAR(1)\tHow it is used" is a row, not a header)."""
        kind = {"header": "header-row", "row": "data-row", "heading": "heading", "code": "code"}.get(line.role)
        if kind is None:
            return False
        last = self.blocks[-1] if self.blocks else None
        if kind == "code" and last is not None and last[0] == "code" and last[1] and last[1][-1].role == "code":
            last[1].append(line)  # a listing's next line
        else:
            self.blocks.append((kind, [line]))
        return True

    def _blank(self, line: PackedLine) -> bool:
        text = line.text
        if text.strip() and not line.furniture and not (self.plain_text and _MARKUP_ONLY.match(text)):
            return False
        self.blocks.append(("blank", []))
        self.gap.append(None if text.strip() or line.furniture else line)
        return True

    def _fence(self, line: PackedLine) -> bool:
        if not (self.plain_text and FENCE.match(line.text)) or line.number in self.adornments:
            return False
        self.blocks.append(("code", [line]))
        self.in_code = True
        return True

    def _indented(self, line: PackedLine, after_gap: list[PackedLine | None]) -> bool:
        """An indented line of plain text: part of the list item above, or of a literal block (an indented list
        or table under "…:" stays a list or a table)."""
        text = line.text
        if not (self.plain_text and _INDENTED.match(text) and not LIST_ITEM.match(text) and not is_table_row(text)
                and not is_table_rule(text)):
            return False
        item = _item_above(self.blocks, _indent(text)) if after_gap and None not in after_gap else None
        if item is not None:  # a Markdown item's indented paragraph or command is part of the item
            item.extend([*after_gap, line])
            return True
        code_above = _code_literal_above(self.blocks, _indent(text)) if after_gap and None not in after_gap else None
        if code_above is not None:  # code goes on past an empty line inside it
            code_above.extend([*(gap for gap in after_gap if gap is not None), line])
            while self.blocks[-1][0] == "blank":  # so that the next line goes on with it too
                self.blocks.pop()
            return True
        if not _literal_block_goes_on(self.blocks, _indent(text)):
            return False
        if self.blocks[-1][0] in _LITERAL_KINDS:
            self.blocks[-1][1].append(line)
        else:
            announced_as_code = len(self.blocks) > 1 and self.blocks[-2][0] == "code-directive"
            self.blocks.append(("directive-literal" if announced_as_code else "literal", [line]))
        return True

    def _directive(self, line: PackedLine) -> bool:
        """reStructuredText's explicit markup: a link target or substitution is layout; a code directive
        (".. code-block:: python") announces the indented block under it as code."""
        match = _DIRECTIVE.match(line.text) if self.plain_text else None
        if match is None:
            return False
        kind = ("code-directive" if match.group("code") else "directive" if match.group("text")
                else "signature" if match.group("signature") else "blank")
        self.blocks.append((kind, [line] if kind != "blank" else []))
        return True

    def _directive_option(self, line: PackedLine, after_gap: list[PackedLine | None]) -> bool:
        """An option line right under a directive (":caption: Example") is layout."""
        return (self.plain_text and not after_gap and bool(self.blocks) and self.blocks[-1][0] in _DIRECTIVE_KINDS
                and _DIRECTIVE_OPTION.match(line.text) is not None)

    def _table_rule(self, line: PackedLine) -> bool:
        if not is_table_rule(line.text):
            return False
        if self.blocks and self.blocks[-1][0] == "row":  # the row above a Markdown rule is the table's header
            self.blocks[-1] = ("header-row", self.blocks[-1][1])
        self.blocks.append(("blank", []))
        return True

    def _underline(self, line: PackedLine) -> bool:
        if not (self.plain_text and _UNDERLINE.match(line.text)):
            return False
        _underlined_title(self.blocks)
        return True

    def _table_row(self, line: PackedLine) -> bool:
        text = line.text
        last_kind, last_lines = self.blocks[-1] if self.blocks else ("blank", [])
        if (is_table_row(text) or (last_kind == "row" and names_columns(text) and names_columns(last_lines[0].text))
                or years_header(text)):
            # A lower header row may have two cells ("START\tEND" under "DATES"), a statement's "2023\t2022" too.
            self.blocks.append(("row", [line]))
            return True
        return False

    def _text(self, line: PackedLine) -> None:
        """A line of text: a row's wrapped cell, a heading, a list item, a note, or prose (joined to the prose
        or item above when it continues it)."""
        text = line.text
        last_kind, last_lines = self.blocks[-1] if self.blocks else ("blank", [])
        if last_kind == "row" and len(last_lines) < 3 and _continues_row(last_lines[0].text, text):
            last_lines.append(line)
        elif self.plain_text and _describes_term(last_kind, last_lines, text):
            self.blocks[-1] = ("prose", [*last_lines, line])
        elif HEADING.match(text) or (self.plain_text and last_kind not in ("prose", "item")
                                     and (_CENTRED_TITLE.match(text) or _CAPITALS_TITLE.match(text))):
            # (A far-indented line right under text is that text's description: "-c, --total" over "produce a
            # grand total" in a manual page.)
            self.blocks.append(("heading", [line]))
        elif LIST_ITEM.match(text):
            self.blocks.append(("item", [line]))
        elif NOTE_OPENING.match(text):  # "*Refers to …", "**Multiple (…)": each note of a table its own
            self.blocks.append(("prose", [line]))
        elif (last_kind in ("prose", "item") and (not self.plain_text or _wraps(last_lines[-1].text, text))
              and not _ends_note(last_lines[0].text, text)):
            last_lines.append(line)
        elif self.plain_text and text.strip()[:1].islower() and (around := self._sentence_around_display(text)) is not None:
            around.append(line)
        else:
            self.blocks.append(("prose", [line]))

    def _sentence_around_display(self, text: str) -> list[PackedLine] | None:
        """The lines of an unfinished sentence and the display it leads into ("Therefore, the command" / "du
        --exclude='*.o'" / "will skip all files …"), joined into one prose block, when the display (up to three
        lines, indented deeper, empty lines around it) stands between that sentence and `text`, which goes on with it
        in lower case as deep as it; None when the blocks above are not such a sentence and display."""
        # the last two blocks with lines, found from the end (a long text has thousands of blocks above)
        texts = list(islice((i for i in reversed(range(len(self.blocks))) if self.blocks[i][1]), 2))[::-1]
        if len(texts) < 2 or texts[1] == len(self.blocks) - 1:
            return None
        (kind, lines), (display_kind, display) = self.blocks[texts[0]], self.blocks[texts[1]]
        if (kind != "prose" or display_kind not in ("prose", "code", "literal") or len(display) > 3
                or _ends_sentence(lines[-1].text) or len(lines[-1].text.split()) < 2
                or texts[1] == texts[0] + 1 or _indent(text) != _indent(lines[-1].text)
                or min(_indent(line.text) for line in display) <= _indent(text)):
            return None
        lines.extend(display)
        del self.blocks[texts[0] + 1:]
        return lines


_SENTENCE_END = re.compile(r"[a-z]{2,}[.!?](?:\s|$)")
_CODE_START = re.compile(r"^\s*(?:[$#>{}<\[(]|//)")


def _describes_term(last_kind: str, last_lines: list[PackedLine], text: str) -> bool:
    """Is `text`, indented deeper right under a lone far-indented line taken for a centred title, that line's
    description ("dir_nlink" over "Allow more than 65000 subdirectories per directory.": a term of a definition list),
    not a second title line ("GNU GENERAL PUBLIC LICENSE" over "Version 2, June 1991")?"""
    return (last_kind == "heading" and len(last_lines) == 1 and last_lines[0].role != "heading"
            and _CENTRED_TITLE.match(last_lines[0].text) is not None and _indent(text) > _indent(last_lines[0].text)
            and not _CENTRED_TITLE.match(text))


_PROSE_MARKS = frozenset(" .,;'\"‘’“”")  # what a sentence writes besides letters ("See '-<number>' in 'more'.")


def _reads_as_prose(block: list[PackedLine]) -> bool:
    """Words ending in a sentence, no line opening like a prompt, a comment, a tag or a bracket."""
    text = " ".join(line.text.strip() for line in block)
    letters = sum(1 for char in text if char.isalpha() or char in _PROSE_MARKS)
    return (letters >= 0.85 * len(text) and _SENTENCE_END.search(text) is not None
            and not any(_CODE_START.match(line.text) for line in block))


def _indent(text: str) -> int:
    return len(text.expandtabs(4)) - len(text.expandtabs(4).lstrip())


def _last_text_block(blocks: list[tuple[str, list[PackedLine]]]) -> tuple[str, list[PackedLine]] | None:
    """The last block that holds lines (empty lines are blocks without any)."""
    return next((block for block in reversed(blocks) if block[1]), None)


def _item_above(blocks: list[tuple[str, list[PackedLine]]], indent: int) -> list[PackedLine] | None:
    """The lines of the list item that the empty lines just passed follow, if an item is what they follow and a
    line indented by `indent` sits inside it (as deep as the item's text: an RFC's paragraph after "   o  item"
    does not)."""
    before = _last_text_block(blocks)
    if before is None or before[0] != "item":
        return None
    marker = LIST_ITEM.match(before[1][0].text.expandtabs(4))
    # Markdown indents an item's paragraphs to its text ("1. Create" → 3); an RFC's numbered heading
    # ("1.  Introduction") has its body at 3 < 4.
    return before[1] if marker is not None and indent >= marker.end() else None


def _literal_block_goes_on(blocks: list[tuple[str, list[PackedLine]]], indent: int) -> bool:
    """In plain text, a line indented deeper than a paragraph announcing it ("… you can run:"), after an empty
    line, opens a literal block (READMEs, Debian notes, an RFC's examples under its indented prose); an indented
    line right under one goes on with it."""
    if blocks and blocks[-1][0] in _LITERAL_KINDS:
        return True
    if not blocks or blocks[-1][0] != "blank":
        return False
    before = _last_text_block(blocks)
    if before is not None and before[0] in ("directive", "code-directive"):
        return indent > _indent(before[1][-1].text)
    if before is not None and before[0] == "signature":  # an API entry's description is text, its own blocks
        return False
    return (before is not None and before[0] in ("prose", "item") and before[1][-1].text.rstrip().endswith((":", "："))
            and indent > _indent(before[1][-1].text))


def _code_literal_above(blocks: list[tuple[str, list[PackedLine]]], indent: int) -> list[PackedLine] | None:
    """The lines of the literal block of code that the empty lines just passed interrupt, if a line indented by
    `indent` goes on with it (a blank line between two statements of an example; a literal block that reads as
    prose, an RFC's definitions, ends at its empty line)."""
    before = _last_text_block(blocks)
    if before is None or before[0] not in _LITERAL_KINDS or indent < _indent(before[1][0].text):
        return None
    return before[1] if before[0] == "directive-literal" or not _reads_as_prose(before[1]) else None


def _underlined_title(blocks: list[tuple[str, list[PackedLine]]]) -> None:
    """A rule of = - ~ ^ under a one-line paragraph makes it a heading (reStructuredText, setext Markdown:
    "Introduction" over "============"); the rule itself is layout."""
    if blocks and blocks[-1][0] == "prose" and len(blocks[-1][1]) == 1:
        blocks[-1] = ("heading", blocks[-1][1])
    blocks.append(("blank", []))


def opens_inside_code(texts: list[str]) -> bool:
    """Do lines that follow `texts` (the page above a packed window) sit inside a fenced code block?"""
    inside = False
    adornments = adornment_lines(texts)
    for index, text in enumerate(texts):
        if FENCE.match(text) and (inside or index not in adornments):
            inside = not inside
    return inside


def _ends_sentence(text: str) -> bool:
    return text.rstrip().endswith((".", "!", "?", "。", "！", "？", ":", ";", "；"))


def _ends_note(first: str, line: str) -> bool:
    """Does `line` follow a note (a block opened by a footnote mark) without continuing its sentence?"""
    return bool(NOTE_OPENING.match(first)) and not line.strip()[:1].islower()


WRAP_WIDTH = 50  # a line this long that stops mid-sentence was wrapped by the writer


def _wraps(previous: str, line: str) -> bool:
    """In plain text, does `line` continue `previous` (a hard wrap) rather than start anew?

    A PDF's lines are always visual lines; a text file's line may be a paragraph of its own
    (a label line, a short rule), so it joins only an unfinished, wrapped-looking line.
    """
    if line[:1].isspace() and line.strip():
        return True  # an indented continuation (Markdown list items, RFC paragraphs)
    stripped = line.strip()
    goes_on = stripped[:1].islower() or _INLINE_MARKUP_START.match(stripped) is not None
    if _ends_sentence(previous):
        # "… is used in popular open source projects such as:" / "`Zipline`_, an algorithmic trading library …": a
        # wrapped line's colon leads into the rest of its sentence, a label's ("Example:") into a block of its own.
        return goes_on and previous.rstrip().endswith(":") and len(previous.rstrip()) >= WRAP_WIDTH
    return goes_on or len(previous.rstrip()) >= WRAP_WIDTH or has_cjk(previous[-1:])


# A line that opens with inline code or a reST role (":class:`…`") goes on with the unfinished line above it.
_INLINE_MARKUP_START = re.compile(r"^(?:`|:[\w.+-]+:`)")


def _sentences(source: PackedSource, block: list[PackedLine], kind: str) -> list[Unit]:
    text, starts = "", []
    for line in block:
        starts.append(len(text) + (1 if text else 0))
        text = f"{text}\n{line.text}" if text else line.text
    units = []
    # Split on the text with line breaks as spaces (a wrapped line is not a sentence end),
    # then quote the exact text, line breaks included: the offsets are the same.
    spans = [(0, len(text))] if kind == "heading" else sentence_spans(text.replace("\n", " "))
    kind_of_unit = {"item": "item", "heading": "heading"}.get(kind, "sentence")
    if kind == "prose":  # "They should not exceed 4,000 words": the sentence before says who "they" are
        spans = spans + [(spans[i - 1][0], end) for i, (start, end) in enumerate(spans)
                         if i and ANAPHOR.match(text[start:end])]
    for start, end in spans:
        touched = [line.number for line, s in zip(block, starts) if s < end and s + len(line.text) > start]
        if touched:
            units.append(Unit(source, touched[0], touched[-1], text[start:end], kind=kind_of_unit))
    if kind == "item" and len(units) > 1:
        # A list item is one unit (its sentences too, for a long item).
        units.insert(0, Unit(source, block[0].number, block[-1].number, text, kind="item"))
    return units


def units_of(source: PackedSource) -> list[Unit]:
    """Every quotable unit of a packed source, in reading order.

    Found once per source (the composer asks for a source's units while scoring, then again to extend, look up
    or compare its best one); a source is immutable, so equal sources share their units."""
    return list(_units_of(source))


@lru_cache(maxsize=256)
def _units_of(source: PackedSource) -> tuple[Unit, ...]:
    if source.support_span:
        quote = "\n".join(line.text for line in source.lines)
        return (Unit(source, source.start_line, source.end_line, quote, kind="span"),)
    reader = _UnitReader(source)
    for kind, block in _blocks(source.lines, plain_text=source.page is None, starts_in_code=source.in_code):
        reader.read(kind, block)
    units = reader.units + reader.introduced_lists() + _described_commands(reader.units)
    if source.continues:  # the first sentence finishes one begun on the previous page: scored with its start
        first = next((line.number for line in source.lines if line.text.strip() and not line.furniture), None)
        units = [replace(u, section=source.continues) if u.kind == "sentence" and u.start_line == first else u
                 for u in units]
    return tuple(unit for unit in units if not _mostly_markup(unit.quote))


@dataclass
class _ApiEntry:
    """A reStructuredText API entry being read: its signature, its line's indent and number, and whether the
    entry has been quoted as a unit yet."""

    signature: str
    indent: int
    line: int
    quoted: bool = False


class _UnitReader:
    """A packed source's units, block by block, with what the blocks before say about the next: the table header
    over a row, the heading over a list item, the lists that a heading or a colon introduces."""

    def __init__(self, source: PackedSource):
        self.source = source
        self.units: list[Unit] = []
        # The header rows above the packed lines, if they are table rows; a header a rule marks ends with the rule
        # (`tables.heading_above`): the packed rows are then data however wordy.
        self.marked_header = bool(source.heading) and is_table_rule(source.heading.rsplit("\n", 1)[-1])
        self.header = source.heading.rsplit("\n", 1)[0] if self.marked_header else source.heading
        self.section = ""
        self.titled = ""  # the heading lines the parser found just above (`Page.headings`), for the next sentence
        self.lists: list = []  # (intro unit, item blocks) of each introduced list
        self.open_list = None
        self.entry: _ApiEntry | None = None  # the API entry whose description the next blocks may be

    def read(self, kind: str, block: list[PackedLine]) -> None:
        entry, first = self._entry_described(kind, block), len(self.units)
        self._read(kind, block)
        if entry is None:
            return
        # "Returns an iterator over the items." is read as what iteritems(dictionary) does.
        self.units[first:] = [replace(unit, opened_by=entry.signature) for unit in self.units[first:]]
        if kind == "prose" and not entry.quoted:  # the entry itself, signature and first paragraph, is quotable
            entry.quoted = True
            quote = "\n".join(line.text for line in self.source.lines if entry.line <= line.number <= block[-1].number)
            self.units.append(Unit(self.source, entry.line, block[-1].number, quote, kind="item"))

    def _entry_described(self, kind: str, block: list[PackedLine]) -> _ApiEntry | None:
        """The API entry (".. function:: iteritems(dictionary)") whose description `block` is part of, indented
        under its signature; None when it is none's."""
        if kind == "signature":
            match = _DIRECTIVE.match(block[0].text)
            self.entry = _ApiEntry(match.group("signature"), _indent(block[0].text), block[0].number) if match else None
            return None
        if self.entry is not None and self._indented_under_entry(block[0].number):
            return self.entry
        self.entry = None
        return None

    def _indented_under_entry(self, number: int) -> bool:
        """Is every line of text from the last unit down to line `number` indented under the entry's signature (a
        directive at its depth, which the blocks leave out, ends its description)?"""
        assert self.entry is not None
        since = self.units[-1].end_line if self.units else self.source.start_line
        return all(_indent(line.text) > self.entry.indent for line in self.source.lines
                   if since < line.number <= number and line.text.strip())

    def _read(self, kind: str, block: list[PackedLine]) -> None:
        titled, self.titled = self.titled, ""
        if kind == "heading" and block[0].role == "heading":  # a PDF heading (its font), wrapped onto lines maybe
            self.titled = f"{titled} {block[0].text.strip()}".strip()
        if kind in ("row", "header-row", "data-row"):
            self._row(kind, block)
        elif kind == "code":
            self.marked_header = False
            self.units.extend(_code_units(self.source, block, _last_read(self.units)))
        else:
            self.marked_header = False
            if kind == "heading":
                self.section = block[0].text.strip().lstrip("#").strip()
            found = _sentences(self.source, block, "heading" if kind == "signature" else kind)
            if kind == "prose" and titled and found and found[0].kind == "sentence":
                # The sentence a PDF heading opens is scored with it ("Costs of Compliance" over "… affects 73
                # airplanes of U.S. registry"), as when the two were read as one, but never quoted with it.
                found[0] = replace(found[0], opened_by=titled)
            self.units.extend(replace(u, section=self.section) if u.kind == "item" or _is_label_line(u) else u
                              for u in found)
        self.open_list = _track_list(self.lists, self.open_list, kind, block, self.units)

    def _row(self, kind: str, block: list[PackedLine]) -> None:
        first = block[0].text
        if kind == "data-row":  # a row of a table the parser found: its header is the one the parser gave
            self.units.append(Unit(self.source, block[0].number, block[-1].number, first, kind="row",
                                   header=block[0].header or self.header))
            return
        # A Markdown header is marked by its rule; otherwise a row of words is one ("DOCUMENT NO.\tDATE …"),
        # but not inside a Markdown table, whose rows of words and units ("| Power | 2200 W |") are data.
        is_header_row = kind == "header-row" or (is_header(first) and len(block) == 1 and not self.marked_header)
        if is_header_row:
            # Header rows stacked over each other ("Rentals" over "Handgun  Long Gun") are one header.
            last = self.units[-1] if self.units else None
            stacked = (last is not None and last.kind == "row" and self.header.endswith(last.quote)
                       and last.end_line == block[0].number - 1)
            self.header = f"{self.header}\n{first}" if stacked else first
        self.marked_header = kind == "header-row" or self.marked_header
        quote = "\n".join(line.text for line in block)
        self.units.append(Unit(self.source, block[0].number, block[-1].number, quote, kind="row",
                               header="" if is_header_row else self.header, names_columns=is_header_row))

    def introduced_lists(self) -> list[Unit]:
        """Each list a heading or a colon introduces, of at least two items and not too long, as one unit."""
        made = (_list_unit(self.source, intro, items) for intro, items in self.lists if len(items) >= 2)
        return [replace(unit, section=_section_at(self.units, unit.start_line)) for unit in made
                if len(unit.quote) <= MAX_LIST_LENGTH]


MAX_LIST_ITEMS = 15
MAX_LIST_LENGTH = 1500  # code points: a longer list is a section, not an answer
LABEL_LINE_WORDS = 5  # "**Default** - ``10``", "Price: $20": a line this short says what it is about in its heading
_LABEL_VALUE = re.compile(r"\S(?::|：|\s[-–—=]|\s*=)\s+\S")  # "Default - 10", "Price: $20", "timeout = 30"


def _is_label_line(unit: Unit) -> bool:
    """A one-line label and its value, a few words long, under a heading: scored with the heading (a short sentence
    such as "See systemd.socket(5) for details." is not one)."""
    return (unit.kind == "sentence" and unit.start_line == unit.end_line and len(unit.quote.split()) <= LABEL_LINE_WORDS
            and _LABEL_VALUE.search(unit.quote) is not None)


# A table of contents' entry: a title, dot leaders and a page number ("1.2 卸载TEX Live . . . . . 9", "Introduction
# ........ iii"), or the leaders alone when the page number sits on the next line. A price list's leaders lead to a
# price ("Coffee ........ $3.50"), not a page.
_CONTENTS_ENTRY = re.compile(r"(?:\.\s?){5,}\s*(?:\d{1,4}|[ivxlc]{1,6})?\s*$", re.IGNORECASE | re.MULTILINE)


def is_contents_entry(unit: Unit) -> bool:
    """Is the unit a table of contents' entry? It points to where the answer is; it does not say it, and it shares
    every word of its section's title with a question about that section."""
    return any(_CONTENTS_ENTRY.search(line.text) for line in unit.lines())  # the line: a sentence splitter cuts the leaders


def introduces(unit: Unit) -> bool:
    """Does the unit end by announcing what follows ("You can install it with pip:", "例如：")?"""
    return unit.quote.rstrip().endswith((":", "："))


CODE_LABEL_WORDS = 8


def labels_code(unit: Unit) -> bool:
    """Is the unit a short line that says what the code under it does, without a colon ("Download a single file",
    "Or an entire repository": a README's label over its example)?"""
    return (unit.start_line == unit.end_line and unit.kind == "sentence" and len(unit.quote.split()) <= CODE_LABEL_WORDS
            and not _ends_sentence(unit.quote))


def _track_list(lists: list, open_list, kind: str, block: list[PackedLine], units: list[Unit]):
    """Lists introduced by a heading or a sentence ending in ":": a block adds its item to the list still
    open, or opens one (appended to `lists` as (intro unit, item blocks)). Returns the list open after it."""
    if kind == "item" and open_list is not None and len(open_list[1]) < MAX_LIST_ITEMS:
        open_list[1].append(block)
        return open_list
    last = _last_read(units)
    if kind in ("heading", "prose") and last is not None and (last.kind == "heading" or introduces(last)):
        lists.append((last, []))
        return lists[-1]
    return None


def _last_read(units: list[Unit]) -> Unit | None:
    """The unit a reader reads last so far: the one ending last, not whatever `_sentences` appended last (the pairs a
    sentence opening with "This" makes with the one before it come after the block's sentences). When the last
    sentence is such a one ("… should be removed from sshd_config. These are:"), its pair, which says what "These"
    are."""
    return max(reversed(units), key=lambda u: (u.end_line, -u.start_line), default=None)


def heading_above(unit: Unit) -> Unit | None:
    """The heading unit nearest above `unit` in its source; None if none is packed."""
    above = [u for u in units_of(unit.source) if u.kind == "heading" and u.end_line < unit.start_line]
    return max(above, key=lambda u: u.end_line, default=None)


def _section_at(units: list[Unit], line: int) -> str:
    """The Markdown heading over `line` ("## Dependencies" over "The project relies on these libraries:")."""
    above = [u for u in units if u.kind == "heading" and u.end_line < line]
    return above[-1].quote.strip().lstrip("#").strip() if above else ""


def with_nested_lines(item: Unit) -> Unit | None:
    """A list item that announces what follows ("5. Remove the signature (macOS and Windows only):") together with
    the lines nested under it (its sub-items, their commands), as one list unit; None when nothing is nested under it
    or the whole is longer than a list that answers."""
    indent = next((_indent(line.text) for line in item.source.lines if line.number == item.start_line), 0)
    last = None
    for line in item.source.lines:
        if line.number <= item.end_line or not line.text.strip():
            continue
        if _indent(line.text) <= indent:
            break
        last = line.number
    if last is None:
        return None
    unit = _from_intro(item.source, item, last, kind="list")
    return unit if len(unit.quote) <= MAX_LIST_LENGTH else None


def _list_unit(source: PackedSource, intro: Unit, items: list[list[PackedLine]]) -> Unit:
    return _from_intro(source, intro, items[-1][-1].number, kind="list")


def _from_intro(source: PackedSource, intro: Unit, last: int, kind: str) -> Unit:
    """The exact text from an introducing unit to the end of line `last` (what it introduces), as one unit."""
    after = [line.text for line in source.lines if intro.end_line < line.number <= last]
    return Unit(source, intro.start_line, last, "\n".join([intro.quote, *after]), kind=kind)


def _code_units(source: PackedSource, block: list[PackedLine], before: Unit | None) -> list[Unit]:
    """A code block, and the sentence that introduces it together with it ("… with pip:" + the command)."""
    code = Unit(source, block[0].number, block[-1].number, "\n".join(line.text for line in block), kind="code")
    if (before is None or before.kind not in ("sentence", "item") or not (introduces(before) or labels_code(before))
            or not _only_layout_between(source, before.end_line, block[0].number)):
        return [code]
    return [code, _from_intro(source, before, block[-1].number, kind="code")]


def opens_as_code(unit: Unit) -> bool:
    """Does the unit open on a line the parser knows is code (a PDF's typewriter line), not on its introduction?"""
    return unit.lines()[0].role == "code"


def describes_code(unit: Unit) -> bool:
    """Is the unit a reference entry: code over the sentence that says what it does ("-k --keep" over "Keep (don't
    delete) input files …")? It answers what the code does, as a definition does."""
    lines = unit.lines()
    return unit.kind == "code" and lines[0].role == "code" and lines[-1].role != "code"


MAX_DESCRIBED_LINES = 3  # a command reference's entry: a command or two over its description


def _described_commands(units: list[Unit]) -> list[Unit]:
    """A PDF's command set in typewriter, no sentence introducing it, followed right under it by a sentence that
    describes it ("\\begin{turnpage}" over "Rotate a table or figure by 90 degrees (landscape mode)."): the two as one
    code unit, as a command reference reads them (the sentence alone stays a unit too)."""
    commands = [u for u in units if u.kind == "code" and u.source.page is not None]
    introduced = {u.end_line for u in commands if not opens_as_code(u)}  # code with the sentence that introduces it
    sentences = {u.start_line: u for u in reversed(units) if u.kind == "sentence"}  # the first sentence on a line
    found = []
    for code in commands:
        after = sentences.get(code.end_line + 1)
        if (after is not None and opens_as_code(code) and code.end_line not in introduced
                and code.end_line - code.start_line < MAX_DESCRIBED_LINES and after.quote[:1].isupper()):
            found.append(Unit(code.source, code.start_line, after.end_line, exact_between(code, after), kind="code"))
    return found


def _only_layout_between(source: PackedSource, after: int, before: int) -> bool:
    """Are the lines strictly between the two line numbers one empty line at most, or empty lines around a code
    directive (".. code-block:: python") or a line of HTML markup only (a README's `<div class="termy">`)?"""
    between = [line.text for line in source.lines if after < line.number < before]
    if len(between) <= 1:
        return not "".join(between).strip()
    return len(between) <= 3 and all(not text.strip() or _DIRECTIVE.match(text)
                                     or (source.page is None and _MARKUP_ONLY.match(text)) for text in between)


def _mostly_markup(quote: str) -> bool:
    markup = sum(len(m) for m in _MARKUP.findall(quote))
    return markup > 0.5 * len(quote.strip())


def joined(first: Unit, last: Unit) -> Unit:
    """`first` through `last` (same source, in order) as one sentence unit quoting the exact text between."""
    return Unit(first.source, first.start_line, last.end_line, exact_between(first, last), kind="sentence")


def exact_between(first: Unit, last: Unit) -> str:
    """The exact source text from the start of `first` to the end of `last` (same source, in order)."""
    lines = [line.text for line in first.source.lines if first.start_line <= line.number <= last.end_line]
    head, tail = first.quote.split("\n")[0], last.quote.split("\n")[-1]
    start = max(lines[0].find(head), 0)
    end = lines[-1].rfind(tail)
    end = len(lines[-1]) if end < 0 else end + len(tail)
    if len(lines) == 1:
        return lines[0][start:end]
    return "\n".join([lines[0][start:], *lines[1:-1], lines[-1][:end]])
