"""Files written all at once or not at all: a temporary file in the same folder, synced, renamed.

A full disk or a crash mid-write leaves the old file (or none) under the real name, never a
truncated one; the temporary file is removed on failure. Its name (``.<name>.<random>.part``)
is one that the start-up clean-up of the photos folder knows (``web.uploads.remove_orphans``).
"""

from __future__ import annotations

import contextlib
import filecmp
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Call ``write(handle)`` on a temporary file beside ``path``, then put it in its place.

    The file is readable by its owner only (``mkstemp``'s mode): photos of a table are private.
    """
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())  # the bytes are on the disk before the name points at them
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(path.parent)


def write_text_atomically(path: Path, text: str) -> None:
    write_atomically(path, lambda handle: handle.write(text.encode("utf-8")))


def copy_atomically(source: Path, target: Path) -> None:
    """``target`` becomes a copy of ``source``; one already the same byte for byte is kept."""
    with contextlib.suppress(OSError):
        if target.stat().st_size == source.stat().st_size and filecmp.cmp(source, target, shallow=False):
            return
    with source.open("rb") as original:
        write_atomically(target, lambda handle: shutil.copyfileobj(original, handle))


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (a crash right after it keeps the new name)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # not possible on this system: the rename stands as the file system keeps it
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
