"""Plane's methods (``gdvariant._values.math.plane``). Expected values are worked out by hand:
``floor`` is the plane y = 2, normal up."""

from __future__ import annotations

import pytest

from gdvariant import Plane, Vector3
from gdvariant._floats import f32

floor = Plane((0, 1, 0), 2)


def test_distances_and_sides() -> None:
    assert floor.distance_to(Vector3(5, 7, 5)) == 5.0
    assert floor.distance_to(Vector3(0, 0, 0)) == -2.0
    assert floor.is_point_over(Vector3(0, 3, 0)) and not floor.is_point_over(Vector3(0, 2, 0))
    assert floor.has_point(Vector3(9, 2.000001, 9))
    assert not floor.has_point(Vector3(9, 2.1, 9)) and floor.has_point(Vector3(9, 2.1, 9), 0.5)
    assert floor.project(Vector3(1, 7, 3)) == Vector3(1, 2, 3)
    assert floor.get_center() == Vector3(0, 2, 0)


def test_negation_and_normalized() -> None:
    assert -floor == Plane((0, -1, 0), -2)  # -0.0 == 0.0 in the normal
    assert Plane((0, 3, 4), 10).normalized() == Plane((0, f32(0.6), f32(0.8)), 2)
    assert Plane((0, 0, 0), 5).normalized() == Plane((0, 0, 0), 0)
    assert floor.is_equal_approx(Plane((0, 1, 0), 2.000001))
    assert floor.is_finite() and not Plane((0, 1, 0), float("inf")).is_finite()


def test_mixing_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        floor.distance_to((1, 2, 3))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        floor + floor
