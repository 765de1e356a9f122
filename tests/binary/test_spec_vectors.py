"""The vectors in the spec notes: Godot's own unit-test vectors and source-derived ones.

The data files are copies of ``shared/spec/vectors/godot4-*.json``. Expected values here are
written from the notes' descriptions, not from gdvariant's output.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import GodotError
from tests.support.paths import VECTORS

pytestmark = pytest.mark.usefixtures("impl")  # every codec core

SPEC = VECTORS / "spec"
UPSTREAM = json.loads((SPEC / "godot4-test-vectors.json").read_text())["vectors"]
DERIVED = json.loads((SPEC / "godot4-derived-vectors.json").read_text())["vectors"]

I64 = -1070935975390360081  # 0xF123456789ABCDEF as a signed int64


def _by_name(vectors: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (found,) = [v for v in vectors if v["name"] == name]
    return found


# ---- upstream tests/core/io/test_marshalls.h --------------------------------------------

UPSTREAM_VALUES: dict[str, Any] = {
    "NIL Variant": None,
    "INT 32 bit Variant": 0x12345678,
    "INT 64 bit Variant": I64,
    "FLOAT single precision Variant": 0.15625,
    "FLOAT double precision Variant": 1 / 3,
    "Typed array": gd.TypedArray(gd.VariantType.INT, [I64]),
    "Typed dicttionary": gd.Dictionary([(I64, I64)], gd.VariantType.INT, gd.VariantType.INT),
    "Typed dictionary": gd.Dictionary([(I64, I64)], gd.VariantType.INT, gd.VariantType.INT),
}


def _upstream_value(name: str) -> Any:
    for prefix, value in UPSTREAM_VALUES.items():
        if name.startswith(f"[Marshalls] {prefix} "):
            return value
    raise KeyError(name)


VARIANT_CASES = [v for v in UPSTREAM if v["level"] == "variant"]


@pytest.mark.parametrize("vec", [v for v in VARIANT_CASES if v["kind"] == "encode"], ids=str)
def test_upstream_encode(vec: dict[str, Any]) -> None:
    assert gd.dumps(_upstream_value(vec["name"])).hex() == vec["hex"]
    assert len(bytes.fromhex(vec["hex"])) == vec["expected_length"]


@pytest.mark.parametrize(
    "vec",
    [v for v in VARIANT_CASES if v["kind"] == "decode" and v["expected_error"] == "OK"],
    ids=str,
)
def test_upstream_decode(vec: dict[str, Any]) -> None:
    value, used = gd.decode(bytes.fromhex(vec["hex"]))
    assert value == _upstream_value(vec["name"])
    assert used == vec["expected_length"]


@pytest.mark.parametrize(
    "vec",
    [v for v in VARIANT_CASES if v["kind"] == "decode" and v["expected_error"] != "OK"],
    ids=str,
)
def test_upstream_decode_errors(vec: dict[str, Any]) -> None:
    with pytest.raises(gd.DecodeError) as info:
        gd.decode(bytes.fromhex(vec["hex"]))
    assert info.value.code == GodotError.ERR_INVALID_DATA
    assert info.value.offset == 0


# ---- derived from the engine source -----------------------------------------------------

NaN = float("nan")
DERIVED_ENCODE: dict[str, Any] = {
    "bool true": True,
    "int -1 (32-bit)": -1,
    "int INT32_MAX": 2**31 - 1,
    "int INT32_MAX+1 -> 64-bit": 2**31,
    "int INT32_MIN stays 32-bit": -(2**31),
    "int INT32_MIN-1 -> 64-bit": -(2**31) - 1,
    "float 1.0 (exact in f32)": 1.0,
    "float 0.1 -> 64-bit": 0.1,
    "float +inf stays 32-bit": math.inf,
    "float -0.0 stays 32-bit": -0.0,
    "float 1e300 -> 64-bit": 1e300,
    "float NaN -> always 64-bit": NaN,
    "String 'abc' (1 pad byte)": "abc",
    "String '' ": "",
    "String 'abcd' (no pad)": "abcd",
    "String 'é' UTF-8": "é",
    "StringName &'abc'": gd.StringName("abc"),
    "Vector2(1,2) float build": gd.Vector2(1, 2),
    "Vector2i(1,-1)": gd.Vector2i(1, -1),
    "Transform2D.IDENTITY": gd.Transform2D(),
    "Basis rows (1,2,3),(4,5,6),(7,8,9)": gd.Basis((1, 4, 7), (2, 5, 8), (3, 6, 9)),
    "Quaternion.IDENTITY": gd.Quaternion(),
    "Color(1,0,0,1)": gd.Color(1, 0, 0, 1),
    "NodePath('a/b:c')": gd.NodePath("a/b:c"),
    "NodePath('/root') absolute": gd.NodePath("/root"),
    "NodePath('') empty": gd.NodePath(""),
    "RID() empty": gd.RID(),
    "Callable (any)": gd.Callable(),
    "Signal() empty": gd.Signal(),
    "null Object / freed Object": None,
    "Object as id (not full_objects)": gd.ObjectID(0x1234),
    "Dictionary {}": {},
    "Dictionary {'a':1}": {"a": 1},
    "Array []": [],
    "Array [1,'a']": [1, "a"],
    "Array[String] empty (typed builtin)": gd.TypedArray(gd.VariantType.STRING),
    "Array[Node] empty, full_objects=false": gd.TypedArray(gd.ElementType.class_name("Node")),
    "Array[Node] empty, full_objects=true": gd.TypedArray(gd.ElementType.class_name("Node")),
    "Dictionary[String,int] empty": gd.Dictionary((), gd.VariantType.STRING, gd.VariantType.INT),
    "Dictionary[Variant,int] empty (key untyped)": gd.Dictionary((), None, gd.VariantType.INT),
    "PackedByteArray [1,2,3]": b"\x01\x02\x03",
    "PackedByteArray []": b"",
    "PackedInt32Array [1,-1]": gd.PackedInt32Array([1, -1]),
    "PackedInt64Array [1]": gd.PackedInt64Array([1]),
    "PackedFloat32Array [1.0]": gd.PackedFloat32Array([1.0]),
    "PackedFloat64Array [1.0]": gd.PackedFloat64Array([1.0]),
    "PackedStringArray ['a','bcd'] (NUL included)": gd.PackedStringArray(["a", "bcd"]),
    "PackedStringArray ['']": gd.PackedStringArray([""]),
    "PackedVector2Array [(1,2)]": gd.PackedVector2Array([(1, 2)]),
    "PackedVector3Array [(1,2,3)]": gd.PackedVector3Array([(1, 2, 3)]),
    "PackedColorArray [Color(1,0,0,1)]": gd.PackedColorArray([(1, 0, 0, 1)]),
    "PackedVector4Array [(1,2,3,4)]": gd.PackedVector4Array([(1, 2, 3, 4)]),
}
# Encode vectors that need something this issue does not build (double-precision engines).
DERIVED_ENCODE_LATER = {"Vector2(1,2) real_t=double build"}


def test_every_derived_encode_vector_is_checked() -> None:
    names = {v["name"] for v in DERIVED if v["kind"] == "encode"}
    assert names == set(DERIVED_ENCODE) | DERIVED_ENCODE_LATER


@pytest.mark.parametrize("name", list(DERIVED_ENCODE))
def test_derived_encode(name: str) -> None:
    vec = _by_name(DERIVED, name)
    full = vec.get("options", {}).get("full_objects", False)
    assert gd.dumps(DERIVED_ENCODE[name], full_objects=full).hex() == vec["hex"]
    assert len(bytes.fromhex(vec["hex"])) == vec["expected_length"]


@pytest.mark.parametrize("name", list(DERIVED_ENCODE))
def test_derived_encode_bytes_decode_back(name: str) -> None:
    vec = _by_name(DERIVED, name)
    allow = vec.get("options", {}).get("full_objects", False)
    data = bytes.fromhex(vec["hex"])
    value = gd.loads(data, allow_objects=allow)
    expected = DERIVED_ENCODE[name]
    if isinstance(expected, float) and math.isnan(expected):
        assert math.isnan(value)
    elif name == "Array[Node] empty, full_objects=false":
        # Godot names the element class EncodedObjectAsID when objects are not sent.
        assert value == gd.TypedArray(gd.ElementType.class_name("EncodedObjectAsID"))
    else:
        assert value == expected
        assert type(value) is type(expected)
    assert gd.dumps(value, full_objects=allow) == data


@pytest.mark.parametrize(
    "frame", [v for v in DERIVED if v["kind"] == "frame"], ids=lambda v: v["name"]
)
def test_derived_frames_carry_our_payload(frame: dict[str, Any]) -> None:
    data = bytes.fromhex(frame["hex"])
    payload = gd.dumps(frame["value"])
    assert data[4:] == payload
    prefix = len(payload).to_bytes(4, "big" if "big_endian" in frame["name"] else "little")
    assert data[:4] == prefix


# Decode vectors: (expected value, expected used length) or the expected error code.
DERIVED_DECODE: dict[str, tuple[Any, int] | GodotError] = {
    "header byte 1 ignored": (1, 8),
    "bit 16 ignored on STRING": ("abc", 12),
    "Color with 64 flag: flag ignored": (gd.Color(1, 0, 0, 1), 20),
    "bool non-zero is true": (True, 8),
    "int 64 flag but only 4 payload bytes": GodotError.ERR_INVALID_DATA,
    "String length beyond buffer": GodotError.ERR_FILE_EOF,
    "String padding missing at end of buffer": GodotError.ERR_FILE_EOF,
    "String length field missing": GodotError.ERR_INVALID_DATA,
    "String invalid UTF-8": GodotError.ERR_INVALID_DATA,
    "String leading BOM dropped": ("abc", 16),
    "String embedded NUL truncates": ("a", 12),
    "PackedByteArray padding missing still OK": (b"\x01", 12),
    "PackedByteArray count > remaining": GodotError.ERR_INVALID_DATA,
    "PackedInt32Array negative count": GodotError.ERR_INVALID_DATA,
    "PackedStringArray negative count -> empty": (gd.PackedStringArray(), 8),
    "Array count with bit31 (shared) set": ([5], 16),
    "Array count larger than data": GodotError.ERR_INVALID_DATA,
    "NodePath old format (bit31 clear)": GodotError.ERR_INVALID_DATA,
    "NodePath flags bit1 (obsolete property) adds a subname": (gd.NodePath("a:b"), 32),
    "NodePath pad bytes non-zero are ignored": (gd.NodePath("a"), 24),
    "PackedVector4Array type 38 on 4.0-4.2": (gd.PackedVector4Array(), 8),
    "Object full payload without allow_objects": GodotError.ERR_UNAUTHORIZED,
    "Object full payload, empty class name -> null Object": (None, 8),
    "Object as id 0 -> null Object": (None, 12),
    "Object as id non-zero -> EncodedObjectAsID": (gd.ObjectID(0x1234), 12),
    "Typed Array builtin type out of range": GodotError.ERR_INVALID_DATA,
    "4.3+ typed array read by a 4.0-4.2 decoder": (gd.TypedArray(gd.VariantType.INT), 12),
    "Vector2 double-encoded read in any build": (gd.Vector2(1, 2), 20),
    # gdvariant keeps every pair as written, where Godot's Dictionary would merge them (see
    # README, "Where gdvariant differs from the engine").
    "Dictionary duplicate keys collapse": (gd.Dictionary([("a", 1), ("a", 2)]), 48),
    # A typed container drops what its type refuses, as the engine does (measured on 4.6.3:
    # tests/vectors/godot4.6/typed_containers.json); the size still counts every byte.
    "Typed Array[int] with a String element: element dropped": (
        gd.TypedArray(gd.VariantType.INT, []),
        24,
    ),
    "Dictionary[String,int] with an int key: entry dropped": (
        gd.Dictionary([], gd.VariantType.STRING, gd.VariantType.INT),
        32,
    ),
    "Dictionary[int,int] with a String value: value NOT validated": (
        gd.Dictionary([(1, "x")], gd.VariantType.INT, gd.VariantType.INT),
        36,
    ),
}


def test_every_derived_decode_vector_is_checked() -> None:
    assert {v["name"] for v in DERIVED if v["kind"] == "decode"} == set(DERIVED_DECODE)


@pytest.mark.parametrize("name", list(DERIVED_DECODE))
def test_derived_decode(name: str) -> None:
    vec = _by_name(DERIVED, name)
    data = bytes.fromhex(vec["hex"])
    allow = vec.get("options", {}).get("allow_objects", False)
    expected = DERIVED_DECODE[name]
    if isinstance(expected, GodotError):
        with pytest.raises(gd.DecodeError) as info:
            gd.decode(data, allow_objects=allow)
        assert info.value.code == expected
        return
    value, used = gd.decode(data, allow_objects=allow)
    assert (value, used) == expected
    assert type(value) is type(expected[0])


def test_old_releases_reject_packed_vector4_and_read_typed_arrays_as_counts() -> None:
    with pytest.raises(gd.DecodeError, match="unknown type id 38"):
        gd.decode(bytes.fromhex("2600000000000000"), version="4.2")
    # A 4.2 decoder takes the type word (2) as the count, then runs out of data.
    typed = bytes.fromhex(_by_name(DERIVED, "4.3+ typed array read by a 4.0-4.2 decoder")["hex"])
    with pytest.raises(gd.DecodeError):
        gd.decode(typed, version="4.2")
