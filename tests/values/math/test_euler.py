"""Euler angles (``gdvariant._values.math.euler``), through Basis and Quaternion. Expected
values are worked out by hand or are another rotation built the same way."""

from __future__ import annotations

import math

import pytest

from gdvariant import Basis, EulerOrder, Quaternion, Vector3, math_precision
from gdvariant._floats import f32

X, Y, Z = Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)


def test_orders_are_godots() -> None:
    assert [o.name for o in EulerOrder] == ["XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"]
    assert list(EulerOrder) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("order", list(EulerOrder))
def test_one_angle_is_a_rotation_about_its_axis(order: EulerOrder) -> None:
    assert Basis.from_euler(Vector3(0.5, 0, 0), order) == Basis.from_axis_angle(X, 0.5)
    assert Basis.from_euler(Vector3(0, 0.5, 0), order) == Basis.from_axis_angle(Y, 0.5)
    assert Basis.from_euler(Vector3(0, 0, 0.5), order) == Basis.from_axis_angle(Z, 0.5)


@pytest.mark.parametrize("order", list(EulerOrder))
def test_angles_come_back(order: EulerOrder) -> None:
    angles = Vector3(0.3, -0.7, 1.1)
    assert Basis.from_euler(angles, order).get_euler(order).is_equal_approx(angles)


def test_the_order_matters() -> None:
    angles = Vector3(0.3, -0.7, 1.1)
    yxz = Basis.from_axis_angle(Y, -0.7) * Basis.from_axis_angle(X, 0.3)
    yxz = yxz * Basis.from_axis_angle(Z, 1.1)
    assert Basis.from_euler(angles).is_equal_approx(yxz)  # YXZ is the default
    assert not Basis.from_euler(angles, EulerOrder.ZYX).is_equal_approx(yxz)


def test_poles_and_simplest_angles() -> None:
    # at a pole the last angle is folded into the first
    pole = Basis.from_euler(Vector3(0.3, math.pi / 2, 0.2), EulerOrder.XYZ).get_euler(
        EulerOrder.XYZ
    )
    assert pole.y == f32(math.pi / 2) and pole.z == 0.0
    assert abs(pole.x - 0.5) < 1e-6
    # a pure y rotation reads back as one angle, exactly zero elsewhere
    turn = Basis.from_axis_angle(Y, 0.5).get_euler(EulerOrder.XYZ)
    assert turn.x == 0.0 and turn.z == 0.0 and abs(turn.y - 0.5) < 1e-6


def test_an_unknown_order() -> None:
    assert Basis.from_euler(Vector3(1, 2, 3), 6) == Basis()  # Godot prints an error
    assert Basis.from_axis_angle(Y, 0.5).get_euler(9) == Vector3()


def test_quaternions() -> None:
    assert Quaternion.from_euler(Vector3(0, 0.5, 0)) == Quaternion.from_axis_angle(Y, 0.5)
    q = Quaternion.from_euler(Vector3(0.3, -0.7, 1.1))
    assert q.get_euler().is_equal_approx(Vector3(0.3, -0.7, 1.1))
    assert Basis.from_quaternion(q).is_equal_approx(Basis.from_euler(Vector3(0.3, -0.7, 1.1)))
    assert Quaternion(0.1, 0.2, 0.3, 0.9).get_euler() == Vector3()  # not normalized
    assert Basis.from_quaternion(Quaternion()) == Basis()


def test_double_precision() -> None:
    single = Basis.from_euler(Vector3(0.1, 0.2, 0.3))
    with math_precision(double=True):
        double = Basis.from_euler(Vector3(0.1, 0.2, 0.3))
        assert double.z.z == math.cos(0.1) * math.cos(0.2)  # no float32 rounding on the way
    assert single.z.z == f32(f32(math.cos(f32(0.1))) * f32(math.cos(f32(0.2))))
