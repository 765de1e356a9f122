"""The value between two ticks: each rule on values worked out by hand."""

from __future__ import annotations

import math

import pytest

from gdvariant import Quaternion, Vector2, Vector3
from gdvariant.replication import (
    Angle,
    Bool,
    Codec,
    Coord,
    Float32,
    Float64,
    Half,
    Int,
    Normal,
    Quant,
    Quat,
    Str,
    UInt,
    Vec2,
    Vec3,
)
from gdvariant.replication._float_codecs import to_f32
from gdvariant.replication._interpolate import interpolate, lerp, lerp_angle, slerp


@pytest.mark.parametrize("codec", [Quant(0.0, 10.0, 8), Coord(), Half(), Float32(), Float64()])
def test_floats_are_linear(codec: Codec) -> None:
    assert interpolate(codec, 1.0, 3.0, 0.25) == 1.5
    assert interpolate(codec, 3.0, 1.0, 0.0) == 3.0
    assert interpolate(codec, 3.0, 1.0, 1.0) == 1.0


def test_scalars_are_float64() -> None:
    # 0.1 + (0.2 - 0.1) * 0.5 in float64; float32 would give another number
    assert lerp(0.1, 0.2, 0.5) == 0.15000000000000002
    assert interpolate(Coord(), 0.1, 0.2, 0.5) == 0.15000000000000002


def test_vectors_are_linear_per_component_rounded_to_float32() -> None:
    codec = Vec2(Coord())
    assert interpolate(codec, Vector2(0.0, 10.0), Vector2(4.0, 2.0), 0.75) == Vector2(3.0, 4.0)
    mid = interpolate(codec, Vector2(0.0, 0.0), Vector2(0.1, 0.0), 0.5)
    assert mid == Vector2(to_f32(0.05), 0.0)
    assert mid.x != 0.05  # rounded to float32 (real_t)
    up, side = Vector3(0.0, 0.0, 1.0), Vector3(1.0, 0.0, 0.0)
    assert interpolate(Normal(), up, side, 0.5) == Vector3(0.5, 0.0, 0.5)  # not renormalized


def test_angles_take_the_shorter_way() -> None:
    # 170 degrees to -170 degrees: through 180, not through 0
    assert lerp_angle(170.0, -170.0, 0.5, 360.0) == 180.0
    assert lerp_angle(-170.0, 170.0, 0.25, 360.0) == -175.0
    assert lerp_angle(10.0, 50.0, 0.5, 360.0) == 30.0
    codec = Angle(9, degrees=True)
    assert interpolate(codec, 170.15625, -170.15625, 0.5) == 180.0
    # radians: from 3 to -3 is 2pi - 6 the short way, through pi
    assert interpolate(Angle(8), 3.0, -3.0, 0.5) == pytest.approx(math.pi)


def test_vectors_of_angles_take_the_shorter_way_per_component() -> None:
    codec = Vec3(Angle(16, degrees=True))
    got = interpolate(codec, Vector3(170.0, 10.0, 0.0), Vector3(-170.0, 50.0, 0.0), 0.5)
    assert got == Vector3(180.0, 30.0, 0.0)


def test_quaternions_slerp_along_the_shorter_arc() -> None:
    half = math.sqrt(0.5)
    a, b = Quaternion(0.0, 0.0, 0.0, 1.0), Quaternion(0.0, 0.0, half, half)  # 0 and 90 degrees
    mid = slerp(a, b, 0.5)  # 45 degrees about z
    assert tuple(mid) == (0.0, 0.0, to_f32(math.sin(math.pi / 8)), to_f32(math.cos(math.pi / 8)))
    third = slerp(a, b, 1 / 3)  # 30 degrees: the angle moves evenly, unlike a linear blend
    assert tuple(third)[2] == pytest.approx(math.sin(math.pi / 12), abs=1e-7)
    # -b is the same rotation: the shorter arc is still the 45-degree one
    assert slerp(a, Quaternion(*(-c for c in b)), 0.5) == mid
    assert interpolate(Quat(), a, b, 0.5) == mid


def test_nearly_equal_quaternions_blend_linearly() -> None:
    a = Quaternion(0.0, 0.0, 0.0, 1.0)
    b = Quaternion(0.0, 0.0, 0.002, 0.999998)  # 1 - a.b = 2e-6, under the threshold
    assert tuple(slerp(a, b, 0.5)) == (0.0, 0.0, to_f32(0.001), to_f32(0.999999))


@pytest.mark.parametrize(
    ("codec", "a", "b"),
    [(UInt(8), 10, 20), (Int(8), -1, 1), (Bool(), False, True), (Str(), "a", "b")],
)
def test_everything_else_steps_at_the_later_tick(codec: Codec, a: object, b: object) -> None:
    assert interpolate(codec, a, b, 0.0) == a
    assert interpolate(codec, a, b, 0.999) == a
    assert interpolate(codec, a, b, 1.0) == b
