"""``gdvariant edit`` with editors that are small scripts: the file comes back in its own
container, or stays untouched when the edit does not parse."""

from __future__ import annotations

import hashlib
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._cli import main
from gdvariant._savefile import open_container

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


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("text + '{oops\\n'", ", line 5, column 2: "),
        ("text.replace('Vector3(', 'Vector3(1, 2) Vector3(')", ", line 4, column "),
        ("text.replace('12', 'Vector2i(1, 2)')", "Vector2i"),  # -V 3 cannot write it
    ],
)
def test_an_edit_that_does_not_parse_writes_nothing(
    change: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "user.sav"
    gd.write_save(path, RECORDS, password="secret", version="3")
    digest = _md5(path)
    editor = _editor(tmp_path, f"text = path.read_text()\npath.write_text({change})\n")
    argv = ["edit", str(path), "-V", "3", "--password", "secret", "--editor", editor]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gdvariant: ")
    assert message in err
    assert "nothing written" in err
    assert _md5(path) == digest
    kept = Path(err.rsplit("the edit is kept in ", 1)[1].strip())
    assert kept.read_text() != ""
    kept.unlink()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".user.sav")] == []


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
