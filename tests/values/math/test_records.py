"""The math value types as records (``gdvariant._values.math``): Godot's defaults and how
components coerce.

Expectations come from Godot's semantics (identity transforms, Color's alpha of 1, reals
as floats and integer vectors as ints), never from gdvariant's own output.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from gdvariant import (
    AABB,
    RID,
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

# ---- constructors and defaults --------------------------------------------------------------


def test_vector_defaults_are_zero() -> None:
    assert tuple(Vector2()) == (0.0, 0.0)
    assert tuple(Vector3()) == (0.0, 0.0, 0.0)
    assert tuple(Vector4()) == (0.0, 0.0, 0.0, 0.0)
    assert tuple(Vector2i()) == (0, 0)
    assert tuple(Vector3i()) == (0, 0, 0)
    assert tuple(Vector4i()) == (0, 0, 0, 0)


def test_vector_fields() -> None:
    v = Vector4(1, 2, 3, 4)
    assert (v.x, v.y, v.z, v.w) == (1.0, 2.0, 3.0, 4.0)
    vi = Vector3i(7, 8, 9)
    assert (vi.x, vi.y, vi.z) == (7, 8, 9)
    assert Vector2(y=5).y == 5.0
    assert Vector2(1, 2)._asdict() == {"x": 1.0, "y": 2.0}


def test_quaternion_default_is_identity() -> None:
    q = Quaternion()
    assert (q.x, q.y, q.z, q.w) == (0.0, 0.0, 0.0, 1.0)


def test_color_alpha_defaults_to_one() -> None:
    c = Color(1, 0.5, 0)
    assert (c.r, c.g, c.b, c.a) == (1.0, 0.5, 0.0, 1.0)
    assert Color().a == 1.0
    assert Color(0, 0, 0, 0).a == 0.0


def test_basis_default_is_identity() -> None:
    b = Basis()
    assert b.x == Vector3(1, 0, 0)
    assert b.y == Vector3(0, 1, 0)
    assert b.z == Vector3(0, 0, 1)


def test_transform2d_default_is_identity() -> None:
    t = Transform2D()
    assert (t.x, t.y, t.origin) == (Vector2(1, 0), Vector2(0, 1), Vector2(0, 0))


def test_transform3d_default_is_identity() -> None:
    t = Transform3D()
    assert t.basis == Basis((1, 0, 0), (0, 1, 0), (0, 0, 1))
    assert t.origin == Vector3(0, 0, 0)


def test_transform3d_accepts_a_basis() -> None:
    b = Basis((0, 1, 0), (-1, 0, 0), (0, 0, 1))
    t = Transform3D(b, (1, 2, 3))
    assert t.basis == b
    assert type(t.basis) is Basis
    assert t.origin == Vector3(1, 2, 3)


def test_projection_default_is_identity() -> None:
    p = Projection()
    rows = [p.x, p.y, p.z, p.w]
    for i, column in enumerate(rows):
        assert type(column) is Vector4
        assert tuple(column) == tuple(1.0 if j == i else 0.0 for j in range(4))


def test_composite_fields_are_vectors() -> None:
    r = Rect2((1, 2), (3, 4))
    assert r.position == Vector2(1, 2) and r.size == Vector2(3, 4)
    ri = Rect2i((1, 2), (3, 4))
    assert ri.position == Vector2i(1, 2) and ri.size == Vector2i(3, 4)
    assert type(ri.position) is Vector2i
    p = Plane((0, 1, 0), 5)
    assert p.normal == Vector3(0, 1, 0) and p.d == 5.0
    a = AABB((1, 2, 3), (4, 5, 6))
    assert a.position == Vector3(1, 2, 3) and a.size == Vector3(4, 5, 6)
    assert Rect2() == Rect2((0, 0), (0, 0))
    assert AABB() == AABB((0, 0, 0), (0, 0, 0))
    assert Plane() == Plane((0, 0, 0), 0)


# ---- coercion -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        Vector2(1, 2),
        Vector3(1, 2, 3),
        Vector4(1, 2, 3, 4),
        Quaternion(0, 0, 0, 1),
        Color(1, 0, 0),
        Plane((0, 1, 0), 3),
        Rect2((1, 2), (3, 4)),
        AABB((1, 2, 3), (4, 5, 6)),
        Transform2D(),
        Basis(),
        Transform3D(),
        Projection(),
    ],
    ids=lambda v: type(v).__name__,
)
def test_ints_become_floats_in_real_types(value: Any) -> None:
    def leaves(v: Any) -> list[Any]:
        return [x for item in v for x in leaves(item)] if isinstance(v, tuple) else [v]

    components = leaves(value)
    assert components
    assert all(type(x) is float for x in components)


def test_integer_types_hold_ints() -> None:
    assert all(type(x) is int for x in Vector4i(True, 2, 3, 4))
    assert Vector2i(True, False) == Vector2i(1, 0)
    assert type(Rect2i((1, 2), (3, 4)).size.x) is int
    assert type(RID(True).id) is int


def test_integer_vector_from_non_int_is_type_error_or_truncates() -> None:
    with pytest.raises(TypeError):
        Vector2i("1", 2)  # type: ignore[arg-type]
    try:
        v = Vector2i(1.5, 2)  # type: ignore[arg-type]
    except TypeError:
        return
    assert v == Vector2i(1, 2)


def test_rect2_from_integer_vectors_converts() -> None:
    r = Rect2(Vector2i(1, 2), Vector2i(3, 4))
    assert r.position == Vector2(1, 2)
    assert type(r.position) is Vector2


def test_floats_keep_special_values() -> None:
    v = Vector2(math.inf, -0.0)
    assert v.x == math.inf
    assert math.copysign(1.0, v.y) == -1.0
    assert math.isnan(Vector3(math.nan, 0, 0).x)
