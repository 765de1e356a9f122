"""Color's operators and methods (``gdvariant._values.math.color``): float32 in every build.
Expected values are worked out by hand from Godot's formulas."""

from __future__ import annotations

import math

import pytest

import gdvariant as gd
from gdvariant import Color
from gdvariant._floats import f32


def test_operators() -> None:
    a, b = Color(0.5, 0.25, 1, 1), Color(0.25, 0.25, 0.5, 0.5)
    assert a + b == Color(0.75, 0.5, 1.5, 1.5)
    assert a - b == Color(0.25, 0, 0.5, 0.5)
    assert a * b == Color(0.125, 0.0625, 0.5, 0.5)
    assert a / b == Color(2, 1, 2, 2)
    assert a * 2 == 2 * a == Color(1, 0.5, 2, 2)
    assert -a == Color(0.5, 0.75, 0, 0)  # 1 - c, alpha included (Godot's unary minus)
    with pytest.raises(TypeError):
        a + (0.1, 0.1, 0.1, 0.1)  # noqa: RUF005
    with pytest.raises(TypeError):
        a + gd.Vector4(1, 1, 1, 1)


def test_color_is_float32_even_in_double_precision() -> None:
    with gd.math_precision(double=True):
        assert (Color(0.1, 0, 0) + Color(0.2, 0, 0)).r == f32(f32(0.1) + f32(0.2))


def test_darkened_lightened_inverted_lerp() -> None:
    c = Color(1, 0.5, 0, 0.5)
    assert c.darkened(0.5) == Color(0.5, 0.25, 0, 0.5)
    assert c.lightened(0.5) == Color(1, 0.75, 0.5, 0.5)
    assert c.inverted() == Color(0, 0.5, 1, 0.5)
    assert Color(0, 0, 0, 0).lerp(Color(1, 1, 1, 1), 0.25) == Color(0.25, 0.25, 0.25, 0.25)


def test_clamp_defaults_to_zero_and_one() -> None:
    assert Color(-1, 2, 0.5, 3).clamp() == Color(0, 1, 0.5, 1)
    lo, hi = Color(0.2, 0.2, 0.2, 0.2), Color(0.4, 0.4, 0.4, 0.4)
    assert Color(0, 1, 0.3, 0.3).clamp(lo, hi) == Color(*(f32(c) for c in (0.2, 0.4, 0.3, 0.3)))


def test_to_html() -> None:
    assert Color(1, 0.5, 0, 1).to_html() == "ff8000ff"  # 127.5 rounds half away: 128 = 0x80
    assert Color(1, 0.5, 0, 1).to_html(False) == "ff8000"
    assert Color(2, -1, math.nan, 0.2).to_html() == "ff000033"  # clamped; NaN gives 0
    assert Color(1e10, 0, 0, 1).to_html() == "000000ff"  # past int32: x86 gives INT32_MIN -> 0


def test_luminance_and_blend() -> None:
    assert Color(1, 1, 1).get_luminance() == f32(f32(f32(0.2126) + f32(0.7152)) + f32(0.0722))
    assert Color(1, 0, 0, 1).blend(Color(0, 0, 1, 0.5)) == Color(0.5, 0, 0.5, 1)
    assert Color(1, 0, 0, 0).blend(Color(0, 0, 1, 0)) == Color(0, 0, 0, 0)


def test_is_equal_approx() -> None:
    assert Color(0.5, 0.5, 0.5).is_equal_approx(Color(0.500001, 0.5, 0.5))
    assert not Color(0.5, 0.5, 0.5).is_equal_approx(Color(0.501, 0.5, 0.5))
