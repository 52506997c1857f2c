"""The EPUB parser: an e-book's chapters, in reading order, → addressable lines.

An EPUB is a ZIP of XHTML chapters: `META-INF/container.xml` names the package (OPF) file, whose spine lists the
chapters in reading order. Each chapter is read by the HTML parser's walker (`html.HtmlReader`), so a paragraph,
list item or table row is one line and headings are kept, as for a web page. (PyMuPDF can also open an EPUB, but
it lays the chapters out on pages of a size we would choose: a paragraph becomes wrapped lines that depend on that
size and a table loses its rows.) The package's dc:title is the document's title. A DRM-protected book (its
chapters listed in `META-INF/encryption.xml`) is refused.
"""

from __future__ import annotations

import posixpath
import urllib.parse
from collections.abc import Mapping
from typing import Any

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError, out_of_memory
from pipeline.ingest.document import text_document
from pipeline.ingest.parsers.html import HtmlReader, decode_html, parse_tree
from pipeline.ingest.parsers.lines import BodyWriter, with_title
from pipeline.ingest.parsers.zipped import MAX_MEMBERS, ZippedParser, open_zip, read_member

MAX_EPUB_BYTES = 20 * 1024 * 1024
_CHAPTER_TYPES = {"application/xhtml+xml", "text/html", "application/x-dtbook+xml"}
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_ENCRYPTION = "{http://www.w3.org/2001/04/xmlenc#}"


def _xml(data: bytes, name: str, filename: str):
    """A package file's XML tree, read without entities or the network (an entity bomb expands nothing)."""
    from lxml import etree

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=True)
    try:
        root = etree.fromstring(data, parser=parser)
    except (etree.XMLSyntaxError, ValueError) as error:
        if out_of_memory(error):
            raise
        root = None
    if root is None:
        raise InputError(filename, f"is corrupt: its {name} cannot be read")
    return root


def _package_path(archive, filename: str) -> str:
    container = _xml(read_member(archive, "META-INF/container.xml", filename), "META-INF/container.xml", filename)
    rootfile = container.find(f".//{_CONTAINER}rootfile")
    path = rootfile.get("full-path") if rootfile is not None else None
    if not path:
        raise InputError(filename, "is corrupt: META-INF/container.xml names no package file")
    return path


def _drm_protected(archive, filename: str) -> bool:
    if "META-INF/encryption.xml" not in archive.namelist():
        return False
    encryption = _xml(read_member(archive, "META-INF/encryption.xml", filename), "META-INF/encryption.xml", filename)
    targets = [ref.get("URI", "") for ref in encryption.iter(f"{_ENCRYPTION}CipherReference")]
    # Fonts are often "obfuscated" with the same mechanism; only encrypted chapters make the book unreadable.
    return any(target.lower().endswith((".xhtml", ".html", ".htm", ".xml")) for target in targets)


def _chapters(package, package_path: str) -> list[str]:
    """The archive paths of the spine's chapters, in reading order, each once (a spine may list a chapter again: a
    2.5 KB book listing one 20,000 times ran a parse to its CPU limit), at most one per member of the archive."""
    base = posixpath.dirname(package_path)
    manifest = {item.get("id"): item for item in package.iter(f"{_OPF}item")}
    paths: dict[str, None] = {}  # in order, without repeats
    for itemref in package.iter(f"{_OPF}itemref"):
        if len(paths) >= MAX_MEMBERS:
            break
        item = manifest.get(itemref.get("idref"))
        if item is None or item.get("media-type") not in _CHAPTER_TYPES or not item.get("href"):
            continue
        href = urllib.parse.unquote(item.get("href").split("#", 1)[0])
        paths.setdefault(posixpath.normpath(posixpath.join(base, href)))
    return list(paths)


def parse_epub(data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
    max_bytes = min(getattr(limits, "max_bytes", MAX_EPUB_BYTES) or MAX_EPUB_BYTES, MAX_EPUB_BYTES)
    archive = open_zip(data, filename, "epub", "an EPUB book", max_bytes)
    if _drm_protected(archive, filename):
        raise InputError(filename, "is DRM-protected (its chapters are encrypted); upload a DRM-free EPUB")
    package_path = _package_path(archive, filename)
    package = _xml(read_member(archive, package_path, filename), package_path, filename)
    chapters = _chapters(package, package_path)
    if not chapters:
        raise InputError(filename, "is corrupt: its package lists no chapters")
    writer = BodyWriter(filename, getattr(limits, "max_lines", None))
    for path in chapters:
        chapter = read_member(archive, path, filename)
        if not chapter.strip():
            continue
        root = parse_tree(decode_html(chapter), filename)
        try:
            HtmlReader(writer).read(root)
        except RecursionError:
            raise InputError(filename, f"{path[:80]}: its elements are nested too deeply to read") from None
    title = package.find(f".//{_DC}title")
    return text_document(writer.body(), data, filename, "epub",
                         with_title(metadata, title.text if title is not None else None), tables=writer.tables)


class EpubParser(ZippedParser):
    """EPUB books: the chapters' headings, paragraphs, list items and table rows as lines; the book's title."""

    name = "epub"
    suffixes: tuple[str, ...] = (".epub",)
    media_types: tuple[str, ...] = ("application/epub+zip",)

    def parse(self, data: bytes, filename: str, metadata: Mapping[str, Any] | None = None, limits: Any = None) -> Document:
        return parse_epub(data, filename, metadata, limits)
