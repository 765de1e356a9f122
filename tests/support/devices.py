"""Special files made under a test's ``tmp_path`` for the tests of how files are written: a
character device node for the same device as ``/dev/null`` (so what is written to it goes
nowhere, and the system's own node is never a target), and a FIFO with a reader."""

from __future__ import annotations

import errno
import os
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

#: The device ``/dev/null`` is on Linux (its device list: major 1, minor 3).
NULL_DEVICE = os.makedev(1, 3) if sys.platform.startswith("linux") else -1


def fake_null(path: Path) -> Path:
    """A character device node at ``path`` for the device ``/dev/null`` is (writes go
    nowhere); the test is skipped where nodes cannot be made (not root, a container)."""
    if NULL_DEVICE == -1:
        pytest.skip("the fake device is Linux's null device (1, 3)")
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, NULL_DEVICE)
    except PermissionError as exc:
        pytest.skip(f"cannot make a device node here (needs root): {exc}")
    return path


def is_null_device(path: Path) -> bool:
    """Whether ``path`` is still the device node :func:`fake_null` made."""
    status = os.lstat(path)
    return stat.S_ISCHR(status.st_mode) and status.st_rdev == NULL_DEVICE


class FifoReader:
    """A thread that reads a FIFO whole. :meth:`bytes` ends it even when nothing was written
    (by opening the FIFO once for writing, through a second name in case the first no longer
    names it), so a failing test cannot hang."""

    def __init__(self, path: Path) -> None:
        self.spare = path.parent / f"{path.name}.spare"
        os.link(path, self.spare)
        self.data: bytes | None = None
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path: Path) -> None:
        with open(path, "rb") as fifo:
            self.data = fifo.read()

    def bytes(self) -> bytes | None:
        if self.thread.is_alive():
            try:  # nothing opened it for writing: let the reader see an end of file
                os.close(os.open(self.spare, os.O_WRONLY | os.O_NONBLOCK))
            except OSError as exc:
                assert exc.errno == errno.ENXIO  # the reader had just finished
        self.thread.join(60)
        self.spare.unlink()
        return self.data


def through_fifo(path: Path, write: Callable[[Path], object]) -> bytes | None:
    """Make a FIFO at ``path``, run ``write(path)`` while a thread reads the FIFO whole, and
    return what it read (None if the reader never ended); the FIFO must still be one."""
    os.mkfifo(path)
    reader = FifoReader(path)
    try:
        write(path)
    finally:
        data = reader.bytes()
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    return data
