"""``gdvariant encode`` (``gdvariant._cli.encode``): Godot text, JSON or records to bytes,
to stdout, hex or a file."""

from __future__ import annotations

import io
import struct
import sys
from pathlib import Path

import pytest

import gdvariant as gd
from gdvariant._cli import main
from tests.support.cli_values import (
    FULL_OBJECT,
    SAMPLE,
    SAMPLE_TEXT,
    store_var_records,
)


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


def test_encode_reads_a_file_or_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "value.txt"
    path.write_text('; a comment, as in .tres files\n{"a": Vector2(1, 2)}\n')
    assert main(["encode", "-i", str(path), "--hex"]) == 0
    assert capsys.readouterr().out.strip() == gd.dumps({"a": gd.Vector2(1, 2)}).hex()
    monkeypatch.setattr(sys, "stdin", io.StringIO('1\n"two"\n'))
    assert main(["encode", "--records", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == store_var_records([1, "two"]).hex()


def test_encode_from_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["encode", "--from", "json", '{"$type": "Vector2i", "args": [1, 2]}', "--hex"]) == 0
    assert capsys.readouterr().out.strip() == "060000000100000002000000"  # godot4.md §4: 6, x, y
    monkeypatch.setattr(sys, "stdin", io.StringIO('1\n\n"two"\n'))
    assert main(["encode", "--from", "json", "--records", "--hex"]) == 0
    assert capsys.readouterr().out.strip() == store_var_records([1, "two"]).hex()
    assert main(["encode", "--from", "json", "--records", "--hex", '1\n{"$type": 5}']) == 1
    assert capsys.readouterr().err.startswith("gdvariant: line 2: ")
