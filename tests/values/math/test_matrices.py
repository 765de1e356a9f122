"""3x3 row matrices (``gdvariant._values.math.matrices``): the axis-angle rotation that
Basis, Transform3D and Vector3.rotated share, worked out by hand."""

from __future__ import annotations

import math

from gdvariant import Basis, Transform3D, Vector3
from gdvariant._floats import f32
from gdvariant._values.math import matrices
from gdvariant._values.math.reals import SINGLE

HALF_PI = 13176795 * 2.0**-23  # float32 nearest pi / 2
COS = f32(math.pi / 2 - HALF_PI)  # cos(HALF_PI), a little below zero


def test_axis_angle_about_z() -> None:
    rows = matrices.axis_angle(SINGLE, (0.0, 0.0, 1.0), HALF_PI)
    assert rows is not None
    # x x t = 0, so the off-diagonals are -/+ z * sine = -/+1; the diagonal is cos, cos, 1
    assert rows == (COS, -1.0, 0.0, 1.0, COS, 0.0, 0.0, 0.0, 1.0)
    assert matrices.axis_angle(SINGLE, (0.0, 0.0, 2.0), 1.0) is None  # not normalized


def test_rotations() -> None:
    z = Vector3(0, 0, 1)
    assert Vector3(1, 0, 0).rotated(z, math.pi / 2) == Vector3(COS, 1, 0)
    assert Vector3(1, 2, 3).rotated(Vector3(0, 0, 2), 1.0) == Vector3(1, 2, 3)  # as debug builds
    turn = Basis.from_axis_angle(z, math.pi / 2)
    assert turn == Basis((COS, 1, 0), (-1, COS, 0), (0, 0, 1))
    assert Basis().rotated(z, math.pi / 2) == turn
    assert Basis.from_axis_angle(Vector3(0, 2, 0), 1.0) == Basis()
    moved = Transform3D(Basis(), (1, 0, 0))
    assert moved.rotated(z, math.pi / 2) == Transform3D(turn, (COS, 1, 0))
    assert moved.rotated_local(z, math.pi / 2) == Transform3D(turn, (1, 0, 0))


def test_products_and_inverse() -> None:
    m = (2.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 8.0)
    assert matrices.xform(SINGLE, m, (1.0, 1.0, 1.0)) == (2.0, 4.0, 8.0)
    assert matrices.inverse(SINGLE, m) == (0.5, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 0.125)
    assert matrices.times(SINGLE, m, m) == (4.0, 0.0, 0.0, 0.0, 16.0, 0.0, 0.0, 0.0, 64.0)
    assert matrices.transposed((1, 2, 3, 4, 5, 6, 7, 8, 9)) == (1, 4, 7, 2, 5, 8, 3, 6, 9)
    assert matrices.inverse(SINGLE, (1.0,) * 9) is None
