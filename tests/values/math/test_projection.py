"""Projection's products, determinant, inverse and camera measures
(``gdvariant._values.math.projection``). Expected values are worked out by hand."""

from __future__ import annotations

import math

import pytest

from gdvariant import Plane, Projection, Vector2, Vector3, Vector4, math_precision

scale = Projection((2, 0, 0, 0), (0, 3, 0, 0), (0, 0, 4, 0), (1, 2, 3, 1))  # scale, translate


def test_products() -> None:
    v = Vector4(1, 1, 1, 1)
    assert scale * v == Vector4(3, 5, 7, 1)
    assert v * scale == Vector4(2, 3, 4, 7)  # each column dotted with v
    assert scale * Projection() == scale
    assert Projection() * scale == scale
    doubled = scale * scale
    assert doubled.x == Vector4(4, 0, 0, 0) and doubled.w == Vector4(3, 8, 15, 1)
    # the sum starts at +0.0, so a single -0.0 product becomes +0.0, as in Godot
    got = (Projection((-0.0, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)) * Projection()).x.x
    assert got == 0.0 and math.copysign(1, got) == 1


def test_determinant() -> None:
    assert scale.determinant() == 24.0
    assert Projection().determinant() == 1.0
    assert Projection((1, 2, 0, 0), (2, 4, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)).determinant() == 0.0


def test_mixing_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        scale * (1, 1, 1, 1)
    with pytest.raises(TypeError):
        scale + scale
    with pytest.raises(TypeError):
        scale * 2


def test_inverse() -> None:
    doubled = Projection((2, 0, 0, 0), (0, 4, 0, 0), (0, 0, 8, 0), (2, 4, 8, 1))
    assert doubled.inverse() == Projection(
        (0.5, 0, 0, 0), (0, 0.25, 0, 0), (0, 0, 0.125, 0), (-1, -1, -1, 1)
    )


def test_inverse_round_trip_and_singular() -> None:
    camera = Projection.create_frustum(-1, 1, -1, 1, 1, 3)
    inverse = camera.inverse()
    third, two_thirds = 0.3333333432674408, 0.6666666865348816  # 1/3 and 2/3 in float32
    assert inverse == Projection(
        (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, -third), (0, 0, -1, two_thirds)
    )
    flat = Projection((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 1, 0))
    assert flat.inverse() == flat  # a zero pivot: unchanged, as Godot (which prints an error)


def test_what_a_camera_matrix_says() -> None:
    p = Projection.create_perspective(90, 1, 1, 3)
    assert (p.get_z_near(), p.get_z_far()) == (1.0, 3.0)
    assert abs(p.get_fov() - 90) < 1e-4
    assert not p.is_orthogonal()
    half = p.get_viewport_half_extents()
    assert abs(half.x - 1) < 1e-6 and abs(half.y - 1) < 1e-6
    far = p.get_far_plane_half_extents()
    assert abs(far.x - 3) < 1e-5 and abs(far.y - 3) < 1e-5
    o = Projection.create_orthogonal(-2, 2, -1, 1, 0, 2)
    assert o.is_orthogonal() and o.get_lod_multiplier() == 4.0
    assert o.get_pixels_per_meter(1000) == 250  # the near plane is 4 units wide
    assert Projection((0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0), (0, 0, 0, 0)).get_pixels_per_meter(
        10
    ) == -(2**31)  # NaN converted to int as x86 does


def test_planes() -> None:
    p = Projection.create_perspective(90, 1, 1, 3)
    near, far = p.get_projection_plane(0), p.get_projection_plane(1)
    assert (near.normal, near.d) == (Vector3(0, 0, 1), -1.0)  # z = -1, facing the camera
    assert (far.normal, far.d) == (Vector3(0, 0, -1), 3.0)  # z = -3
    assert p.get_projection_plane(6) == Plane()


def test_adjusted_copies() -> None:
    p = Projection.create_perspective(90, 1, 1, 3)
    moved = p.perspective_znear_adjusted(2)
    assert (moved.z.z, moved.w.z) == (-5.0, -12.0)
    assert (moved.get_z_near(), moved.get_z_far()) == (2.0, 3.0)
    assert scale.flipped_y() == Projection(scale.x, -scale.y, scale.z, scale.w)
    assert scale.jitter_offseted(Vector2(1, 2)).w == Vector4(2, 4, 3, 1)


def test_double_precision() -> None:
    thirds = Projection((3, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
    assert thirds.inverse().x.x == 0.3333333432674408  # float32, as a standard build
    with math_precision(double=True):
        assert thirds.inverse().x.x == 1 / 3  # as a precision=double build
        assert Projection.create_orthogonal(0, 3, 0, 1, 0, 1).x.x == 2 / 3
