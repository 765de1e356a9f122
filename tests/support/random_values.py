"""Random Godot values built in Python, for live tests against the engine.

Only values the engine keeps exactly are made: real components are float32-exact (Godot's
default build stores real_t as float32), typed containers hold elements of their type, and
Dictionary keys are ones the engine keeps apart (no String/StringName twins, no -0.0 or NaN
keys). Objects are left out: the engine turns them into new instances with new ids.

Also here: broken encodings of such values and deeply nested Arrays, as hostile input.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from typing import Any

import gdvariant as gd
from tests.support.godot_describe import as_godot_dictionary, canon

T = gd.VariantType
#: Every engine release gdvariant has a profile for (the aliases "4", "3"... name one of them).
RELEASES = sorted({p.name for p in gd.PROFILES.values()})
_F32 = struct.Struct("<f")


def _f32(rng: random.Random) -> float:
    x = rng.choice([0.0, 1.0, -2.5, rng.uniform(-1e4, 1e4), rng.uniform(-1, 1), 1e30])
    return float(_F32.unpack(_F32.pack(x))[0])


def _float(rng: random.Random) -> float:
    return rng.choice(
        [_f32(rng), rng.uniform(-1e9, 1e9), 0.1, -0.0, float("inf"), 1e300, 5e-324, float("nan")]
    )


def _int(rng: random.Random) -> int:
    return rng.choice(
        [rng.randrange(-100, 100), rng.randrange(-(2**31), 2**31), rng.randrange(-(2**63), 2**63)]
    )


def _i32(rng: random.Random) -> int:
    return rng.randrange(-(2**31), 2**31)


def _text(rng: random.Random) -> str:
    alphabet = "abcXYZ 019_-/.:é漢字🎮Ωж\t\n\"'\\"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))


def _name(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefgh_") for _ in range(rng.randrange(1, 6)))


LEAVES: dict[str, Callable[[random.Random], Any]] = {
    "nil": lambda r: None,
    "bool": lambda r: r.random() < 0.5,
    "int": _int,
    "float": _float,
    "String": _text,
    "StringName": lambda r: gd.StringName(_text(r)),
    "Vector2": lambda r: gd.Vector2(_f32(r), _f32(r)),
    "Vector2i": lambda r: gd.Vector2i(_i32(r), _i32(r)),
    "Rect2": lambda r: gd.Rect2((_f32(r), _f32(r)), (_f32(r), _f32(r))),
    "Rect2i": lambda r: gd.Rect2i((_i32(r), _i32(r)), (_i32(r), _i32(r))),
    "Vector3": lambda r: gd.Vector3(_f32(r), _f32(r), _f32(r)),
    "Vector3i": lambda r: gd.Vector3i(_i32(r), _i32(r), _i32(r)),
    "Transform2D": lambda r: gd.Transform2D(*[(_f32(r), _f32(r)) for _ in range(3)]),
    "Vector4": lambda r: gd.Vector4(*[_f32(r) for _ in range(4)]),
    "Vector4i": lambda r: gd.Vector4i(*[_i32(r) for _ in range(4)]),
    "Plane": lambda r: gd.Plane((_f32(r), _f32(r), _f32(r)), _f32(r)),
    "Quaternion": lambda r: gd.Quaternion(*[_f32(r) for _ in range(4)]),
    "AABB": lambda r: gd.AABB((_f32(r), _f32(r), _f32(r)), (_f32(r), _f32(r), _f32(r))),
    "Basis": lambda r: gd.Basis(*[[_f32(r) for _ in range(3)] for _ in range(3)]),
    "Transform3D": lambda r: gd.Transform3D(
        [[_f32(r) for _ in range(3)] for _ in range(3)], [_f32(r) for _ in range(3)]
    ),
    "Projection": lambda r: gd.Projection(*[[_f32(r) for _ in range(4)] for _ in range(4)]),
    "Color": lambda r: gd.Color(*[_f32(r) for _ in range(4)]),
    "NodePath": lambda r: gd.NodePath.from_parts(
        [_name(r) for _ in range(r.randrange(4))],
        [_name(r) for _ in range(r.randrange(3))],
        r.random() < 0.5,
    ),
    "RID": lambda r: gd.RID(r.randrange(2**64)),
    "Callable": lambda r: gd.Callable(),
    "Signal": lambda r: gd.Signal(_name(r), r.randrange(2**63)),
    "PackedByteArray": lambda r: bytes(r.randrange(256) for _ in range(r.randrange(9))),
    "PackedInt32Array": lambda r: gd.PackedInt32Array(_i32(r) for _ in range(r.randrange(5))),
    "PackedInt64Array": lambda r: gd.PackedInt64Array(_int(r) for _ in range(r.randrange(5))),
    "PackedFloat32Array": lambda r: gd.PackedFloat32Array(_f32(r) for _ in range(r.randrange(5))),
    "PackedFloat64Array": lambda r: gd.PackedFloat64Array(_float(r) for _ in range(r.randrange(5))),
    "PackedStringArray": lambda r: gd.PackedStringArray(_text(r) for _ in range(r.randrange(5))),
    "PackedVector2Array": lambda r: gd.PackedVector2Array(
        (_f32(r), _f32(r)) for _ in range(r.randrange(4))
    ),
    "PackedVector3Array": lambda r: gd.PackedVector3Array(
        (_f32(r), _f32(r), _f32(r)) for _ in range(r.randrange(4))
    ),
    "PackedColorArray": lambda r: gd.PackedColorArray(
        [_f32(r) for _ in range(4)] for _ in range(r.randrange(4))
    ),
    "PackedVector4Array": lambda r: gd.PackedVector4Array(
        [_f32(r) for _ in range(4)] for _ in range(r.randrange(4))
    ),
}
# The type each maker produces, to keep to the types an engine release has.
LEAF_TYPES: dict[str, T] = {
    "nil": T.NIL,
    "bool": T.BOOL,
    "int": T.INT,
    "float": T.FLOAT,
    "String": T.STRING,
    "StringName": T.STRING_NAME,
    "Vector2": T.VECTOR2,
    "Vector2i": T.VECTOR2I,
    "Rect2": T.RECT2,
    "Rect2i": T.RECT2I,
    "Vector3": T.VECTOR3,
    "Vector3i": T.VECTOR3I,
    "Transform2D": T.TRANSFORM2D,
    "Vector4": T.VECTOR4,
    "Vector4i": T.VECTOR4I,
    "Plane": T.PLANE,
    "Quaternion": T.QUATERNION,
    "AABB": T.AABB,
    "Basis": T.BASIS,
    "Transform3D": T.TRANSFORM3D,
    "Projection": T.PROJECTION,
    "Color": T.COLOR,
    "NodePath": T.NODE_PATH,
    "RID": T.RID,
    "Callable": T.CALLABLE,
    "Signal": T.SIGNAL,
    "PackedByteArray": T.PACKED_BYTE_ARRAY,
    "PackedInt32Array": T.PACKED_INT32_ARRAY,
    "PackedInt64Array": T.PACKED_INT64_ARRAY,
    "PackedFloat32Array": T.PACKED_FLOAT32_ARRAY,
    "PackedFloat64Array": T.PACKED_FLOAT64_ARRAY,
    "PackedStringArray": T.PACKED_STRING_ARRAY,
    "PackedVector2Array": T.PACKED_VECTOR2_ARRAY,
    "PackedVector3Array": T.PACKED_VECTOR3_ARRAY,
    "PackedColorArray": T.PACKED_COLOR_ARRAY,
    "PackedVector4Array": T.PACKED_VECTOR4_ARRAY,
}
# Builtin element types for typed containers, with a maker for their elements.
TYPED: dict[T, str] = {
    T.INT: "int",
    T.FLOAT: "float",
    T.STRING: "String",
    T.VECTOR2: "Vector2",
    T.STRING_NAME: "StringName",
    T.COLOR: "Color",
    T.PACKED_BYTE_ARRAY: "PackedByteArray",
}
_KEY_MAKERS = ["int", "String", "bool", "Vector2i", "Vector3", "StringName", "nil"]


def _leaf(maker: str, rng: random.Random, profile: gd.Profile) -> Any:
    if maker == "int" and not profile.int64:  # Godot 2's ints are 32-bit
        return rng.randrange(-(2**31), 2**31)
    return LEAVES[maker](rng)


def _key(rng: random.Random, profile: gd.Profile) -> Any:
    return _leaf(
        rng.choice([m for m in _KEY_MAKERS if profile.supports(LEAF_TYPES[m])]), rng, profile
    )


def random_value(rng: random.Random, depth: int = 0, version: str = "4") -> Any:
    """One random value of the types ``version`` has; containers nest up to 4 levels.

    Engines before Godot 4 write no RID id, so their RIDs are all ``RID()``.
    """
    profile = gd.get_profile(version)
    roll = rng.random()
    if depth >= 4 or roll < 0.6:
        maker = rng.choice([m for m in LEAVES if profile.supports(LEAF_TYPES[m])])
        if maker == "RID" and not profile.rid_payload:
            return gd.RID()
        return _leaf(maker, rng, profile)
    size = rng.randrange(6)
    if roll < 0.72 or (not profile.typed_arrays and roll < 0.8):
        return [random_value(rng, depth + 1, version) for _ in range(size)]
    if roll < 0.8:
        vtype = rng.choice(list(TYPED))
        return gd.TypedArray(vtype, [LEAVES[TYPED[vtype]](rng) for _ in range(size)])
    typed = roll > 0.92 and profile.typed_dictionaries
    key_type = rng.choice([t for t in TYPED if t != T.PACKED_BYTE_ARRAY]) if typed else None
    value_type = rng.choice([None, *TYPED]) if typed else None
    pairs: list[tuple[Any, Any]] = []
    seen: set[Any] = set()
    for _ in range(size):
        key = LEAVES[TYPED[key_type]](rng) if key_type is not None else _key(rng, profile)
        if isinstance(key, float) and (key != key or key == 0):
            continue  # NaN keys never match; Godot merges 0.0 and -0.0
        tag = canon(str(key)) if isinstance(key, str) else canon(key)  # String == StringName
        if tag in seen:
            continue
        seen.add(tag)
        value = (
            LEAVES[TYPED[value_type]](rng)
            if value_type is not None
            else random_value(rng, depth + 1, version)
        )
        pairs.append((key, value))
    if key_type is None and value_type is None:
        return as_godot_dictionary(pairs)
    return gd.Dictionary(pairs, key_type, value_type)


_ABSURD_WORDS = [b"\xff\xff\xff\x7f", b"\0\0\0\x80", b"\xff\xff\xff\xff"]


def random_call_args(rng: random.Random, count: int | None = None) -> tuple[Any, ...]:
    """The arguments of one RPC: ``count`` (default 0-8) random values, never one lone empty
    PackedByteArray (a Godot peer sends that in its raw form, as no argument at all)."""
    size = rng.randint(0, 8) if count is None else count
    while True:
        args = tuple(random_value(rng) for _ in range(size))
        if args != (b"",):
            return args


def argument_counts(rng: random.Random, calls: int) -> list[int]:
    """How many arguments each of ``calls`` random calls takes: every count from 0 to 8 at
    least once (left to chance, about one seed in 60 missed one), the rest random."""
    counts = list(range(9)) + [rng.randint(0, 8) for _ in range(calls - 9)]
    rng.shuffle(counts)
    return counts


def mutated_encodings(rng: random.Random, version: str = "4", count: int = 300) -> list[bytes]:
    """Encodings of random values, each truncated, bit-flipped or given an absurd word."""
    blobs = []
    for _ in range(count):
        data = bytearray(gd.dumps(random_value(rng, version=version), version=version))
        roll = rng.random()
        if roll < 0.4:
            data = data[: rng.randrange(len(data))]
        elif roll < 0.8:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        else:
            i = rng.randrange(0, len(data), 4)
            data[i : i + 4] = rng.choice(_ABSURD_WORDS)
        blobs.append(bytes(data))
    return blobs


def nested_arrays(levels: int, version: str = "4") -> bytes:
    """``levels`` Arrays, each holding the next; the innermost is empty."""
    array = gd.get_profile(version).wire_ids[T.ARRAY].to_bytes(4, "little")
    return (array + b"\1\0\0\0") * (levels - 1) + array + b"\0\0\0\0"
