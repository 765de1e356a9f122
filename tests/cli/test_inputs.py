"""Endless, huge and odd inputs on the command line: each ends in one line and an exit
status, never a traceback, and no more than ``--max-size`` bytes are read."""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main
from tests.support import processes

MIB = 1 << 20
F_GETPIPE_SZ = 1032  # fcntl.F_GETPIPE_SZ (Linux), named in the module only from Python 3.10 on
_PIPE = getattr(fcntl, "F_GETPIPE_SZ", F_GETPIPE_SZ)


class _Endless(threading.Thread):
    """Writes zeros into a FIFO until its reader stops reading (or ``most`` bytes are in),
    counting what went in."""

    def __init__(self, path: Path, most: int) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.most = most
        self.written = 0
        self.capacity = 0

    def run(self) -> None:
        fd = os.open(self.path, os.O_WRONLY)
        self.capacity = fcntl.fcntl(fd, _PIPE)
        chunk = bytes(1 << 16)
        try:
            while self.written < self.most:
                self.written += os.write(fd, chunk)
        except BrokenPipeError:
            pass
        finally:
            os.close(fd)

    def finish(self) -> None:
        """Let the writer end even if nothing opened the FIFO, and wait for it."""
        if self.is_alive():
            os.close(os.open(self.path, os.O_RDONLY | os.O_NONBLOCK))
        self.join(30)
        assert not self.is_alive()


def test_an_endless_stdin_is_read_up_to_64_mib_then_refused() -> None:
    """``gdvariant decode -`` with an endless pipe (as ``decode /dev/zero``): it used to read
    everything before checking; it reads at most Limits.max_size + 1 bytes."""
    proc = processes.watch(
        subprocess.Popen(
            [sys.executable, "-m", "gdvariant", "decode", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    )
    assert proc.stdin is not None
    fd = proc.stdin.fileno()
    capacity = fcntl.fcntl(fd, _PIPE)
    written = 0
    chunk = bytes(MIB)
    try:
        while written < 80 * MIB:  # endless as far as a 64 MiB limit can tell
            written += os.write(fd, chunk)
    except BrokenPipeError:
        pass
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert out == b""
    assert err == (
        b"gdvariant: the input is over 64 MiB (--max-size 67108864): only that much is read; "
        b"give a larger --max-size to read it\n"
    )
    assert written <= 64 * MIB + 1 + capacity


@pytest.mark.parametrize(
    "command",
    [
        ["decode"],
        ["inspect"],
        ["detect"],
        ["frames"],
        ["convert", "--to", "text"],
        ["edit", "--editor", "true"],
        ["encode", "-i"],
    ],
    ids=lambda command: command[0],
)
def test_every_command_reads_at_most_max_size_of_an_endless_fifo(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)
    writer = _Endless(fifo, 16 * MIB)
    writer.start()
    try:
        status = main([*command, str(fifo), "--max-size", "64K"])
    finally:
        writer.finish()
    assert status == 1
    assert capsys.readouterr().err == (
        "gdvariant: the input is over 64 KiB (--max-size 65536): only that much is read; "
        "give a larger --max-size to read it\n"
    )
    assert writer.written <= 64 * 1024 + 1 + writer.capacity


def test_max_size_lets_a_larger_input_through(tmp_path: Path) -> None:
    path = tmp_path / "save.dat"
    gd.write_save(path, [bytes(40_000), 1])
    assert main(["decode", str(path), "--max-size", "30000"]) == 1
    assert main(["decode", str(path), "--max-size", "1M", "--format", "json"]) == 0


def test_a_compressed_save_claiming_more_than_max_size_is_not_decompressed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A few bytes of GCPF header can claim 4 GB of plaintext: refused from the header."""
    total, block = 1 << 31, 1 << 20
    count = total // block + 1
    data = struct.pack("<4sIII", b"GCPF", 1, block, total) + bytes(4 * count)  # 8 KB
    status = main(["decode", "--hex", data.hex(), "--max-size", "2M"])
    assert status == 1
    err = capsys.readouterr().err
    assert "a GCPF plaintext of 2,147,483,648 bytes is over the max_size limit" in err
    with pytest.raises(gd.DecodeError, match="max_size"):
        gd.detect(data)


@pytest.mark.parametrize(
    "command",
    [["decode"], ["inspect"], ["detect"], ["frames"], ["convert"], ["edit"], ["encode", "-i"]],
    ids=lambda command: command[0],
)
def test_a_folder_given_as_a_file_is_one_line(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*command, str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"gdvariant: Is a directory: {tmp_path}\n"


def _nested(depth: int, leaf: object) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_values_nested_to_godots_limit_end_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Deeper than Python's recursion limit: convert's check walks without recursion, and
    a Python repr that cannot be made says what to use instead."""
    deep = tmp_path / "deep.bin"
    deep.write_bytes(gd.dumps(_nested(1020, gd.StringName("x"))))
    assert main(["convert", str(deep), "--to-version", "3", "--to", "text"]) == 1
    err = capsys.readouterr().err
    where = "[0]" * 1020
    assert err == (
        "gdvariant: cannot convert to Godot 3.6: 1 values\n"
        f"  the value at {where}: Godot 3.6 has no STRING_NAME type (StringName)\n"
    )
    try:  # Python 3.11's repr stops at this depth; 3.12's C recursion limit lets it through
        shown: str | None = repr(gd.loads(deep.read_bytes()))
    except RecursionError:
        shown = None
    status = main(["decode", str(deep), "--format", "python"])
    out, err = capsys.readouterr()
    if shown is None:
        assert (status, out) == (2, "")
        assert err == (
            "gdvariant: the value nests too deep for a Python repr: use --format text or json\n"
        )
    else:
        assert (status, out, err) == (0, shown + "\n", "")


@pytest.mark.parametrize("command", ["decode", "inspect"])
def test_a_closed_output_pipe_ends_quietly_while_streaming(command: str, tmp_path: Path) -> None:
    path = tmp_path / "big.sav"
    gd.write_save(path, [{"i": i, "pad": "x" * 100} for i in range(5000)])
    proc = processes.watch(
        subprocess.Popen(
            [sys.executable, "-m", "gdvariant", command, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert err == b""


def test_an_unreadable_file_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As root every file reads, so the refusal is made by hand: what the OS says, and the
    file's name."""
    path = tmp_path / "locked.sav"
    gd.write_save(path, [1])

    def refuse(name: str, *args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied", name)

    monkeypatch.setattr("gdvariant._cli._common.open", refuse, raising=False)
    assert main(["decode", str(path)]) == 2
    assert capsys.readouterr().err == f"gdvariant: Permission denied: {path}\n"


def test_ctrl_c_while_working_is_exit_130_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "save.dat"
    gd.write_save(path, [{"i": i} for i in range(3)])

    def interrupted(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr("gdvariant._cli.inspect.inspect_into", interrupted)
    assert main(["inspect", str(path)]) == 130
    assert capsys.readouterr().err == "\n"
