"""Vector2i, Vector3i, Vector4i's operators and methods
(``gdvariant._values.math.integer_vectors``): int32 wrapping, C's division, and the float
operands that make a real vector. Expected values are worked out by hand."""

from __future__ import annotations

import math

import pytest

from gdvariant import Vector2, Vector2i, Vector3, Vector3i, Vector4i

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def test_arithmetic_wraps_as_int32() -> None:
    assert Vector2i(INT32_MAX, 0) + Vector2i(1, 0) == Vector2i(INT32_MIN, 0)
    assert Vector2i(INT32_MIN, 5) - Vector2i(1, 0) == Vector2i(INT32_MAX, 5)
    assert Vector3i(65536, 2, 3) * Vector3i(65536, 3, 4) == Vector3i(0, 6, 12)
    assert -Vector2i(INT32_MIN, 1) == Vector2i(INT32_MIN, -1)
    assert Vector2i(1, 2) * (2**32 + 3) == Vector2i(3, 6)  # the int is cut to int32 first
    assert 3 * Vector2i(1, 2) == Vector2i(3, 6)


def test_division_and_modulo_truncate_as_c() -> None:
    assert Vector2i(7, -7) / 2 == Vector2i(3, -3)
    assert Vector2i(7, -7) / Vector2i(-2, -2) == Vector2i(-3, 3)
    assert Vector2i(7, -7) % 3 == Vector2i(1, -1)
    assert Vector4i(7, -7, 7, -7) % Vector4i(3, 3, -3, -3) == Vector4i(1, -1, 1, -1)


@pytest.mark.parametrize(
    "expression",
    [
        "Vector2i(1, 2) / 0",
        "Vector2i(1, 2) / Vector2i(1, 0)",
        "Vector2i(1, 2) % 0",
        "Vector2i(1, 2) / 0.0",
    ],
)
def test_a_zero_divisor_raises(expression: str) -> None:
    with pytest.raises(ZeroDivisionError):
        eval(expression, {"Vector2i": Vector2i})


def test_a_float_operand_makes_the_real_vector() -> None:
    assert Vector2i(3, 4) * 0.5 == Vector2(1.5, 2)
    assert 0.5 * Vector3i(2, 4, 6) == Vector3(1, 2, 3)
    assert Vector2i(1, 3) / 2.0 == Vector2(0.5, 1.5)
    assert type(Vector2i(1, 3) / 2) is Vector2i


@pytest.mark.parametrize(
    "expression",
    [
        "Vector2i(1, 2) + (1, 2)",
        "(1, 2) + Vector2i(1, 2)",
        "Vector2i(1, 2) * [2]",
        "Vector2i(1, 2) * True",
        "Vector2i(1, 2) + Vector2(1, 2)",
        "Vector2i(1, 2) + 1",
        "Vector2i(1, 2).clamp((0, 0), (1, 1))",
    ],
)
def test_mixing_is_a_type_error(expression: str) -> None:
    with pytest.raises(TypeError):
        eval(expression, {"Vector2i": Vector2i, "Vector2": Vector2})


def test_lengths() -> None:
    assert Vector2i(3, 4).length() == 5.0 and Vector2i(3, 4).length_squared() == 25
    assert Vector3i(1, 2, 2).distance_to(Vector3i(0, 0, 0)) == 3.0
    assert Vector2i(1, 1).distance_squared_to(Vector2i(4, 5)) == 25
    # 2 * 2**62 = 2**63 wraps in int64, as in the engine; its length is then NaN
    assert Vector2i(INT32_MIN, INT32_MIN).length_squared() == -(2**63)
    assert math.isnan(Vector2i(INT32_MIN, INT32_MIN).length())
    assert Vector2i(INT32_MAX, 0).length() == float(INT32_MAX)  # a double, not float32


def test_componentwise() -> None:
    assert Vector2i(-3, INT32_MIN).abs() == Vector2i(3, INT32_MIN)
    assert Vector3i(-3, 0, 9).sign() == Vector3i(-1, 0, 1)
    assert Vector2i(-5, 5).clamp(Vector2i(0, 0), Vector2i(1, 1)) == Vector2i(0, 1)
    assert Vector2i(1, 5).min(Vector2i(3, 2)) == Vector2i(1, 2)
    assert Vector2i(1, 5).max(Vector2i(3, 2)) == Vector2i(3, 5)


def test_snapped_computes_in_doubles_and_converts_as_x86() -> None:
    assert Vector2i(7, -7).snapped(Vector2i(5, 5)) == Vector2i(5, -5)
    assert Vector2i(-5, 7).snapped(Vector2i(10, 0)) == Vector2i(0, 7)  # -0.5 + 0.5 -> 0
    # (2**31 - 1) / 2 + 0.5 = 2**30 exactly; times 2 is 2**31, past int32: x86 gives INT32_MIN
    assert Vector2i(INT32_MAX, 0).snapped(Vector2i(2, 1)) == Vector2i(INT32_MIN, 0)


def test_clampi_and_snappedi() -> None:
    assert Vector2i(-5, 5).clampi(-2, 3) == Vector2i(-2, 3)
    assert Vector3i(1, 2, 3).clampi(2, 2**32 + 2) == Vector3i(2, 2, 2)  # max cut to int32: 2
    assert Vector2i(7, -7).snappedi(5) == Vector2i(5, -5)
    assert Vector4i(7, 8, -8, 0).snappedi(0) == Vector4i(7, 8, -8, 0)
