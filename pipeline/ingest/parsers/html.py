"""The HTML parser: a web page (and an EPUB's chapters, `epub.py`) → addressable lines (`lines.BodyWriter`).

lxml's HTML parser (libxml2) reads the page: it is the tolerant, C-speed parser BeautifulSoup itself would call, and
python-docx already depends on it. The tree is walked once: headings, paragraphs, list items (nested ones indented; an
item that holds paragraphs or a listing, a FAQ's question over its answer, keeps them as its own indented lines),
table rows (a layout table, one holding headings, lists or other tables, is read as the blocks in its cells; a data
table is recorded on the page with its header rows, from <thead> or leading <th> rows, and its column names, colspan
and rowspan spread over the grid: `lines.BodyWriter.table`),
preformatted text as a fenced code block. Scripts, styles, navigation and hidden elements are not text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError, out_of_memory
from pipeline.core.limits import megabytes
from pipeline.ingest.document import text_document
from pipeline.ingest.parsers.lines import BodyWriter, clean, grid_rows, header_rows, with_title

MAX_HTML_BYTES = 20 * 1024 * 1024
MAX_COLUMNS = 256
_SKIP = {"script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object", "embed", "head",
         "nav", "button", "select", "option", "textarea", "input", "map", "audio", "video", "picture", "source"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = {"p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "figure",
           "figcaption", "address", "dl", "dt", "dd", "body", "html", "center", "details", "summary", "form",
           "fieldset", "legend", "caption", "hr", "li", "tr", "td", "th", "thead", "tbody", "tfoot"}
_ITEM_BLOCKS = {"p", "div", "pre", "table", "blockquote", "dl", "figure", "h1", "h2", "h3", "h4", "h5", "h6"}
_LAYOUT_INSIDE = {"table", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote"}
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)""", re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def decode_html(data: bytes) -> str:
    """The page's text: by its byte-order mark, else the charset its <meta> declares, else UTF-8, else Windows-1252
    (what browsers assume for an undeclared page)."""
    for bom, encoding in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    declared = _CHARSET.search(data[:4096])
    if declared:
        try:
            return data.decode(declared.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


MAX_DEPTH = 256  # libxml2's limit on an element's nesting (without its "huge" option)


def parse_tree(text: str, filename: str):
    """The root element of an HTML (or XHTML) text; InputError when nothing can be read from it, or when its elements
    nest deeper than MAX_DEPTH (libxml2 stops there and drops what is deeper: the page read as empty)."""
    from lxml import etree
    from lxml import html as lxml_html

    parser = lxml_html.HTMLParser(remove_comments=True, remove_pis=True, no_network=True)
    text = without_internal_subset(_XML_DECLARATION.sub("", text, count=1), filename)
    try:
        root = lxml_html.document_fromstring(text, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as error:
        if out_of_memory(error):
            raise  # the worker says the page needs more memory than it may have: it is not empty
        root = None
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        raise InputError(filename, f"its elements are nested too deeply to read (more than {MAX_DEPTH} levels)")
    if root is None:
        raise InputError(filename, "the document body is empty")
    return root


_DOCTYPE = re.compile(r"<!DOCTYPE\b[^>\[]*+", re.IGNORECASE)
_SUBSET_END = re.compile(r"\]\s*+>")
_ENTITY = re.compile(r"""<!ENTITY\s++(%\s++)?+([^\s>]++)\s++(?:"([^"]*+)"|'([^']*+)')?+[^>]*+>""")
_REFERENCE = re.compile(r"&([A-Za-z_][\w.-]{0,63}+);")
MAX_ENTITY_CHARS = 1000  # an entity's text; the references together may add as much text as the page holds


def without_internal_subset(text: str, filename: str) -> str:
    """The page without its DOCTYPE's internal subset (`<!DOCTYPE html [<!ENTITY …>]>`, which libxml2's HTML parser
    does not read: "]>" was left as the page's first line and `&name;` as text), each `&name;` it declares replaced by
    its text when that is plain (no markup, no reference: no entity expands another, so none multiplies) and short,
    else by nothing: an external entity (`SYSTEM "file:///etc/passwd"`) is never read. One pass over the text."""
    found = _DOCTYPE.search(text, 0, 65536)
    if found is None or text[found.end():found.end() + 1] != "[":
        return text
    end = _SUBSET_END.search(text, found.end())
    if end is None:
        return text
    values: dict[str, str] = {}
    for entity in _ENTITY.finditer(text, found.end(), end.start()):
        value = entity.group(3) if entity.group(3) is not None else entity.group(4)
        plain = not entity.group(1) and value is not None and len(value) <= MAX_ENTITY_CHARS \
            and not any(sign in value for sign in "&%<")
        values.setdefault(entity.group(2), value if plain else "")
    budget = [len(text)]

    def expanded(reference: re.Match) -> str:
        value = values.get(reference.group(1))
        if value is None:
            return reference.group(0)  # not declared here: an HTML entity (&amp;) the parser reads
        budget[0] -= len(value)
        if budget[0] < 0:
            raise InputError(filename, "its DTD's entities would expand to more text than the page holds")
        return value

    rest = _REFERENCE.sub(expanded, text[end.end():]) if values else text[end.end():]
    return text[:found.start()] + "<!DOCTYPE html>" + rest


def _tag(element) -> str:
    return element.tag.lower() if isinstance(element.tag, str) else ""


_PERMALINK_SIGNS = {"¶", "#", "§", "🔗"}


def _hidden(element) -> bool:
    """Not shown, or not text: a heading's permalink ("¶" after a Sphinx or Texinfo heading, "#" before Node.js's)."""
    if element.get("hidden") is not None or element.get("aria-hidden") == "true":
        return True
    return (_tag(element) == "a" and (element.get("href") or "").startswith("#")
            and element.text_content().strip() in _PERMALINK_SIGNS)


def text_of(element) -> str:
    """An element's visible text; block children and line breaks become spaces."""
    parts: list[str] = [element.text or ""]
    for child in element:
        tag = _tag(child)
        if tag and tag not in _SKIP and not _hidden(child):
            inner = "" if tag == "br" else text_of(child)
            parts.append(f" {inner} " if tag in _BLOCKS or tag in _HEADINGS or tag in ("br", "ul", "ol", "table")
                         else inner)
        parts.append(child.tail or "")
    return "".join(parts)


def _span(element, name: str) -> int:
    try:
        return max(1, min(int(element.get(name, "1")), MAX_COLUMNS))
    except ValueError:
        return 1


class HtmlReader:
    """Walks one HTML tree into a BodyWriter."""

    def __init__(self, writer: BodyWriter) -> None:
        self.writer = writer
        self.inline: list[str] = []
        self.joined = False  # the next paragraph continues the last one (after a <br>)
        self.after_term = False  # the next paragraph is the description of a definition list's term (<dt>)

    def read(self, root) -> None:
        body = root.find("body")
        self.content(body if body is not None else root)
        self.flush()
        self.writer.blank()

    def flush(self, broken: bool = False) -> None:
        text = clean("".join(self.inline))
        self.inline = []
        if text:
            if self.after_term:
                self.writer.description(text)
            else:
                self.writer.paragraph(text, joined=self.joined)
            self.joined, self.after_term = broken, False
        elif not broken:
            self.joined = False

    def end_block(self) -> None:
        """Before a heading, a list, a table or a listing: the text so far, and no term's description is awaited."""
        self.flush()
        self.after_term = False

    def content(self, element) -> None:
        if element.text:
            self.inline.append(element.text)
        for child in element:
            self.node(child)
            if child.tail:
                self.inline.append(child.tail)

    def node(self, element) -> None:
        tag = _tag(element)
        if not tag or tag in _SKIP or _hidden(element):
            return
        if tag == "br":
            self.flush(broken=True)
        elif tag == "dt":  # a term over its description ("-k --keep" over "Keep (don't delete) …"), as a manual page sets it
            self.flush()
            self.content(element)
            self.flush()
            self.after_term = True
        elif tag in _HEADINGS:
            self.end_block()
            self.writer.heading(_HEADINGS[tag], text_of(element))
        elif tag in ("ul", "ol", "menu"):
            self.end_block()
            self.list(element, 0)
        elif tag == "table":
            self.end_block()
            self.table(element)
        elif tag == "pre":
            self.end_block()
            self.writer.code(_listing(element))
        elif tag in _BLOCKS:
            self.flush()
            self.content(element)
            self.flush()
        else:
            self.content(element)

    def list(self, element, depth: int) -> None:
        ordered = _tag(element) == "ol"
        try:
            number = int(element.get("start", "1"))
        except ValueError:
            number = 1
        for item in element:
            if _tag(item) != "li" or _hidden(item):
                if _tag(item) in ("ul", "ol"):
                    self.list(item, depth + 1)
                continue
            if any(_tag(child) in _ITEM_BLOCKS for child in _shown_children(item)):  # not a nested list alone
                self.loose_item(item, number if ordered else None, depth)
                number += 1
                continue
            nested = [child for child in item if _tag(child) in ("ul", "ol")]  # read below the item, indented
            parts = [item.text or ""]
            for child in item:
                if child in nested:
                    parts.append(child.tail or "")
                    continue
                tag = _tag(child)
                if tag and tag not in _SKIP and not _hidden(child):
                    parts.append(f" {text_of(child)} " if tag in _BLOCKS or tag == "br" else text_of(child))
                parts.append(child.tail or "")
            self.writer.item("".join(parts), number if ordered else None, depth)
            number += 1
            for child in nested:
                self.list(child, depth + 1)

    def loose_item(self, item, number: int | None, depth: int) -> None:
        """A list item that holds blocks (a FAQ's question over its answer's paragraphs, a step over its command):
        its text up to the first block, or its first paragraph, is the item; each later paragraph or listing is a
        paragraph of the item (of the nested item above it, after a nested list), a table a table and a list a
        nested list, in their order."""
        children = _shown_children(item)
        first_block = next((i for i, child in enumerate(children) if _is_item_block(child)), len(children))
        lead = [item.text or "", *(_inline(child) for child in children[:first_block])]
        rest, after_lead = children[first_block:], ""
        if not clean("".join(lead)) and rest and _tag(rest[0]) in ("p", "div") and not _holds_blocks(rest[0]):
            lead, after_lead, rest = [text_of(rest[0])], rest[0].tail or "", rest[1:]
        self.writer.item("".join(lead), number, depth)
        self.item_body(after_lead, rest, depth)

    def item_body(self, text: str, children, depth: int) -> None:
        """The rest of a loose list item: runs of inline text are its paragraphs, blocks are read as blocks."""
        inline = [text]
        for child in children:
            if not _is_item_block(child):
                inline.append(_inline(child))
                continue
            self.writer.item_paragraph("".join(inline))
            tag = _tag(child)
            if tag in ("ul", "ol", "menu"):
                self.list(child, depth + 1)
            elif tag == "pre":
                self.writer.item_listing(_listing(child))
            elif tag == "table":
                self.table(child)
            elif _holds_blocks(child):
                self.item_body(child.text or "", _shown_children(child), depth)
            else:
                self.writer.item_paragraph(text_of(child))
            inline = [child.tail or ""]
        self.writer.item_paragraph("".join(inline))

    def table(self, table) -> None:
        rows = [row for row in table.iter("tr") if _nearest_table(row) is table]
        if _is_layout(table, rows):
            for row in rows:
                for cell in row:
                    if _tag(cell) in ("td", "th"):
                        self.node(cell)
            self.flush()
            return
        caption = table.find("caption")
        if caption is not None:
            self.writer.paragraph(text_of(caption))
        cells = [[(text_of(cell), _span(cell, "colspan"), _span(cell, "rowspan"))
                  for cell in row if _tag(cell) in ("td", "th") and not _hidden(cell)] for row in rows]
        grid = grid_rows(cells, MAX_COLUMNS)
        self.writer.table(grid, header_rows(grid, _marked_header_rows(rows)))


def _listing(pre) -> str:
    """A listing's text without what is not text in it (a documentation site's "copy" button)."""
    parts = [pre.text or ""]
    for child in pre:
        if _tag(child) and _tag(child) not in _SKIP and not _hidden(child):
            parts.append(_listing(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _inline(element) -> str:
    """An inline element's text with the text after it (a <br> as a space)."""
    return (" " if _tag(element) == "br" else text_of(element)) + (element.tail or "")


def _shown_children(element) -> list:
    return [child for child in element if _tag(child) and _tag(child) not in _SKIP and not _hidden(child)]


def _is_item_block(element) -> bool:
    return _tag(element) in _ITEM_BLOCKS or _tag(element) in ("ul", "ol", "menu")


def _holds_blocks(element) -> bool:
    return any(_is_item_block(child) for child in _shown_children(element))


def _nearest_table(element):
    parent = element.getparent()
    while parent is not None and _tag(parent) != "table":
        parent = parent.getparent()
    return parent


def _marked_header_rows(rows) -> int:
    """How many rows open the table as its marked header: those in <thead>, else those of <th> cells only."""
    count = 0
    for row in rows:
        cells = [cell for cell in row if _tag(cell) in ("td", "th")]
        in_head = _tag(row.getparent()) == "thead"
        if not cells or not (in_head or all(_tag(cell) == "th" for cell in cells)):
            break
        count += 1
    return count


def _is_layout(table, rows) -> bool:
    """A table used to place blocks (a page's columns), not to hold data: its cells hold tables, lists, headings or
    preformatted text, or it says it is for presentation."""
    if table.get("role") in ("presentation", "none"):
        return True
    return any(_tag(inner) in _LAYOUT_INSIDE for row in rows for cell in row for inner in cell.iterdescendants())


def page_title(root) -> str | None:
    title = root.find(".//title")
    text = clean(title.text_content()) if title is not None else ""
    return text[:300] or None


def parse_html(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
    max_bytes = min(getattr(limits, "max_bytes", MAX_HTML_BYTES) or MAX_HTML_BYTES, MAX_HTML_BYTES)
    if len(data) > max_bytes:
        raise InputError(filename, f"is {megabytes(len(data))}; the limit is {megabytes(max_bytes)}")
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(filename, "looks like a binary file, not an HTML page")
    root = parse_tree(decode_html(data), filename)
    writer = BodyWriter(filename, getattr(limits, "max_lines", None))
    try:
        HtmlReader(writer).read(root)
    except RecursionError:
        raise InputError(filename, "its elements are nested too deeply to read") from None
    return text_document(writer.body(), data, filename, "html", with_title(metadata, page_title(root)),
                         tables=writer.tables)


class HtmlParser:
    """Web pages: headings, paragraphs, list items and table rows as lines; the page's <title> as its title."""

    name = "html"
    suffixes: tuple[str, ...] = (".html", ".htm", ".xhtml")
    media_types: tuple[str, ...] = ("text/html", "application/xhtml+xml")
    front_matter = False  # its metadata comes from a sidecar NAME.html.yaml or the upload form

    def sniff(self, data: bytes) -> bool:
        head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
        return head.startswith((b"<!doctype html", b"<html")) or (head.startswith(b"<?xml") and b"<html" in head)

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_html(data, filename, metadata, limits)
