"""The rule conftest.py checks at the end of every run (tests/support/system_paths.py): the system's
device nodes stay what they were, and ``/dev/null`` is the null device. Checked here on nodes
made under ``tmp_path``, never on the system's own."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.support import system_paths
from tests.support.devices import fake_null

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX device nodes")


@posix_only
def test_dev_null_is_the_null_device() -> None:
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert system_paths.damage(system_paths.snapshot()) == []


@posix_only
def test_a_null_device_turned_into_a_file_is_named(tmp_path: Path) -> None:
    node = fake_null(tmp_path / "null")
    before = system_paths.snapshot((str(node),))
    assert system_paths.damage(before, null=str(node)) == []
    node.unlink()
    node.write_bytes(b"")  # what a replacing write leaves
    assert system_paths.damage(before, null=str(node)) == [
        f"{node} is now a regular file, not the null device"
    ]


@posix_only
def test_a_null_device_that_was_already_a_file_is_named(tmp_path: Path) -> None:
    """A run after a harmful one fails too, so the machine gets repaired."""
    null = tmp_path / "null"
    null.write_bytes(b"")
    before = system_paths.snapshot((str(null),))
    assert system_paths.damage(before, null=str(null)) == [
        f"{null} is now a regular file, not the null device"
    ]


@posix_only
def test_any_watched_node_that_changed_is_named(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"  # stands for a device node: no root needed
    os.mkfifo(fifo)
    before = system_paths.snapshot((str(fifo),))
    null = str(tmp_path / "absent")  # no null device here: nothing to say about it
    assert system_paths.damage(before, null=null) == []
    fifo.unlink()
    fifo.symlink_to("elsewhere")
    assert system_paths.damage(before, null=null) == [f"{fifo} is now a symbolic link"]
    fifo.unlink()
    assert system_paths.damage(before, null=null) == [f"{fifo} is now gone"]
