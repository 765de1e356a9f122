"""Wire facts shared by every codec: header bits and the fixed-size math layouts.

Each layout gives the value class, the number of components, whether they are reals (f32, or f64
when the header's 64-bit flag is set) or 32-bit ints, and how to turn the flat component tuple into
the value and back. Basis and Transform3D store rows; Transform2D and Projection store columns
(``docs/binary-format.md``, "Math types"). The packed numeric arrays move as one block of
little-endian elements; each type has a class, and the real vector arrays a 64-bit one for the
flagged form. Header bits: ``docs/binary-format.md``, "A value on the wire".
"""

from __future__ import annotations

from collections.abc import Callable as Fn
from typing import Any, NamedTuple

from .base import VariantType
from .math import (
    AABB,
    Basis,
    Color,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Transform2D,
    Transform3D,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)
from .packed import (
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedVector2Array,
    PackedVector2Array64,
    PackedVector2iArray,
    PackedVector3Array,
    PackedVector3Array64,
    PackedVector3iArray,
    PackedVector4Array,
    PackedVector4Array64,
    PackedVector4iArray,
    _PackedNumbers,
)

__all__ = [
    "COUNT_MASK",
    "FLAG_64",
    "LAYOUTS",
    "MATH_CLASSES",
    "NODE_PATH_NEW",
    "PACKED_ARRAYS",
    "PACKED_CLASSES",
    "SHARED",
    "Layout",
]

_new = tuple.__new__
T = VariantType

#: Header bit 16: the payload is 64-bit (INT, FLOAT, math reals, packed real vectors) or, on an
#: OBJECT, that only its instance id follows.
FLAG_64 = 1 << 16
#: Bit 31 of an Array / Dictionary count: Godot 2's "shared" mark; later readers mask it off.
SHARED = 0x80000000
COUNT_MASK = 0x7FFFFFFF
#: Bit 31 of a NodePath's name count: the current format (not Godot 2.0's plain text).
NODE_PATH_NEW = 0x80000000


class Layout(NamedTuple):
    """One fixed-size type: its class, component count and kind, flat <-> value converters."""

    cls: type
    components: int
    kind: str  # "real" (f32, or f64 when flagged), "f32" (always single), or "i32"
    unflatten: Fn[[tuple[Any, ...]], Any]
    flatten: Fn[[Any], tuple[Any, ...]]


def _v2(t: tuple[Any, ...], o: int = 0) -> Vector2:
    return _new(Vector2, t[o : o + 2])


def _v3(t: tuple[Any, ...], o: int = 0) -> Vector3:
    return _new(Vector3, t[o : o + 3])


def _v4(t: tuple[Any, ...], o: int = 0) -> Vector4:
    return _new(Vector4, t[o : o + 4])


def _basis_from_rows(t: tuple[Any, ...]) -> Basis:
    return _new(
        Basis,
        (
            _new(Vector3, (t[0], t[3], t[6])),
            _new(Vector3, (t[1], t[4], t[7])),
            _new(Vector3, (t[2], t[5], t[8])),
        ),
    )


def _basis_rows(b: Any) -> tuple[Any, ...]:
    x, y, z = b
    return (x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])


LAYOUTS: dict[VariantType, Layout] = {
    T.VECTOR2: Layout(Vector2, 2, "real", lambda t: _new(Vector2, t), tuple),
    T.VECTOR2I: Layout(Vector2i, 2, "i32", lambda t: _new(Vector2i, t), tuple),
    T.RECT2: Layout(
        Rect2, 4, "real", lambda t: _new(Rect2, (_v2(t), _v2(t, 2))), lambda r: (*r[0], *r[1])
    ),
    T.RECT2I: Layout(
        Rect2i,
        4,
        "i32",
        lambda t: _new(Rect2i, (_new(Vector2i, t[:2]), _new(Vector2i, t[2:]))),
        lambda r: (*r[0], *r[1]),
    ),
    T.VECTOR3: Layout(Vector3, 3, "real", lambda t: _new(Vector3, t), tuple),
    T.VECTOR3I: Layout(Vector3i, 3, "i32", lambda t: _new(Vector3i, t), tuple),
    T.TRANSFORM2D: Layout(
        Transform2D,
        6,
        "real",
        lambda t: _new(Transform2D, (_v2(t), _v2(t, 2), _v2(t, 4))),
        lambda m: (*m[0], *m[1], *m[2]),
    ),
    T.VECTOR4: Layout(Vector4, 4, "real", lambda t: _new(Vector4, t), tuple),
    T.VECTOR4I: Layout(Vector4i, 4, "i32", lambda t: _new(Vector4i, t), tuple),
    T.PLANE: Layout(
        Plane, 4, "real", lambda t: _new(Plane, (_v3(t), t[3])), lambda p: (*p[0], p[1])
    ),
    T.QUATERNION: Layout(Quaternion, 4, "real", lambda t: _new(Quaternion, t), tuple),
    T.AABB: Layout(
        AABB, 6, "real", lambda t: _new(AABB, (_v3(t), _v3(t, 3))), lambda a: (*a[0], *a[1])
    ),
    T.BASIS: Layout(Basis, 9, "real", _basis_from_rows, _basis_rows),
    T.TRANSFORM3D: Layout(
        Transform3D,
        12,
        "real",
        lambda t: _new(Transform3D, (_basis_from_rows(t), _v3(t, 9))),
        lambda m: (*_basis_rows(m[0]), *m[1]),
    ),
    T.PROJECTION: Layout(
        Projection,
        16,
        "real",
        lambda t: _new(Projection, (_v4(t), _v4(t, 4), _v4(t, 8), _v4(t, 12))),
        lambda p: (*p[0], *p[1], *p[2], *p[3]),
    ),
    T.COLOR: Layout(Color, 4, "f32", lambda t: _new(Color, t), tuple),
}

#: Each math class and the type it is written as.
MATH_CLASSES: dict[type, VariantType] = {layout.cls: vtype for vtype, layout in LAYOUTS.items()}

#: Packed numeric arrays: the class, and the class read when the header has the 64-bit flag
#: (only the real vector arrays differ: a double build writes 64-bit components).
PACKED_ARRAYS: dict[VariantType, tuple[type[_PackedNumbers], type[_PackedNumbers]]] = {
    T.PACKED_INT32_ARRAY: (PackedInt32Array, PackedInt32Array),
    T.PACKED_INT64_ARRAY: (PackedInt64Array, PackedInt64Array),
    T.PACKED_FLOAT32_ARRAY: (PackedFloat32Array, PackedFloat32Array),
    T.PACKED_FLOAT64_ARRAY: (PackedFloat64Array, PackedFloat64Array),
    T.PACKED_VECTOR2_ARRAY: (PackedVector2Array, PackedVector2Array64),
    T.PACKED_VECTOR3_ARRAY: (PackedVector3Array, PackedVector3Array64),
    T.PACKED_VECTOR4_ARRAY: (PackedVector4Array, PackedVector4Array64),
    T.PACKED_COLOR_ARRAY: (PackedColorArray, PackedColorArray),
    T.PACKED_VECTOR2I_ARRAY: (PackedVector2iArray, PackedVector2iArray),
    T.PACKED_VECTOR3I_ARRAY: (PackedVector3iArray, PackedVector3iArray),
    T.PACKED_VECTOR4I_ARRAY: (PackedVector4iArray, PackedVector4iArray),
}
#: Each packed numeric class and the type it is written as.
PACKED_CLASSES: dict[type[_PackedNumbers], VariantType] = {
    cls: vtype for vtype, classes in PACKED_ARRAYS.items() for cls in classes
}
