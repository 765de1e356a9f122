"""Encoder choices (widths, padding, names) and errors with paths."""

from __future__ import annotations

import enum
import math
import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import EncodeError

pytestmark = pytest.mark.usefixtures("impl")  # every codec core


def _header(data: bytes) -> tuple[int, int]:
    word = struct.unpack_from("<I", data)[0]
    return word & 0xFF, word >> 16


@pytest.mark.parametrize(
    ("value", "size"),
    [
        (0, 8),
        (2**31 - 1, 8),
        (-(2**31), 8),
        (2**31, 12),
        (-(2**31) - 1, 12),
        (2**63 - 1, 12),
        (-(2**63), 12),
    ],
)
def test_int_width_follows_int32_range(value: int, size: int) -> None:
    data = gd.dumps(value)
    assert len(data) == size
    assert _header(data) == (2, 1 if size == 12 else 0)
    assert gd.loads(data) == value


@pytest.mark.parametrize(
    ("value", "size"),
    [
        (1.0, 8),
        (0.15625, 8),
        (-0.0, 8),
        (math.inf, 8),
        (-math.inf, 8),
        (3.4028234663852886e38, 8),  # float32 max is exact
        (0.1, 12),
        (1e300, 12),  # beyond float32 range
        (1e-45, 12),  # rounds to a float32 denormal, not exact
        (math.nan, 12),  # NaN never equals itself, so Godot always writes 64 bits
    ],
)
def test_float_width_is_godots_round_trip_test(value: float, size: int) -> None:
    data = gd.dumps(value)
    assert len(data) == size
    back = gd.loads(data)
    assert struct.pack("<d", back) == struct.pack("<d", value)


def test_string_padding_and_utf8() -> None:
    for n in range(9):
        data = gd.dumps("x" * n)
        assert len(data) == 8 + n + (-n % 4)
        assert data[8 + n :] == b"\0" * (-n % 4)
    assert gd.dumps("🎮")[8:12] == "🎮".encode()


def test_packed_string_array_counts_the_nul() -> None:
    data = gd.dumps(gd.PackedStringArray(["abc"]))
    assert data[8:12] == (4).to_bytes(4, "little")
    assert data[12:16] == b"abc\0"


def test_node_path_padding_is_zero() -> None:
    data = gd.dumps(gd.NodePath("a/bc:def"))
    assert data == bytes.fromhex(
        "16000000020000800100000000000000010000006100000002000000626300000300000064656600"
    )


def test_subclasses_and_python_containers() -> None:
    class Color(enum.IntEnum):
        RED = 3

    class Name(str):
        pass

    assert gd.dumps(Color.RED) == gd.dumps(3)
    assert gd.dumps(Name("a")) == gd.dumps("a")
    assert gd.dumps((1, 2)) == gd.dumps([1, 2])
    assert gd.dumps(bytearray(b"ab")) == gd.dumps(memoryview(b"ab")) == gd.dumps(b"ab")


def test_type_ids_are_godot4s() -> None:
    cases: list[tuple[Any, int]] = [
        (gd.Transform2D(), 11),
        (gd.Vector4(), 12),
        (gd.Vector4i(), 13),
        (gd.Plane(), 14),
        (gd.Quaternion(), 15),
        (gd.StringName("a"), 21),
        (gd.Callable(), 25),
        (gd.PackedVector4Array(), 38),
    ]
    for value, type_id in cases:
        assert _header(gd.dumps(value))[0] == type_id, value


@pytest.mark.parametrize(
    ("value", "path", "message"),
    [
        ([1, {"k": [0, 2**64]}], '[1]["k"][1]', "64-bit"),
        ({"a": {1, 2}}, '["a"]', "cannot encode a builtins.set"),
        ([object()], "[0]", "cannot encode"),
        (["ok", "nul\0"], "[1]", "NUL"),
        (["\ud800"], "[0]", "not valid Unicode"),
        ([gd.GodotObject("Node")], "[0]", "full_objects=True"),
        ([gd.Vector2i(2**31, 0)], "[0]", "VECTOR2I"),
        ([gd.RID(-1)], "[0]", "RID id"),
        (gd.Dictionary([({1}, 0)]), "{key #0}", "set"),
    ],
)
def test_errors_name_the_path(value: Any, path: str, message: str) -> None:
    with pytest.raises(EncodeError, match=message) as info:
        gd.dumps(value)
    assert info.value.path == path


