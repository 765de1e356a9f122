"""``from_text``: the engines' own texts (golden records), the spec note's reader rules and
what the engine tests showed of them, and the errors for everything else."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._floats import f32
from gdvariant._text.parser import from_text_all, iter_text_all
from tests.support.vectors import GOLDEN_RELEASES, golden


def test_reads_the_engines_texts() -> None:
    """Every text Godot 4.6 wrote for the golden values reads; Godot 3 writes a few that its
    own reader rejects too (an RID as nothing; 3.2: inf/nan inside constructors), which the
    engine tests confirm. Whether each reads to the engine's value is checked against the
    engines in test_engine_text."""
    for version in GOLDEN_RELEASES:
        for record in golden(version):
            try:
                gd.from_text(record["text"], version=version)
            except gd.TextError:
                has_rid = '["RID"' in json.dumps(record["value"])
                has_words = version == "3.2" and (
                    "inf" in record["text"] or "nan" in record["text"]
                )
                assert version != "4.6" and (has_rid or has_words), record["name"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("  ; comment\n 42 ; more", 42),
        ("[1, 2,]", [1, 2]),
        ('{"a": 1,}', {"a": 1}),
        ("1 2", 1),
        ("nil", None),
        ("1.", 1.0),
        ("1e", 1.0),
        ("1E5", 100000.0),
        ("99999999999999999999", (1 << 63) - 1),
        ('&"n"', gd.StringName("n")),
        ('@"n"', gd.StringName("n")),
        ('"\\u00e9\\ud83d\\ude00\\q\\a"', "é😀qa"),
        ("Quat(0, 0, 0, 1)", gd.Quaternion(0, 0, 0, 1)),
        ("Matrix32(1, 0, 0, 1, 0, 0)", gd.Transform2D()),
        ("Rect3(1, 2, 3, 4, 5, 6)", gd.AABB((1, 2, 3), (4, 5, 6))),
        ("Transform(1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0)", gd.Transform3D()),
        ("Vector2(0.1, inf_neg)", gd.Vector2(f32(0.1), -math.inf)),
        ("Vector2i(1.9, 4294967297)", gd.Vector2i(1, 1)),
        ("PoolIntArray(1, 2)", gd.PackedInt32Array([1, 2])),
        ("PoolVector2Array(1, 2, 3)", gd.PackedVector2Array([(1, 2)])),
        ('PackedByteArray("AQL/")', b"\x01\x02\xff"),
        ("ByteArray(1, 300)", b"\x01\x2c"),
        ('PoolStringArray("a", "b",)', gd.PackedStringArray(["a", "b"])),
        ('NodePath("a/b:c"', gd.NodePath("a/b:c")),
        ("RID(5)", gd.RID(5)),
        ("Array[int]([1])", gd.TypedArray(gd.VariantType.INT, [1])),
        ('Dictionary[String, Variant]({"a": 1})', gd.Dictionary({"a": 1}, gd.VariantType.STRING)),
        ("{1: 2, 1.0: 3, true: 4}", gd.Dictionary([(1, 2), (1.0, 3), (True, 4)])),
        ('{"k": 1, &"k": 2}', {"k": 2}),
    ],
)
def test_godot4_reads(text: str, value: Any) -> None:
    got = gd.from_text(text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("text", "version", "value"),
    [
        ("-inf", "4.6", -math.inf),
        ("-inf", "4.4", 0),  # "-" is the int 0; the rest is ignored
        ("1E5", "4.3", 1),
        ("RID(5)", "3", 5),
        ("Vector2( inf, 1 )", "3.6", gd.Vector2(math.inf, 1)),
        ("PackedInt64Array(5)", "3.6", gd.PackedInt32Array([5])),
        ('"\\U01F600"', "3", "U01F600"),
        ('"\\U01F600"', "4", "\U0001f600"),
    ],
)
def test_release_differences(text: str, version: str, value: Any) -> None:
    assert gd.from_text(text, version=version) == value


@pytest.mark.parametrize(
    ("text", "version", "line", "column", "expected"),
    [
        ("[1,\n 2 x]", "4", 2, 4, "',' or ']'"),
        ('{\n"a" 1}', "4", 2, 5, "':'"),
        ("Vector2(1, 2,)", "4", 1, 14, "a number"),
        ("Vector2(1)", "4", 1, 8, "2 arguments"),
        ("#ff0000", "4", 1, 1, "a value"),
        ('"open', "4", 1, 1, "unterminated"),
        ('"\\ud83d"', "4", 1, 1, "surrogate"),
        ("", "4", 1, 1, "a value"),
        ("[", "4", 1, 2, "end of text"),
        ("Unknown(1)", "4", 1, 1, "a value"),
        ('Resource("res://a.tres")', "4", 1, 1, "resource"),
        ('&"x"', "3", 1, 1, "a value"),
        ("Vector2( inf, 1 )", "3.2", 1, 10, "a number"),
        ("PackedInt32Array(1)", "3.2", 1, 1, "a value"),
        ("RID()", "3", 1, 5, "an integer"),
        ('PackedByteArray("!!")', "4", 1, 17, "base64"),
    ],
)
def test_errors_say_where_and_what(
    text: str, version: str, line: int, column: int, expected: str
) -> None:
    with pytest.raises(gd.TextError) as info:
        gd.from_text(text, version=version)
    err = info.value
    assert isinstance(err, gd.DecodeError)
    assert (err.line, err.column) == (line, column)
    assert expected in err.expected
    assert str(err).startswith(f"line {line}, column {column}:")


def test_nesting_is_capped() -> None:
    with pytest.raises(gd.TextError, match="nested"):
        gd.from_text("[" * 500 + "]" * 500)
    with pytest.raises(gd.TextError, match="nested"):
        gd.from_text("[[[[1]]]]", limits=gd.Limits(max_depth=3))


def test_size_limit_and_type() -> None:
    with pytest.raises(gd.TextError, match="max_size"):
        gd.from_text("[" + "1, " * 100 + "]", limits=gd.Limits(max_size=50))
    with pytest.raises(TypeError):
        gd.from_text(b"1")  # type: ignore[arg-type]


class _Scanned(str):
    """Text that adds up how many characters its ``count`` calls look at."""

    scanned = 0

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:
        first = 0 if start is None else start
        last = len(self) if end is None else end
        type(self).scanned += max(0, last - first)
        return str.count(self, sub, start, end)


def test_reading_many_values_scans_the_text_a_bounded_number_of_times() -> None:
    """Each value's line number is counted on from the last one, not from the start (which
    made reading records quadratic: 100,000 records took minutes in ``gdvariant edit``)."""
    text = _Scanned("".join(f'{{"i": {i}}}\n' for i in range(3000)))
    _Scanned.scanned = 0
    values = from_text_all(text)
    assert [line for _, line in values] == list(range(1, 3001))
    assert values[2999][0] == {"i": 2999}
    assert _Scanned.scanned <= 2 * len(text)


def test_known_lines_are_taken_as_they_are_and_the_rest_is_read() -> None:
    mark = object()
    text = "; a comment\n1 [2]\n[2]\n  [2]\n[3]\n[2] 4\n"
    read = list(iter_text_all(text, known={"[2]": mark}))
    # only a value that starts a line, and fills it, is known: the others are read
    assert [value for value, _ in read] == [1, [2], mark, [2], [3], [2], 4]
    assert [line for _, line in read] == [2, 2, 3, 4, 5, 6, 6]
