"""The ``gdvariant`` command (``gdvariant._cli.main``)."""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gdvariant as gd
from gdvariant import (
    PROFILES,
    GodotObject,
    PackedVector4Array,
    TypedArray,
    VariantType,
    Vector3,
    replication,
)
from gdvariant._cli import main
from tests.support.paths import EXAMPLES

NAMESPACE: dict[str, Any] = dict(vars(gd))
SAMPLE: Any = [7, "move", Vector3(1, 2, 3), {"seq": 42, "tags": ["a", "b"]}]
SAMPLE_TEXT = '[7, "move", Vector3(1, 2, 3), {"seq": 42, "tags": ["a", "b"]}]'

# Spec §5.2: a full Object: header 24 (bit 16 clear), class name String, property count.
FULL_OBJECT = struct.pack("<II4sI", 24, 4, b"Node", 0)
# An Array of 1 whose only element (an INT header at offset 8) has no payload.
TRUNCATED = struct.pack("<III", 28, 1, 2)


def _value(out: str) -> Any:
    """The value printed by ``decode``: one line of Godot text."""
    assert out.endswith("\n") and out.count("\n") == 1, out
    return gd.from_text(out)


def _python(out: str) -> Any:
    """The value printed by ``decode --format python``."""
    return eval(out, NAMESPACE)


# ---- help and version -----------------------------------------------------------------------


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in ("decode", "encode", "frames", "schema", "versions"):
        assert command in out


@pytest.mark.parametrize("command", ["decode", "encode", "frames", "schema", "versions"])
def test_subcommand_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    assert info.value.code == 0
    assert command in capsys.readouterr().out


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert gd.__version__ in capsys.readouterr().out


def test_no_command_is_a_usage_error_that_shows_the_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: gdvariant")
    for command in ("decode", "encode", "inspect", "detect", "convert", "edit", "examples:"):
        assert command in captured.err


def test_python_dash_m() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gdvariant", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "decode" in proc.stdout and "encode" in proc.stdout


# ---- decode ---------------------------------------------------------------------------------


def test_decode_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "value.bin"
    path.write_bytes(gd.dumps(SAMPLE))
    assert main(["decode", str(path)]) == 0
    captured = capsys.readouterr()
    assert _value(captured.out) == SAMPLE
    assert captured.err == ""


def test_decode_hex(capsys: pytest.CaptureFixture[str]) -> None:
    # Spec §4: STRING "abc" = header 4, length 3, bytes, one pad byte.
    assert main(["decode", "--hex", "04000000 03000000 61626300"]) == 0
    assert _value(capsys.readouterr().out) == "abc"


def test_decode_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gd.dumps(SAMPLE))))
    assert main(["decode", "-"]) == 0
    assert _value(capsys.readouterr().out) == SAMPLE


def test_decode_hex_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(gd.dumps(-5).hex() + "\n"))
    assert main(["decode", "--hex", "-"]) == 0
    assert _value(capsys.readouterr().out) == -5


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
    assert _value(capsys.readouterr().out) == "abc"


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


def _records(values: list[Any], **options: Any) -> bytes:
    out = io.BytesIO()
    gd.dump_all(values, out, **options)
    return out.getvalue()


def _printed_records(out: str) -> list[Any]:
    """The values ``decode`` printed, one record per line."""
    return [gd.from_text(line) for line in out.splitlines()]


def test_decode_reads_a_plain_store_var_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The file: record 0 is int 42 (length 8), which reads as a Rect2i header.
    records = [42, {"name": "Ayla", "pos": gd.Vector2(1, 2)}, "end"]
    path = tmp_path / "user.sav"
    path.write_bytes(_records(records))
    assert main(["decode", str(path)]) == 0
    captured = capsys.readouterr()
    assert _printed_records(captured.out) == records
    assert captured.err == "# 3 store_var records\n"


