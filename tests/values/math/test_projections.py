"""The camera builders (``gdvariant._values.math.projections``), through Projection's
``create_*`` methods. Expected values are worked out by hand."""

from __future__ import annotations

import math

import pytest

from gdvariant import AABB, Projection, Rect2, Vector2, Vector4

IDENTITY = Projection()


def test_perspective() -> None:
    p = Projection.create_perspective(90, 1, 1, 3)
    assert p.z == Vector4(0, 0, -2, -1)  # -(far + near) / (far - near), and -1
    assert p.w == Vector4(0, 0, -3, 0)  # -2 * near * far / (far - near)
    assert p.x.x == p.y.y and abs(p.x.x - 1) < 1e-6  # cot(45 degrees)
    assert Projection.create_perspective(90, 2, 1, 3).get_aspect() == 2.0
    # a zero depth range, field of view or aspect leaves the identity, as in Godot
    assert Projection.create_perspective(90, 1, 2, 2) == IDENTITY
    assert Projection.create_perspective(0, 1, 1, 3) == IDENTITY
    assert Projection.create_perspective(90, 0, 1, 3) == IDENTITY
    # flip_fov reads 90 as the horizontal field of view: at aspect 2 the vertical one shrinks
    flipped = Projection.create_perspective(90, 2, 1, 3, True)
    assert abs(flipped.x.x - 1) < 1e-6 and abs(flipped.y.y - 2) < 1e-5


def test_get_fovy() -> None:
    assert abs(Projection.get_fovy(90, 1) - 90) < 1e-4
    assert abs(Projection.get_fovy(90, 0.5) - math.degrees(2 * math.atan(0.5))) < 1e-4


def test_orthogonal() -> None:
    o = Projection.create_orthogonal(-1, 1, -2, 2, 0, 4)
    assert o == Projection((1, 0, 0, 0), (0, 0.5, 0, 0), (0, 0, -0.5, 0), (0, 0, -1, 1))
    assert Projection.create_orthogonal_aspect(4, 2, 0, 4) == Projection.create_orthogonal(
        -4, 4, -2, 2, 0, 4
    )
    assert Projection.create_orthogonal_aspect(4, 2, 0, 4, True) == Projection.create_orthogonal(
        -2, 2, -1, 1, 0, 4
    )


def test_frustum() -> None:
    f = Projection.create_frustum(-1, 1, -1, 1, 1, 3)
    assert f == Projection((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, -2, -1), (0, 0, -3, 0))
    assert Projection.create_frustum(1, -1, -1, 1, 1, 3) == IDENTITY  # right <= left
    assert Projection.create_frustum(-1, 1, -1, 1, 3, 1) == IDENTITY  # far <= near
    shifted = Projection.create_frustum_aspect(2, 1, Vector2(1, 0), 1, 3)
    assert shifted == Projection.create_frustum(0, 2, -1, 1, 1, 3)


def test_fit_aabb_depth_correction_and_atlas() -> None:
    fit = Projection.create_fit_aabb(AABB((-1, -2, -4), (2, 4, 8)))
    assert fit == Projection((1, 0, 0, 0), (0, 0.5, 0, 0), (0, 0, 0.25, 0), (0, 0, 0, 1))
    assert Projection.create_depth_correction(True) == Projection(
        (1, 0, 0, 0), (0, -1, 0, 0), (0, 0, -0.5, 0), (0, 0, 0.5, 1)
    )
    assert Projection.create_light_atlas_rect(Rect2((1, 2), (3, 4))) == Projection(
        (3, 0, 0, 0), (0, 4, 0, 0), (0, 0, 1, 0), (1, 2, 0, 1)
    )


def test_arguments_are_checked() -> None:
    with pytest.raises(TypeError):
        Projection.create_fit_aabb((0, 0, 0, 1, 1, 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Projection.create_frustum_aspect(2, 1, (0, 0), 1, 3)  # type: ignore[arg-type]
