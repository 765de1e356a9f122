"""Euler angles: Godot's ``EulerOrder`` and the conversions between angles, 3x3 rotation
matrices (nine reals, row by row, as in :mod:`.matrices`) and quaternions. Formulas and their
order: Godot 4.6's ``Basis::get_euler``, ``Basis::set_euler``, ``Basis::set_quaternion``
(``core/math/basis.cpp``) and ``Quaternion::from_euler`` (``quaternion.cpp``), each step
rounded as in :mod:`.reals`."""

from __future__ import annotations

import enum
import math

from . import matrices as mx
from .matrices import Rows, Three
from .reals import UNIT_EPSILON, Reals, cos, div, is_equal_approx, is_zero_approx, sin
from .reals import sqrt as _sqrt

__all__ = [
    "EulerOrder",
    "from_euler",
    "from_quaternion",
    "quaternion_from_euler",
    "to_euler",
    "to_quaternion",
]


class EulerOrder(enum.IntEnum):
    """Godot's ``EulerOrder`` (the global ``EULER_ORDER_*`` constants): the order in which
    the three rotations apply, the first letter's last. ``YXZ`` is Godot's default."""

    XYZ = 0
    XZY = 1
    YXZ = 2
    YZX = 3
    ZXY = 4
    ZYX = 5


#: ``set_euler``'s product per order: three factors, ``(a * b) * c``, except XYZ's
#: ``x * (y * z)`` (Godot brackets it so).
_PRODUCTS = {0: "xyz", 1: "xzy", 2: "yxz", 3: "yzx", 4: "zxy", 5: "zyx"}

IDENTITY: Rows = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def from_euler(r: Reals, euler: Three, order: int) -> Rows | None:
    """``Basis::set_euler``: the rotations about x, y and z by ``euler``'s angles, combined in
    ``order``; None for an order Godot does not know (it prints an error)."""
    if order not in _PRODUCTS:
        return None
    one = r.one
    turns: dict[str, Rows] = {}
    for name, angle in zip("xyz", euler, strict=True):
        c, s = one(cos(angle)), one(sin(angle))
        if name == "x":
            turns[name] = (1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c)
        elif name == "y":
            turns[name] = (c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c)
        else:
            turns[name] = (c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)
    a, b, c_ = (turns[name] for name in _PRODUCTS[order])
    if order == EulerOrder.XYZ:
        return mx.times(r, a, mx.times(r, b, c_))
    return mx.times(r, mx.times(r, a, b), c_)


def _atan2(r: Reals, y: float, x: float) -> float:
    return r.one(math.atan2(y, x))


def _asin(r: Reals, x: float) -> float:
    """``Math::asin``: clamped to [-1, 1] first (the callers pass values inside)."""
    if x != x:
        return x
    return r.one(math.asin(max(-1.0, min(1.0, x))))


def _plain(m: Rows, zeros: tuple[int, ...], unit: int) -> bool:
    """Whether the entries ``zeros`` of ``m`` are 0 and the entry ``unit`` is 1."""
    return all(m[i] == 0 for i in zeros) and m[unit] == 1


