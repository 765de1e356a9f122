"""The operators the real vectors and Color share (``gdvariant._values.math.componentwise``)
and the records that have no arithmetic of their own yet (they refuse plain tuples)."""

from __future__ import annotations

import pytest

import gdvariant as gd
from gdvariant._floats import f32
from gdvariant._values.math.componentwise import sum_of_products
from gdvariant._values.math.reals import DOUBLE, SINGLE


def test_sum_of_products_rounds_each_step_left_to_right() -> None:
    # 1 + 2**-24 is not a float32: (1 + 2**-24) + 2**-24 rounds at each step back to 1.0,
    # while 1 + (2**-24 + 2**-24) would be 1 + 2**-23.
    a = (1.0, 2.0**-24, 2.0**-24)
    ones = (1.0, 1.0, 1.0)
    assert sum_of_products(SINGLE, a, ones) == 1.0
    assert sum_of_products(DOUBLE, a, ones) == 1.0 + 2.0**-23


def test_scalars_are_rounded_to_real_t_first() -> None:
    assert (gd.Vector2(1, 0) * 0.1).x == f32(0.1)
    assert (gd.Vector2(3, 0) / 3).x == 1.0


@pytest.mark.parametrize(
    "value",
    [gd.Projection()],
)
def test_records_without_arithmetic_refuse_tuples(value: object) -> None:
    with pytest.raises(TypeError):
        value + (1,)  # type: ignore[operator]  # noqa: RUF005
    with pytest.raises(TypeError):
        (1,) + value  # type: ignore[operator]  # noqa: RUF005
    with pytest.raises(TypeError):
        value * 2  # type: ignore[operator]
