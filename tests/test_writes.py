"""How every file is written (``gdvariant._writes``): through ``write_save``, ``write_container``
and ``write_file``, a device or FIFO stays one, a link is followed and kept, permission bits
and owner are kept, the rename is made durable, and no temporary file outlives its writer.

Every target here is under ``tmp_path``; the fake device is a node made with ``os.mknod`` that
stands for the same device as ``/dev/null``, so what is written to it goes nowhere.
"""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import _writes
from gdvariant._files.wrapping import Container, open_container, write_container
from gdvariant._writes import RefusedTarget, write_file, writing
from tests.support import processes
from tests.support.devices import fake_null, is_null_device, through_fifo

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file types and signals")
RECORDS: list[Any] = [{"level": 3}, gd.Vector2(1, 2), "Ayla"]


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".gdvariant-" in p.name)


# Every library writer, as (name, write(path, records)).
def _save(path: Path, values: list[Any]) -> None:
    gd.write_save(path, values, password="secret")  # GDEC: its writer seeks back


def _container(path: Path, values: list[Any]) -> None:
    plain = b"".join(gd.records(values, version="3"))
    swapped = Container("GDEC", layout=3, swapped=True)  # rewrites its header after a seek
    write_container(path, plain, swapped, password="secret")


def _gcpf(path: Path, values: list[Any]) -> None:
    plain = b"".join(gd.records(values))
    write_container(path, plain, Container("GCPF", compression=gd.Compression.DEFLATE))


def _file(path: Path, values: list[Any]) -> None:
    write_file(path, b"".join(gd.records(values)))


WRITERS: dict[str, Callable[[Path, list[Any]], None]] = {
    "write_save": _save,
    "write_container": _container,
    "write_container_gcpf": _gcpf,
    "write_file": _file,
}


def _read_back(data: bytes) -> list[Any]:
    """The records of what any writer above wrote (Godot 3 for the swapped header)."""
    _, plain = open_container(data, password="secret")
    version = "3" if data[:4] == b"CEDG" else "4"
    return list(gd.load_all(io.BytesIO(plain), version=version))


@posix_only
@pytest.mark.parametrize("writer", WRITERS)
def test_a_device_is_written_through_never_replaced(writer: str, tmp_path: Path) -> None:
    node = fake_null(tmp_path / "null")
    WRITERS[writer](node, RECORDS)
    assert is_null_device(node)
    assert _temporaries(tmp_path) == []


@posix_only
@pytest.mark.parametrize("writer", WRITERS)
def test_a_fifo_is_written_through_to_its_reader(writer: str, tmp_path: Path) -> None:
    data = through_fifo(tmp_path / "pipe", lambda fifo: WRITERS[writer](fifo, RECORDS))
    assert data is not None and _read_back(data) == RECORDS