@pytest.mark.parametrize("flag", [[], ["--big-endian"]])
def test_decode_reads_big_endian_records(
    flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = _records([42, "x"], big_endian=True)
    assert data[:4] == bytes([0, 0, 0, 8])  # FileAccess.big_endian: only the length flips
    assert main(["decode", "--hex", data.hex(), *flag]) == 0
    captured = capsys.readouterr()
    assert _printed_records(captured.out) == [42, "x"]
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
    assert _printed_records(captured.out) == [42, "x"]
    assert "big-endian lengths" in captured.err


def test_decode_suggests_the_engine_that_reads_the_whole_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "godot3.sav"
    path.write_bytes(_records([{"hp": 10}, gd.Vector2(1, 2)], version="3"))
    assert main(["decode", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    # Godot 3's Dictionary (18) is Godot 4's Transform3D: 52 bytes, more than the record holds.
    assert "  as records: the length prefixes chain as 2 store_var records, but record 0 " in (
        captured.err
    )
    assert "note: -V 3 reads the whole input, as 2 store_var records" in captured.err
    assert main(["decode", str(path), "-V", "3"]) == 0
    assert _printed_records(capsys.readouterr().out) == [{"hp": 10}, gd.Vector2(1, 2)]


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
    assert _value(captured.out) == ""
    assert "also read whole as 1 store_var record: --records prints them" in captured.err
    assert main(["decode", "--hex", "0400000000000000", "--records"]) == 0
    assert _printed_records(capsys.readouterr().out) == [None]


def test_decode_records_reads_as_get_var_does(capsys: pytest.CaptureFixture[str]) -> None:
    data = _records([1]) + bytes([9, 0])  # a cut length after one record
    assert main(["decode", "--hex", data.hex(), "--records"]) == 1
    captured = capsys.readouterr()
    assert _printed_records(captured.out) == [1]
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
    assert _value(capsys.readouterr().out) == GodotObject("Node")


def test_decode_object_as_id_needs_no_flag(capsys: pytest.CaptureFixture[str]) -> None:
    data = struct.pack("<IQ", 24 | 1 << 16, 1234)  # spec §5.2: bit 16 = instance id
    assert main(["decode", "--hex", data.hex(), "--format", "python"]) == 0
    assert _python(capsys.readouterr().out) == gd.ObjectID(1234)
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


# ---- encode ---------------------------------------------------------------------------------


def test_encode_hex_matches_dumps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--hex", SAMPLE_TEXT]) == 0
    assert capsys.readouterr().out.strip() == gd.dumps(SAMPLE).hex()


def test_encode_raw_to_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["encode", "Vector3(1, 2, 3)"]) == 0
    assert capsysbinary.readouterr().out == struct.pack("<I3f", 9, 1, 2, 3)


def test_encode_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "out.bin"
    assert main(["encode", SAMPLE_TEXT, "-o", str(path)]) == 0
    assert path.read_bytes() == gd.dumps(SAMPLE)
    assert capsys.readouterr().out == ""
    assert gd.loads(path.read_bytes()) == SAMPLE


def test_encode_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(SAMPLE_TEXT + "\n"))
    assert main(["encode", "--hex", "-"]) == 0
    assert capsys.readouterr().out.strip() == gd.dumps(SAMPLE).hex()


def test_encode_full_objects(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--hex", "Object(Node)"]) == 1
    assert "full_objects" in capsys.readouterr().err
    assert main(["encode", "--hex", "--full-objects", "Object(Node)"]) == 0
    assert capsys.readouterr().out.strip() == FULL_OBJECT.hex()
    assert (
        main(["encode", "--hex", "--full-objects", "--from", "python", "GodotObject('Node')"]) == 0
    )
    assert capsys.readouterr().out.strip() == FULL_OBJECT.hex()


def test_encode_refused_expression(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--hex", "--from", "python", "__import__('os').system('echo hi')"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "__import__" in captured.err


def test_encode_unencodable_value(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--hex", "[1j]"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("gdvariant: ")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Vector2(1)", "Vector2 takes 0 or 2 arguments (x, y), got 1 (at column 1)"),
        (
            "[0, Vector3(1, 2, 3, 4)]",
            "Vector3 takes 0 or 3 arguments (x, y, z), got 4 (at column 5)",
        ),
        ("Vector2(q=1)", "Vector2(x, y): got an unexpected keyword argument 'q' (at column 1)"),
        ('{1: "a", 1: "b"}', "the key 1 is repeated (at column 10)"),
    ],
)
def test_encode_bad_call_or_key_is_one_line_in_our_words(
    text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["encode", "--hex", "--from", "python", text]) == 2
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", f"gdvariant: {message}\n")


@pytest.mark.parametrize("text", ["Vector2(1)", "[0, Vector3(1, 2, 3, 4)]", "{1: 2", "1 )"])
def test_encode_text_that_does_not_parse_is_one_line_with_line_and_column(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["encode", "--hex", text]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    if text == "1 )":  # one value, then text that is not one: from_text would ignore it
        assert captured.err == "gdvariant: <argument>, line 1, column 3: a value (got ')')\n"
        return
    with pytest.raises(gd.TextError) as info:
        gd.from_text(text)
    where = f"line {info.value.line}, column {info.value.column}"
    assert captured.err.startswith(f"gdvariant: <argument>, {where}: {info.value.expected}")


def test_encode_keeps_keys_python_would_merge(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--hex", '{1: "a", 1.0: "b", true: "c"}']) == 0
    # Spec §4/§5: DICTIONARY (27) of 3 pairs: INT 1, "a"; FLOAT 1.0 (as f32), "b"; BOOL true, "c".
    expected = (
        "1b000000 03000000"
        "02000000 01000000 04000000 01000000 61000000"
        "03000000 0000803f 04000000 01000000 62000000"
        "01000000 01000000 04000000 01000000 63000000"
    )
    assert capsys.readouterr().out.strip() == expected.replace(" ", "")


def test_encode_array_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "--hex", "{[1]: 2}"]) == 0
    # DICTIONARY of 1 pair: key ARRAY [INT 1], value INT 2.
    expected = "1b000000 01000000 1c000000 01000000 02000000 01000000 02000000 02000000"
    assert capsys.readouterr().out.strip() == expected.replace(" ", "")


# ---- engine version -------------------------------------------------------------------------


def test_engine_version_is_honoured_by_encode(capsys: pytest.CaptureFixture[str]) -> None:
    v4 = "PackedVector4Array(1, 2, 3, 4)"
    assert main(["encode", "-V", "4.2", "--hex", v4]) == 1
    assert "4.2" in capsys.readouterr().err
    assert main(["encode", "--engine-version", "4.3", "--hex", v4]) == 0
    expected = gd.dumps(PackedVector4Array([(1, 2, 3, 4)]), version="4.3")
    assert capsys.readouterr().out.strip() == expected.hex()

    typed = "Array[int]([1])"
    assert main(["encode", "-V", "3.6", "--hex", typed]) == 1  # Godot 3 has no typed Arrays
    capsys.readouterr()
    assert main(["encode", "-V", "4.3", "--hex", typed]) == 0
    value = TypedArray(VariantType.INT, [1])
    assert capsys.readouterr().out.strip() == gd.dumps(value, version="4.3").hex()


def test_engine_version_is_honoured_by_decode(capsys: pytest.CaptureFixture[str]) -> None:
    data = struct.pack("<II", 38, 0).hex()  # PackedVector4Array, empty (type 38: 4.3+)
    assert main(["decode", "-V", "4.2", "--hex", data]) == 1
    assert "offset 0" in capsys.readouterr().err
    assert main(["decode", "--hex", data]) == 0
    assert _value(capsys.readouterr().out) == PackedVector4Array()


@pytest.mark.parametrize(
    "option",
    [
        ["-V", "4.2.2"],
        ["-V", "4.2.2.stable"],
        ["--engine-version=v4.2.2-stable"],
        ["--version", "4.2"],
        ["--version=4.2.1.stable.official.abc123"],
    ],
)
def test_engine_version_as_godot_prints_it(
    option: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = struct.pack("<II", 38, 0).hex()  # PackedVector4Array, empty (type 38: 4.3+)
    assert main(["decode", *option, "--hex", data]) == 1
    assert "not Godot 4.2 data" in capsys.readouterr().err


def test_convert_to_version_as_godot_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    source = EXAMPLES / "savegame.bin"
    assert main(["convert", str(source), "--to-version", "3.6.2.stable"]) == 1
    assert capsys.readouterr().err.startswith("gdvariant: cannot convert to Godot 3.6: ")


def test_unknown_engine_version_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["decode", "-V", "nope", "--hex", "00000000"])
    assert info.value.code == 2
    assert "nope" in capsys.readouterr().err


# ---- versions -------------------------------------------------------------------------------


def test_versions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["versions"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assembler = lines.pop()  # the last two lines say which compiled parts are live, and why
    core = lines.pop()
    assert assembler.startswith(f"# replication assembler: {replication.assembler()} (")
    if replication.assembler() == "python":
        assert "compiled assembler not built" in assembler or "GDVARIANT_PURE_PYTHON" in assembler
    assert core.startswith(f"# codec core: {gd.IMPLEMENTATION} (")
    if gd.IMPLEMENTATION == "python":
        assert "compiled core not built" in core or "GDVARIANT_PURE_PYTHON" in core
    by_name = {line.split()[0]: line for line in lines}
    assert set(by_name) == set(PROFILES)
    assert "4.6" in by_name["4"]
    assert "38 types" in by_name["4.2"]
    assert "39 types" in by_name["4.3"]
    assert "typed Array" not in by_name["4.2"]
    assert "typed Array" in by_name["4.3"] and "typed Dictionary" not in by_name["4.3"]
    assert "typed Dictionary" in by_name["4.4"]


def test_versions_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["versions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(PROFILES)
    assert data["4"]["name"] == "4.6"
    assert data["4.2"]["typed_arrays"] is False
    assert data["4.3"]["typed_arrays"] is True
    assert data["4.3"]["typed_dictionaries"] is False
    assert data["4.4"]["typed_dictionaries"] is True
    assert "PACKED_VECTOR4_ARRAY" not in data["4.2"]["types"]
    assert "PACKED_VECTOR4_ARRAY" in data["4.3"]["types"]
    assert data["4.6"]["max_depth"] == 1024


def test_encode_with_framing_writes_what_put_var_sends(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["encode", "5", "--framing", "StreamPeer", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == "080000000200000005000000"  # framing.md §1
    assert main(["encode", "5", "--framing", "StreamPeer", "--big-endian", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == "000000080200000005000000"


def test_frames_decodes_a_captured_stream(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "capture.bin"
    path.write_bytes(gd.frame({"seq": 1}) + gd.frame("é") + gd.frame([1, 2])[:-3])
    assert main(["frames", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ['{"seq": 1}', '"é"']
    assert f"ends inside a frame ({len(gd.frame([1, 2])) - 3} bytes)" in captured.err
    assert "2 values" in captured.err


def test_frames_reports_a_bad_frame_and_keeps_what_came_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = gd.frame(7, version="3", framing="PacketPeerStream") + bytes.fromhex("04000000ff000000")
    assert main(["frames", "--hex", data.hex(), "-V", "3", "--framing", "PacketPeerStream"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["7"]
    assert "bad frame: unknown type id 255" in captured.err
    assert "offset 16" in captured.err


def test_frames_refuses_values_that_leave_their_frame_unread(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Godot 3's Dictionary is type 18, Godot 4's Transform3D: 48 bytes read of a longer frame.
    data = gd.frame({"slot": 1, "player": "Ayla"}, version="3") + gd.frame(5, version="3")
    assert main(["frames", "--hex", data.hex()]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "the value in frame 0 (offset 0) ends after 52 bytes, before its frame does" in (
        captured.err
    )
    assert "note: -V 3 reads every whole frame" in captured.err
    assert main(["frames", "--hex", data.hex(), "-V", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "5"


def test_frames_that_do_not_decode_suggest_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.frame([1], version="3")  # Godot 3's Array is type 19, Godot 4's Projection
    assert main(["frames", "--hex", data.hex()]) == 1
    captured = capsys.readouterr()
    assert "offset 4" in captured.err
    assert "note: -V 3 reads every whole frame" in captured.err


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


def test_a_missing_optional_package_is_one_line_naming_the_extra(
    save_without_its_package: tuple[Path, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, package, extra = save_without_its_package
    assert main(["decode", str(path), "--password", "secret"]) == 2
    captured = capsys.readouterr()
    expected = (
        f"gdvariant: this file needs the '{package}' package: pip install 'gdvariant[{extra}]'\n"
    )
    assert (captured.out, captured.err) == ("", expected)


def test_a_missing_brotli_is_one_line_naming_the_extra(
    hide_package: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    # GCPF mode 4 (Brotli) with one block; the block is never reached without the package.
    data = struct.pack("<4sIIII", b"GCPF", 4, 4096, 8, 4) + bytes(4) + b"GCPF"
    hide_package("brotli")
    assert main(["decode", "--hex", data.hex()]) == 2
    expected = "gdvariant: this file needs the 'brotli' package: pip install 'gdvariant[brotli]'\n"
    assert capsys.readouterr().err == expected


def test_ctrl_c_at_the_password_prompt_is_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "locked.sav"
    gd.write_save(path, [1], password="secret")

    def interrupted(prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", interrupted)
    assert main(["decode", str(path)]) == 130
    assert capsys.readouterr().err == "\n"


def test_ctrl_d_at_the_password_prompt_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "locked.sav"
    gd.write_save(path, [1], password="secret")

    def end_of_input(prompt: str = "") -> str:
        raise EOFError

    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("getpass.getpass", end_of_input)
    for command in (["decode"], ["convert", "--to", "text"], ["edit", "--editor", "true"]):
        assert main([*command, str(path)]) == 2
        err = capsys.readouterr().err
        assert err == "\ngdvariant: no password given (end of input): give --password or --key\n"


def test_a_closed_output_pipe_ends_quietly(tmp_path: Path) -> None:
    path = tmp_path / "big.sav"
    gd.write_save(path, [{"i": i, "pad": "x" * 100} for i in range(5000)])  # ~700 KB printed
    proc = subprocess.Popen(
        [sys.executable, "-m", "gdvariant", "decode", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline() == b'{"i": 0, "pad": "' + b"x" * 100 + b'"}\n'
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141
    assert err == b""


# ---- schema ---------------------------------------------------------------------------------

ARENA = str(EXAMPLES / "arena" / "arena_schema.py")


def test_schema_explain_prints_one_class_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "explain", f"{ARENA}:Shot"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("DT_Shot: class 1, 4 properties, fingerprint ")
    # By hand from the flattening rules: the base's position (hot) and velocity, then the
    # class's own props; heat's priority 200 sorts it after shooter's default 100.
    assert [line.split()[:2] for line in lines[2:]] == [
        ["0", "position"],
        ["1", "velocity"],
        ["2", "shooter"],
        ["3", "heat"],
    ]
    assert lines[-1].split()[-1] == "prio=200"


def test_schema_explain_of_a_module_names_every_class(capsys: pytest.CaptureFixture[str]) -> None:
    from gdvariant.replication import load_schema

    assert main(["schema", "explain", ARENA]) == 0
    out = capsys.readouterr().out
    schema, _ = load_schema(ARENA)
    assert "DT_Player: class 0" in out and "DT_Shot: class 1" in out
    assert out.rstrip().endswith(f"schema fingerprint {schema.fingerprint.hex()} (2 classes)")


def test_schema_gdscript_writes_the_decoder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gdvariant.replication import gdscript, load_schema

    schema, _ = load_schema(ARENA)
    out = tmp_path / "decoder.gd"
    assert main(["schema", "gdscript", ARENA, "-o", str(out)]) == 0
    assert out.read_text() == gdscript.generate(schema)
    assert schema.fingerprint.hex() in capsys.readouterr().err
    assert main(["schema", "gdscript", ARENA]) == 0
    assert capsys.readouterr().out == gdscript.generate(schema)


def test_schema_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad_schema.py"
    bad.write_text(
        "from gdvariant.replication import Exclude, NetClass, UInt\n"
        "class Base(NetClass, table='DT_Base'):\n"
        "    hp = UInt(8)\n"
        "class Child(Base, table='DT_Child'):\n"
        "    excludes = (Exclude(Base, 'armor'),)\n"
    )
    assert main(["schema", "explain", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Child" in err and "armor" in err, err
    assert main(["schema", "explain", f"{ARENA}:Nope"]) == 2
    assert "has no networked class 'Nope'" in capsys.readouterr().err
    assert main(["schema", "explain", "no_such_module_here"]) == 2
    assert "cannot import no_such_module_here" in capsys.readouterr().err
    empty = tmp_path / "empty.py"
    empty.write_text("X = 1\n")
    assert main(["schema", "gdscript", str(empty)]) == 2
    assert "no networked (NetClass) classes" in capsys.readouterr().err


# ---- how decode prints ----------------------------------------------------------------------


def test_decode_keeps_the_stored_key_order_and_exact_floats(
    capsys: pytest.CaptureFixture[str],
) -> None:
    value = {"z": 0.1, "a": gd.Color(0.9, 0.2, 0.3, 1), 3: -0.0}
    assert main(["decode", "--hex", gd.dumps(value).hex()]) == 0
    out = capsys.readouterr().out
    # Not var_to_str's sorted layout: the bytes' order, one line, floats that read back.
    assert out == '{"z": 0.1, "a": Color(0.9, 0.2, 0.3, 1), 3: -0.0}\n'
    assert gd.dumps(gd.from_text(out)) == gd.dumps(value)


def test_decode_format_godot_is_var_to_str(capsys: pytest.CaptureFixture[str]) -> None:
    value = {"z": 1, "a": 2}
    assert main(["decode", "--hex", gd.dumps(value).hex(), "--format", "godot"]) == 0
    assert capsys.readouterr().out == gd.to_text(value) + "\n"


def test_long_containers_are_shortened_unless_full(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.dumps([list(range(3000)), bytes(50)])
    assert main(["decode", "--hex", data.hex()]) == 0
    captured = capsys.readouterr()
    first, second = captured.out[1:-2].split("], ")
    assert first == "[" + ", ".join(map(str, range(20))) + ", ... 2980 more"
    assert second == "PackedByteArray(" + "0, " * 20 + "... 30 more)"
    assert "--full prints them whole" in captured.err
    assert main(["decode", "--hex", data.hex(), "--full"]) == 0
    captured = capsys.readouterr()
    assert gd.dumps(gd.from_text(captured.out)) == data
    assert captured.err == ""


def test_a_string_that_looks_like_a_mark_is_not_a_shortening(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["decode", "--hex", gd.dumps("... 3 more").hex()]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("env", "flag", "coloured"),
    [({}, "always", True), ({}, "never", False), ({"NO_COLOR": "1"}, "auto", False)],
)
def test_colour(
    env: dict[str, str],
    flag: str,
    coloured: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["decode", "--hex", gd.dumps(["a", 1]).hex(), "--color", flag]) == 0
    out = capsys.readouterr().out
    assert ("\x1b[32m" in out) == coloured  # green strings
    if coloured:
        assert out == '[\x1b[32m"a"\x1b[0m, \x1b[36m1\x1b[0m]\n'


def test_no_colour_in_a_pipe(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--hex", gd.dumps("a").hex()]) == 0
    assert capsys.readouterr().out == '"a"\n'


def test_decode_reads_a_capture_that_stops_mid_frame(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.frame({"seq": 1}) + gd.frame("hi") + gd.frame([1, 2])[:-3]
    assert main(["decode", "--hex", data.hex()]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ['{"seq": 1}', '"hi"']
    cut = len(gd.frame([1, 2])) - 3
    assert captured.err == f"# 2 put_var frames (then {cut} bytes of a frame the capture cuts)\n"


def test_godot2_has_no_text_syntax_here(capsys: pytest.CaptureFixture[str]) -> None:
    data = gd.dumps(5, version="2")
    assert main(["decode", "-V", "2", "--hex", data.hex()]) == 2
    assert "use --format json or python" in capsys.readouterr().err
    assert main(["decode", "-V", "2", "--hex", data.hex(), "--format", "python"]) == 0
    assert capsys.readouterr().out == "5\n"


def test_encode_reads_a_file_or_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "value.txt"
    path.write_text('; a comment, as in .tres files\n{"a": Vector2(1, 2)}\n')
    assert main(["encode", "-i", str(path), "--hex"]) == 0
    assert capsys.readouterr().out.strip() == gd.dumps({"a": gd.Vector2(1, 2)}).hex()
    monkeypatch.setattr(sys, "stdin", io.StringIO('1\n"two"\n'))
    assert main(["encode", "--records", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == _records([1, "two"]).hex()


def test_decode_json_lines_read_back_to_the_same_records(
    capsys: pytest.CaptureFixture[str],
) -> None:
    values = [{"k": gd.Vector2i(1, 2), 3: 1.5}, gd.StringName("x\u2028y"), [1.0, 2]]
    data = _records(values)
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


def test_encode_from_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["encode", "--from", "json", '{"$type": "Vector2i", "args": [1, 2]}', "--hex"]) == 0
    assert capsys.readouterr().out.strip() == "060000000100000002000000"  # godot4.md §4: 6, x, y
    monkeypatch.setattr(sys, "stdin", io.StringIO('1\n\n"two"\n'))
    assert main(["encode", "--from", "json", "--records", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == _records([1, "two"]).hex()
    assert main(["encode", "--from", "json", "--records", "--hex", '1\n{"$type": 5}']) == 1
    assert capsys.readouterr().err.startswith("gdvariant: line 2: ")


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    data=st.one_of(
        st.binary(max_size=48),
        st.builds(lambda b: gd.frame([1, "x"]) + b, st.binary(max_size=12)),
        st.builds(lambda b: b"GCPF" + b, st.binary(max_size=32)),
    ),
    command=st.sampled_from(["decode", "inspect", "detect"]),
)
def test_any_bytes_end_in_a_status_not_a_traceback(
    data: bytes, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main([command, "--hex", data.hex() or "00"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if status == 2:  # bytes that start like an encrypted save: a usage error, not bad data
        assert data.startswith(b"GDEC") and "--password or --key" in err
    else:
        assert status in (0, 1)
