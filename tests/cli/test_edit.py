"""``gdvariant edit`` with editors that are small scripts: the file comes back in its own
container, or stays untouched when the edit does not parse."""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import stat
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._cli import main
from gdvariant._files.wrapping import open_container
from tests.support import processes

RECORDS: list[Any] = [{"slot": 1, "player": "Ayla", "level": 12}, gd.Vector3(10.5, 0, -3.25)]


def _editor(tmp_path: Path, body: str) -> str:
    """An editor command: a Python script run on the file it is given."""
    script = tmp_path / "editor.py"
    script.write_text("import sys\nfrom pathlib import Path\npath = Path(sys.argv[1])\n" + body)
    return f"{sys.executable} {script}"


def _md5(path: Path) -> str:
    return hashlib.md5(path.read_bytes(), usedforsecurity=False).hexdigest()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"big_endian": True},
        {"password": "pässwörd"},
        {"password": "secret", "version": "3"},
        {"key": bytes(range(32))},
        {"compression": gd.Compression.ZSTD, "block_size": 64},
        {"compression": gd.Compression.FASTLZ},
        {"version": "3"},
    ],
)
def test_an_edit_is_written_back_in_the_same_container(
    options: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS, **options)
    before = path.read_bytes()
    secret = ["--password", options["password"]] if "password" in options else []
    secret += ["--key", options["key"].hex()] if "key" in options else []
    version = ["-V", options["version"]] if "version" in options else []
    editor = _editor(
        tmp_path, "path.write_text(path.read_text().replace('\"level\": 12', '\"level\": 13'))\n"
    )
    monkeypatch.setenv("EDITOR", editor)
    assert main(["edit", str(path), *secret, *version]) == 0
    reading = {k: v for k, v in options.items() if k in ("password", "key", "version")}
    assert gd.read_save(path, big_endian=options.get("big_endian", False), **reading) == [
        {"slot": 1, "player": "Ayla", "level": 13},
        RECORDS[1],
    ]
    secrets = {k: v for k, v in options.items() if k in ("password", "key")}
    old, _ = open_container(before, **secrets)
    new, plain = open_container(path.read_bytes(), **secrets)
    assert new == old  # kind, GDEC layout, compression and block size
    if options.get("big_endian"):
        assert plain[:4] == struct.pack(">I", len(gd.dumps(RECORDS[0])))


def test_edit_of_a_single_value_file(tmp_path: Path) -> None:
    path = tmp_path / "value.bin"
    path.write_bytes(gd.dumps({"hp": 3, "items": ["a"]}))
    editor = _editor(tmp_path, "path.write_text(path.read_text().replace('3', '4'))\n")
    assert main(["edit", str(path), "--editor", editor]) == 0
    assert path.read_bytes() == gd.dumps({"hp": 4, "items": ["a"]})


def test_the_editor_sees_one_record_per_line_after_comments(tmp_path: Path) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS)
    seen = tmp_path / "seen.txt"
    editor = _editor(tmp_path, f"Path({str(seen)!r}).write_text(path.read_text())\n")
    assert main(["edit", str(path), "--editor", editor]) == 0
    lines = seen.read_text().splitlines()
    assert all(line.startswith("; ") for line in lines[:2])
    assert lines[2:] == ['{"slot": 1, "player": "Ayla", "level": 12}', "Vector3(10.5, 0, -3.25)"]


@pytest.fixture(autouse=True)
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder edit keeps its draft in (and any editor its own files), here."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    return folder


