"""``to_text``: the engines' own ``var_to_str`` / ``var2str`` texts (the golden records) and
the spec note's examples, per release line; the exact mode's guarantees."""

from __future__ import annotations

import math
import random
import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._floats import f32, godot_strtod
from tests.support.vectors import GOLDEN_RELEASES, NOT_IN_BYTES, golden


def _records() -> list[tuple[str, dict[str, Any]]]:
    return [
        (version, record)
        for version in GOLDEN_RELEASES
        for record in golden(version)
        if record["name"] not in NOT_IN_BYTES
    ]


@pytest.mark.parametrize(
    ("version", "record"), _records(), ids=lambda x: x if isinstance(x, str) else x["name"]
)
def test_engine_text(version: str, record: dict[str, Any]) -> None:
    value = gd.loads(bytes.fromhex(record["bytes_objects"]), version=version, allow_objects=True)
    assert gd.to_text(value, version=version) == record["text"]


SN = gd.StringName


@pytest.mark.parametrize(
    ("value", "version", "text"),
    [
        (-0.0, "4", "0.0"),
        (-math.inf, "4", "inf_neg"),
        (123456789.0, "4.6", "123456789.0"),
        (123456789.0, "4.4", "1.23457e+08"),
        (123456.7, "4.4", "123457.0"),
        (1e300, "4.4", "1e+300"),
        (1e300, "3.6", "inf"),
        (gd.Vector2(0.1, 1 / 3), "4.4", "Vector2(0.1, 0.333333)"),
        (gd.RID(), "4.0", ""),
        (gd.RID(), "4.1", "RID()"),
        (gd.Callable(), "4.6", "Callable()"),
        ({"b": 2, SN("a"): 1}, "4.4", '{\n&"a": 1,\n"b": 2\n}'),
        ({"b": 2, SN("a"): 1}, "4.3", '{\n"b": 2,\n&"a": 1\n}'),
        (gd.NodePath("a?b"), "3.6", 'NodePath("a\\?b")'),
        (gd.PackedStringArray(["a", 'b"c\n']), "3", 'PoolStringArray( "a", "b\\"c\\n" )'),
        (b"", "3", "PoolByteArray(  )"),
        (gd.Quaternion(0, 0, 0, 1), "3", "Quat( 0, 0, 0, 1 )"),
        (gd.Transform3D(), "3", "Transform( 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 )"),
        (gd.Dictionary({}, gd.VariantType.STRING_NAME), "4", "Dictionary[StringName, Variant]({})"),
        (gd.TypedArray(gd.VariantType.STRING, []), "4", "Array[String]([])"),
        (gd.GodotObject("RefCounted", {"script": None}), "4", 'Object(RefCounted,"script":null)\n'),
    ],
)
def test_spec_examples(value: Any, version: str, text: str) -> None:
    assert gd.to_text(value, version=version) == text


@pytest.mark.parametrize(
    ("value", "version"),
    [
        (SN("x"), "3"),
        (gd.Vector2i(1, 2), "3"),
        (gd.TypedArray(gd.VariantType.INT, []), "3"),
        (gd.Dictionary({}, gd.VariantType.INT), "4.3"),
        (gd.PackedFloat64Array([1.0]), "3"),
        (object(), "4"),
    ],
)
def test_what_a_release_has_no_text_for(value: Any, version: str) -> None:
    with pytest.raises(gd.EncodeError):
        gd.to_text(value, version=version)


def test_unknown_version() -> None:
    with pytest.raises(ValueError, match="valid versions"):
        gd.to_text(1, version="2")


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


@pytest.mark.slow
@pytest.mark.parametrize("version", ["4.6", "4.4", "3.6", "3.2"])
def test_exact_floats_read_back(version: str) -> None:
    rng = random.Random(11)
    done = 0
    for _ in range(3000):
        x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if not math.isfinite(x):
            continue
        try:
            text = gd.to_text(x, version=version, exact=True)
        except gd.EncodeError:  # no text reaches it through Godot's reader (about 2 %)
            continue
        assert _bits(gd.from_text(text, version=version)) == _bits(x)
        assert _bits(godot_strtod(text)) == _bits(x)
        done += 1
    assert done > 2700


def test_exact_keeps_what_godot_text_loses() -> None:
    assert gd.to_text(-0.0, exact=True) == "-0.0"
    value = [0.1 + 0.2, gd.Vector2(f32(0.1), 0.5), gd.PackedFloat64Array([2.0**53 + 2])]
    back = gd.from_text(gd.to_text(value, exact=True))
    assert back == value
    assert gd.from_text(gd.to_text(gd.StringName("\a\v"), exact=True)) == "\a\v"


def _nested(levels: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "version"),
    [
        (1e-310, "4"),  # Godot reads every text of it as 0
        ("a\0b", "4"),  # Godot's reader stops at U+0000
        ([gd.RID(5)], "3"),  # Godot 3 writes an RID as nothing
        (_nested(120), "4"),  # the writer prints past 100 levels as []
        (gd.Vector2(math.nan, 0), "3.2"),  # 3.2 reads no nan in a constructor
    ],
)
def test_exact_refuses(value: Any, version: str) -> None:
    with pytest.raises(gd.EncodeError):
        gd.to_text(value, version=version, exact=True)
