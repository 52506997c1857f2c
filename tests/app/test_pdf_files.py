"""A session's PDFs live on disk (ui/pdf_files.py): read back exactly, snapshots share them, and the
session's end deletes every file it wrote, a failed upload's included."""

from __future__ import annotations

from ui.pdf_files import PdfFiles


def test_pdf_bytes_round_trip_through_a_file_not_memory():
    files = PdfFiles()
    files["d1"] = b"%PDF-1.7 one"
    (path,) = files._paths.values()
    assert path.read_bytes() == b"%PDF-1.7 one" and files["d1"] == b"%PDF-1.7 one"
    assert files.get("missing") is None and "d1" in files and len(files) == 1
    files.discard("d1")
    assert not path.exists() and not files


def test_a_restored_snapshot_keeps_its_files_and_the_session_end_removes_all_of_them():
    files = PdfFiles()
    files["kept"] = b"%PDF kept"
    snapshot = files.copy()
    files["failed"] = b"%PDF written by an upload whose rebuild then failed"
    orphan = files._paths["failed"]
    files = snapshot  # what Session._change_or_restore does
    assert files["kept"] == b"%PDF kept" and "failed" not in files and orphan.exists()
    kept = files._paths["kept"]
    files.clear_files()
    assert not kept.exists() and not orphan.exists() and len(files) == 0


def test_two_sessions_never_share_or_delete_each_others_files():
    first, second = PdfFiles(), PdfFiles()
    first["same"] = b"%PDF same bytes"
    second["same"] = b"%PDF same bytes"
    assert first._paths["same"] != second._paths["same"]
    first.clear_files()
    assert second["same"] == b"%PDF same bytes"


def test_a_killed_servers_folder_is_removed_by_the_next_and_a_running_ones_is_kept(tmp_path):
    import os
    import subprocess
    import sys

    from ui.pdf_files import PREFIX, remove_orphaned_folders

    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dead = tmp_path / f"{PREFIX}{gone.stdout.strip()}-abc"
    alive = tmp_path / f"{PREFIX}{os.getppid()}-def"
    unnamed = tmp_path / f"{PREFIX}oldstyle"
    for folder in (dead, alive, unnamed):
        folder.mkdir()
        (folder / "session-0.pdf").write_bytes(b"%PDF-1.7")
    assert remove_orphaned_folders(tmp_path) == [dead]
    assert not dead.exists() and alive.exists() and unnamed.exists()
