"""``real_t`` arithmetic (``gdvariant._values.math.reals``): IEEE results where Python raises,
C's rounding functions, and the single/double precision switch.

Expected values are worked out by hand from IEEE 754 and C's definitions.
"""

from __future__ import annotations

import asyncio
import math

import pytest

import gdvariant as gd
from gdvariant._values.math import reals as r


def _bits_equal(a: float, b: float) -> bool:
    return math.copysign(1.0, a) == math.copysign(1.0, b) and (a == b or (a != a and b != b))


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (1.0, 0.0, math.inf),
        (1.0, -0.0, -math.inf),
        (-1.0, 0.0, -math.inf),
        (-1.0, -0.0, math.inf),
        (0.0, 0.0, math.nan),
        (math.nan, 0.0, math.nan),
        (6.0, 4.0, 1.5),
    ],
)
def test_div_gives_ieee_results(a: float, b: float, expected: float) -> None:
    got = r.div(a, b)
    assert got == expected or (math.isnan(got) and math.isnan(expected))


def test_sqrt_of_negatives_is_nan_and_keeps_negative_zero() -> None:
    assert math.isnan(r.sqrt(-1.0))
    assert _bits_equal(r.sqrt(-0.0), -0.0)
    assert r.sqrt(math.inf) == math.inf
    assert r.sqrt(6.25) == 2.5


def test_floor_ceil_round_follow_c() -> None:
    assert _bits_equal(r.ceil(-0.5), -0.0)  # C's ceil keeps the sign; Python's gives int 0
    assert _bits_equal(r.floor(-0.0), -0.0)
    assert r.floor(-0.5) == -1.0
    assert r.round_half_away(2.5) == 3.0  # Python's round() gives 2
    assert r.round_half_away(-2.5) == -3.0
    assert r.round_half_away(0.49999997) == 0.0
    assert _bits_equal(r.round_half_away(-0.4), -0.0)
    for special in (math.inf, -math.inf):
        assert r.floor(special) == r.ceil(special) == r.round_half_away(special) == special
    assert math.isnan(r.round_half_away(math.nan))


def test_single_precision_rounds_every_step() -> None:
    # 0.1 and 0.2 as float32 are 13421773 * 2**-27 and 13421773 * 2**-26; their sum,
    # 40265319 * 2**-27, rounds to the float32 10066330 * 2**-25.
    assert r.reals().one(0.1) == 13421773 * 2.0**-27
    v = gd.Vector2(0.1, 0) + gd.Vector2(0.2, 0)
    assert v.x == 10066330 * 2.0**-25
    assert gd.Vector2(3e38, 0) * 2 == gd.Vector2(math.inf, 0)  # past float32's range


def test_double_precision_computes_in_doubles() -> None:
    with gd.math_precision(double=True):
        assert (gd.Vector2(0.1, 0) + gd.Vector2(0.2, 0)).x == 0.1 + 0.2
        assert gd.Vector2(3e38, 0) * 2 == gd.Vector2(6e38, 0)
        assert gd.Vector2(0.1, 0).length() == 0.1
    assert gd.Vector2(0.1, 0).length() == 13421773 * 2.0**-27  # back to single


def test_the_precision_is_restored_after_an_error_and_per_task() -> None:
    with pytest.raises(ZeroDivisionError), gd.math_precision(double=True):
        raise ZeroDivisionError
    assert r.reals() is r.SINGLE

    async def inside() -> bool:
        return r.reals().double

    async def main() -> tuple[bool, bool]:
        with gd.math_precision(double=True):
            task = asyncio.create_task(inside())
        return await task, r.reals().double

    assert asyncio.run(main()) == (True, False)


def test_math_precision_wants_a_bool() -> None:
    with pytest.raises(TypeError, match="True or False"), gd.math_precision("double"):  # type: ignore[arg-type]
        pass


def test_is_equal_approx_and_is_zero_approx() -> None:
    single = r.SINGLE
    assert r.is_equal_approx(single, 1.0, 1.0 + 2.0**-20)
    assert not r.is_equal_approx(single, 1.0, 1.0001)
    assert r.is_equal_approx(single, 1e6, 1e6 + 8)  # tolerance scales with |a|: 10
    assert r.is_equal_approx(single, math.inf, math.inf)
    assert not r.is_equal_approx(single, math.nan, math.nan)
    assert r.is_zero_approx(single, -0.000009)
    assert not r.is_zero_approx(single, 0.00001)


def test_rounding_to_float32_is_a_c_cast() -> None:
    single = r.SINGLE
    flt_max = 3.4028234663852886e38
    assert single.one(3.5e38) == math.inf and single.one(-3.5e38) == -math.inf
    assert single.one(3.4028235e38) == flt_max  # above FLT_MAX, below the midpoint to inf
    assert single.all([3.5e38, 0.1]) == (math.inf, 13421773 * 2.0**-27)
    assert single.all([0.5] * 20) == (0.5,) * 20  # past the packers' 16: the slow path
    assert single.one(1e-46) == 0.0 and single.one(1e-45) == 2.0**-149  # denormals kept
    assert math.isnan(single.one(math.nan))
    assert r.DOUBLE.all([0.1, 3.5e38]) == (0.1, 3.5e38)
