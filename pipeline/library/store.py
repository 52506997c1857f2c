"""A persistent store built by `python -m pipeline ingest --store DIR`.

DIR/manifest.json   source id → digest, filename, kind (the commit point: written last, atomically)
DIR/documents/      one parsed Document (JSON) per digest
DIR/blobs/          the original bytes per digest (PDF pages are rendered from them)
DIR/chroma/         passage vectors by content hash (unless CHROMA_HOST/CHROMA_PORT name a server)

An ingest validates every new file first; a bad file or a duplicate id stops it before the
manifest changes, so nothing indexed before is lost and nothing half-added becomes visible.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pipeline.core.contracts import Document
from pipeline.core.errors import InputError
from pipeline.core.registry import PARSERS
from pipeline.ingest import parsers as _shipped_parsers  # noqa: F401 (registers the shipped file types)

MANIFEST = "manifest.json"


class DocumentStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    @property
    def chroma_path(self) -> Path:
        return self.root / "chroma"

    def manifest(self) -> dict[str, dict]:
        path = self.root / MANIFEST
        if not path.exists():
            return {}
        return json.loads(path.read_text("utf-8"))["documents"]

    def documents(self) -> list[Document]:
        return [
            Document.model_validate_json((self.root / "documents" / f"{entry['digest']}.json").read_text("utf-8"))
            for entry in self.manifest().values()
        ]

    def blob(self, digest: str) -> bytes | None:
        matches = list((self.root / "blobs").glob(f"{digest}.*"))
        return matches[0].read_bytes() if matches else None

    def plan(self, new: Sequence[Document]) -> tuple[list[Document], list[str]]:
        """Which documents are new, and which are already stored with the same digest."""
        manifest, fresh, unchanged = self.manifest(), [], []
        for document in new:
            entry = manifest.get(document.source_id)
            if entry is None:
                fresh.append(document)
            elif entry["digest"] == document.digest:
                unchanged.append(document.source_id)
            else:
                raise InputError(
                    document.filename,
                    f"duplicate id {document.source_id!r}: the store already holds a different file "
                    f"({entry['filename']}) under that id",
                )
        return fresh, unchanged

    def commit(self, documents: Sequence[Document], originals: dict[str, bytes]) -> None:
        """Write document files and blobs, then swap in the new manifest in one rename."""
        (self.root / "documents").mkdir(parents=True, exist_ok=True)
        (self.root / "blobs").mkdir(parents=True, exist_ok=True)
        manifest = self.manifest()
        for document in documents:
            suffix = _blob_suffix(document)
            _atomic_write(self.root / "documents" / f"{document.digest}.json", document.model_dump_json().encode("utf-8"))
            _atomic_write(self.root / "blobs" / f"{document.digest}{suffix}", originals[document.digest])
            manifest[document.source_id] = {
                "digest": document.digest, "filename": Path(document.filename).name, "kind": document.kind,
            }
        _atomic_write(self.root / MANIFEST, json.dumps({"documents": manifest}, indent=1, sort_keys=True).encode("utf-8"))

    def prune(self, digests: Sequence[str]) -> None:
        """Delete the document files and blobs of `digests` that the manifest no longer names (after a commit)."""
        named = {entry["digest"] for entry in self.manifest().values()}
        for digest in set(digests) - named:
            (self.root / "documents" / f"{digest}.json").unlink(missing_ok=True)
            for blob in (self.root / "blobs").glob(f"{digest}.*"):
                blob.unlink(missing_ok=True)


def _blob_suffix(document: Document) -> str:
    """The original file's own suffix (".pdf", ".md"), else the first of its type's ("report" read as a PDF)."""
    own = Path(document.filename).suffix.lower()
    if own:
        return own
    return PARSERS.create(document.kind).suffixes[0] if document.kind in PARSERS.names() else ".bin"


def _atomic_write(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(temporary, path)