def _left(folder: Path) -> list[str]:
    """Every file and folder under ``folder``, as paths relative to it."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("encrypted", [True, False], ids=["encrypted", "plain"])
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("text + '{oops\\n'", ", line 5, column 2: "),
        ("text.replace('Vector3(', 'Vector3(1, 2) Vector3(')", ", line 4, column "),
        ("text.replace('12', 'Vector2i(1, 2)')", "Vector2i"),  # -V 3 cannot write it
    ],
)
def test_an_edit_that_does_not_parse_writes_nothing(
    change: str,
    message: str,
    encrypted: bool,
    tmp_path: Path,
    private_tmp: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The edit is kept for another try, unless the save is encrypted: then its decrypted
    text is not left on disk."""
    path = tmp_path / "user.sav"
    secret = ["--password", "secret"] if encrypted else []
    gd.write_save(path, RECORDS, version="3", password="secret" if encrypted else None)
    digest = _md5(path)
    editor = _editor(tmp_path, f"text = path.read_text()\npath.write_text({change})\n")
    assert main(["edit", str(path), "-V", "3", *secret, "--editor", editor]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gdvariant: ")
    assert message in err
    assert "nothing written" in err
    assert _md5(path) == digest
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".user.sav")] == []
    if encrypted:
        assert "the edit is discarded (the save is encrypted" in err
        assert _left(private_tmp) == []
        return
    kept = Path(err.rsplit("the edit is kept in ", 1)[1].strip())
    assert kept.parent.parent == private_tmp and kept.read_text() != ""
    if os.name == "posix":
        assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700


def test_no_change_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS, password="secret")
    digest = _md5(path)  # a rewrite would draw a new IV
    assert main(["edit", str(path), "--password", "secret", "--editor", "true"]) == 0
    assert _md5(path) == digest
    assert "no change" in capsys.readouterr().err


def test_a_failing_editor_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS)
    digest = _md5(path)
    assert main(["edit", str(path), "--editor", "false"]) == 1
    assert "the editor exited with status 1" in capsys.readouterr().err
    assert _md5(path) == digest


