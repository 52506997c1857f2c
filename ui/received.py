"""Only files Gradio itself received may be read by a handler.

The app is mounted with `gr.mount_gradio_app` and never `launch()`ed, so Gradio skips its own
check that a FileData path was uploaded (a raw API call can name any server file). `app.py`
turns that check back on; `received_file` checks again in the handler: the real path must be a
regular file inside Gradio's upload folder, never a symlink (one planted there could point
anywhere).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gradio.utils import get_upload_folder

from pipeline import InputError

_received_sets: list[set] = []  # Gradio's own sets of files its /upload route wrote (Blocks.upload_file_set)


def track(blocks) -> None:
    """Also require membership in `blocks.upload_file_set` (what Gradio's /upload route received)."""
    _received_sets.append(blocks.upload_file_set)


def upload_folder() -> Path:
    """Gradio's upload/cache folder (GRADIO_TEMP_DIR, else <tmp>/gradio), resolved."""
    return Path(os.path.realpath(get_upload_folder()))


def received_file(value) -> Path:
    """The path of a file Gradio received; InputError (naming the file only) for anything else."""
    raw = str(getattr(value, "path", None) or getattr(value, "name", None) or value)
    label = Path(raw).name[:60] or "file"
    path = Path(os.path.abspath(raw))
    try:
        status = os.lstat(path)
    except OSError:
        raise InputError(label, "was not received by this server; upload it again") from None
    real = Path(os.path.realpath(path))
    folder = upload_folder()
    if stat.S_ISLNK(status.st_mode) or not stat.S_ISREG(status.st_mode) or folder not in real.parents:
        raise InputError(label, "was not uploaded through this page; only uploaded files are read")
    if _received_sets and not any(str(real) in received or str(path) in received for received in _received_sets):
        raise InputError(label, "was not uploaded through this page; only uploaded files are read")
    return real


def forget_file(path: Path) -> None:
    """Delete a received file once read: uploads are kept in the session's memory only (and Gradio's set of
    received paths, which only grows, forgets it). Gradio gives each upload a folder of its own; an empty one
    goes too, else every upload would leave one behind for good."""
    try:
        path.unlink()
    except OSError:
        pass
    if path.parent != upload_folder() and upload_folder() in path.parents:
        try:
            path.parent.rmdir()  # only when empty: another upload of the same bytes may share it
        except OSError:
            pass
    for received in _received_sets:
        received.discard(str(path))
