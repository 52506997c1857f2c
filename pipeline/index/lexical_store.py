"""Persisted BM25 indexes: a replica memory-maps the index another process built, instead of
tokenizing and indexing the whole collection again.

One folder per readable view, named by a key over the view's corpus digest, the BM25
parameters, the tokenizer and the bm25s version (so a changed corpus or setting never loads a
stale index). bm25s writes its arrays (`BM25.save`), we add the covered rows and document
frequencies, and a manifest written last holds the key and every file's size and sha256.
A folder is published by renaming it into place (a crash leaves no half index behind);
`load` checks the manifest, sizes and checksums, and anything stale, truncated or corrupt is
reported as missing, so the caller rebuilds and saves a fresh one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from importlib import metadata
from pathlib import Path

import bm25s
import numpy as np

from pipeline.index.lexical import LexicalIndex

MANIFEST = "manifest.json"
FORMAT = 1
log = logging.getLogger(__name__)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def index_key(view_digest: str, settings: dict, tokenizer: str) -> str:
    """Everything that shapes the saved statistics (the view's documents and chunks, the chunking and
    BM25 settings, the tokenizer, bm25s): a change in any of them is a different index."""
    fields = {"format": FORMAT, "digest": view_digest, "settings": settings, "tokenizer": tokenizer,
              "bm25s": metadata.version("bm25s")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:40]


class Bm25Store:
    """A folder of saved BM25 indexes, keyed by `index_key`. Safe for several processes."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.last_event = ""  # "loaded", "missing", "rebuilt: <why>": what the last `load` found

    def load(self, key: str, mmap: bool = True) -> LexicalIndex | None:
        """The saved index, memory-mapped; None (and `last_event` says why) if absent, stale or corrupt."""
        folder = self.root / key
        if not folder.is_dir():
            self.last_event = "missing"
            return None
        try:
            index = self._read(folder, key, mmap)
        except Exception as error:  # noqa: BLE001 - whatever is wrong with it, it is rebuilt
            self.last_event = f"rebuilt: {type(error).__name__}: {str(error)[:120]}"
            log.warning("saved BM25 index %s is unusable (%s); rebuilding it", folder, self.last_event)
            self._discard(folder)
            return None
        self.last_event = "loaded"
        return index

    def _read(self, folder: Path, key: str, mmap: bool) -> LexicalIndex:
        manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
        if manifest.get("key") != key or manifest.get("format") != FORMAT:
            raise ValueError("stale: the manifest names another corpus or setting")
        for name, expected in manifest["files"].items():
            path = folder / name
            if path.stat().st_size != expected["size"] or _sha256(path) != expected["sha256"]:
                raise ValueError(f"corrupt: {name} does not match its checksum")
        rows = np.load(folder / "rows.npy", mmap_mode="r" if mmap else None)
        frequency = np.load(folder / "document_frequency.npy", mmap_mode="r" if mmap else None)
        if manifest["empty"]:
            return LexicalIndex(rows=np.asarray(rows), bm25=None, vocabulary={}, document_frequency=frequency)
        bm25 = bm25s.BM25.load(str(folder / "bm25"), mmap=mmap, load_vocab=True, show_progress=False)
        vocabulary = bm25.vocab_dict
        if len(vocabulary) != len(frequency) or bm25.scores["num_docs"] != len(rows):
            raise ValueError("corrupt: array shapes disagree")
        return LexicalIndex(rows=np.asarray(rows), bm25=bm25, vocabulary=vocabulary, document_frequency=frequency)

    def save(self, key: str, index: LexicalIndex) -> None:
        """Write beside the target, then rename into place; the first writer's copy stays."""
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key}.", dir=self.root))
        try:
            np.save(staging / "rows.npy", np.asarray(index.rows, dtype=np.int64))
            np.save(staging / "document_frequency.npy", np.asarray(index.document_frequency, dtype=np.int64))
            if index.bm25 is not None:
                index.bm25.vocab_dict = index.vocabulary
                index.bm25.save(str(staging / "bm25"), show_progress=False)
            files = {str(p.relative_to(staging)): {"size": p.stat().st_size, "sha256": _sha256(p)}
                     for p in sorted(staging.rglob("*")) if p.is_file()}
            manifest = {"key": key, "format": FORMAT, "empty": index.bm25 is None, "chunks": len(index.rows),
                        "files": files}
            (staging / MANIFEST).write_text(json.dumps(manifest, indent=1), "utf-8")
            target = self.root / key
            if (target / MANIFEST).exists():  # another process published it meanwhile: readers may be using it
                return
            if target.exists():  # a leftover without a manifest
                self._discard(target)
            os.replace(staging, target)
        except OSError as error:
            if (self.root / key / MANIFEST).exists():  # another process published it first
                return
            log.warning("could not save the BM25 index under %s: %s", self.root, error)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)

    def _discard(self, folder: Path) -> None:
        """Move aside first (atomic), then delete: a reader never sees a half-deleted index."""
        aside = folder.with_name(f".discard-{folder.name}-{os.getpid()}")
        try:
            os.replace(folder, aside)
        except OSError:
            return
        shutil.rmtree(aside, ignore_errors=True)