@posix_only
@pytest.mark.parametrize("writer", WRITERS)
def test_a_symlink_is_followed_and_kept(writer: str, tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    real = saves / "real.sav"
    real.write_bytes(b"old")
    (tmp_path / "inner").symlink_to("saves/real.sav")  # relative
    outer = tmp_path / "outer"
    outer.symlink_to(tmp_path / "inner")  # a chain of two links
    WRITERS[writer](outer, RECORDS)
    assert outer.is_symlink() and (tmp_path / "inner").is_symlink()
    assert os.readlink(outer) == str(tmp_path / "inner")
    assert _read_back(real.read_bytes()) == RECORDS
    assert sorted(p.name for p in saves.iterdir()) == ["real.sav"]
    assert _temporaries(tmp_path) == []


@posix_only
def test_a_dangling_symlink_makes_the_file_it_names(tmp_path: Path) -> None:
    link = tmp_path / "link.sav"
    link.symlink_to("made.sav")
    gd.write_save(link, RECORDS)
    assert link.is_symlink()
    assert gd.read_save(tmp_path / "made.sav") == RECORDS


@posix_only
@pytest.mark.parametrize("kind", ["socket", "folder", "loop"])
@pytest.mark.parametrize("writer", WRITERS)
def test_what_is_not_a_file_device_or_fifo_is_refused(
    kind: str, writer: str, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    if kind == "folder":
        target.mkdir()
    elif kind == "loop":
        target.symlink_to(tmp_path / "back")
        (tmp_path / "back").symlink_to(target)
    else:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(target))  # the socket's file stays once it is closed
    before = os.lstat(target)
    with pytest.raises(RefusedTarget) as info:
        WRITERS[writer](target, RECORDS)
    assert str(info.value.strerror).startswith("refusing to")
    assert info.value.filename == str(target)
    after = os.lstat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert _temporaries(tmp_path) == []


@posix_only
@pytest.mark.parametrize("mode", [0o664, 0o600, 0o640, 0o444, 0o2775])
@pytest.mark.parametrize("writer", WRITERS)
def test_an_existing_file_keeps_its_permission_bits(mode: int, writer: str, tmp_path: Path) -> None:
    path = tmp_path / "save.sav"
    path.write_bytes(b"old")
    path.chmod(mode)
    WRITERS[writer](path, RECORDS)
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert _read_back(path.read_bytes()) == RECORDS


@pytest.fixture
def umask() -> Iterator[Callable[[int], int]]:
    """Set the process's umask for one test."""
    previous = os.umask(0o022)
    os.umask(previous)
    yield os.umask
    os.umask(previous)


@posix_only
@pytest.mark.parametrize("mask", [0o022, 0o002, 0o027])
@pytest.mark.parametrize("writer", WRITERS)
def test_a_new_file_follows_the_umask(
    mask: int, writer: str, tmp_path: Path, umask: Callable[[int], int]
) -> None:
    path = tmp_path / "new.sav"
    umask(mask)
    WRITERS[writer](path, RECORDS)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


@posix_only
@pytest.mark.skipif(os.name == "posix" and os.geteuid() != 0, reason="chown needs root")
def test_root_rewriting_a_users_save_leaves_it_the_users(tmp_path: Path) -> None:
    path = tmp_path / "save.sav"
    gd.write_save(path, [1])
    os.chown(path, 4321, 4322)
    path.chmod(0o4750)  # chown clears set-id bits: the mode comes after the owner
    gd.write_save(path, RECORDS)
    status = path.stat()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (4321, 4322, 0o4750)


@posix_only
@pytest.mark.parametrize("writer", WRITERS)
def test_the_folder_is_fsynced_after_the_rename(
    writer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "save.sav"
    path.write_bytes(b"old")
    events: list[tuple[str, Any]] = []
    fsync, replace = os.fsync, os.replace

    def recording_fsync(fd: int) -> None:
        status = os.fstat(fd)
        events.append(("fsync", "folder" if stat.S_ISDIR(status.st_mode) else "file"))
        if stat.S_ISDIR(status.st_mode):
            assert status.st_ino == tmp_path.stat().st_ino
        fsync(fd)

    def recording_replace(src: Any, dst: Any) -> None:
        events.append(("replace", Path(dst)))
        replace(src, dst)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    monkeypatch.setattr(os, "replace", recording_replace)
    WRITERS[writer](path, RECORDS)
    assert events == [("fsync", "file"), ("replace", path), ("fsync", "folder")]


TEMPORARY = re.compile(r"\.save\.sav\.gdvariant-(\d+)-[0-9a-f]{8}\.tmp")


def test_the_temporary_file_is_named_for_its_target_and_writer(tmp_path: Path) -> None:
    path = tmp_path / "save.sav"
    seen: list[str] = []

    def values() -> Iterator[Any]:
        yield 1
        seen.extend(_temporaries(tmp_path))
        yield 2

    gd.write_save(path, values())
    assert len(seen) == 1
    found = TEMPORARY.fullmatch(seen[0])
    assert found is not None and int(found[1]) == os.getpid(), seen
    assert _temporaries(tmp_path) == [] and gd.read_save(path) == [1, 2]


def test_a_failed_write_removes_its_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "save.sav"
    gd.write_save(path, [1])

    def values() -> Iterator[Any]:
        yield 2
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        gd.write_save(path, values())
    assert gd.read_save(path) == [1]
    assert _temporaries(tmp_path) == []


def test_a_long_name_gets_a_temporary_within_the_name_limit(tmp_path: Path) -> None:
    path = tmp_path / ("é" * 120 + ".sav")  # 244 bytes: the name alone fits, with 32 more not
    seen: list[str] = []

    def values() -> Iterator[Any]:
        seen.extend(_temporaries(tmp_path))
        yield 1

    gd.write_save(path, values())
    assert gd.read_save(path) == [1]
    assert len(os.fsencode(seen[0])) <= 255


# ---------------------------------------------------------------- signals and stale files

# A child process that writes a save and stops inside the write: it prints the temporary
# file's name when it exists, then waits on its standard input until it is signalled.
_CHILD = textwrap.dedent(
    """
    import os, sys
    import gdvariant as gd

    def values():
        yield {"big": bytes(1 << 20)}
        names = [n for n in os.listdir(sys.argv[2]) if ".gdvariant-" in n]
        print(*names, flush=True)
        sys.stdin.read()
        yield "never"

    gd.write_save(sys.argv[1], values())
    """
)


def _stopped_writer(path: Path) -> tuple[subprocess.Popen[str], str]:
    """A child writing ``path``, stopped inside the write; and its temporary file's name."""
    child = processes.watch(
        subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(path), str(path.parent)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    )
    assert child.stdout is not None
    name = child.stdout.readline().strip()  # the child is ready: its temporary file exists
    assert name, child.communicate()
    return child, name


def _finish(child: subprocess.Popen[str]) -> int:
    child.communicate(timeout=60)
    return child.returncode


@posix_only
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", 1)])
def test_a_signal_during_a_write_leaves_no_temporary_file(signum: int, tmp_path: Path) -> None:
    path = tmp_path / "save.sav"
    gd.write_save(path, RECORDS)
    child, name = _stopped_writer(path)
    found = TEMPORARY.fullmatch(name)
    assert found is not None and int(found[1]) == child.pid
    child.send_signal(signum)
    assert _finish(child) == -signum  # died by the signal, as without the write
    assert _temporaries(tmp_path) == []
    assert gd.read_save(path) == RECORDS


def _dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    done = processes.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True
    )
    return int(done.stdout)


@posix_only
def test_the_next_write_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    path = tmp_path / "save.sav"
    gd.write_save(path, RECORDS)
    child, name = _stopped_writer(path)
    child.kill()  # SIGKILL: nothing unwinds
    assert _finish(child) == -signal.SIGKILL
    assert _temporaries(tmp_path) == [name]
    assert (tmp_path / name).stat().st_size >= 1 << 20
    gd.write_save(path, [1])
    assert _temporaries(tmp_path) == []
    assert gd.read_save(path) == [1]


@posix_only
def test_only_dead_writers_temporaries_of_that_target_are_removed(tmp_path: Path) -> None:
    fcntl = pytest.importorskip("fcntl")
    dead = _dead_pid()
    stale = f".save.sav.gdvariant-{dead}-0123abcd.tmp"
    kept = [
        f".save.sav.gdvariant-{os.getpid()}-0123abcd.tmp",  # a live writer (this process)
        f".other.sav.gdvariant-{dead}-0123abcd.tmp",  # another target's
        f".save.sav.gdvariant-{dead}-0123abc.tmp",  # not our pattern
        f".save.sav.gdvariant-{dead}-0123abcd.tmp.bak",
        ".save.sav.k2j3h4l5",  # mkstemp's, from before: not provably ours
        f".save.sav.gdvariant-{dead}-feedbeef.tmp",  # held (locked) by a live writer
    ]
    for name in [stale, *kept]:
        (tmp_path / name).write_bytes(b"partial")
    with open(tmp_path / kept[-1], "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        gd.write_save(tmp_path / "save.sav", RECORDS)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "save.sav"])


# ---------------------------------------------------------------- the signal handlers


@posix_only
def test_a_write_leaves_an_applications_own_handler_alone(tmp_path: Path) -> None:
    seen: list[Any] = []

    def handler(signum: int, frame: Any) -> None:
        raise AssertionError("not sent")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        with writing(tmp_path / "save.bin") as out:
            seen.append(signal.getsignal(signal.SIGTERM))
            out.write(b"x")
        assert seen == [handler] and signal.getsignal(signal.SIGTERM) is handler
    finally:
        signal.signal(signal.SIGTERM, previous)


@posix_only
def test_a_default_handler_is_turned_into_an_exception_only_during_the_write(
    tmp_path: Path,
) -> None:
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    during: list[Any] = []
    with writing(tmp_path / "save.bin") as out:
        during.append(signal.getsignal(signal.SIGTERM))
        out.write(b"x")
    assert during == [_writes._raise_terminated]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_write_from_another_thread_sets_no_handler(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def write() -> None:
        try:
            gd.write_save(tmp_path / "save.sav", RECORDS)
        except BaseException as exc:  # signal.signal raises ValueError off the main thread
            errors.append(exc)

    thread = threading.Thread(target=write)
    thread.start()
    thread.join()
    assert errors == [] and gd.read_save(tmp_path / "save.sav") == RECORDS
