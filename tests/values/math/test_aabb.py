"""AABB's methods (``gdvariant._values.math.aabb``). Expected values are worked out by hand."""

from __future__ import annotations

import pytest

from gdvariant import AABB, Vector3

box = AABB((0, 0, 0), (2, 2, 2))


def test_measures() -> None:
    assert box.end == Vector3(2, 2, 2)
    assert box.get_center() == Vector3(1, 1, 1)
    assert AABB((0, 0, 0), (2, 3, 4)).get_volume() == 24.0
    assert box.has_volume() and not AABB((0, 0, 0), (1, 0, 1)).has_volume()


def test_points_and_overlaps() -> None:
    assert box.has_point(Vector3(2, 2, 2))  # faces count, unlike Rect2's far edges
    assert not box.has_point(Vector3(2.5, 1, 1))
    assert box.intersects(AABB((1, 1, 1), (2, 2, 2)))
    assert not box.intersects(AABB((2, 0, 0), (1, 1, 1)))  # touching faces do not
    assert box.encloses(AABB((0, 0, 0), (2, 1, 1))) and not box.encloses(AABB((1, 1, 1), (2, 2, 2)))


def test_merge_intersection_grow_abs() -> None:
    other = AABB((1, -1, 1), (2, 2, 2))
    assert box.merge(other) == AABB((0, -1, 0), (3, 3, 3))
    assert box.intersection(other) == AABB((1, 0, 1), (1, 1, 1))
    assert box.intersection(AABB((5, 5, 5), (1, 1, 1))) == AABB()
    assert box.grow(0.5) == AABB((-0.5, -0.5, -0.5), (3, 3, 3))
    assert AABB((5, 5, 5), (-2, 3, -1)).abs() == AABB((3, 5, 4), (2, 3, 1))
    assert box.is_equal_approx(AABB((0, 0, 0.000001), (2, 2, 2)))


def test_mixing_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        box.has_point((1, 1, 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        box + box


def test_expand() -> None:
    box = AABB((0, 0, 0), (1, 1, 1))
    assert box.expand(Vector3(2, -1, 0.5)) == AABB((0, -1, 0), (2, 2, 1))
    assert box.expand(Vector3(0.5, 0.5, 0.5)) == box
    with pytest.raises(TypeError):
        box.expand((2, 2, 2))  # type: ignore[arg-type]
