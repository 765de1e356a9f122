"""Typed containers holding elements of the wrong type: the inputs fed to Godot for the golden
vectors in ``tests/vectors/godot4.6/typed_containers.json`` (``tools/make_typed_vectors.py``).

Every case is the bytes of one typed Array or Dictionary written by hand: the container header
with its element-type info, then elements we encode one by one (an element written alone is the
same bytes Godot writes for it). For every element type, one element of every Variant type,
including edge values (NaN, infinities, floats beyond int64, negative floats, 0 and other ints
for bool, empty and non-empty strings), plus a few arrays of several elements.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Iterator
from typing import Any

import gdvariant as g
from gdvariant import VariantType as T

_U32 = struct.Struct("<I")
ARRAY = 28
DICTIONARY = 27


def raw(vtype: int, payload: bytes, flags: int = 0) -> bytes:
    """One element written by hand: a header word and its payload."""
    return _U32.pack(vtype | flags) + payload


def _enc(value: Any) -> bytes:
    return g.dumps(value, full_objects=True)


def _f64(x: float) -> bytes:
    return raw(3, struct.pack("<d", x), 1 << 16)


def _f32(x: float) -> bytes:
    return raw(3, struct.pack("<f", x))


def _string(text: str) -> bytes:
    data = text.encode()
    return _U32.pack(len(data)) + data + bytes(-len(data) & 3)


NAN = math.nan
INF = math.inf

#: Elements of every Variant type, by name (one name per case, for reports).
ELEMENTS: dict[str, bytes] = {
    "nil": _enc(None),
    "bool_false": _enc(False),
    "bool_true": _enc(True),
    "bool_3": raw(1, _U32.pack(3)),
    "int_0": _enc(0),
    "int_1": _enc(1),
    "int_2": _enc(2),
    "int_-1": _enc(-1),
    "int_7": _enc(7),
    "int_0xff0000ff": _enc(0xFF0000FF),
    "int_2^40": _enc(2**40),
    "int_min64": _enc(-(2**63)),
    "int_max32": _enc(2**31 - 1),
    "float_0": _f64(0.0),
    "float_-0": _f64(-0.0),
    "float_0.5": _f64(0.5),
    "float_1.5": _f64(1.5),
    "float_-1.5": _f64(-1.5),
    "float_-2.7": _f64(-2.7),
    "float32_2": _f32(2.0),
    "float_nan": _f64(NAN),
    "float_inf": _f64(INF),
    "float_-inf": _f64(-INF),
    "float_1e30": _f64(1e30),
    "float_-1e30": _f64(-1e30),
    "float_9.3e18": _f64(9.3e18),
    "float_3e9": _f64(3e9),
    "string_empty": _enc(""),
    "string_x": _enc("x"),
    "string_sn": _enc("sn"),
    "string_1": _enc("1"),
    "string_1.5": _enc("1.5"),
    "string_true": _enc("true"),
    "string_red": _enc("red"),
    "string_hex": _enc("#ff000080"),
    "string_path": _enc("a/b:c"),
    "string_abs": _enc("/root/n:p:q"),
    "vector2": _enc(g.Vector2(1.5, -2.7)),
    "vector2_nan": _enc(g.Vector2(NAN, 1e30)),
    "vector2i": _enc(g.Vector2i(1, -2)),
    "rect2": _enc(g.Rect2((1.5, -2.5), (3.7, 4.2))),
    "rect2i": _enc(g.Rect2i((1, -2), (3, 4))),
    "vector3": _enc(g.Vector3(1.5, -2.7, 3.2)),
    "vector3i": _enc(g.Vector3i(1, -2, 3)),
    "transform2d": _enc(g.Transform2D((1, 2), (3, 4), (5, 6))),
    "vector4": _enc(g.Vector4(1.5, -2.7, 3.2, -4.9)),
    "vector4i": _enc(g.Vector4i(1, -2, 3, -4)),
    "plane": _enc(g.Plane((0, 1, 0), 2.5)),
    "quaternion": _enc(g.Quaternion(0, 0, 0, 1)),
    "quaternion_rot": _enc(g.Quaternion(0, 0.6, 0, 0.8)),
    "quaternion_odd": _enc(g.Quaternion(1, 2, 3, 4)),
    "aabb": _enc(g.AABB((1, 2, 3), (4, 5, 6))),
    "basis": _enc(g.Basis()),
    "basis_rot": _enc(g.Basis((0, 0, -1), (0, 1, 0), (1, 0, 0))),
    "basis_scaled": _enc(g.Basis((2, 0, 0), (0, 3, 0), (0, 0, 4))),
    "transform3d": _enc(g.Transform3D(None, (1, 2, 3))),
    "transform3d_odd": _enc(g.Transform3D(((1, 2, 3), (4, 5, 6), (7, 8, 9)), (1, 2, 3))),
    "projection": _enc(g.Projection()),
    "projection_odd": _enc(g.Projection((1, 2, 3, 4), (5, 6, 7, 8), (9, 1, 2, 3), (4, 5, 6, 7))),
    "color": _enc(g.Color(0.25, 0.5, 0.75, 1.0)),
    "string_name_empty": _enc(g.StringName("")),
    "string_name": _enc(g.StringName("sn")),
    "string_name_path": _enc(g.StringName("a/b:c")),
    "node_path_empty": _enc(g.NodePath("")),
    "node_path": _enc(g.NodePath("a/b:c")),
    "node_path_abs": _enc(g.NodePath("/root/n:p:q")),
    "rid_0": _enc(g.RID(0)),
    "rid_5": _enc(g.RID(5)),
    "object_id_0": raw(24, struct.pack("<Q", 0), 1 << 16),
    "object_id_7": raw(24, struct.pack("<Q", 7), 1 << 16),
    "object_null": raw(24, _U32.pack(0)),
    "object_refcounted": _enc(g.GodotObject("RefCounted")),
    "object_node": _enc(g.GodotObject("Node")),
    "callable": raw(25, b""),
    "signal": _enc(g.Signal("s", 7)),
    "dictionary_empty": _enc({}),
    "dictionary": _enc({1: "a"}),
    "array_empty": _enc([]),
    "array": _enc([1, "a"]),
    "array_ints": _enc([1, 2]),
    "array_typed_int": _enc(g.TypedArray(g.ElementType.builtin(T.INT), [3, 4])),
    "packed_byte_array": _enc(b"\x01\x02"),
    "packed_int32_array": _enc(g.PackedInt32Array([1, -1])),
    "packed_int64_array": _enc(g.PackedInt64Array([1, -1])),
    "packed_float32_array": _enc(g.PackedFloat32Array([1.5])),
    "packed_float64_array": _enc(g.PackedFloat64Array([1.5])),
    "packed_string_array": _enc(g.PackedStringArray(["a", "b"])),
    "packed_vector2_array": _enc(g.PackedVector2Array([g.Vector2(1, 2)])),
    "packed_vector3_array": _enc(g.PackedVector3Array([g.Vector3(1, 2, 3)])),
    "packed_color_array": _enc(g.PackedColorArray([g.Color(1, 0, 0, 1)])),
    "packed_vector4_array": _enc(g.PackedVector4Array([g.Vector4(1, 2, 3, 4)])),
}

#: Elements whose decoding needs ``allow_objects`` (full objects).
FULL_OBJECTS = {"object_refcounted", "object_node"}

#: One well-typed element per builtin type: the other half of a typed Dictionary's entry.
VALID = {
    T.BOOL: "bool_true",
    T.INT: "int_7",
    T.FLOAT: "float_1.5",
    T.STRING: "string_x",
    T.VECTOR2: "vector2",
    T.VECTOR2I: "vector2i",
    T.RECT2: "rect2",
    T.RECT2I: "rect2i",
    T.VECTOR3: "vector3",
    T.VECTOR3I: "vector3i",
    T.TRANSFORM2D: "transform2d",
    T.VECTOR4: "vector4",
    T.VECTOR4I: "vector4i",
    T.PLANE: "plane",
    T.QUATERNION: "quaternion",
    T.AABB: "aabb",
    T.BASIS: "basis",
    T.TRANSFORM3D: "transform3d",
    T.PROJECTION: "projection",
    T.COLOR: "color",
    T.STRING_NAME: "string_name",
    T.NODE_PATH: "node_path",
    T.RID: "rid_5",
    T.OBJECT: "object_id_7",
    T.CALLABLE: "callable",
    T.SIGNAL: "signal",
    T.DICTIONARY: "dictionary",
    T.ARRAY: "array",
    T.PACKED_BYTE_ARRAY: "packed_byte_array",
    T.PACKED_INT32_ARRAY: "packed_int32_array",
    T.PACKED_INT64_ARRAY: "packed_int64_array",
    T.PACKED_FLOAT32_ARRAY: "packed_float32_array",
    T.PACKED_FLOAT64_ARRAY: "packed_float64_array",
    T.PACKED_STRING_ARRAY: "packed_string_array",
    T.PACKED_VECTOR2_ARRAY: "packed_vector2_array",
    T.PACKED_VECTOR3_ARRAY: "packed_vector3_array",
    T.PACKED_COLOR_ARRAY: "packed_color_array",
    T.PACKED_VECTOR4_ARRAY: "packed_vector4_array",
}

#: Element types: (name, kind bits, type info bytes).
TARGETS: list[tuple[str, int, bytes]] = [
    *((f"builtin_{vtype.name}", 1, _U32.pack(int(vtype))) for vtype in VALID),
    ("class_Node", 2, _string("Node")),
    ("class_RefCounted", 2, _string("RefCounted")),
    ("class_EncodedObjectAsID", 2, _string("EncodedObjectAsID")),
]


def typed_array(kind: int, info: bytes, elements: list[bytes]) -> bytes:
    """An Array typed by ``kind`` and ``info`` holding ``elements``."""
    return raw(ARRAY, info + _U32.pack(len(elements)) + b"".join(elements), kind << 16)


def typed_dictionary(
    key: tuple[int, bytes], value: tuple[int, bytes], entries: list[tuple[bytes, bytes]]
) -> bytes:
    """A Dictionary with key and value types (kind, info) holding ``entries``."""
    body = key[1] + value[1] + _U32.pack(len(entries))
    body += b"".join(k + v for k, v in entries)
    return raw(DICTIONARY, body, key[0] << 16 | value[0] << 18)


def _allows(names: list[str], target: str) -> list[bool]:
    """Full objects decode only with ``allow_objects``; it changes nothing else but what
    Object elements and Object-typed containers become, so only those run both ways."""
    if FULL_OBJECTS.intersection(names):
        return [True]
    if "OBJECT" in target or "class" in target or any("object" in n for n in names):
        return [False, True]
    return [False]


def cases() -> Iterator[tuple[str, bytes, bool]]:
    """Every golden case: (name, bytes, allow_objects)."""
    for target, kind, info in TARGETS:
        for name, element in ELEMENTS.items():
            blob = typed_array(kind, info, [element])
            for allow in _allows([name], target):
                yield f"array {target} [{name}]", blob, allow
        mixed = ["int_7", "string_x", "nil", "float_1.5", "bool_true", "int_2"]
        parts = [ELEMENTS[n] for n in mixed]
        yield f"array {target} {mixed}", typed_array(kind, info, parts), False
    for (vtype, valid), (target, kind, info) in zip(VALID.items(), TARGETS, strict=False):
        typed = (kind, info)
        untyped = (0, b"")
        for name, element in ELEMENTS.items():
            for allow in _allows([name, valid], target):
                yield (
                    f"dict key {vtype.name} [{name}: {valid}]",
                    typed_dictionary(typed, untyped, [(element, ELEMENTS[valid])]),
                    allow,
                )
                yield (
                    f"dict value {vtype.name} [{valid}: {name}]",
                    typed_dictionary(untyped, typed, [(ELEMENTS[valid], element)]),
                    allow,
                )
    for target, kind, info in TARGETS[-3:]:
        for name in ("nil", "int_1", "object_id_0", "object_id_7", "object_null"):
            yield (
                f"dict key+value {target} [{name}: {name}]",
                typed_dictionary((kind, info), (kind, info), [(ELEMENTS[name], ELEMENTS[name])]),
                False,
            )


def random_case(rng: random.Random, fresh: Any) -> tuple[bytes, bool]:
    """A random typed Array (or, one time in four, a Dictionary with typed keys) of 1-6
    elements, most of them of another type than its own: edge values from :data:`ELEMENTS`
    and fresh values from ``fresh(rng)``. Returns the bytes and whether they need
    ``allow_objects``."""
    _, kind, info = rng.choice(TARGETS)
    names = [rng.choice(list(ELEMENTS)) for _ in range(rng.randint(1, 6))]
    elements = [ELEMENTS[n] if rng.random() < 0.6 else g.dumps(fresh(rng)) for n in names]
    allow = bool(FULL_OBJECTS.intersection(names)) or rng.random() < 0.3
    if rng.random() < 0.25:
        entries = [(e, g.dumps(fresh(rng))) for e in elements]
        return typed_dictionary((kind, info), (0, b""), entries), allow
    return typed_array(kind, info, elements), allow
