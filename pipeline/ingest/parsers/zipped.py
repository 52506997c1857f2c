"""DOCX, XLSX and EPUB files are ZIP archives: which of them a file is, and opening one safely.

One signature ("PK\\x03\\x04") is shared by the three, so the type is read from the archive's directory: an EPUB's
first member is `mimetype` holding "application/epub+zip"; a DOCX has `word/document.xml`, an XLSX `xl/workbook.xml`
(the parts their `[Content_Types].xml` names). Only the directory is read to decide.

A ZIP bomb (a few KB that inflate to gigabytes) is refused from the sizes the directory declares before any member
is read: Python's zipfile never inflates a member past its declared size (a lying member fails its CRC), and
python-docx and openpyxl read through it. Members are counted too (a directory of a million empty entries).
"""

from __future__ import annotations

import io
import zipfile
import zlib

from pipeline.core.errors import InputError
from pipeline.core.limits import megabytes

ZIP_SIGNATURE = b"PK\x03\x04"
OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a compound file: an encrypted Office file, or a .doc/.xls
_ENCRYPTED_OFFICE = "EncryptionInfo".encode("utf-16-le")
MAX_UNPACKED_BYTES = 96 * 1024 * 1024  # every member together, as declared (python-docx holds them all)
MAX_MEMBERS = 10_000
_MARKERS = {"docx": "word/document.xml", "xlsx": "xl/workbook.xml"}


def zip_kind(data: bytes) -> str | None:
    """"docx", "xlsx" or "epub" when the bytes are such an archive (by its directory), else None."""
    if not data.startswith(ZIP_SIGNATURE):
        return None
    if data[30:38] == b"mimetype" and data[38:58] == b"application/epub+zip":
        return "epub"  # the EPUB container's rule: the first member, stored, names the type
    try:
        names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    except (zipfile.BadZipFile, ValueError, OSError):
        return None
    if "mimetype" in names and "META-INF/container.xml" in names:
        return "epub"
    return next((kind for kind, marker in _MARKERS.items() if marker in names), None)


def _not_a_zip(data: bytes, label: str) -> str:
    if not data.strip():
        return "is an empty file"
    if data.startswith(OLE_SIGNATURE):
        if _ENCRYPTED_OFFICE in data[:1 << 20]:
            return "is password-protected; remove the password and upload it again"
        return f"is an old binary Office file, not {label}; save it as {label} and upload it again"
    if data.startswith(b"%PDF"):
        return f"is a PDF, not {label}"
    return f"is not {label} (it is not a ZIP archive)"


def open_zip(data: bytes, filename: str, kind: str, label: str, max_bytes: int | None = None) -> zipfile.ZipFile:
    """The archive of a `kind` file ("docx", "xlsx", "epub"; `label` says it to a person: "a DOCX file"), checked:
    InputError (one line) when it is too large, not a ZIP, corrupt, encrypted, of another kind, or a ZIP bomb."""
    if max_bytes is not None and len(data) > max_bytes:
        raise InputError(filename, f"is {megabytes(len(data))}; the limit is {megabytes(max_bytes)}")
    if not data.startswith(ZIP_SIGNATURE):
        raise InputError(filename, _not_a_zip(data, label))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise InputError(filename, f"is corrupt and cannot be opened ({str(error)[:120] or 'damaged ZIP'})") from None
    if len(members) > MAX_MEMBERS:
        raise InputError(filename, f"holds {len(members)} parts; the limit is {MAX_MEMBERS}")
    if any(member.flag_bits & 0x1 for member in members):
        raise InputError(filename, "is password-protected; remove the password and upload it again")
    unpacked = sum(member.file_size for member in members)
    if unpacked > MAX_UNPACKED_BYTES:
        raise InputError(filename, f"unpacks to {megabytes(unpacked)} from {megabytes(len(data))} (a ZIP bomb or "
                                   f"a very large document); the limit is {megabytes(MAX_UNPACKED_BYTES)} unpacked")
    found = zip_kind(data)
    if found != kind:
        what = f"a {found.upper()} file" if found else "a ZIP archive of another kind"
        raise InputError(filename, f"is {what}, not {label}")
    return archive


def read_member(archive: zipfile.ZipFile, name: str, filename: str) -> bytes:
    """One member's bytes (its size was checked by `open_zip`); InputError when it is missing or damaged."""
    try:
        return archive.read(name)
    except KeyError:
        raise InputError(filename, f"is incomplete: its part {name[:80]!r} is missing") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, NotImplementedError, ValueError, OSError,
            EOFError) as error:
        raise InputError(filename, f"is corrupt: its part {name[:80]!r} cannot be read ({str(error)[:80]})") from None


class ZippedParser:
    """A type stored as a zip archive (DOCX, XLSX, EPUB): told by the archive's directory, metadata from a sidecar
    NAME.<suffix>.yaml or the upload form (no front matter). A subclass names its kind and parses the bytes."""

    name: str
    suffixes: tuple[str, ...]
    media_types: tuple[str, ...]
    front_matter = False

    def sniff(self, data: bytes) -> bool:
        return zip_kind(data) == self.name
