"""The 4x4 inverse Projection uses (``gdvariant._values.math.matrix4``). Expected values are
worked out by hand."""

from __future__ import annotations

from gdvariant._values.math.matrix4 import inverse
from gdvariant._values.math.reals import DOUBLE, SINGLE


def test_scale_and_translation() -> None:
    m = ((2.0, 0.0, 0.0, 0.0), (0.0, 4.0, 0.0, 0.0), (0.0, 0.0, 8.0, 0.0), (1.0, 2.0, 3.0, 1.0))
    assert inverse(SINGLE, m) == (
        (0.5, 0.0, 0.0, 0.0),
        (0.0, 0.25, 0.0, 0.0),
        (0.0, 0.0, 0.125, 0.0),
        (-0.5, -0.5, -0.375, 1.0),
    )


def test_rows_are_swapped_to_find_a_pivot() -> None:
    swap = ((0.0, 1.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0))
    assert inverse(SINGLE, swap) == swap


def test_a_zero_pivot_is_none() -> None:
    zeros = ((0.0,) * 4,) * 4
    assert inverse(SINGLE, zeros) is None
    flat = ((1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 1.0, 0.0))
    assert inverse(SINGLE, flat) is None  # the last pivot is zero


def test_precision() -> None:
    m = ((3.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0))
    single, double = inverse(SINGLE, m), inverse(DOUBLE, m)
    assert single is not None and double is not None
    assert single[0][0] == 0.3333333432674408  # 1/3 in float32
    assert double[0][0] == 1 / 3
