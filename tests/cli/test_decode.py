"""``gdvariant decode`` (``gdvariant._cli.decode``): a value, records, frames and save
files, from a file, hex or stdin; what it prints for each, and the one line it says when the
bytes are not what was asked."""

from __future__ import annotations

import io
import struct
import sys
from pathlib import Path
from typing import Any, Literal

import pytest

import gdvariant as gd
from gdvariant import (
    GodotObject,
)
from gdvariant._cli import main
from tests.support.cli_values import (
    FULL_OBJECT,
    SAMPLE,
    TRUNCATED,
    printed_records,
    printed_value,
    python_value,
    store_var_records,
)


def test_decode_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "value.bin"
    path.write_bytes(gd.dumps(SAMPLE))
    assert main(["decode", str(path)]) == 0
    captured = capsys.readouterr()
    assert printed_value(captured.out) == SAMPLE
    assert captured.err == ""


def test_decode_hex(capsys: pytest.CaptureFixture[str]) -> None:
    # Spec §4: STRING "abc" = header 4, length 3, bytes, one pad byte.
    assert main(["decode", "--hex", "04000000 03000000 61626300"]) == 0
    assert printed_value(capsys.readouterr().out) == "abc"


def test_decode_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gd.dumps(SAMPLE))))
    assert main(["decode", "-"]) == 0
    assert printed_value(capsys.readouterr().out) == SAMPLE


def test_decode_hex_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(gd.dumps(-5).hex() + "\n"))
    assert main(["decode", "--hex", "-"]) == 0
    assert printed_value(capsys.readouterr().out) == -5


