"""Quaternion's operators and methods (``gdvariant._values.math.quaternion``). Expected
values are worked out by hand: ``quarter`` turns 90 degrees about z (sin 45 = cos 45 =
sqrt(0.5), in float32)."""

from __future__ import annotations

import math

import pytest

from gdvariant import Quaternion, Vector3
from gdvariant._floats import f32

h = f32(math.sqrt(0.5))
quarter = Quaternion(0, 0, h, h)


def test_composition_and_rotation() -> None:
    # i * j = k; j * i = -k
    assert Quaternion(1, 0, 0, 0) * Quaternion(0, 1, 0, 0) == Quaternion(0, 0, 1, 0)
    assert Quaternion(0, 1, 0, 0) * Quaternion(1, 0, 0, 0) == Quaternion(0, 0, -1, 0)
    half = quarter * quarter  # a half turn: (0, 0, 2 h^2, h^2 - h^2)
    assert half == Quaternion(0, 0, f32(2 * f32(h * h)), 0)
    # a half turn about z maps x to -x: u = (0, 0, 1), uv = u x v = (0, 1, 0) ...
    assert Quaternion(0, 0, 1, 0) * Vector3(1, 0, 0) == Vector3(-1, 0, 0)
    assert Vector3(-1, 0, 0) * Quaternion(0, 0, 1, 0) == Vector3(1, 0, 0)


def test_componentwise_and_scalars() -> None:
    a, b = Quaternion(1, 2, 3, 4), Quaternion(1, 1, 1, 1)
    assert a + b == Quaternion(2, 3, 4, 5)
    assert a - b == Quaternion(0, 1, 2, 3)
    assert -a == Quaternion(-1, -2, -3, -4)
    assert a * 2 == 2 * a == Quaternion(2, 4, 6, 8)
    assert a / 4 == Quaternion(0.25, 0.5, 0.75, 1)
    assert (a / 3).x == f32(f32(1 / 3) * 1)  # times the float32 reciprocal, as Godot


def test_lengths_and_inverse() -> None:
    a = Quaternion(1, 2, 2, 4)
    assert a.length_squared() == 25.0 and a.length() == 5.0
    assert a.dot(Quaternion(1, 1, 1, 1)) == 9.0
    assert a.normalized() == Quaternion(*(f32(c * f32(1 / 5)) for c in (1, 2, 2, 4)))
    assert quarter.is_normalized() and not a.is_normalized()
    assert quarter.inverse() == Quaternion(0, 0, -h, h)
    assert a.inverse() == Quaternion()  # not normalized: the identity, as Godot's debug build
    assert Quaternion(1, 0, 0, 0) * Vector3(1, 2, 3) == Vector3(1, -2, -3)


def test_slerp_and_angle_to() -> None:
    assert Quaternion().slerp(Quaternion(0, 0, 1, 0), 0.5).is_equal_approx(Quaternion(0, 0, h, h))
    assert Quaternion().slerp(Quaternion(), 0.3) == Quaternion()  # close: a linear blend
    assert Quaternion().slerp(Quaternion(1, 2, 3, 4), 0.5) == Quaternion()  # not normalized
    assert Quaternion().angle_to(Quaternion(0, 0, 1, 0)) == f32(math.pi)
    assert Quaternion().angle_to(Quaternion()) == 0.0


def test_mixing_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        quarter + (0, 0, 0, 1)  # noqa: RUF005
    with pytest.raises(TypeError):
        quarter * (1, 2, 3)
    with pytest.raises(TypeError):
        quarter.dot((0, 0, 0, 1))  # type: ignore[arg-type]


def test_from_axis_angle() -> None:
    # half of a quarter turn is 45 degrees: (0, 0, sin 45, cos 45) about z
    q = Quaternion.from_axis_angle(Vector3(0, 0, 1), math.pi / 2)
    half = f32(f32(math.pi / 2) * 0.5)
    assert q == Quaternion(0, 0, f32(math.sin(half)), f32(math.cos(half)))
    assert Quaternion.from_axis_angle(Vector3(0, 0, 2), 1.0) == Quaternion()  # not normalized
    assert q.is_equal_approx(quarter)
