"""Transform2D's operators and methods (``gdvariant._values.math.transform2d``). Expected
values are worked out by hand: a quarter turn maps x to y and y to -x."""

from __future__ import annotations

import math

import pytest

from gdvariant import Rect2, Transform2D, Vector2
from gdvariant._floats import f32

quarter = Transform2D((0, 1), (-1, 0), (10, 0))  # rotate +90 degrees, then move 10 along x


def test_points_and_composition() -> None:
    assert quarter * Vector2(1, 0) == Vector2(10, 1)
    assert quarter.xform(Vector2(0, 2)) == Vector2(8, 0)
    assert quarter.basis_xform(Vector2(1, 0)) == Vector2(0, 1)
    assert Vector2(10, 1) * quarter == Vector2(1, 0)  # Godot's v * t is the inverse
    assert quarter.basis_xform_inv(Vector2(0, 1)) == Vector2(1, 0)
    assert quarter * quarter == Transform2D((-1, 0), (0, -1), (10, 10))
    assert quarter * 2 == Transform2D((0, 2), (-2, 0), (20, 0))
    assert quarter / 2 == Transform2D((0, 0.5), (-0.5, 0), (5, 0))


def test_inverses() -> None:
    expected = Transform2D((0, -1), (1, 0), (0, 10))
    assert quarter.inverse() == expected
    assert quarter.affine_inverse() == expected
    scaled = Transform2D((2, 0), (0, 4), (2, 4))
    assert scaled.affine_inverse() == Transform2D((0.5, 0), (0, 0.25), (-1, -1))
    singular = Transform2D((1, 2), (2, 4), (3, 3))
    assert singular.affine_inverse() == singular  # as Godot's debug builds: unchanged


def test_measures_and_builders() -> None:
    assert quarter.determinant() == 1.0
    assert Transform2D((2, 0), (0, -3), (0, 0)).get_scale() == Vector2(2, -3)
    assert quarter.get_origin() == Vector2(10, 0)
    assert quarter.get_rotation() == 13176795 * 2.0**-23  # float32 nearest pi / 2
    assert quarter.translated(Vector2(1, 1)).origin == Vector2(11, 1)
    assert quarter.translated_local(Vector2(1, 0)).origin == Vector2(10, 1)
    assert quarter.scaled(Vector2(2, 3)) == Transform2D((0, 3), (-2, 0), (20, 0))
    assert quarter.scaled_local(Vector2(2, 3)) == Transform2D((0, 2), (-3, 0), (10, 0))
    assert quarter.is_equal_approx(Transform2D((0, 1.000001), (-1, 0), (10, 0)))
    assert quarter.is_finite()


def test_mixing_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        quarter * (1, 0)
    with pytest.raises(TypeError):
        quarter + quarter
    with pytest.raises(TypeError):
        quarter.basis_xform((1, 0))  # type: ignore[arg-type]


def test_rotation_builders() -> None:
    half_pi = 13176795 * 2.0**-23  # float32 nearest pi / 2
    cos = f32(math.pi / 2 - half_pi)  # its cosine, a little below zero
    turn = Transform2D.from_rotation(math.pi / 2, Vector2(1, 2))
    assert turn == Transform2D((cos, 1), (-1, cos), (1, 2))
    assert Transform2D().rotated(math.pi / 2) == Transform2D((cos, 1), (-1, cos), (0, 0))
    moved = Transform2D((1, 0), (0, 1), (1, 0))
    assert moved.rotated(math.pi / 2).origin == Vector2(cos, 1)  # the origin turns too
    assert moved.rotated_local(math.pi / 2).origin == Vector2(1, 0)  # it stays
    assert Vector2.from_angle(math.pi / 2) == Vector2(cos, 1)


def test_rects() -> None:
    quarter = Transform2D((0, 1), (-1, 0), (10, 0))  # a quarter turn, then 10 along x
    box = Rect2((0, 0), (2, 1))
    moved = quarter * box  # corners (10, 0), (10, 2), (9, 0), (9, 2)
    assert moved == Rect2((9, 0), (1, 2))
    assert moved * quarter == box  # the inverse, as Godot's Rect2 * Transform2D
    assert quarter.xform_rect(box) == moved and quarter.xform_inv_rect(moved) == box
    with pytest.raises(TypeError):
        quarter * (0, 0, 2, 1)
    with pytest.raises(TypeError):
        box * Vector2(1, 1)
