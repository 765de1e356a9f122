"""The rule that a test run leaves the machine as it found it: the system's device nodes stay
device nodes (CI runs as root, where a write that replaces its target could turn ``/dev/null``
into a regular file), checked by ``conftest.py`` at the end of every run.
"""

from __future__ import annotations

import os
import stat

#: The device nodes a test could be tempted to name as an output.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")

Snapshot = dict[str, tuple[int, int]]


def snapshot(paths: tuple[str, ...] = DEVICES) -> Snapshot:
    """What each existing path is now: its file type and the device it stands for."""
    found = {}
    for path in paths:
        try:
            status = os.lstat(path)
        except OSError:
            continue
        found[path] = (stat.S_IFMT(status.st_mode), status.st_rdev)
    return found


def damage(before: Snapshot, null: str = "/dev/null") -> list[str]:
    """What changed since ``before``, in words; ``null`` must also be a character device
    now, whatever it was at the start (a run after a harmful one fails too)."""
    now = snapshot((*before, null))
    problems = [
        f"{path} is now {_kind(now.get(path))}"
        for path, was in before.items()
        if path != null and now.get(path) != was
    ]
    changed = null in before and now.get(null) != before[null]
    if changed or (null in now and now[null][0] != stat.S_IFCHR):
        problems.insert(0, f"{null} is now {_kind(now.get(null))}, not the null device")
    return problems


def _kind(found: tuple[int, int] | None) -> str:
    """What a snapshot entry is, in words."""
    if found is None:
        return "gone"
    names = {stat.S_IFREG: "a regular file", stat.S_IFLNK: "a symbolic link"}
    if found[0] == stat.S_IFCHR:
        return f"another device ({os.major(found[1])}, {os.minor(found[1])})"
    return names.get(found[0], f"a file of type {found[0]:o}")
