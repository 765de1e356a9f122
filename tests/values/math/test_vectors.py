"""Vector2, Vector3, Vector4's operators and methods (``gdvariant._values.math.vectors``).

Expected values are worked out by hand from Godot's formulas, in float32 where the result is
not exact (``f32`` of a value computed in full precision, or a float32 written as its integer
significand times a power of two). The engine check is tests/live/values/test_math.py.
"""

from __future__ import annotations

import math
import pickle

import pytest

import gdvariant as gd
from gdvariant import Vector2, Vector3, Vector4
from gdvariant._floats import f32

HALF_PI_F32 = 13176795 * 2.0**-23  # float32 nearest pi / 2: 1.5707963705062866


def _same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Equal with the signs of zeros, NaN as NaN."""
    return all(
        (x != x and y != y) or (x == y and math.copysign(1, x) == math.copysign(1, y))
        for x, y in zip(a, b, strict=True)
    )


def test_arithmetic_with_vectors_and_scalars() -> None:
    a, b = Vector2(1, 2), Vector2(3, -4)
    assert a + b == Vector2(4, -2)
    assert a - b == Vector2(-2, 6)
    assert a * b == Vector2(3, -8)
    assert a / b == Vector2(f32(1 / 3), -0.5)
    assert a * 2 == 2 * a == Vector2(2, 4)
    assert a / 4 == Vector2(0.25, 0.5)
    assert -a == Vector2(-1, -2)
    assert +Vector2(0.1, 0) == Vector2(f32(0.1), 0)
    assert abs(Vector2(-1, 2)) == Vector2(1, 2)
    assert Vector3(1, 2, 3) * 0.5 == Vector3(0.5, 1, 1.5)
    assert Vector4(1, 2, 3, 4) - Vector4(1, 1, 1, 1) == Vector4(0, 1, 2, 3)


def test_division_by_zero_gives_ieee_values() -> None:
    got = Vector3(1, -1, 0) / 0
    assert got.x == math.inf and got.y == -math.inf and math.isnan(got.z)
    assert Vector2(1, 1) / Vector2(0, -0.0) == Vector2(math.inf, -math.inf)


@pytest.mark.parametrize(
    "expression",
    [
        "Vector2(1, 2) + (1, 2)",
        "(1, 2) + Vector2(1, 2)",
        "Vector2(1, 2) - [1, 2]",
        "Vector2(1, 2) * [2]",
        "(2,) * Vector2(1, 2)",
        "Vector2(1, 2) * True",
        "Vector2(1, 2) + 1",
        "Vector2(1, 2) + Vector3(1, 2, 3)",
        "Vector2(1, 2) * Vector3(1, 2, 3)",
        "1 / Vector2(1, 2)",
        "Vector2(1, 2).dot((1, 2))",
        "Vector3().cross(Vector2())",
    ],
)
def test_mixing_with_tuples_or_other_types_is_a_type_error(expression: str) -> None:
    with pytest.raises(TypeError):
        eval(expression, {"Vector2": Vector2, "Vector3": Vector3})


def test_values_stay_immutable_hashable_exact_and_encodable() -> None:
    v = Vector2(0.1, 2) + Vector2(0, 0)
    assert v == Vector2(f32(0.1), 2) and hash(v) == hash(Vector2(f32(0.1), 2))
    assert Vector2(0.1, 0) != Vector2(f32(0.1), 0)  # == is exact: no rounding in comparison
    with pytest.raises(AttributeError):
        v.x = 1.0
    assert gd.loads(gd.dumps(v)) == v
    assert pickle.loads(pickle.dumps(v)) == v
    assert {v: 1}[Vector2(f32(0.1), 2)] == 1


def test_lengths_and_distances() -> None:
    assert Vector2(3, 4).length() == 5.0
    assert Vector2(3, 4).length_squared() == 25.0
    assert Vector3(2, 3, 6).length() == 7.0
    assert Vector4(1, 1, 1, 1).length() == 2.0
    assert Vector2(1, 1).distance_to(Vector2(4, 5)) == 5.0
    assert Vector3(1, 1, 1).distance_squared_to(Vector3(2, 3, 4)) == 14.0
    assert Vector2(0.1, 0).length() == f32(0.1)


def test_normalized() -> None:
    assert Vector2(3, 4).normalized() == Vector2(f32(0.6), f32(0.8))
    assert Vector3(0, 0, -2).normalized() == Vector3(0, 0, -1)
    # a zero vector: Vector2 keeps its own zeros, Vector3 and Vector4 give +0.0
    assert _same(Vector2(-0.0, 0.0).normalized(), (-0.0, 0.0))
    assert _same(Vector3(-0.0, 0, 0).normalized(), (0.0, 0.0, 0.0))
    assert _same(Vector4(-0.0, 0, 0, -0.0).normalized(), (0.0, 0.0, 0.0, 0.0))


def test_products() -> None:
    assert Vector2(1, 2).dot(Vector2(3, 4)) == 11.0
    assert Vector2(1, 2).cross(Vector2(3, 4)) == -2.0
    assert Vector3(1, 0, 0).cross(Vector3(0, 1, 0)) == Vector3(0, 0, 1)
    assert Vector3(2, 3, 4).cross(Vector3(5, 6, 7)) == Vector3(-3, 6, -3)
    assert Vector4(1, 2, 3, 4).dot(Vector4(1, 1, 1, 1)) == 10.0


def test_angles_and_rotation() -> None:
    assert Vector2(0, 1).angle() == HALF_PI_F32
    assert Vector2(1, 0).angle_to(Vector2(0, -3)) == -HALF_PI_F32
    assert Vector3(1, 0, 0).angle_to(Vector3(0, 5, 0)) == HALF_PI_F32
    # float32(pi/2) is a little above pi/2: its cosine is pi/2 - float32(pi/2) (-4.371139e-08,
    # to first order; the next term is 1e-23 of it), its sine 1.0
    cos_half_pi = f32(math.pi / 2 - HALF_PI_F32)
    assert Vector2(1, 0).rotated(math.pi / 2) == Vector2(cos_half_pi, 1.0)
    assert Vector2(2, 0).rotated(0) == Vector2(2, 0)
    assert _same(Vector2(1, 1).rotated(math.inf), (math.nan, math.nan))


def test_componentwise_rounding() -> None:
    assert Vector2(1.5, -1.5).floor() == Vector2(1, -2)
    assert _same(Vector2(-0.5, 0.5).ceil(), (-0.0, 1.0))
    assert Vector4(2.5, -2.5, 0.4999999701976776, 7).round() == Vector4(3, -3, 0, 7)
    assert Vector3(-3, 0, math.nan).sign().x == -1.0
    assert _same(Vector3(-3, -0.0, math.nan).sign(), (-1.0, 0.0, 0.0))


def test_lerp_and_move_toward() -> None:
    assert Vector2(0, 0).lerp(Vector2(10, 20), 0.25) == Vector2(2.5, 5)
    assert Vector3(1, 1, 1).lerp(Vector3(3, 3, 3), 2) == Vector3(5, 5, 5)
    assert Vector2(0, 0).move_toward(Vector2(10, 0), 3) == Vector2(3, 0)
    assert Vector2(0, 0).move_toward(Vector2(3, 4), 5) == Vector2(3, 4)  # within reach
    assert Vector3(0, 0, 0).move_toward(Vector3(0, 3, 4), 2.5) == Vector3(0, 1.5, 2)


def test_clamp_snapped_min_max() -> None:
    assert Vector2(-5, 5).clamp(Vector2(0, 0), Vector2(1, 1)) == Vector2(0, 1)
    got = Vector2(math.nan, 5).clamp(Vector2(0, 0), Vector2(1, 1))
    assert math.isnan(got.x) and got.y == 1  # Godot's CLAMP lets NaN through
    assert Vector2(7, -7).snapped(Vector2(5, 5)) == Vector2(5, -5)
    assert Vector2(7, 3).snapped(Vector2(0, 2)) == Vector2(7, 4)  # a zero step keeps it
    assert Vector3(0.26, 0.24, -0.26).snappedf(0.5) == Vector3(0.5, 0, -0.5)
    assert Vector2(1, 5).min(Vector2(3, 2)) == Vector2(1, 2)
    assert Vector2(1, 5).max(Vector2(3, 2)) == Vector2(3, 5)


def test_approximate_comparisons() -> None:
    assert Vector2(1, 1).is_equal_approx(Vector2(1.000001, 1))
    assert not Vector2(1, 1).is_equal_approx(Vector2(1.0001, 1))
    assert Vector3(0.000001, -0.000001, 0).is_zero_approx()
    assert not Vector3(0.0001, 0, 0).is_zero_approx()
    assert Vector2(1, 2).is_finite() and not Vector2(math.inf, 2).is_finite()


def test_directions_and_surfaces() -> None:
    assert Vector2(1, 1).direction_to(Vector2(4, 5)) == Vector2(f32(0.6), f32(0.8))
    assert Vector3(1, 2, 2).limit_length(1.5) == Vector3(0.5, 1, 1)  # length 3 -> 1.5
    assert Vector2(0.5, 0).limit_length() == Vector2(0.5, 0)  # shorter already
    assert Vector2(2, 3).project(Vector2(4, 0)) == Vector2(2, 0)
    up = Vector2(0, 1)
    assert Vector2(3, -4).slide(up) == Vector2(3, 0)
    assert Vector2(3, -4).reflect(up) == Vector2(-3, -4)  # 2 n (v.n) - v
    assert Vector2(3, -4).bounce(up) == Vector2(3, 4)
    assert Vector3(3, -4, 1).slide(Vector3(0, 2, 0)) == Vector3()  # not normalized: zero
    assert up.is_normalized() and not Vector2(0, 1.01).is_normalized()


def test_slerp() -> None:
    # a quarter turn from length 1 to length 2: halfway is 45 degrees at length 1.5
    half = Vector2(1, 0).slerp(Vector2(0, 2), 0.5)
    assert abs(half.x - 1.5 * math.sqrt(0.5)) < 1e-6 and half.x == half.y
    half3 = Vector3(1, 0, 0).slerp(Vector3(0, 2, 0), 0.5)
    assert (half3.x, half3.y) == (half.x, half.y) and half3.z == 0
    assert Vector2(1, 0).slerp(Vector2(0, 2), 0) == Vector2(1, 0)
    # a zero vector, or (in 3D) two parallel ones, fall back to lerp
    assert Vector2(0, 0).slerp(Vector2(4, 0), 0.25) == Vector2(1, 0)
    assert Vector3(1, 0, 0).slerp(Vector3(3, 0, 0), 0.5) == Vector3(2, 0, 0)


def test_clampf() -> None:
    assert Vector2(-3, 3).clampf(-1, 2) == Vector2(-1, 2)
    assert Vector4(0.5, -5, 5, 1).clampf(0, 1) == Vector4(0.5, 0, 1, 1)
    nan = Vector3(math.nan, 0, 0).clampf(-1, 1)
    assert math.isnan(nan.x)  # Godot's CLAMP lets NaN through
