"""Write a file so that readers see the old bytes or the new ones, never half, and a failure leaves nothing.

The bytes go to a temporary file beside the target, are flushed to the disk (fsync), then renamed over the
target, and the folder is flushed so the rename itself survives a power cut. On any failure the temporary
file is removed: a full disk once kept a 5.2 MB `.tmp-…` file, so the disk stayed full and every later
library add failed. A full disk is one line naming the file.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from pipeline.core.errors import StoreError

_CHUNK = 1 << 20
_write = os.write  # the one place bytes reach the disk (a test simulates a full disk here)


def atomic_write(path: Path, data: bytes, mode: int | None = None, prefix: str = ".tmp-") -> None:
    """Replace `path` with `data` atomically and durably; StoreError (one line) when it cannot be written."""
    path = Path(path)
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=prefix)
    except OSError as error:
        raise StoreError(str(path), _why(error)) from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[_write(handle, view[:_CHUNK]):]
            if mode is not None:
                os.fchmod(handle, mode)
            os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(temporary, path)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise StoreError(str(path), _why(error)) from None
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass  # some file systems refuse to sync a folder; the file itself is on disk
    finally:
        os.close(handle)


def _why(error: OSError) -> str:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "cannot be written: the disk is full (nothing was changed; free some space and try again)"
    return f"cannot be written ({error.strerror or error})"
