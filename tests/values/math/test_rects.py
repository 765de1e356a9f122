"""Rect2 and Rect2i's methods (``gdvariant._values.math.rects``). Expected values are worked
out by hand from Godot's formulas."""

from __future__ import annotations

import pytest

from gdvariant import Rect2, Rect2i, Vector2, Vector2i

INT32_MAX = 2**31 - 1


def test_rect2_measures() -> None:
    r = Rect2((1, 2), (4, 6))
    assert r.end == Vector2(5, 8)
    assert r.get_area() == 24.0
    assert r.get_center() == Vector2(3, 5)
    assert r.has_area() and not Rect2((0, 0), (0, 5)).has_area()


def test_rect2_points_and_overlaps() -> None:
    r = Rect2((0, 0), (2, 2))
    assert r.has_point(Vector2(0, 0)) and r.has_point(Vector2(1.9, 1))
    assert not r.has_point(Vector2(2, 1))  # the far edges are outside
    touching = Rect2((2, 0), (1, 1))
    assert not r.intersects(touching) and r.intersects(touching, True)
    assert r.intersects(Rect2((1, 1), (5, 5)))
    assert r.encloses(Rect2((0.5, 0.5), (1.5, 1.5))) and not r.encloses(Rect2((1, 1), (2, 2)))
    with pytest.raises(TypeError):
        r.has_point((1, 1))  # type: ignore[arg-type]


def test_rect2_merge_intersection_grow_expand_abs() -> None:
    a, b = Rect2((0, 0), (2, 2)), Rect2((1, -1), (3, 2))
    assert a.merge(b) == Rect2((0, -1), (4, 3))
    assert a.intersection(b) == Rect2((1, 0), (1, 1))
    assert a.intersection(Rect2((5, 5), (1, 1))) == Rect2()
    assert a.grow(0.5) == Rect2((-0.5, -0.5), (3, 3))
    assert a.expand(Vector2(3, -1)) == Rect2((0, -1), (3, 3))
    assert Rect2((5, 5), (-2, 3)).abs() == Rect2((3, 5), (2, 3))
    assert a.is_equal_approx(Rect2((0, 0.000001), (2, 2)))


def test_rect2i() -> None:
    r = Rect2i((1, 2), (4, 6))
    assert r.end == Vector2i(5, 8) and r.get_area() == 24
    assert r.get_center() == Vector2i(3, 5)
    assert Rect2i((0, 0), (-3, 5)).get_center() == Vector2i(-1, 2)  # -3 / 2 truncates
    assert r.has_point(Vector2i(1, 2)) and not r.has_point(Vector2i(5, 2))
    assert r.intersects(Rect2i((4, 7), (5, 5))) and not r.intersects(Rect2i((5, 2), (1, 1)))
    assert r.encloses(Rect2i((2, 3), (3, 5)))
    assert r.merge(Rect2i((0, 0), (1, 1))) == Rect2i((0, 0), (5, 8))
    assert r.intersection(Rect2i((3, 3), (10, 1))) == Rect2i((3, 3), (2, 1))
    assert r.grow(1) == Rect2i((0, 1), (6, 8))
    assert Rect2i((0, 0), (65536, 65536)).get_area() == 0  # 2**32 wraps in int32
    assert Rect2i((INT32_MAX, 0), (1, 1)).end == Vector2i(-(2**31), 1)


def test_rects_refuse_tuple_arithmetic() -> None:
    with pytest.raises(TypeError):
        Rect2() + (1, 2)  # noqa: RUF005
    with pytest.raises(TypeError):
        (1, 2) + Rect2i()  # noqa: RUF005
    with pytest.raises(TypeError):
        Rect2() * 2


def test_rect2i_abs_and_expand() -> None:
    assert Rect2i((5, 5), (-2, 3)).abs() == Rect2i((3, 5), (2, 3))
    assert Rect2i((0, 0), (2, 2)).expand(Vector2i(-1, 5)) == Rect2i((-1, 0), (3, 5))
    assert Rect2i((0, 0), (2, 2)).expand(Vector2i(1, 1)) == Rect2i((0, 0), (2, 2))
