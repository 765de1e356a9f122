"""Every command that writes a file (``convert -o``, ``encode -o``, ``schema gdscript -o``,
``edit``) writes it as the library does (``gdvariant._writes``): a device or FIFO stays one, a
link is followed and kept, an old file is replaced whole by a rename (a reader holding it keeps
the old bytes) with its permission bits, and a socket is refused in one line.

Every target is under ``tmp_path``; the fake device is test_writes' node for the null device.
"""

from __future__ import annotations

import io
import os
import socket
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main
from tests.support.devices import fake_null, is_null_device, through_fifo
from tests.support.paths import EXAMPLES

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file types")


def _schema_code() -> bytes:
    from gdvariant.replication import gdscript, load_schema

    schema, _ = load_schema(str(EXAMPLES / "arena" / "arena_schema.py"))
    return gdscript.generate(schema).encode()


# Each command as (argv before "-o TARGET", a check of the bytes it wrote).
COMMANDS: dict[str, tuple[list[str], Callable[[bytes], bool]]] = {
    "convert": (
        ["convert", "-V", "3", str(EXAMPLES / "godot3_save.sav"), "--to-version", "4"],
        lambda data: (
            list(gd.load_all(io.BytesIO(data)))
            == gd.read_save(EXAMPLES / "godot3_save.sav", version="3")
        ),
    ),
    "convert-encrypted": (
        ["convert", str(EXAMPLES / "user_save.dat"), "--password", "secret", "--to", "bytes"],
        lambda data: (
            gd.decrypt(data, password="secret")
            == gd.decrypt((EXAMPLES / "user_save.dat").read_bytes(), password="secret")
        ),
    ),
    "convert-text": (
        ["convert", str(EXAMPLES / "savegame.bin"), "--to", "text"],
        lambda data: (
            gd.from_text(data.decode().split("\n", 1)[1])
            == gd.loads((EXAMPLES / "savegame.bin").read_bytes())
        ),
    ),
    "encode": (
        ["encode", '[1, "a", Vector2(1, 2)]'],
        lambda data: gd.loads(data) == [1, "a", gd.Vector2(1, 2)],
    ),
    "schema": (
        ["schema", "gdscript", str(EXAMPLES / "arena" / "arena_schema.py")],
        lambda data: data == _schema_code(),
    ),
}


def _run(command: str, target: Path) -> int:
    argv, _ = COMMANDS[command]
    return main([*argv, "-o", str(target)])


@posix_only
@pytest.mark.parametrize("command", COMMANDS)
def test_a_device_stays_a_device(command: str, tmp_path: Path) -> None:
    node = fake_null(tmp_path / "null")
    assert _run(command, node) == 0
    assert is_null_device(node)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@posix_only
@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_gets_the_bytes_and_stays_a_fifo(command: str, tmp_path: Path) -> None:
    status: list[int] = []
    data = through_fifo(tmp_path / "pipe", lambda fifo: status.append(_run(command, fifo)))
    assert status == [0]
    assert data is not None and COMMANDS[command][1](data)


@posix_only
@pytest.mark.parametrize("command", COMMANDS)
def test_a_symlink_is_followed_and_kept(command: str, tmp_path: Path) -> None:
    real = tmp_path / "real.out"
    real.write_bytes(b"old")
    link = tmp_path / "link.out"
    link.symlink_to(real.name)
    assert _run(command, link) == 0
    assert link.is_symlink() and os.readlink(link) == real.name
    assert COMMANDS[command][1](real.read_bytes())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.out", "real.out"]


@posix_only
@pytest.mark.parametrize("command", COMMANDS)
def test_an_old_file_is_replaced_whole_with_its_mode(command: str, tmp_path: Path) -> None:
    """A rename, not a rewrite in place: a reader that has the old file open keeps reading
    the old bytes, whole, and a crash midway would have left them."""
    path = tmp_path / "out.bin"
    path.write_bytes(b"the old bytes")
    path.chmod(0o664)
    with open(path, "rb") as held:
        assert _run(command, path) == 0
        assert held.read() == b"the old bytes"
    assert COMMANDS[command][1](path.read_bytes())
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


@posix_only
@pytest.mark.parametrize("command", COMMANDS)
def test_a_socket_is_refused_in_one_line(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
    assert _run(command, path) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("gdvariant: refusing to write to a socket (only to a file, a device")
    assert err.rstrip().endswith(str(path))
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


@posix_only
def test_edit_reads_and_writes_back_through_a_fifo(tmp_path: Path) -> None:
    """The save comes in through the FIFO and the edited save goes out through it."""
    fifo = tmp_path / "save.pipe"
    os.mkfifo(fifo)
    save = tmp_path / "save.sav"
    gd.write_save(save, [{"level": 12}, "Ayla"])
    back: list[bytes] = []

    def other_end() -> None:
        try:
            with open(fifo, "wb") as out:  # waits for edit to open it for reading
                out.write(save.read_bytes())
            with open(fifo, "rb") as written:  # waits for edit to open it for writing
                back.append(written.read())
        except BrokenPipeError:  # edit failed before reading: the test says so
            pass

    thread = threading.Thread(target=other_end, daemon=True)
    thread.start()
    editor = "sed -i s/12/13/"
    try:
        assert main(["edit", str(fifo), "--editor", editor]) == 0
    finally:
        for _ in range(2):  # whatever edit did not open, let the other end go on
            if thread.is_alive():
                try:
                    os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:
                    pass
        thread.join(60)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    save.write_bytes(back[0])
    assert gd.read_save(save) == [{"level": 13}, "Ayla"]


@posix_only
def test_edit_writes_back_through_a_device(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    node = fake_null(tmp_path / "null")  # reads as no records; the editor adds one
    assert main(["edit", str(node), "--editor", "sh -c 'echo 5 >> \"$0\"'"]) == 0
    assert "# wrote " in capsys.readouterr().err
    assert is_null_device(node)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]
