"""Wire layouts of the fixed-size math types, shared by the decoder and the encoder.

Each entry gives the number of components, whether they are reals (f32, or f64 when the
header's 64-bit flag is set) or 32-bit ints, and how to turn the flat component tuple into the
value type and back. Basis and Transform3D store rows; Transform2D and Projection store
columns (``shared/spec/godot4.md`` §4).
"""

from __future__ import annotations

from collections.abc import Callable as Fn
from typing import Any, NamedTuple

from ._types import (
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
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)

_new = tuple.__new__
T = VariantType


class Layout(NamedTuple):
    """One fixed-size type: component count, component kind, and flat <-> value converters."""

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
    T.VECTOR2: Layout(2, "real", lambda t: _new(Vector2, t), tuple),
    T.VECTOR2I: Layout(2, "i32", lambda t: _new(Vector2i, t), tuple),
    T.RECT2: Layout(
        4, "real", lambda t: _new(Rect2, (_v2(t), _v2(t, 2))), lambda r: (*r[0], *r[1])
    ),
    T.RECT2I: Layout(
        4,
        "i32",
        lambda t: _new(Rect2i, (_new(Vector2i, t[:2]), _new(Vector2i, t[2:]))),
        lambda r: (*r[0], *r[1]),
    ),
    T.VECTOR3: Layout(3, "real", lambda t: _new(Vector3, t), tuple),
    T.VECTOR3I: Layout(3, "i32", lambda t: _new(Vector3i, t), tuple),
    T.TRANSFORM2D: Layout(
        6,
        "real",
        lambda t: _new(Transform2D, (_v2(t), _v2(t, 2), _v2(t, 4))),
        lambda m: (*m[0], *m[1], *m[2]),
    ),
    T.VECTOR4: Layout(4, "real", lambda t: _new(Vector4, t), tuple),
    T.VECTOR4I: Layout(4, "i32", lambda t: _new(Vector4i, t), tuple),
    T.PLANE: Layout(4, "real", lambda t: _new(Plane, (_v3(t), t[3])), lambda p: (*p[0], p[1])),
    T.QUATERNION: Layout(4, "real", lambda t: _new(Quaternion, t), tuple),
    T.AABB: Layout(6, "real", lambda t: _new(AABB, (_v3(t), _v3(t, 3))), lambda a: (*a[0], *a[1])),
    T.BASIS: Layout(9, "real", _basis_from_rows, _basis_rows),
    T.TRANSFORM3D: Layout(
        12,
        "real",
        lambda t: _new(Transform3D, (_basis_from_rows(t), _v3(t, 9))),
        lambda m: (*_basis_rows(m[0]), *m[1]),
    ),
    T.PROJECTION: Layout(
        16,
        "real",
        lambda t: _new(Projection, (_v4(t), _v4(t, 4), _v4(t, 8), _v4(t, 12))),
        lambda p: (*p[0], *p[1], *p[2], *p[3]),
    ),
    T.COLOR: Layout(4, "f32", lambda t: _new(Color, t), tuple),
}