def test_full_objects_round_trip_and_class_names() -> None:
    obj = gd.GodotObject("Resource", [("resource_name", "r"), ("resource_local_to_scene", False)])
    typed = gd.TypedArray(gd.ElementType.class_name("Resource"), [obj])
    full = gd.dumps(typed, full_objects=True)
    assert b"Resource" in full[:20]
    assert gd.loads(full, allow_objects=True) == typed
    # Without full objects Godot writes the element class as EncodedObjectAsID, objects as ids.
    ids = gd.dumps(gd.TypedArray(gd.ElementType.script("res://a.gd"), [gd.ObjectID(7)]))
    assert gd.loads(ids) == gd.TypedArray(
        gd.ElementType.class_name("EncodedObjectAsID"), [gd.ObjectID(7)]
    )


def test_object_id_always_travels_as_id() -> None:
    assert gd.dumps(gd.ObjectID(0x1234), full_objects=True) == bytes.fromhex(
        "180001003412000000000000"
    )


def test_a_packed_view_is_written_as_the_array_of_its_kind() -> None:
    array = gd.PackedVector3Array64([(1, 2, 3)])
    view = gd.PackedView(gd.PackedVector3Array64, bytes(array))
    for version in ("4", "3", "2"):  # Godot 3 and 2 narrow 64-bit vectors to 32 bits
        assert gd.dumps([view], version=version) == gd.dumps([array], version=version)
    raw = gd.PackedView(bytes, b"abcde")
    assert gd.dumps(raw) == struct.pack("<II", 29, 5) + b"abcde\0\0\0"


def test_a_packed_view_of_a_missing_type_fails_as_the_array_does() -> None:
    view = gd.PackedView(gd.PackedVector4Array, bytes(16))
    with pytest.raises(EncodeError, match="no PACKED_VECTOR4_ARRAY") as info:
        gd.dumps({"k": view}, version="3")
    assert info.value.path == '["k"]'


# (the String's surrogates, what Godot 3.6.2 writes for them: engine-checked in
# tests/live/codec/test_godot3.py): a pair becomes its one character, any other surrogate a space.
_GODOT36_SURROGATES = [
    ("\ud800", b" "),
    ("a\ud83d\ude00b", "a😀b".encode()),
    ("\udfffx\udc00", b" x "),
    ("\ud83d\ud83d\ude00", " 😀".encode()),
    ("\ude00\ud83d", b"  "),
]


@pytest.mark.parametrize(("text", "written"), _GODOT36_SURROGATES)
def test_godot36_writes_surrogates_as_it_does_in_every_string(text: str, written: bytes) -> None:
    def string(raw: bytes) -> bytes:
        return struct.pack("<I", len(raw)) + raw + b"\0" * (-len(raw) & 3)

    assert gd.dumps(text, version="3.6") == struct.pack("<I", 4) + string(written)
    path = gd.dumps(gd.NodePath.from_parts([text], [text]), version="3.6")
    assert path == struct.pack("<4I", 15, 0x80000001, 1, 0) + string(written) * 2
    names = gd.dumps(gd.PackedStringArray([text]), version="3.6")
    assert names == struct.pack("<3I", 23, 1, len(written) + 1) + string(written + b"\0")[4:]
    obj = gd.dumps(gd.GodotObject(text, ((text, {text: 1}),)), version="3.6", full_objects=True)
    assert obj.count(string(written)) == 3
    # What 3.6 reads from the bytes 3.2 writes for them, it writes back as above.
    for version in ("3.2", "pandemonium"):
        old = gd.dumps(text, version=version)
        assert old == struct.pack("<I", 4) + string(text.encode("utf-8", "surrogatepass"))
        assert gd.dumps(gd.loads(old, version="3.6"), version="3.6") == gd.dumps(
            text, version="3.6"
        )
    with pytest.raises(gd.EncodeError, match="surrogates not allowed"):
        gd.dumps(text, version="4")  # a Godot 4 String cannot hold one