def test_a_failing_editor_leaves_no_decrypted_text(
    tmp_path: Path, private_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The draft (in a folder only its user may enter) goes when the editor fails."""
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS, password="secret")
    seen = tmp_path / "seen"
    editor = _editor(
        tmp_path,
        "import os, stat\n"
        f"Path({str(seen)!r}).write_text(oct(stat.S_IMODE(path.parent.stat().st_mode)))\n"
        "path.write_text(path.read_text().replace('12', '13'))\n"
        "sys.exit(3)\n",
    )
    assert main(["edit", str(path), "--password", "secret", "--editor", editor]) == 1
    err = capsys.readouterr().err
    assert "the editor exited with status 3: nothing written; the edit is discarded" in err
    if os.name == "posix":  # only its user may enter the draft's folder
        assert seen.read_text() == "0o700"
    assert _left(private_tmp) == []


@pytest.mark.parametrize("encrypted", [True, False], ids=["encrypted", "plain"])
def test_a_failing_write_back_leaves_no_decrypted_text(
    encrypted: bool,
    tmp_path: Path,
    private_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The file system fails the rename: the save is as it was, no temporary file is left
    beside it, and the decrypted draft is gone (an unencrypted one is kept for another try)."""
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS, password="secret" if encrypted else None)
    digest = _md5(path)
    editor = _editor(tmp_path, "path.write_text(path.read_text().replace('12', '13'))\n")

    def failing_replace(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "Input/output error", str(dst))

    monkeypatch.setattr(os, "replace", failing_replace)
    secret = ["--password", "secret"] if encrypted else []
    assert main(["edit", str(path), *secret, "--editor", editor]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"gdvariant: Input/output error: {path}"
    assert _md5(path) == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["editor.py", "tmp", "user.sav"]
    if encrypted:
        assert err[0].startswith(f"note: {path} is as it was; the edit is discarded (")
        assert _left(private_tmp) == []
    else:
        kept = Path(err[0].rsplit("the edit is kept in ", 1)[1])
        assert 'level": 13' in kept.read_text()


# An editor that says it is running, then waits on its standard input until it is ended.
_WAITING_EDITOR = "import sys\nprint('editing', sys.argv[1], flush=True)\nsys.stdin.read()\n"


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", 1)])
def test_a_signal_during_an_edit_leaves_no_decrypted_text(
    signum: int, tmp_path: Path, private_tmp: Path
) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS, password="secret")
    digest = _md5(path)
    script = tmp_path / "editor.py"
    script.write_text(_WAITING_EDITOR)
    command = [sys.executable, "-m", "gdvariant", "edit", str(path), "--password", "secret"]
    edit = processes.watch(
        subprocess.Popen(
            [*command, "--editor", f"{sys.executable} {script}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    )
    assert edit.stdout is not None
    line = edit.stdout.readline().split()  # the editor runs: the draft exists
    assert line[0] == "editing", edit.communicate()
    assert Path(line[1]).parent.parent == private_tmp and Path(line[1]).exists()
    edit.send_signal(signum)
    edit.communicate(timeout=60)
    # Ctrl-C is the command's own exit status 130; SIGTERM and SIGHUP kill it as before.
    assert edit.returncode == (130 if signum == signal.SIGINT else -signum)
    assert _left(private_tmp) == []
    assert _md5(path) == digest


def test_values_without_an_exact_text_are_refused_before_editing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ids.sav"
    gd.write_save(path, [1, gd.ObjectID(77)])
    assert main(["edit", str(path), "--editor", "false"]) == 1
    assert "record 1 has no text form" in capsys.readouterr().err


def test_a_wrong_password_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS, password="secret")
    assert main(["edit", str(path), "--password", "nope", "--editor", "true"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MD5 check failed" in err


def test_a_godot3_header_written_with_endian_swap_stays_swapped(tmp_path: Path) -> None:
    # containers.md §2: Godot 3 with File.endian_swap writes the GDEC header fields
    # big-endian (the magic, stored as a u32, reads "CEDG").
    plain = b"".join(gd.records(RECORDS, version="3"))
    normal = gd.encrypt(plain, password="pw", layout=3)
    _, mode, digest, size = struct.unpack_from("<4sI16sQ", normal)
    path = tmp_path / "swapped.sav"
    path.write_bytes(struct.pack(">4sI16sQ", b"CEDG", mode, digest, size) + normal[32:])
    editor = _editor(tmp_path, "path.write_text(path.read_text().replace('12', '14'))\n")
    assert main(["edit", str(path), "-V", "3", "--password", "pw", "--editor", editor]) == 0
    data = path.read_bytes()
    assert data[:8] == b"CEDG" + struct.pack(">I", 1)
    assert gd.read_save(path, version="3", password="pw")[0]["level"] == 14


def test_lines_moved_copied_and_changed_are_all_read_back(tmp_path: Path) -> None:
    """Unchanged lines are taken from the file as it was read (not parsed again): moving,
    copying and changing lines must still give exactly the edited records."""
    path = tmp_path / "user.sav"
    gd.write_save(path, [1, {"a": [2.5, "x"]}, gd.Vector2(3, 4)])
    body = (
        "lines = path.read_text().splitlines()\n"
        "old = [line for line in lines if not line.startswith(';')]\n"
        "values = [old[2], old[1], old[1], old[0].replace('1', '7'), '  ' + old[2]]\n"
        "path.write_text('\\n'.join(values) + '\\n')\n"
    )
    assert main(["edit", str(path), "--editor", _editor(tmp_path, body)]) == 0
    pos = gd.Vector2(3, 4)
    assert gd.read_save(path) == [pos, {"a": [2.5, "x"]}, {"a": [2.5, "x"]}, 7, pos]


def test_progress_counts_go_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS * 3)
    editor = _editor(tmp_path, "path.write_text(path.read_text().replace('12', '13'))\n")
    assert main(["edit", str(path), "--editor", editor, "--progress"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "# checking 6 of 6 records: done\n" in captured.err
    assert "# reading 6 of 6 records: done\n" in captured.err
