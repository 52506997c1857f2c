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
import logging
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from pipeline.core.atomic import atomic_write
from pipeline.core.contracts import Document
from pipeline.core.errors import InputError, RagError, StoreError
from pipeline.core.registry import PARSERS
from pipeline.ingest import parsers as _shipped_parsers  # noqa: F401 (registers the shipped file types)

MANIFEST = "manifest.json"
log = logging.getLogger("auditable_rag.store")


class DocumentStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    @property
    def chroma_path(self) -> Path:
        return self.root / "chroma"

    def manifest(self) -> dict[str, dict]:
        """Source id → entry; StoreError (one line naming the file) when the manifest is unreadable: it is the
        commit point, so nothing is guessed around it."""
        path = self.root / MANIFEST
        try:
            entries = json.loads(path.read_bytes())["documents"]
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, TypeError, KeyError) as error:
            why = error.strerror if isinstance(error, OSError) else "not a library manifest (corrupt JSON)"
            raise StoreError(str(path), f"{why}; restore it from a backup, or remove it to start an empty "
                                        "library") from None
        if not isinstance(entries, dict) or not all(isinstance(e, dict) and isinstance(e.get("digest"), str)
                                                    for e in entries.values()):
            raise StoreError(str(path), "not a library manifest (unexpected entries); restore it from a backup, "
                                        "or remove it to start an empty library")
        return entries

    def documents(self) -> list[Document]:
        """The manifest's documents; one whose file is missing or corrupt is skipped with one logged line."""
        documents = []
        for source_id, entry in self.manifest().items():
            path = self.root / "documents" / f"{entry['digest']}.json"
            try:
                documents.append(Document.model_validate_json(path.read_bytes()))
            except (OSError, ValueError, ValidationError) as error:
                why = error.strerror if isinstance(error, OSError) else "corrupt"
                log.warning("library document %s skipped: %s is %s", source_id, path, why)
        return documents

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
        try:
            for document in documents:
                suffix = _blob_suffix(document)
                _atomic_write(self.root / "documents" / f"{document.digest}.json",
                              document.model_dump_json().encode("utf-8"))
                _atomic_write(self.root / "blobs" / f"{document.digest}{suffix}", originals[document.digest])
                manifest[document.source_id] = {
                    "digest": document.digest, "filename": Path(document.filename).name, "kind": document.kind,
                }
            _atomic_write(self.root / MANIFEST,
                          json.dumps({"documents": manifest}, indent=1, sort_keys=True).encode("utf-8"))
        except BaseException:
            try:
                self.prune([d.digest for d in documents])  # written before the failure: nothing names them
            except (OSError, RagError):
                pass
            raise

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
    atomic_write(path, data)  # fsynced; its temporary file removed on any failure (pipeline.core.atomic)
