"""A session's uploaded PDFs, kept on disk rather than in memory: the source viewer needs a PDF's bytes
only when it draws a page, and eight sessions holding a 20-page PDF each kept 18 MiB resident for it.

Each session's files are named with its own random token inside one folder per server process (removed
when the process exits, or by the next server process when it was killed); a session's end removes its files,
including any left by a failed upload.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import shutil
import tempfile
import threading
from collections.abc import Iterator, MutableMapping
from pathlib import Path

from pipeline import InputError

_folder: Path | None = None
_folder_lock = threading.Lock()


PREFIX = "auditable-rag-pdfs-"


def _process_folder() -> Path:
    global _folder
    with _folder_lock:
        if _folder is None or not _folder.is_dir():
            remove_orphaned_folders(Path(tempfile.gettempdir()))
            _folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
            atexit.register(shutil.rmtree, _folder, True)
        return _folder


def remove_orphaned_folders(parent: Path) -> list[Path]:
    """Remove the folders of server processes that are gone: a killed process (SIGKILL, an out-of-memory kill, a
    power cut) never runs its exit handler, and its sessions' PDFs would stay on disk for good. A folder names its
    process; one whose process still runs, or that is not ours to remove, stays."""
    removed = []
    for folder in parent.glob(f"{PREFIX}*-*"):
        pid = folder.name[len(PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or _running(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists():
            removed.append(folder)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: running
    return True


class PdfFiles(MutableMapping[str, bytes]):
    """digest → PDF bytes, stored as files. `copy()` shares the files (a snapshot to restore after a failed
    rebuild); `discard` and `clear_files` remove them."""

    def __init__(self, token: str | None = None, paths: dict[str, Path] | None = None) -> None:
        self._token = token or secrets.token_hex(8)
        self._paths: dict[str, Path] = dict(paths or {})

    def __setitem__(self, digest: str, data: bytes) -> None:
        path = _process_folder() / f"{self._token}-{len(self._paths)}-{secrets.token_hex(4)}.pdf"
        partial = path.with_suffix(".part")
        try:
            partial.write_bytes(data)
            os.replace(partial, path)  # a reader never sees half a file
        except OSError as error:  # e.g. a full disk: the upload is refused whole, the collection unchanged
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)
            raise InputError("upload", f"the PDF could not be kept on the server ({error.strerror or error})") from None
        self._paths[digest] = path

    def __getitem__(self, digest: str) -> bytes:
        try:
            return self._paths[digest].read_bytes()
        except OSError:
            raise KeyError(digest) from None

    def __delitem__(self, digest: str) -> None:
        self._paths.pop(digest).unlink(missing_ok=True)

    def discard(self, digest: str) -> None:
        if digest in self._paths:
            del self[digest]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __contains__(self, digest: object) -> bool:
        return digest in self._paths

    def copy(self) -> PdfFiles:
        return PdfFiles(self._token, self._paths)

    def clear_files(self) -> None:
        """Forget every PDF of this session and delete its files (those of a failed upload too)."""
        self._paths.clear()
        folder = _folder
        if folder is not None:
            for path in folder.glob(f"{self._token}-*"):
                path.unlink(missing_ok=True)