def to_euler(r: Reals, m: Rows, order: int) -> Three | None:
    """``Basis::get_euler``: the angles of ``m`` (a rotation) in ``order``; None for an order
    Godot does not know (it prints an error and gives zeros). Near the poles (the middle
    angle within 0.00000025 of a quarter turn) the last angle is zero and the first takes
    it all, as in Godot."""
    one = r.one
    edge = one(1.0 - one(0.00000025))
    half_pi = one(math.pi / 2.0)

    def at(i: int, j: int) -> float:
        return m[i * 3 + j]

    if order == EulerOrder.XYZ:
        sy = at(0, 2)
        if sy < edge:
            if sy > -edge:
                if (
                    at(1, 0) == 0
                    and at(0, 1) == 0
                    and at(1, 2) == 0
                    and at(2, 1) == 0
                    and at(1, 1) == 1
                ):
                    return (0.0, _atan2(r, at(0, 2), at(0, 0)), 0.0)
                return (
                    _atan2(r, -at(1, 2), at(2, 2)),
                    _asin(r, sy),
                    _atan2(r, -at(0, 1), at(0, 0)),
                )
            return (_atan2(r, at(2, 1), at(1, 1)), -half_pi, 0.0)
        return (_atan2(r, at(2, 1), at(1, 1)), half_pi, 0.0)
    if order == EulerOrder.XZY:
        sz = at(0, 1)
        if sz < edge:
            if sz > -edge:
                return (_atan2(r, at(2, 1), at(1, 1)), _atan2(r, at(0, 2), at(0, 0)), _asin(r, -sz))
            return (-_atan2(r, at(1, 2), at(2, 2)), 0.0, half_pi)
        return (-_atan2(r, at(1, 2), at(2, 2)), 0.0, -half_pi)
    if order == EulerOrder.YXZ:
        m12 = at(1, 2)
        if m12 < edge:
            if m12 > -edge:
                if (
                    at(1, 0) == 0
                    and at(0, 1) == 0
                    and at(0, 2) == 0
                    and at(2, 0) == 0
                    and at(0, 0) == 1
                ):
                    return (_atan2(r, -m12, at(1, 1)), 0.0, 0.0)
                return (
                    _asin(r, -m12),
                    _atan2(r, at(0, 2), at(2, 2)),
                    _atan2(r, at(1, 0), at(1, 1)),
                )
            return (half_pi, _atan2(r, at(0, 1), at(0, 0)), 0.0)
        return (-half_pi, -_atan2(r, at(0, 1), at(0, 0)), 0.0)
    if order == EulerOrder.YZX:
        sz = at(1, 0)
        if sz < edge:
            if sz > -edge:
                return (
                    _atan2(r, -at(1, 2), at(1, 1)),
                    _atan2(r, -at(2, 0), at(0, 0)),
                    _asin(r, sz),
                )
            return (_atan2(r, at(2, 1), at(2, 2)), 0.0, -half_pi)
        return (_atan2(r, at(2, 1), at(2, 2)), 0.0, half_pi)
    if order == EulerOrder.ZXY:
        sx = at(2, 1)
        if sx < edge:
            if sx > -edge:
                return (
                    _asin(r, sx),
                    _atan2(r, -at(2, 0), at(2, 2)),
                    _atan2(r, -at(0, 1), at(1, 1)),
                )
            return (-half_pi, _atan2(r, at(0, 2), at(0, 0)), 0.0)
        return (half_pi, _atan2(r, at(0, 2), at(0, 0)), 0.0)
    if order == EulerOrder.ZYX:
        sy = at(2, 0)
        if sy < edge:
            if sy > -edge:
                return (_atan2(r, at(2, 1), at(2, 2)), _asin(r, -sy), _atan2(r, at(1, 0), at(0, 0)))
            return (0.0, half_pi, -_atan2(r, at(0, 1), at(1, 1)))
        return (0.0, -half_pi, -_atan2(r, at(0, 1), at(1, 1)))
    return None


def from_quaternion(r: Reals, q: tuple[float, ...]) -> Rows:
    """``Basis(quaternion)`` (``set_quaternion``): the rotation matrix of ``q``, scaled by
    ``2 / |q|^2`` so that a quaternion a little off unit length still gives a rotation."""
    one = r.one
    x, y, z, w = q
    d = one(one(one(one(x * x) + one(y * y)) + one(z * z)) + one(w * w))
    s = one(div(2.0, d))
    xs, ys, zs = one(x * s), one(y * s), one(z * s)
    wx, wy, wz = one(w * xs), one(w * ys), one(w * zs)
    xx, xy, xz = one(x * xs), one(x * ys), one(x * zs)
    yy, yz, zz = one(y * ys), one(y * zs), one(z * zs)
    return (
        one(1.0 - one(yy + zz)), one(xy - wz), one(xz + wy),
        one(xy + wz), one(1.0 - one(xx + zz)), one(yz - wx),
        one(xz - wy), one(yz + wx), one(1.0 - one(xx + yy)),
    )  # fmt: skip


