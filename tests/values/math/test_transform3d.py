"""Basis and Transform3D's operators and methods (``gdvariant._values.math.transform3d``).
Expected values are worked out by hand: ``turn`` is a quarter turn about z with z scaled by 2
(columns x -> y, y -> -x, z -> 2z)."""

from __future__ import annotations

import math

import pytest

from gdvariant import AABB, Basis, Plane, Rect2, Transform3D, Vector3

turn = Basis((0, 1, 0), (-1, 0, 0), (0, 0, 2))


def test_basis_products() -> None:
    v = Vector3(1, 2, 3)
    assert turn * v == Vector3(-2, 1, 6)  # x*1 + y*2 + z*3 over the columns
    assert turn.xform(v) == Vector3(-2, 1, 6)
    assert v * turn == Vector3(2, -1, 6)  # each column dotted with v
    assert turn * turn == Basis((-1, 0, 0), (0, -1, 0), (0, 0, 4))
    assert turn * 2 == Basis((0, 2, 0), (-2, 0, 0), (0, 0, 4))
    assert turn / 2 == Basis((0, 0.5, 0), (-0.5, 0, 0), (0, 0, 1))


def test_basis_measures() -> None:
    assert turn.determinant() == 2.0
    assert turn.transposed() == Basis((0, -1, 0), (1, 0, 0), (0, 0, 2))
    assert turn.inverse() == Basis((0, -1, 0), (1, 0, -0.0), (-0.0, 0, 0.5))
    singular = Basis((1, 2, 3), (2, 4, 6), (0, 0, 1))
    assert singular.inverse() == singular  # as Godot's debug builds
    assert turn.get_scale() == Vector3(1, 1, 2)
    assert Basis((2, 0, 0), (1, 3, 0), (0, 0, -4)).orthonormalized() == Basis(
        (1, 0, 0), (0, 1, 0), (0, 0, -1)
    )
    assert turn.is_equal_approx(Basis((0, 1.000001, 0), (-1, 0, 0), (0, 0, 2)))


def test_transform3d() -> None:
    t = Transform3D(turn, (1, 2, 3))
    assert t * Vector3(1, 2, 3) == Vector3(-1, 3, 9)
    assert Vector3(-1, 3, 3) * Transform3D(turn, (-1, 3, 3)) == Vector3(0, 0, 0)
    assert t * t == Transform3D(turn * turn, (-1, 3, 9))
    assert t.affine_inverse() == Transform3D(turn.inverse(), (-2, 1, -1.5))
    assert t.inverse() == Transform3D(turn.transposed(), (-2, 1, -6))
    assert t * 2 == Transform3D(turn * 2, (2, 4, 6))
    assert t.translated(Vector3(1, 1, 1)).origin == Vector3(2, 3, 4)
    assert t.is_equal_approx(Transform3D(turn, (1, 2, 3.00001)))


def test_mixing_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        turn * (1, 2, 3)
    with pytest.raises(TypeError):
        turn + turn
    with pytest.raises(TypeError):
        Transform3D() * Basis()


def test_boxes() -> None:
    t = Transform3D(Basis((0, 1, 0), (-1, 0, 0), (0, 0, 1)), (1, 2, 3))  # quarter turn about z
    box = AABB((0, 0, 0), (2, 1, 1))  # x from 0 to 2 becomes y from 2 to 4; y becomes -x
    moved = t * box
    assert moved == AABB((0, 2, 3), (1, 2, 1))
    assert moved * t == box  # the inverse, as Godot's AABB * Transform3D
    assert t.xform_aabb(box) == moved and t.xform_inv_aabb(moved) == box


def test_planes() -> None:
    up = Plane((0, 1, 0), 2)  # y = 2
    lifted = Transform3D(Basis(), (0, 5, 0))
    assert lifted * up == Plane((0, 1, 0), 7) and up * lifted == Plane((0, 1, 0), -3)
    stretched = Transform3D(Basis((1, 0, 0), (0, 2, 0), (0, 0, 1)))
    assert stretched * up == Plane((0, 1, 0), 4)  # the normal through the inverse transpose
    assert stretched.xform_plane(up) == Plane((0, 1, 0), 4)
    assert stretched.xform_inv_plane(Plane((0, 1, 0), 4)) == Plane((0, 1, 0), 2)


def test_other_operands_are_type_errors() -> None:
    with pytest.raises(TypeError):
        Transform3D() * Rect2()
    with pytest.raises(TypeError):
        AABB() * Plane()
    with pytest.raises(TypeError):
        Transform3D().xform_aabb(Plane())  # type: ignore[arg-type]


def test_basis_slerp() -> None:
    quarter = Basis.from_axis_angle(Vector3(0, 0, 1), math.pi / 2)
    half = Basis().slerp(quarter, 0.5)
    assert half.is_equal_approx(Basis.from_axis_angle(Vector3(0, 0, 1), math.pi / 4))
    # row lengths go linearly; a basis that is not a rotation turns as the identity
    scaled = Basis((2, 0, 0), (0, 2, 0), (0, 0, 2))
    assert scaled.slerp(Basis(), 0.5) == Basis((1.5, 0, 0), (0, 1.5, 0), (0, 0, 1.5))
