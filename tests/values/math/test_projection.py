"""Projection's products and determinant (``gdvariant._values.math.projection``). Expected
values are worked out by hand."""

from __future__ import annotations

import math

import pytest

from gdvariant import Projection, Vector4

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
