"""``gdvariant._cli._portability`` and ``gdvariant convert``: between engine releases and forms."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._cli import main
from gdvariant._cli._portability import problems
from gdvariant._engines.profiles import get_profile
from gdvariant._files.wrapping import open_container


def test_every_value_the_target_cannot_hold_is_listed_with_its_path() -> None:
    values: list[Any] = [
        {"a": gd.StringName("x"), "b": [gd.Vector2i(1, 2), 3]},
        5,
        gd.TypedArray(gd.VariantType.INT, [1]),
    ]
    found = [(p.record, p.path) for p in problems(values, get_profile("3"))]
    assert found == [(0, '["a"]'), (0, '["b"][0]'), (2, "")]
    assert problems(values, get_profile("4")) == []


def test_keys_the_target_would_hold_as_one_are_listed() -> None:
    """Godot 4 compares Dictionaries by value (two ``{}`` keys are one), Godot 3 by identity;
    Godot 3 matches NaN inside an Array, Godot 4 does not
    (tests/live/codec/test_dictionary_keys.py)."""
    nan = float("nan")
    value = gd.Dictionary([({}, 1), ({}, 2), ("x", [gd.Dictionary([([nan], 3), ([nan], 4)])])])
    four = problems([5, value], get_profile("4"))
    assert [(p.record, p.path) for p in four] == [(1, "{key #1}")]
    assert "Godot 4.6 holds this key and key #0 as one key" in four[0].reason
    three = [(p.record, p.path) for p in problems([value], get_profile("3"), records=False)]
    assert three == [(None, '["x"][0]{key #1}')]
    assert problems([value], get_profile("2.1")) == []  # no rule known: not checked


def test_godot2_values_do_not_convert_to_godot4() -> None:
    image = gd.Image(format=4, mipmaps=0, width=1, height=1, data=b"\xff\x00\x00\xff")
    (problem,) = problems([[1, image]], get_profile("4"))
    assert (problem.record, problem.path) == (0, "[1]")


def test_convert_a_godot3_save_to_godot4_keeps_its_container(tmp_path: Path) -> None:
    source, target = tmp_path / "three.sav", tmp_path / "four.sav"
    values = [{"hp": 10}, gd.Vector2(1, 2), gd.PackedStringArray(["a"])]
    gd.write_save(source, values, version="3", compression=gd.Compression.GZIP, block_size=32)
    assert main(["convert", "-V", "3", str(source), "--to-version", "4", "-o", str(target)]) == 0
    container, plain = open_container(target.read_bytes())
    assert (container.kind, container.compression, container.block_size) == (
        "GCPF",
        gd.Compression.GZIP,
        32,
    )
    assert plain == b"".join(gd.records(values, version="4"))


def test_convert_to_text_and_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "user.sav"
    values = [{"b": 1, "a": [0.1, gd.Vector3(1, 2, 3)]}, gd.StringName("n"), -0.0]
    gd.write_save(source, values, big_endian=True)
    text = tmp_path / "user.txt"
    assert main(["convert", str(source), "-o", str(text)]) == 0
    lines = text.read_text().splitlines()
    assert lines[0] == "; gdvariant: 3 store_var records, big-endian lengths for Godot 4.6"
    assert lines[1:] == ['{"b": 1, "a": [0.1, Vector3(1, 2, 3)]}', '&"n"', "-0.0"]
    back = tmp_path / "back.sav"
    assert main(["convert", str(text), "-o", str(back)]) == 0
    assert back.read_bytes() == source.read_bytes()  # the byte order comes from the comment
    capsys.readouterr()
    assert main(["convert", str(source), "--to", "text"]) == 0
    assert capsys.readouterr().out == text.read_text()


def test_a_single_value_converts_to_text_and_back(tmp_path: Path) -> None:
    source = tmp_path / "v.bin"
    source.write_bytes(gd.dumps([1, "x"]))
    text = tmp_path / "v.txt"
    assert main(["convert", str(source), "-o", str(text)]) == 0
    assert text.read_text().splitlines()[0] == "; gdvariant: one value for Godot 4.6"
    back = tmp_path / "v2.bin"
    assert main(["convert", str(text), "-o", str(back)]) == 0
    assert back.read_bytes() == source.read_bytes()


def test_convert_refuses_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "four.bin"
    source.write_bytes(gd.dumps({"k": gd.Vector2i(1, 2)}))
    target = tmp_path / "three.bin"
    assert main(["convert", str(source), "--to-version", "3", "-o", str(target), "--json"]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["problems"] == [
        {"record": None, "path": '["k"]', "reason": "Godot 3.6 has no VECTOR2I type (Vector2i)"}
    ]
    assert captured.err.splitlines()[1] == (
        '  the value at ["k"]: Godot 3.6 has no VECTOR2I type (Vector2i)'
    )
    assert not target.exists()


def test_convert_to_json_lines_and_back(tmp_path: Path) -> None:
    source = tmp_path / "user.sav"
    values = [{"b": 1, "a": [0.1, gd.Vector3(1, 2, 3)]}, gd.StringName("n"), -0.0]
    gd.write_save(source, values)
    lines = tmp_path / "user.jsonl"
    assert main(["convert", str(source), "-o", str(lines)]) == 0
    assert len(lines.read_text().splitlines()) == 3
    back = tmp_path / "back.sav"
    assert main(["convert", str(lines), "-o", str(back)]) == 0
    assert back.read_bytes() == source.read_bytes()
    single = tmp_path / "one.json"
    single.write_text(gd.to_json([1, 2]))
    assert main(["convert", str(single), "-o", str(tmp_path / "one.bin")]) == 0
    assert (tmp_path / "one.bin").read_bytes() == gd.dumps([1, 2])


def test_a_value_without_exact_text_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "s.sav"
    gd.write_save(source, [1, gd.Signal("hit", 5)])
    assert main(["convert", str(source), "--to", "text"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("gdvariant: record 1 has no exact text: a Signal's name")
    assert main(["convert", str(source), "--to", "json"]) == 0  # JSON keeps it
    lines = capsys.readouterr().out.splitlines()
    assert gd.from_json(lines[1]) == gd.Signal("hit", 5)


def test_convert_counts_its_work_on_stderr_with_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "three.sav"
    gd.write_save(source, [{"hp": i} for i in range(5)], version="3")
    assert main(["convert", "-V", "3", str(source), "--to", "text", "--progress"]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("\n") == 6  # the heading comment and the five records
    assert "# checking 5 of 5 records: done\n" in captured.err
    assert "# writing 5 of 5 records as text: done\n" in captured.err
