"""The math types' operators and methods against Godot 4.6 (a single-precision build): 10,000
seeded random inputs per operation (zeros of both signs, infinities, NaN, huge, tiny and
denormal values among them), computed by the engine in one run per family and compared bit
for bit (NaN as NaN); trigonometry within one float32 ulp. The engine's sinf/cosf/atan2f are
the C library's (glibc's are not correctly rounded: one ulp off in about 2 % of inputs), so a
result built on them (Vector2.rotated) must follow bit for bit from a sine and cosine within
one ulp of ours.

Inputs and results travel as binary Variant data (``var_to_bytes``), so every float is exact.
The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import operator
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import gdvariant as gd
from gdvariant._floats import f32
from gdvariant._values.math import (
    euler,
    matrices,
    projections,
    quaternion,
    reals,
    transform2d,
)
from gdvariant._values.math.reals import SINGLE
from tests.support import math_cases as mc
from tests.support.engines import SEED, Engine

pytestmark = [pytest.mark.engine, pytest.mark.slow]
COUNT = 10_000
ORACLE = Path(__file__).with_name("math_oracle.gd")

Maker = Callable[[random.Random], tuple[Any, ...]]


@dataclass(frozen=True)
class Job:
    """One operation: its key, the engine's operator or method, how to draw a case, how we
    compute it, and how many float32 ulps apart a result may be (trigonometry: 1)."""

    key: str
    op: str
    make: Maker
    ours: Callable[..., Any]
    ulps: int = 0
    #: For a result that depends on the C library's sinf/cosf through more arithmetic: does the
    #: engine's result follow, bit for bit, from sine and cosine within one ulp of ours?
    retrig: Callable[[list[Any], Any], bool] | None = None


def _real_vector(kind: type[Any]) -> Callable[[random.Random], Any]:
    return lambda rng: kind(*(mc.real(rng) for _ in kind._fields))


def _int_vector(kind: type[Any]) -> Callable[[random.Random], Any]:
    return lambda rng: kind(*(mc.int32(rng) for _ in kind._fields))


def _near_vector(kind: type[Any]) -> Callable[[random.Random, Any], Any]:
    return lambda rng, v: kind(*(mc.near(rng, c) for c in v))


_OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def _method(name: str) -> Callable[..., Any]:
    return lambda v, *args: getattr(v, name)(*args)


def rotated_by_neighbours(case: list[Any], theirs: Any) -> bool:
    """Vector2.rotated (``x * cos - y * sin``, ``x * sin + y * cos``, each step rounded) with
    any sine and cosine within one float32 ulp of the correctly rounded ones gives the
    engine's result: only the C library's trigonometry differs."""
    v, a = case
    angle = f32(a)
    x, y = f32(v.x), f32(v.y)
    for s in mc.neighbours(f32(math.sin(angle)) if math.isfinite(angle) else math.nan):
        for c in mc.neighbours(f32(math.cos(angle)) if math.isfinite(angle) else math.nan):
            got = gd.Vector2(f32(f32(x * c) - f32(y * s)), f32(f32(x * s) + f32(y * c)))
            if mc.same(got, theirs):
                return True
    return False


def _slerp_angle(case: list[Any]) -> float:
    """The angle Vector2/3.slerp turns by: ``angle_to(to) * weight``."""
    v, to, weight = case
    return f32(v.angle_to(to) * f32(weight))


def real_vector_jobs(kind: type[Any]) -> list[Job]:
    """Every operation of Vector2, Vector3 or Vector4 that we compute."""
    name = kind.__name__
    vec, close = _real_vector(kind), _near_vector(kind)

    def pair(rng: random.Random) -> tuple[Any, ...]:
        a = vec(rng)
        return (a, close(rng, a) if rng.random() < 0.3 else vec(rng))

    jobs = [Job(f"{name} {s} {name}", s, pair, f) for s, f in _OPERATORS.items()]
    jobs += [
        Job(f"{name} * float", "*", lambda r: (vec(r), mc.scalar(r)), operator.mul),
        Job(f"{name} * int", "*", lambda r: (vec(r), mc.int64(r) % 2000 - 1000), operator.mul),
        Job(f"float * {name}", "*", lambda r: (mc.scalar(r), vec(r)), operator.mul),
        Job(f"{name} / float", "/", lambda r: (vec(r), mc.scalar(r)), operator.truediv),
        Job(f"-{name}", "neg", lambda r: (vec(r),), operator.neg),
    ]
    unary = ["length", "length_squared", "normalized", "abs", "floor", "ceil", "round", "sign"]
    unary += ["is_zero_approx", "is_finite", "is_normalized"]
    jobs += [Job(f"{name}.{m}", m, lambda r: (vec(r),), _method(m)) for m in unary]
    binary = ["dot", "distance_to", "distance_squared_to", "is_equal_approx", "min", "max"]
    binary += ["snapped", "direction_to"]
    jobs += [Job(f"{name}.{m}", m, pair, _method(m)) for m in binary]
    jobs += [
        Job(f"{name}.lerp", "lerp", lambda r: (*pair(r), mc.weight(r)), _method("lerp")),
        Job(f"{name}.snappedf", "snappedf", lambda r: (vec(r), mc.scalar(r)), _method("snappedf")),
        Job(f"{name}.clamp", "clamp", lambda r: (vec(r), vec(r), vec(r)), _method("clamp")),
        Job(
            f"{name}.clampf",
            "clampf",
            lambda r: (vec(r), mc.scalar(r), mc.scalar(r)),
            _method("clampf"),
        ),
    ]
    if kind is not gd.Vector4:
        jobs.append(
            Job(
                f"{name}.move_toward",
                "move_toward",
                lambda r: (*pair(r), mc.scalar(r)),
                _method("move_toward"),
            )
        )
        jobs.append(Job(f"{name}.cross", "cross", pair, _method("cross")))
        slerp, module = _method("slerp"), (reals if kind is gd.Vector2 else matrices)
        jobs.append(
            Job(
                f"{name}.slerp",
                "slerp",
                lambda r: (*pair(r), mc.weight(r)),
                slerp,
                retrig=trig_by_neighbours(slerp, _slerp_angle, module),
            )
        )

        def with_normal(rng: random.Random, vec: Any = vec) -> tuple[Any, ...]:
            normal = vec(rng).normalized() if rng.random() < 0.8 else vec(rng)
            return (vec(rng), normal)

        for m in ("slide", "reflect", "bounce"):
            jobs.append(Job(f"{name}.{m}", m, with_normal, _method(m)))
        jobs.append(Job(f"{name}.project", "project", pair, _method("project")))
        jobs.append(
            Job(
                f"{name}.limit_length",
                "limit_length",
                lambda r: (vec(r), mc.scalar(r)),
                _method("limit_length"),
            )
        )
        jobs.append(Job(f"{name}.angle_to", "angle_to", pair, _method("angle_to"), ulps=1))
    if kind is gd.Vector2:
        jobs.append(Job("Vector2.angle", "angle", lambda r: (vec(r),), _method("angle"), ulps=1))
        jobs.append(
            Job(
                "Vector2.from_angle",
                "Vector2.from_angle",
                lambda r: (mc.angle(r),),
                gd.Vector2.from_angle,
                ulps=1,
            )
        )
        jobs.append(
            Job(
                "Vector2.rotated",
                "rotated",
                lambda r: (vec(r), mc.angle(r)),
                _method("rotated"),
                retrig=rotated_by_neighbours,
            )
        )
    return jobs


def int_vector_jobs(kind: type[Any]) -> list[Job]:
    """Every operation of Vector2i, Vector3i or Vector4i that we compute."""
    name = kind.__name__
    vec = _int_vector(kind)

    def divisor(rng: random.Random) -> Any:
        return kind(*(mc.divisor_int32(rng) for _ in kind._fields))

    def pair(rng: random.Random) -> tuple[Any, ...]:
        return (vec(rng), vec(rng))

    jobs = [Job(f"{name} {s} {name}", s, pair, _OPERATORS[s]) for s in "+-*"]
    jobs += [
        Job(f"{name} / {name}", "/", lambda r: (vec(r), divisor(r)), operator.truediv),
        Job(f"{name} % {name}", "%", lambda r: (vec(r), divisor(r)), operator.mod),
        Job(f"{name} * int", "*", lambda r: (vec(r), mc.int64(r)), operator.mul),
        Job(f"{name} / int", "/", lambda r: (vec(r), mc.divisor_int32(r)), operator.truediv),
        Job(f"{name} % int", "%", lambda r: (vec(r), mc.divisor_int32(r)), operator.mod),
        Job(f"{name} * float", "*", lambda r: (vec(r), mc.scalar(r)), operator.mul),
        Job(f"{name} / float", "/", lambda r: (vec(r), mc.scalar(r)), operator.truediv),
        Job(f"-{name}", "neg", lambda r: (vec(r),), operator.neg),
    ]
    unary = ["length", "length_squared", "abs", "sign"]
    jobs += [Job(f"{name}.{m}", m, lambda r: (vec(r),), _method(m)) for m in unary]
    binary = ["distance_to", "distance_squared_to", "min", "max", "snapped"]
    jobs += [Job(f"{name}.{m}", m, pair, _method(m)) for m in binary]
    jobs.append(Job(f"{name}.clamp", "clamp", lambda r: (vec(r), vec(r), vec(r)), _method("clamp")))
    jobs += [
        Job(
            f"{name}.clampi",
            "clampi",
            lambda r: (vec(r), mc.int64(r), mc.int64(r)),
            _method("clampi"),
        ),
        Job(f"{name}.snappedi", "snappedi", lambda r: (vec(r), mc.int64(r)), _method("snappedi")),
    ]
    return jobs


def _channel(rng: random.Random) -> float:
    return f32(rng.random()) if rng.random() < 0.5 else mc.real(rng)


def _color(rng: random.Random) -> gd.Color:
    return gd.Color(*(_channel(rng) for _ in range(4)))


def color_jobs() -> list[Job]:
    """Every operation of Color that we compute."""

    def pair(rng: random.Random) -> tuple[Any, ...]:
        a = _color(rng)
        return (a, gd.Color(*(mc.near(rng, c) for c in a)) if rng.random() < 0.3 else _color(rng))

    jobs = [Job(f"Color {s} Color", s, pair, f) for s, f in _OPERATORS.items()]
    jobs += [
        Job("Color * float", "*", lambda r: (_color(r), mc.scalar(r)), operator.mul),
        Job("float * Color", "*", lambda r: (mc.scalar(r), _color(r)), operator.mul),
        Job("Color / float", "/", lambda r: (_color(r), mc.scalar(r)), operator.truediv),
        Job("-Color", "neg", lambda r: (_color(r),), operator.neg),
        Job("Color.lerp", "lerp", lambda r: (*pair(r), mc.weight(r)), _method("lerp")),
        Job("Color.clamp", "clamp", lambda r: (_color(r), _color(r), _color(r)), _method("clamp")),
        Job("Color.clamp()", "clamp", lambda r: (_color(r),), _method("clamp")),
        Job("Color.is_equal_approx", "is_equal_approx", pair, _method("is_equal_approx")),
        Job("Color.blend", "blend", pair, _method("blend")),
    ]
    for m in ("darkened", "lightened"):
        jobs.append(Job(f"Color.{m}", m, lambda r: (_color(r), mc.weight(r)), _method(m)))
    for m in ("inverted", "get_luminance", "to_html"):
        jobs.append(Job(f"Color.{m}", m, lambda r: (_color(r),), _method(m)))
    jobs.append(
        Job("Color.to_html(false)", "to_html", lambda r: (_color(r), False), _method("to_html"))
    )
    return jobs


def _rect(rng: random.Random) -> gd.Rect2:
    if rng.random() < 0.6:  # small integers and halves: rects that touch, overlap, enclose
        return gd.Rect2(
            (rng.randint(-8, 8) / 2, rng.randint(-8, 8) / 2),
            (rng.randint(-2, 12) / 2, rng.randint(-2, 12) / 2),
        )
    return gd.Rect2((mc.real(rng), mc.real(rng)), (mc.real(rng), mc.real(rng)))


def _rect_i(rng: random.Random) -> gd.Rect2i:
    if rng.random() < 0.6:
        return gd.Rect2i(
            (rng.randint(-8, 8), rng.randint(-8, 8)), (rng.randint(-2, 12), rng.randint(-2, 12))
        )
    return gd.Rect2i((mc.int32(rng), mc.int32(rng)), (mc.int32(rng), mc.int32(rng)))


def _point(rng: random.Random) -> gd.Vector2:
    if rng.random() < 0.6:
        return gd.Vector2(rng.randint(-10, 10) / 2, rng.randint(-10, 10) / 2)
    return gd.Vector2(mc.real(rng), mc.real(rng))


def _point_i(rng: random.Random) -> gd.Vector2i:
    if rng.random() < 0.6:
        return gd.Vector2i(rng.randint(-10, 10), rng.randint(-10, 10))
    return gd.Vector2i(mc.int32(rng), mc.int32(rng))


def _rect_family(
    name: str,
    rect: Callable[[random.Random], Any],
    point: Callable[[random.Random], Any],
    amount: Callable[[random.Random], Any],
) -> list[Job]:
    """The operations Rect2 and Rect2i share."""

    def one(r: random.Random) -> tuple[Any, ...]:
        return (rect(r),)

    def two(r: random.Random) -> tuple[Any, ...]:
        return (rect(r), rect(r))

    def with_point(r: random.Random) -> tuple[Any, ...]:
        return (rect(r), point(r))

    def with_amount(r: random.Random) -> tuple[Any, ...]:
        return (rect(r), amount(r))

    jobs = [
        Job(f"{name}.end", "end", one, lambda v: v.end),
        Job(f"{name}.has_point", "has_point", with_point, _method("has_point")),
        Job(f"{name}.grow", "grow", with_amount, _method("grow")),
    ]
    jobs += [Job(f"{name}.{m}", m, one, _method(m)) for m in ("get_area", "get_center", "has_area")]
    pairs = ("intersects", "encloses", "merge", "intersection")
    return jobs + [Job(f"{name}.{m}", m, two, _method(m)) for m in pairs]


def rect_jobs() -> list[Job]:
    """Every operation of Rect2 and Rect2i that we compute."""
    jobs = _rect_family("Rect2", _rect, _point, mc.scalar)
    jobs += _rect_family("Rect2i", _rect_i, _point_i, mc.int64)
    jobs += [
        Job(
            "Rect2.intersects(borders)",
            "intersects",
            lambda r: (_rect(r), _rect(r), True),
            _method("intersects"),
        ),
        Job("Rect2.expand", "expand", lambda r: (_rect(r), _point(r)), _method("expand")),
        Job("Rect2i.expand", "expand", lambda r: (_rect_i(r), _point_i(r)), _method("expand")),
        Job("Rect2i.abs", "abs", lambda r: (_rect_i(r),), _method("abs")),
        Job("Rect2.abs", "abs", lambda r: (_rect(r),), _method("abs")),
        Job(
            "Rect2.is_equal_approx",
            "is_equal_approx",
            lambda r: (_rect(r), _rect(r)),
            _method("is_equal_approx"),
        ),
    ]
    return jobs


def _transform2d(rng: random.Random) -> gd.Transform2D:
    if rng.random() < 0.5:  # a rotation, scale and translation, as games make them
        a, sx, sy = rng.uniform(-4, 4), f32(rng.uniform(-3, 3)), f32(rng.uniform(-3, 3))
        c, s = f32(math.cos(a)), f32(math.sin(a))
        origin = (f32(rng.uniform(-100, 100)), f32(rng.uniform(-100, 100)))
        return gd.Transform2D((c * sx, s * sx), (-s * sy, c * sy), origin)
    return gd.Transform2D(*((mc.real(rng), mc.real(rng)) for _ in range(3)))


def _vector2(rng: random.Random) -> gd.Vector2:
    return gd.Vector2(mc.real(rng), mc.real(rng))


def transform2d_jobs() -> list[Job]:
    """Every operation of Transform2D that we compute."""
    t, v = _transform2d, _vector2

    def one(r: random.Random) -> tuple[Any, ...]:
        return (t(r),)

    def with_vector(r: random.Random) -> tuple[Any, ...]:
        return (t(r), v(r))

    jobs = [
        Job("Transform2D * Transform2D", "*", lambda r: (t(r), t(r)), operator.mul),
        Job("Transform2D * Vector2", "*", with_vector, operator.mul),
        Job("Vector2 * Transform2D", "*", lambda r: (v(r), t(r)), operator.mul),
        Job("Transform2D * float", "*", lambda r: (t(r), mc.scalar(r)), operator.mul),
        Job("Transform2D / float", "/", lambda r: (t(r), mc.scalar(r)), operator.truediv),
        Job("Transform2D.get_rotation", "get_rotation", one, _method("get_rotation"), ulps=1),
        Job(
            "Transform2D(angle, origin)",
            "Transform2D(angle, origin)",
            lambda r: (mc.angle(r), v(r)),
            gd.Transform2D.from_rotation,
            ulps=1,
        ),
    ]
    for m in ("rotated", "rotated_local"):
        ours = _method(m)
        jobs.append(
            Job(
                f"Transform2D.{m}",
                m,
                lambda r: (t(r), mc.angle(r)),
                ours,
                retrig=trig_by_neighbours(ours, lambda case: f32(case[1]), transform2d),
            )
        )
    jobs += [
        Job("Transform2D * Rect2", "*", lambda r: (t(r), _rect(r)), operator.mul),
        Job("Rect2 * Transform2D", "*", lambda r: (_rect(r), t(r)), operator.mul),
    ]
    for m in ("inverse", "affine_inverse", "determinant", "get_origin", "get_scale"):
        jobs.append(Job(f"Transform2D.{m}", m, one, _method(m)))
    for m in ("basis_xform", "basis_xform_inv", "translated", "translated_local"):
        jobs.append(Job(f"Transform2D.{m}", m, with_vector, _method(m)))
    for m in ("scaled", "scaled_local"):
        jobs.append(Job(f"Transform2D.{m}", m, with_vector, _method(m)))
    jobs.append(
        Job(
            "Transform2D.is_equal_approx",
            "is_equal_approx",
            lambda r: (t(r), t(r)),
            _method("is_equal_approx"),
        )
    )
    return jobs


def _basis(rng: random.Random) -> gd.Basis:
    if rng.random() < 0.5:  # a rotation about z then x, scaled: what games build
        a, b = rng.uniform(-4, 4), rng.uniform(-4, 4)
        ca, sa, cb, sb = (f32(f(t)) for t in (a, b) for f in (math.cos, math.sin))
        s = f32(rng.uniform(-3, 3))
        return gd.Basis((ca * s, sa * s, 0), (-sa * cb, ca * cb, sb), (sa * sb, -ca * sb, cb))
    return gd.Basis(*((mc.real(rng), mc.real(rng), mc.real(rng)) for _ in range(3)))


def _vector3(rng: random.Random) -> gd.Vector3:
    return gd.Vector3(mc.real(rng), mc.real(rng), mc.real(rng))


def _transform3d(rng: random.Random) -> gd.Transform3D:
    return gd.Transform3D(_basis(rng), _vector3(rng))


def trig_by_neighbours(
    ours: Callable[..., Any], angle_of: Callable[[list[Any]], float], module: Any
) -> Callable[[list[Any], Any], bool]:
    """A check for a result built on one angle's sine and cosine: with a sine and cosine
    within one float32 ulp of the correctly rounded ones (the C library's sinf and cosf differ
    from them), the rest of our formula (``module``'s) gives the engine's result bit for bit."""

    def check(case: list[Any], theirs: Any) -> bool:
        angle = angle_of(case)
        if not math.isfinite(angle):
            return False
        for s in mc.neighbours(f32(math.sin(angle))):
            for c in mc.neighbours(f32(math.cos(angle))):
                with (
                    mock.patch.object(module, "sin", lambda _, s=s: s),
                    mock.patch.object(module, "cos", lambda _, c=c: c),
                ):
                    if mc.same(ours(*case), theirs):
                        return True
        return False

    return check


def _axis(rng: random.Random) -> gd.Vector3:
    return _vector3(rng).normalized() if rng.random() < 0.85 else _vector3(rng)


def _rotation_job(key: str, op: str, first: Callable[[random.Random], Any]) -> Job:
    ours = _method(op)
    return Job(
        key,
        op,
        lambda r: (first(r), _axis(r), mc.angle(r)),
        ours,
        retrig=trig_by_neighbours(ours, lambda case: f32(case[2]), matrices),
    )


def transform3d_jobs() -> list[Job]:
    """Every operation of Basis and Transform3D that we compute."""
    jobs = []
    for name, t in (("Basis", _basis), ("Transform3D", _transform3d)):

        def one(r: random.Random, t: Callable[[random.Random], Any] = t) -> tuple[Any, ...]:
            return (t(r),)

        def two(r: random.Random, t: Callable[[random.Random], Any] = t) -> tuple[Any, ...]:
            return (t(r), t(r))

        def point(r: random.Random, t: Callable[[random.Random], Any] = t) -> tuple[Any, ...]:
            return (t(r), _vector3(r))

        def point_first(r: random.Random, t: Callable[[random.Random], Any] = t) -> tuple[Any, ...]:
            return (_vector3(r), t(r))

        def number(r: random.Random, t: Callable[[random.Random], Any] = t) -> tuple[Any, ...]:
            return (t(r), mc.scalar(r))

        jobs += [
            Job(f"{name} * {name}", "*", two, operator.mul),
            Job(f"{name} * Vector3", "*", point, operator.mul),
            Job(f"Vector3 * {name}", "*", point_first, operator.mul),
            Job(f"{name} * float", "*", number, operator.mul),
            Job(f"{name}.inverse", "inverse", one, _method("inverse")),
            Job(f"{name}.is_equal_approx", "is_equal_approx", two, _method("is_equal_approx")),
        ]
    jobs += [
        _rotation_job("Vector3.rotated", "rotated", _vector3),
        _rotation_job("Basis.rotated", "rotated", _basis),
        _rotation_job("Transform3D.rotated", "rotated", _transform3d),
        _rotation_job("Transform3D.rotated_local", "rotated_local", _transform3d),
    ]
    jobs += [
        Job("Transform3D * AABB", "*", lambda r: (_transform3d(r), _aabb(r)), operator.mul),
        Job("AABB * Transform3D", "*", lambda r: (_aabb(r), _transform3d(r)), operator.mul),
        Job("Transform3D * Plane", "*", lambda r: (_transform3d(r), _plane(r)), operator.mul),
        Job("Plane * Transform3D", "*", lambda r: (_plane(r), _transform3d(r)), operator.mul),
        Job("AABB.expand", "expand", lambda r: (_aabb(r), _point3(r)), _method("expand")),
    ]
    jobs += euler_jobs()
    jobs.append(
        Job(
            "Basis.slerp",
            "slerp",
            lambda r: (_rotation(r), _rotation(r), mc.weight(r)),
            _method("slerp"),
            retrig=calls_by_neighbours(_method("slerp"), quaternion, ("_acos", "_sin")),
        )
    )
    basis_only = ("transposed", "determinant", "orthonormalized", "get_scale")
    jobs += [Job(f"Basis.{m}", m, lambda r: (_basis(r),), _method(m)) for m in basis_only]
    jobs += [
        Job("Basis / float", "/", lambda r: (_basis(r), mc.scalar(r)), operator.truediv),
        Job(
            "Transform3D.affine_inverse",
            "affine_inverse",
            lambda r: (_transform3d(r),),
            _method("affine_inverse"),
        ),
        Job(
            "Transform3D.translated",
            "translated",
            lambda r: (_transform3d(r), _vector3(r)),
            _method("translated"),
        ),
    ]
    return jobs


def trig_by_many(
    ours: Callable[..., Any], angles_of: Callable[[list[Any]], list[float]], module: Any
) -> Callable[[list[Any], Any], bool]:
    """:func:`trig_by_neighbours` for a result built on several angles' sines and cosines:
    some choice, per angle, of a sine and cosine within one float32 ulp of the correctly
    rounded ones makes the rest of our formula give the engine's result bit for bit."""

    def check(case: list[Any], theirs: Any) -> bool:
        # one choice per angle by its sign too: 0.0 and -0.0 (a tiny angle halved) are equal
        # as keys, and -0.0's sine is -0.0
        by_sign = {(a, math.copysign(1.0, a)): a for a in angles_of(case) if a == a}
        angles = list(by_sign.values())  # NaN: no choice
        choices = [
            list(itertools.product(*(mc.neighbours(f32(f(a))) for f in (reals.sin, reals.cos))))
            for a in angles
        ]
        for pick in itertools.product(*choices):
            table = {(a, math.copysign(1.0, a)): p for a, p in zip(angles, pick, strict=True)}

            def sin(a: float, t: dict[tuple[float, float], Any] = table) -> float:
                return float(t[a, math.copysign(1.0, a)][0]) if a == a else math.nan

            def cos(a: float, t: dict[tuple[float, float], Any] = table) -> float:
                return float(t[a, math.copysign(1.0, a)][1]) if a == a else math.nan

            with mock.patch.object(module, "sin", sin), mock.patch.object(module, "cos", cos):
                if mc.same(ours(*case), theirs):
                    return True
        return False

    return check


def calls_by_neighbours(
    ours: Callable[..., Any], module: Any, names: tuple[str, ...]
) -> Callable[[list[Any], Any], bool]:
    """For a result built on the C library's trigonometry through ``module``'s functions
    ``names`` (each ``f(r, x)``, giving a float32): with every such value within one float32
    ulp of ours, the rest of our formula gives the engine's result bit for bit."""

    def check(case: list[Any], theirs: Any) -> bool:
        calls: dict[tuple[str, float], float] = {}

        def recorder(name: str) -> Callable[..., float]:
            real = getattr(module, name)

            def record(r: Any, x: float) -> float:
                value: float = real(r, x)
                calls.setdefault((name, x), value)
                return value

            return record

        with contextlib.ExitStack() as stack:
            for name in names:
                stack.enter_context(mock.patch.object(module, name, recorder(name)))
            ours(*case)
        keys = [k for k in calls if k[1] == k[1]]
        for pick in itertools.product(*(mc.neighbours(calls[k]) for k in keys)):
            table = dict(zip(keys, pick, strict=True))

            def replay(name: str, table: dict[Any, float] = table) -> Callable[..., float]:
                real = getattr(module, name)
                return lambda r, x: table.get((name, x), real(r, x))

            with contextlib.ExitStack() as stack:
                for name in names:
                    stack.enter_context(mock.patch.object(module, name, replay(name)))
                if mc.same(ours(*case), theirs):
                    return True
        return False

    return check


def _euler(rng: random.Random) -> gd.Vector3:
    """Euler angles: mostly within a turn, some at the poles (a quarter turn), some anything."""
    k = rng.random()
    if k < 0.15:
        quarter = rng.choice((-1, 1)) * math.pi / 2
        return gd.Vector3(rng.uniform(-3, 3), quarter, rng.uniform(-3, 3))
    if k < 0.85:
        return gd.Vector3(*(rng.uniform(-3.5, 3.5) for _ in range(3)))
    return _vector3(rng)


def _order(rng: random.Random) -> int:
    return rng.randrange(6) if rng.random() < 0.95 else rng.choice((6, -1, 99))


def _rotation(rng: random.Random) -> gd.Basis:
    """A rotation (from Euler angles in any order, at a pole now and then), a pure x or y
    rotation (Godot's simplest-angles branch), or any basis."""
    k = rng.random()
    if k < 0.7:
        return gd.Basis.from_euler(_euler(rng), rng.randrange(6))
    if k < 0.8:
        axis = gd.Vector3(1, 0, 0) if rng.random() < 0.5 else gd.Vector3(0, 1, 0)
        return gd.Basis.from_axis_angle(axis, rng.uniform(-4, 4))
    return _basis(rng)


def euler_jobs() -> list[Job]:
    """Euler angles: Basis and Quaternion to and from them, and Basis(Quaternion)."""

    def from_euler_angles(case: list[Any]) -> list[float]:
        return [f32(a) for a in case[0]]

    def half_angles(case: list[Any]) -> list[float]:
        return [f32(f32(a) * 0.5) for a in case[0]]

    return [
        Job(
            "Basis.get_euler",
            "get_euler",
            lambda r: (_rotation(r), _order(r)),
            _method("get_euler"),
            ulps=1,
        ),
        Job(
            "Basis.from_euler",
            "Basis.from_euler",
            lambda r: (_euler(r), _order(r)),
            gd.Basis.from_euler,
            retrig=trig_by_many(gd.Basis.from_euler, from_euler_angles, euler),
        ),
        Job(
            "Quaternion.get_euler",
            "get_euler",
            lambda r: (_quaternion(r), _order(r)),
            _method("get_euler"),
            ulps=1,
        ),
        Job(
            "Quaternion.from_euler",
            "Quaternion.from_euler",
            lambda r: (_euler(r),),
            gd.Quaternion.from_euler,
            retrig=trig_by_many(gd.Quaternion.from_euler, half_angles, euler),
        ),
        Job(
            "Basis(Quaternion)",
            "Basis(Quaternion)",
            lambda r: (_quaternion(r),),
            gd.Basis.from_quaternion,
        ),
    ]


def _quaternion(rng: random.Random) -> gd.Quaternion:
    k = rng.random()
    if k < 0.6:  # a unit quaternion, as rotations are (within float32 rounding)
        c = [rng.gauss(0, 1) for _ in range(4)]
        n = math.sqrt(sum(v * v for v in c)) or 1.0
        return gd.Quaternion(*(f32(v / n) for v in c))
    if k < 0.7:
        return gd.Quaternion()
    return gd.Quaternion(*(mc.real(rng) for _ in range(4)))


def slerp_by_neighbours(case: list[Any], theirs: Any) -> bool:
    """Quaternion.slerp with acos, sin(omega) and sin(weight * omega) each within one float32
    ulp of the correctly rounded ones (the C library's acosf and sinf) gives the engine's
    result, bit for bit; the rest of the formula is as ours."""
    q, to, weight = case
    if not (q.is_normalized() and to.is_normalized()):
        return False
    w = f32(weight)
    cosom = q.dot(to)
    target = [f32(c) for c in to]
    if cosom < 0:
        cosom, target = -cosom, [-c for c in target]
    if not f32(1.0 - cosom) > f32(0.00001):
        return False
    for omega in mc.neighbours(f32(math.acos(cosom)) if cosom <= 1 else 0.0):
        for sinom in mc.neighbours(f32(math.sin(omega))):
            scale0 = f32(math.sin((1.0 - w) * omega) / sinom)
            for s1 in mc.neighbours(f32(math.sin(f32(w * omega)))):
                scale1 = f32(s1 / sinom)
                got = gd.Quaternion(
                    *(
                        f32(f32(scale0 * f32(a)) + f32(scale1 * b))
                        for a, b in zip(q, target, strict=True)
                    )
                )
                if mc.same(got, theirs):
                    return True
    return False


def quaternion_jobs() -> list[Job]:
    """Every operation of Quaternion that we compute."""
    q = _quaternion

    def one(r: random.Random) -> tuple[Any, ...]:
        return (q(r),)

    def two(r: random.Random) -> tuple[Any, ...]:
        return (q(r), q(r))

    jobs = [Job(f"Quaternion {s} Quaternion", s, two, _OPERATORS[s]) for s in "+-*"]
    jobs += [
        Job("Quaternion * Vector3", "*", lambda r: (q(r), _vector3(r)), operator.mul),
        Job("Vector3 * Quaternion", "*", lambda r: (_vector3(r), q(r)), operator.mul),
        Job("Quaternion * float", "*", lambda r: (q(r), mc.scalar(r)), operator.mul),
        Job("Quaternion / float", "/", lambda r: (q(r), mc.scalar(r)), operator.truediv),
        Job("-Quaternion", "neg", one, operator.neg),
        Job("Quaternion.angle_to", "angle_to", two, _method("angle_to"), ulps=1),
        Job(
            "Quaternion.slerp",
            "slerp",
            lambda r: (*two(r), mc.weight(r)),
            _method("slerp"),
            retrig=slerp_by_neighbours,
        ),
    ]
    unary = ("length", "length_squared", "normalized", "inverse", "is_normalized", "is_finite")
    jobs += [Job(f"Quaternion.{m}", m, one, _method(m)) for m in unary]
    jobs += [Job(f"Quaternion.{m}", m, two, _method(m)) for m in ("dot", "is_equal_approx")]
    jobs.append(
        Job(
            "Quaternion(axis, angle)",
            "Quaternion(axis, angle)",
            lambda r: (_axis(r), mc.angle(r)),
            gd.Quaternion.from_axis_angle,
            retrig=trig_by_neighbours(
                gd.Quaternion.from_axis_angle, lambda case: f32(f32(case[1]) * 0.5), quaternion
            ),
        )
    )
    return jobs


def _aabb(rng: random.Random) -> gd.AABB:
    if rng.random() < 0.6:  # small halves: boxes that touch, overlap, enclose
        return gd.AABB(
            [rng.randint(-8, 8) / 2 for _ in range(3)], [rng.randint(-2, 12) / 2 for _ in range(3)]
        )
    return gd.AABB(_vector3(rng), _vector3(rng))


def _point3(rng: random.Random) -> gd.Vector3:
    if rng.random() < 0.6:
        return gd.Vector3(*(rng.randint(-10, 10) / 2 for _ in range(3)))
    return _vector3(rng)


def _plane(rng: random.Random) -> gd.Plane:
    if rng.random() < 0.6:
        return gd.Plane(_vector3(rng).normalized(), f32(rng.uniform(-10, 10)))
    return gd.Plane(_vector3(rng), mc.real(rng))


def aabb_plane_jobs() -> list[Job]:
    """Every operation of AABB and Plane that we compute."""
    a, p = _aabb, _plane

    def two(r: random.Random) -> tuple[Any, ...]:
        return (a(r), a(r))

    def plane_point(r: random.Random) -> tuple[Any, ...]:
        plane = p(r)
        on = plane.project(_point3(r)) if r.random() < 0.3 else _point3(r)
        return (plane, on)

    jobs = [
        Job("AABB.end", "end", lambda r: (a(r),), lambda v: v.end),
        Job("AABB.has_point", "has_point", lambda r: (a(r), _point3(r)), _method("has_point")),
        Job("AABB.grow", "grow", lambda r: (a(r), mc.scalar(r)), _method("grow")),
        Job("-Plane", "neg", lambda r: (p(r),), operator.neg),
        Job(
            "Plane.has_point(tolerance)",
            "has_point",
            lambda r: (*plane_point(r), mc.scalar(r)),
            _method("has_point"),
        ),
        Job(
            "Plane.is_equal_approx",
            "is_equal_approx",
            lambda r: (p(r), p(r)),
            _method("is_equal_approx"),
        ),
    ]
    for m in ("get_center", "get_volume", "has_volume", "abs"):
        jobs.append(Job(f"AABB.{m}", m, lambda r: (a(r),), _method(m)))
    for m in ("intersects", "encloses", "merge", "intersection", "is_equal_approx"):
        jobs.append(Job(f"AABB.{m}", m, two, _method(m)))
    for m in ("distance_to", "is_point_over", "has_point", "project"):
        jobs.append(Job(f"Plane.{m}", m, plane_point, _method(m)))
    for m in ("get_center", "normalized", "is_finite"):
        jobs.append(Job(f"Plane.{m}", m, lambda r: (p(r),), _method(m)))
    return jobs


def _projection(rng: random.Random) -> gd.Projection:
    if rng.random() < 0.5:  # a perspective-like matrix with small entries and zeros
        return gd.Projection(
            *(
                [f32(rng.choice((0, 0, 1, -1, rng.uniform(-3, 3)))) for _ in range(4)]
                for _ in range(4)
            )
        )
    return gd.Projection(*([mc.real(rng) for _ in range(4)] for _ in range(4)))


def _vector4(rng: random.Random) -> gd.Vector4:
    return gd.Vector4(*(mc.real(rng) for _ in range(4)))


def _lens(rng: random.Random) -> tuple[float, float, float, float]:
    """A field of view (degrees), an aspect, a near and a far distance: mostly a camera's,
    sometimes anything."""
    if rng.random() < 0.8:
        near = rng.uniform(0.01, 10)
        return (rng.uniform(1, 179), rng.uniform(0.2, 4), near, near + rng.uniform(0, 1000))
    return (mc.scalar(rng), mc.scalar(rng), mc.scalar(rng), mc.scalar(rng))


def _sides(rng: random.Random) -> tuple[float, ...]:
    """left, right, bottom, top, near, far: mostly ordered, sometimes anything."""
    if rng.random() < 0.8:
        left, bottom, near = (rng.uniform(-10, 10) for _ in range(3))
        return (
            left,
            left + rng.uniform(0.01, 20),
            bottom,
            bottom + rng.uniform(0.01, 20),
            near,
            near + rng.uniform(0.01, 1000),
        )
    return tuple(mc.scalar(rng) for _ in range(6))


def _sized(rng: random.Random, with_offset: bool) -> tuple[Any, ...]:
    """size, aspect, (offset,) near, far, flip_fov: the ``*_aspect`` builders' arguments."""
    _, aspect, near, far = _lens(rng)
    size = rng.uniform(0.1, 20) if rng.random() < 0.8 else mc.scalar(rng)
    offset = (_vector2(rng) if rng.random() < 0.3 else gd.Vector2(),) if with_offset else ()
    return (size, aspect, *offset, near, far, rng.random() < 0.3)


def _camera(rng: random.Random) -> gd.Projection:
    """A camera matrix (perspective, orthogonal or frustum) or any Projection."""
    k = rng.random()
    if k < 0.35:
        return gd.Projection.create_perspective(*_lens(rng), rng.random() < 0.3)
    if k < 0.5:
        return gd.Projection.create_orthogonal(*_sides(rng))
    if k < 0.65:
        return gd.Projection.create_frustum(*_sides(rng))
    return _projection(rng)


def _perspective_radians(case: list[Any]) -> float:
    """The angle whose sine and cosine ``create_perspective`` takes."""
    fovy, aspect, flip = f32(case[0]), f32(case[1]), case[4]
    if flip:
        fovy = projections.fovy(SINGLE, fovy, f32(1.0 / aspect) if aspect else math.inf)
    return f32(fovy / 2.0 * (math.pi / 180.0))


def projection_jobs() -> list[Job]:
    """Every operation of Projection that we compute."""
    p, cam = _projection, _camera
    proj = gd.Projection
    jobs = [
        Job("Projection * Projection", "*", lambda r: (p(r), p(r)), operator.mul),
        Job("Projection * Vector4", "*", lambda r: (p(r), _vector4(r)), operator.mul),
        Job("Vector4 * Projection", "*", lambda r: (_vector4(r), p(r)), operator.mul),
        Job("Projection.determinant", "determinant", lambda r: (p(r),), _method("determinant")),
        Job(
            "Projection.create_perspective",
            "Projection.create_perspective",
            lambda r: (*_lens(r), r.random() < 0.3),
            proj.create_perspective,
            retrig=trig_by_neighbours(proj.create_perspective, _perspective_radians, projections),
        ),
        Job(
            "Projection.get_fovy",
            "Projection.get_fovy",
            lambda r: _lens(r)[:2],
            proj.get_fovy,
            ulps=1,
        ),
    ]
    builders = {
        "create_orthogonal": lambda r: _sides(r),
        "create_frustum": lambda r: _sides(r),
        "create_orthogonal_aspect": lambda r: _sized(r, with_offset=False),
        "create_frustum_aspect": lambda r: _sized(r, with_offset=True),
        "create_fit_aabb": lambda r: (_aabb(r),),
        "create_depth_correction": lambda r: (r.random() < 0.5,),
        "create_light_atlas_rect": lambda r: (_rect(r),),
    }
    for name, make in builders.items():
        jobs.append(Job(f"Projection.{name}", f"Projection.{name}", make, getattr(proj, name)))
    unary = ["inverse", "get_z_near", "get_z_far", "get_aspect", "is_orthogonal"]
    unary += ["get_lod_multiplier", "get_viewport_half_extents", "get_far_plane_half_extents"]
    unary += ["flipped_y"]
    jobs += [Job(f"Projection.{m}", m, lambda r: (cam(r),), _method(m)) for m in unary]
    jobs += [
        Job("Projection.get_fov", "get_fov", lambda r: (cam(r),), _method("get_fov"), ulps=1),
        Job(
            "Projection.get_pixels_per_meter",
            "get_pixels_per_meter",
            lambda r: (cam(r), r.randint(1, 8000) if r.random() < 0.8 else mc.int64(r)),
            _method("get_pixels_per_meter"),
        ),
        Job(
            "Projection.perspective_znear_adjusted",
            "perspective_znear_adjusted",
            lambda r: (cam(r), r.uniform(0.01, 10) if r.random() < 0.8 else mc.scalar(r)),
            _method("perspective_znear_adjusted"),
        ),
        Job(
            "Projection.get_projection_plane",
            "get_projection_plane",
            lambda r: (cam(r), r.randrange(6) if r.random() < 0.95 else r.choice((6, -1))),
            _method("get_projection_plane"),
        ),
        Job(
            "Projection.jitter_offseted",
            "jitter_offseted",
            lambda r: (cam(r), _vector2(r)),
            _method("jitter_offseted"),
        ),
    ]
    return jobs


FAMILIES: dict[str, Callable[[], list[Job]]] = {
    "projection": projection_jobs,
    "aabb_plane": aabb_plane_jobs,
    "quaternion": quaternion_jobs,
    "transform3d": transform3d_jobs,
    "transform2d": transform2d_jobs,
    "color": color_jobs,
    "rects": rect_jobs,
    "vectors": lambda: [
        j for k in (gd.Vector2, gd.Vector3, gd.Vector4) for j in real_vector_jobs(k)
    ],
    "integer_vectors": lambda: [
        j for k in (gd.Vector2i, gd.Vector3i, gd.Vector4i) for j in int_vector_jobs(k)
    ],
}


def engine_results(engine: Engine, jobs: list[Job], cases: dict[str, list[Any]]) -> Any:
    """The engine's result for every case of every job, in one run."""
    payload = [[job.key, job.op, cases[job.key]] for job in jobs]
    with engine.workdir() as (here, inside):
        (here / ORACLE.name).write_bytes(ORACLE.read_bytes())
        (here / "in.bin").write_bytes(gd.dumps(payload))
        engine.run(ORACLE.name, [f"{inside}/in.bin", f"{inside}/out.bin"], cwd=(here, inside))
        return gd.loads((here / "out.bin").read_bytes())


def _ours(job: Job, case: list[Any]) -> Any:
    """Our result, or None where we raise ZeroDivisionError (where the engine stops with
    "Division by zero error" and the oracle gets null)."""
    try:
        return job.ours(*case)
    except ZeroDivisionError:
        return None


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_math_computes_what_godot_computes(godot4: Engine, family: str) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    rng = random.Random(f"{SEED}-{family}")
    jobs = FAMILIES[family]()
    cases = {job.key: [list(job.make(rng)) for _ in range(COUNT)] for job in jobs}
    theirs = engine_results(godot4, jobs, cases)
    failures = []
    for job in jobs:
        wrong = [
            (case, ours, got)
            for case, got in zip(cases[job.key], theirs[job.key], strict=True)
            if not mc.same(ours := _ours(job, case), got, job.ulps)
            and not (job.retrig is not None and job.retrig(case, got))
        ]
        if wrong:
            failures.append(f"{job.key}: {len(wrong)} of {COUNT} differ, e.g. {wrong[:3]}")
    assert failures == [], "\n".join(failures)
