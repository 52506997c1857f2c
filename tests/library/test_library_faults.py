"""The library survives a corrupt file and a full disk (issue 24, findings 9 and 10).

A truncated document JSON or a manifest that is not JSON made every ask "Unexpected error" and /healthz
500 until repaired by hand; a full disk during a library add left a 5.2 MB `.tmp-…` file behind, so the
disk stayed full. Writes are now fsynced and their temporary file removed on any failure; a corrupt
document is skipped with one logged line, and a corrupt manifest stops the app's start with one line
naming it (a running app keeps the collection it has and logs one line).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import Incoming, Library, StoreError
from tests.conftest import ROOT, subprocess_env

def _note(number: int) -> Incoming:
    return Incoming(f"note-{number}.md", f"---\nid: note-{number}\n---\nThe ferry to pier {number} leaves at 9.\n"
                    .encode())


@pytest.fixture
def library(tmp_path, logic_engine):
    library = Library(tmp_path / "data")
    library.add(logic_engine, [_note(1), _note(2)])
    return library


# --------------------------------------------------------------------------- 9. a corrupt library file


def test_a_corrupt_library_document_is_skipped_with_one_logged_line(library, caplog):
    manifest = library.store.manifest()
    path = library.store.root / "documents" / f"{manifest['note-1']['digest']}.json"
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])  # truncated
    with caplog.at_level(logging.WARNING, logger="auditable_rag.store"):
        documents = library.documents()
    assert [d.source_id for d in documents] == ["note-2"]
    lines = [r.getMessage() for r in caplog.records if r.name == "auditable_rag.store"]
    assert lines == [f"library document note-1 skipped: {path} is corrupt"]


@pytest.mark.parametrize("content", [b"{\"documents\": {\"note-1\": ", b"[1, 2, 3]", b"\xff\xfe not json"])
def test_a_corrupt_manifest_is_one_line_naming_it(library, logic_engine, content):
    path = library.store.root / "manifest.json"
    path.write_bytes(content)
    with pytest.raises(StoreError) as caught:
        library.documents()
    assert str(caught.value).startswith(f"{path}: not a library manifest") and "\n" not in str(caught.value)
    with pytest.raises(StoreError, match="not a library manifest"):  # an add refuses too, naming it
        library.add(logic_engine, [_note(3)])


@pytest.mark.slow  # starts the app in a subprocess
def test_the_app_refuses_to_start_on_a_corrupt_manifest_with_one_line_naming_it(tmp_path):
    data = tmp_path / "data"
    (data / "library").mkdir(parents=True)
    manifest = data / "library" / "manifest.json"
    manifest.write_text("{not json")
    started = subprocess.run([sys.executable, "-c", "import app"], cwd=ROOT, capture_output=True, text=True,
                             timeout=600, env=subprocess_env(DATA_DIR=str(data)))
    errors = [line for line in started.stderr.splitlines() if line.startswith("error:") or "Traceback" in line]
    assert started.returncode == 2 and errors == [f"error: {manifest}: not a library manifest (corrupt JSON); "
                                                  "restore it from a backup, or remove it to start an empty library"]


def test_a_running_app_keeps_answering_when_the_manifest_breaks(tmp_path, logic_engine, caplog):
    from ui.state import load_shared

    library = Library(tmp_path / "data")
    library.add(logic_engine, [_note(1)])
    shared = load_shared(logic_engine, library=library, sandbox=False)
    assert "note-1" in shared.library_ids()
    (library.store.root / "manifest.json").write_text("{broken")
    with caplog.at_level(logging.WARNING, logger="auditable_rag.ui"):
        assert "note-1" in shared.library_ids()  # the collection read before the break
        assert "note-1" in shared.library_ids()
    said = [r.getMessage() for r in caplog.records if r.name == "auditable_rag.ui"]
    assert len(said) == 1 and said[0].startswith("library not reloaded: ") and "manifest.json" in said[0]


# --------------------------------------------------------------------------- 10. a full disk


def test_a_full_disk_during_a_library_add_leaves_nothing_behind_and_says_one_line(library, logic_engine,
                                                                                  monkeypatch):
    import pipeline.core.atomic as atomic

    real_write, written = os.write, [0]

    def disk_fills(handle, data):
        if written[0] + len(data) > 300:  # the disk is full after a few hundred bytes of the add
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written[0] += len(data)
        return real_write(handle, data)

    before = {p: p.read_bytes() for p in library.store.root.rglob("*") if p.is_file()}
    monkeypatch.setattr(atomic, "_write", disk_fills)
    big = Incoming("big.md", b"---\nid: big\n---\n" + b"A line about the ferry timetable.\n" * 2000)
    with pytest.raises(StoreError) as caught:
        library.add(logic_engine, [big])
    assert str(caught.value).endswith("cannot be written: the disk is full (nothing was changed; free some space "
                                      "and try again)") and "\n" not in str(caught.value)
    after = {p: p.read_bytes() for p in library.store.root.rglob("*") if p.is_file()}
    assert after == before  # no temporary file, no orphan document or blob, the same manifest
    monkeypatch.setattr(atomic, "_write", real_write)
    added, _ = library.add(logic_engine, [big])  # the next add, with space again, completes
    assert added == ["big"] and sorted(json.loads((library.store.root / "manifest.json").read_text())["documents"]) \
        == ["big", "note-1", "note-2"]


def test_library_writes_reach_the_disk_before_the_manifest_names_them(tmp_path, logic_engine, monkeypatch):
    import pipeline.core.atomic as atomic

    synced = []
    real_fsync = os.fsync

    def fsync(handle):
        synced.append(os.readlink(f"/proc/self/fd/{handle}") if Path("/proc/self/fd").is_dir() else handle)
        return real_fsync(handle)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    library = Library(tmp_path / "data")
    library.add(logic_engine, [_note(7)])
    root = str(library.store.root)
    files = [s for s in synced if ".tmp-" in str(s)]
    folders = [s for s in synced if str(s) in (f"{root}/documents", f"{root}/blobs", root)]
    assert len(files) == 3 and len(folders) == 3  # document, blob and manifest; each folder after its rename