def test_decode_all_prints_every_value_with_offsets(capsys: pytest.CaptureFixture[str]) -> None:
    data = struct.pack("<Ii", 2, 1) + struct.pack("<II3sx", 4, 3, b"abc")  # int 1, then "abc"
    assert main(["decode", "--hex", data.hex(), "--all"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["1", '"abc"']
    assert captured.err.splitlines() == ["# offset 0, 8 bytes", "# offset 8, 12 bytes"]


@pytest.mark.parametrize("fmt", ["json", "godot-json"])
def test_decode_all_in_json_is_json_lines(fmt: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing but the values on stdout, so ``| jq`` reads it (the offsets go to stderr)."""
    values: list[Any] = [{"a": 1}, [2, "b"]]
    data = b"".join(gd.dumps(value) for value in values)
    assert main(["decode", "--hex", data.hex(), "--all", "--format", fmt]) == 0
    lines = capsys.readouterr().out.splitlines()
    dialect: Literal["godot", "tagged"] = "godot" if fmt == "godot-json" else "tagged"
    assert [gd.from_json(line, dialect=dialect) for line in lines] == values


def test_decode_offset(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.dumps(1) + gd.dumps("abc")
    assert main(["decode", "--hex", data.hex(), "--offset", "8"]) == 0
    assert printed_value(capsys.readouterr().out) == "abc"


def test_decode_refuses_trailing_bytes_and_says_how_much_decoded(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = gd.dumps(1) + gd.dumps("abc")  # two bare values: 8 bytes, then 12
    assert main(["decode", "--hex", data.hex()]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        "gdvariant: the bytes are not Godot 4.6 data: neither one value nor store_var records",
        "  as one value: only 8 of 20 bytes decode (an int)",
        "  as records: the length prefixes do not chain to the end of the input",
        "note: they read whole as values one after another: --all prints them",
    ]


def test_decode_reads_a_plain_store_var_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The file: record 0 is int 42 (length 8), which reads as a Rect2i header.
    records = [42, {"name": "Ayla", "pos": gd.Vector2(1, 2)}, "end"]
    path = tmp_path / "user.sav"
    path.write_bytes(store_var_records(records))
    assert main(["decode", str(path)]) == 0
    captured = capsys.readouterr()
    assert printed_records(captured.out) == records
    assert captured.err == "# 3 store_var records\n"


@pytest.mark.parametrize("flag", [[], ["--big-endian"]])
def test_decode_reads_big_endian_records(
    flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = store_var_records([42, "x"], big_endian=True)
    assert data[:4] == bytes([0, 0, 0, 8])  # FileAccess.big_endian: only the length flips
    assert main(["decode", "--hex", data.hex(), *flag]) == 0
    captured = capsys.readouterr()
    assert printed_records(captured.out) == [42, "x"]
    assert "big-endian lengths" in captured.err


@pytest.mark.parametrize(
    "options",
    [{"compression": gd.Compression.DEFLATE}, {"password": "secret"}, {"key": bytes(32)}],
)
def test_decode_reads_big_endian_records_in_a_save_container(
    options: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Was: "a record of 134,217,728 bytes is over the max_size limit" (length 8, big-endian).
    path = tmp_path / "user.sav"
    gd.write_save(path, [42, "x"], big_endian=True, **options)
    secret = ["--password", "secret"] if "password" in options else []
    secret += ["--key", bytes(32).hex()] if "key" in options else []
    assert main(["decode", str(path), *secret]) == 0
    captured = capsys.readouterr()
    assert printed_records(captured.out) == [42, "x"]
    assert "big-endian lengths" in captured.err


def test_decode_suggests_the_engine_that_reads_the_whole_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "godot3.sav"
    path.write_bytes(store_var_records([{"hp": 10}, gd.Vector2(1, 2)], version="3"))
    assert main(["decode", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    # Godot 3's Dictionary (18) is Godot 4's Transform3D: 52 bytes, more than the record holds.
    assert "  as records: the length prefixes chain as 2 store_var records, but record 0 " in (
        captured.err
    )
    assert "note: -V 3 reads the whole input, as 2 store_var records" in captured.err
    assert main(["decode", str(path), "-V", "3"]) == 0
    assert printed_records(capsys.readouterr().out) == [{"hp": 10}, gd.Vector2(1, 2)]


def test_decode_suggests_the_engine_for_a_single_value(capsys: pytest.CaptureFixture[str]) -> None:
    data = struct.pack("<II", 19, 0)  # Godot 3 ARRAY (19), empty; 19 is PROJECTION in Godot 4
    assert main(["decode", "--hex", data.hex()]) == 1
    assert "note: -V 3 reads the whole input, as one value" in capsys.readouterr().err


def test_decode_garbage_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", "ffffffff" * 5]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("gdvariant: the bytes are not Godot 4.6 data")
    assert "note:" not in captured.err


def test_decode_bytes_that_are_a_value_and_records_print_the_value_and_say_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Spec §4: 04000000 00000000 is the empty String; as a record it is length 4, then null.
    assert main(["decode", "--hex", "0400000000000000"]) == 0
    captured = capsys.readouterr()
    assert printed_value(captured.out) == ""
    assert "also read whole as 1 store_var record: --records prints them" in captured.err
    assert main(["decode", "--hex", "0400000000000000", "--records"]) == 0
    assert printed_records(capsys.readouterr().out) == [None]


def test_decode_records_reads_as_get_var_does(capsys: pytest.CaptureFixture[str]) -> None:
    data = store_var_records([1]) + bytes([9, 0])  # a cut length after one record
    assert main(["decode", "--hex", data.hex(), "--records"]) == 1
    captured = capsys.readouterr()
    assert printed_records(captured.out) == [1]
    assert "ends inside a record's length" in captured.err


def test_decode_all_and_records_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["decode", "--hex", "00000000", "--all", "--records"])
    assert info.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_decode_an_empty_file_is_zero_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.sav"
    path.write_bytes(b"")
    assert main(["decode", str(path)]) == 0
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "# 0 store_var records\n")


def test_decode_offset_outside_the_data(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", "00000000", "--offset", "9"]) == 2
    assert capsys.readouterr().err == "gdvariant: --offset 9 is outside the 4 bytes\n"


def test_decode_full_object_needs_allow_objects(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", FULL_OBJECT.hex()]) == 1
    captured = capsys.readouterr()
    assert "ERR_UNAUTHORIZED" in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""

    assert main(["decode", "--hex", FULL_OBJECT.hex(), "--allow-objects"]) == 0
    assert printed_value(capsys.readouterr().out) == GodotObject("Node")


def test_decode_object_as_id_needs_no_flag(capsys: pytest.CaptureFixture[str]) -> None:
    data = struct.pack("<IQ", 24 | 1 << 16, 1234)  # spec §5.2: bit 16 = instance id
    assert main(["decode", "--hex", data.hex(), "--format", "python"]) == 0
    assert python_value(capsys.readouterr().out) == gd.ObjectID(1234)
    # Godot makes an EncodedObjectAsID of it (spec godot3.md §5.2), and prints that object.
    assert main(["decode", "--hex", data.hex()]) == 0
    assert capsys.readouterr().out == 'Object(EncodedObjectAsID,"object_id":1234)\n'


def test_decode_bad_input_exit_1_with_offset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", TRUNCATED.hex()]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("gdvariant: ")
    assert "offset 8" in captured.err
    assert "Traceback" not in captured.err


def test_decode_bad_input_from_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(b"\x02\x00")  # shorter than a header
    assert main(["decode", str(path)]) == 1
    assert "offset 0" in capsys.readouterr().err


def test_decode_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", str(tmp_path / "missing.bin")]) == 2
    assert capsys.readouterr().err.startswith("gdvariant: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hex", "0400 zz"], "--hex: 'z' at character 6 is not a hex digit"),
        (["--hex", "040"], "--hex: an odd number of hex digits (3): a byte is cut"),
        (["--hex", "00000000", "--key", "0x12"], "--key: 'x' at character 2 is not a hex digit"),
    ],
)
def test_decode_bad_hex_is_one_line_in_our_words(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = gd.encrypt(b"", key=bytes(32), layout=3) if "--key" in args else None
    if data is not None:
        args = ["--hex", data.hex(), *args[2:]]
    assert main(["decode", *args]) == 2
    assert capsys.readouterr().err == f"gdvariant: {message}\n"


def test_decode_negative_offset_is_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", gd.dumps(1).hex(), "--offset", "-3"]) != 0
    assert capsys.readouterr().err.startswith("gdvariant: ")


def test_api_decode_negative_offset_is_value_error() -> None:
    data = gd.dumps(1) + gd.dumps(2)
    with pytest.raises(ValueError):
        gd.decode(data, offset=-8)
    with pytest.raises(ValueError):
        gd.decode(data, offset=-3)


def test_decode_opens_encrypted_and_compressed_saves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    enc = tmp_path / "enc.sav"
    gd.write_save(enc, [1, "two"], password="pässwörd", version="3")
    assert main(["decode", str(enc), "-V", "3", "--password", "pässwörd"]) == 0
    assert capsys.readouterr().out.splitlines() == ["1", '"two"']
    assert main(["decode", str(enc), "-V", "3", "--password", "wrong"]) == 1
    assert "MD5 check failed" in capsys.readouterr().err
    zipped = tmp_path / "zip.sav"
    gd.write_save(zipped, [{"k": 3}], compression=gd.Compression.GZIP)
    assert main(["decode", str(zipped)]) == 0
    assert capsys.readouterr().out.splitlines() == ['{"k": 3}']
    key = bytes(range(32))
    gd.write_save(enc, [5], key=key)
    assert main(["decode", str(enc), "--key", key.hex()]) == 0
    assert capsys.readouterr().out.splitlines() == ["5"]


def test_decode_reads_a_capture_that_stops_mid_frame(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.frame({"seq": 1}) + gd.frame("hi") + gd.frame([1, 2])[:-3]
    assert main(["decode", "--hex", data.hex()]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ['{"seq": 1}', '"hi"']
    cut = len(gd.frame([1, 2])) - 3
    assert captured.err == f"# 2 put_var frames (then {cut} bytes of a frame the capture cuts)\n"


def test_decode_json_lines_read_back_to_the_same_records(
    capsys: pytest.CaptureFixture[str],
) -> None:
    values = [{"k": gd.Vector2i(1, 2), 3: 1.5}, gd.StringName("x\u2028y"), [1.0, 2]]
    data = store_var_records(values)
    assert main(["decode", "--hex", data.hex(), "--format", "json"]) == 0
    out = capsys.readouterr().out
    lines = out.split("\n")[:-1]
    assert out.splitlines() == lines  # U+2028 is escaped: every reader sees the same lines
    assert len(lines) == len(values)
    assert [gd.dumps(gd.from_json(line)) for line in lines] == [gd.dumps(v) for v in values]


def test_decode_godot_json_is_json_from_native(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", gd.dumps(gd.Vector2(1, 2)).hex(), "-f", "godot-json"]) == 0
    # text-format.md §8: JSON.from_native writes a Vector2 as its type and its args.
    assert capsys.readouterr().out == '{"args":[1.0,2.0],"type":"Vector2"}\n'