def quaternion_from_euler(r: Reals, euler: Three) -> tuple[float, float, float, float]:
    """``Quaternion::from_euler``: the YXZ rotation of ``euler`` as a quaternion, from the
    sines and cosines of the half angles."""
    one = r.one
    ex, ey, ez = euler
    half_1, half_2, half_3 = one(ey * 0.5), one(ex * 0.5), one(ez * 0.5)
    c1, s1 = one(cos(half_1)), one(sin(half_1))
    c2, s2 = one(cos(half_2)), one(sin(half_2))
    c3, s3 = one(cos(half_3)), one(sin(half_3))

    def term(a: float, b: float, c: float) -> float:
        return one(one(a * b) * c)

    return (
        one(term(s1, c2, s3) + term(c1, s2, c3)),
        one(term(s1, c2, c3) - term(c1, s2, s3)),
        one(term(-s1, s2, c3) + term(c1, c2, s3)),
        one(term(s1, s2, s3) + term(c1, c2, c3)),
    )


def _is_rotation(r: Reals, m: Rows) -> bool:
    """``Basis::is_rotation``: conformal (columns of one squared length, at right angles)
    with a determinant within ``UNIT_EPSILON`` of 1."""
    one = r.one
    columns = [(m[j], m[3 + j], m[6 + j]) for j in range(3)]
    x, y, z = columns

    def dot(a: Three, b: Three) -> float:
        return mx.dot3(r, a[0], a[1], a[2], b)

    x_squared = dot(x, x)
    conformal = (
        is_equal_approx(r, x_squared, dot(y, y))
        and is_equal_approx(r, x_squared, dot(z, z))
        and is_zero_approx(r, dot(x, y))
        and is_zero_approx(r, dot(x, z))
        and is_zero_approx(r, dot(y, z))
    )
    if not conformal:
        return False
    a = one(m[0] * mx.cofactor(r, m, 1, 1, 2, 2))
    b = one(m[3] * mx.cofactor(r, m, 0, 1, 2, 2))
    c = one(m[6] * mx.cofactor(r, m, 0, 1, 1, 2))
    det = one(one(a - b) + c)
    return det == 1 or abs(one(det - 1.0)) < one(UNIT_EPSILON)


def to_quaternion(r: Reals, m: Rows) -> tuple[float, float, float, float]:
    """``Basis::get_quaternion``: the quaternion of the rotation ``m``; the identity for a
    basis that is not finite or not a rotation (Godot's debug builds print an error)."""
    if not all(math.isfinite(v) for v in m) or not _is_rotation(r, m):
        return (0.0, 0.0, 0.0, 1.0)
    one = r.one
    trace = one(one(m[0] + m[4]) + m[8])
    out = [0.0, 0.0, 0.0, 0.0]
    if trace > 0:
        s = one(_sqrt(one(trace + 1.0)))
        out[3] = one(s * 0.5)
        s = one(div(0.5, s))
        out[0] = one(one(m[7] - m[5]) * s)
        out[1] = one(one(m[2] - m[6]) * s)
        out[2] = one(one(m[3] - m[1]) * s)
        return (out[0], out[1], out[2], out[3])
    i = (2 if m[4] < m[8] else 1) if m[0] < m[4] else (2 if m[0] < m[8] else 0)  # the largest
    j, k = (i + 1) % 3, (i + 2) % 3

    def at(a: int, b: int) -> float:
        return m[a * 3 + b]

    s = one(_sqrt(one(one(one(at(i, i) - at(j, j)) - at(k, k)) + 1.0)))
    out[i] = one(s * 0.5)
    s = one(div(0.5, s))
    out[3] = one(one(at(k, j) - at(j, k)) * s)
    out[j] = one(one(at(j, i) + at(i, j)) * s)
    out[k] = one(one(at(k, i) + at(i, k)) * s)
    return (out[0], out[1], out[2], out[3])
