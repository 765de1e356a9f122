"""``Quaternion``: a rotation as (x, y, z, w), with Godot's operators and methods. Formulas:
Godot 4.6's ``core/math/quaternion.h`` and ``quaternion.cpp``.

Where Godot's debug builds check the argument (``MATH_CHECKS``: ``inverse``, ``slerp`` and
``xform`` want normalized quaternions) they print an error and return a fallback; so does
this (the identity, or the vector unchanged), so that results match the editor's.
"""

from __future__ import annotations

import math
from typing import Any, Self, SupportsFloat, SupportsIndex

from ..base import _f, _field
from ..constructors import float_fields
from . import euler as eu
from .componentwise import sum_of_products
from .operands import MathRecord, is_scalar, mixed
from .reals import UNIT_EPSILON, Reals, cos, div, is_equal_approx, reals, sin
from .reals import sqrt as _sqrt
from .vectors import Vector3

__all__ = ["Quaternion"]


def _acos(r: Reals, x: float) -> float:
    """``Math::acos``: clamped to [-1, 1] first."""
    return r.one(math.pi) if x < -1 else 0.0 if x > 1 else r.one(math.acos(x))


def _sin(r: Reals, x: float) -> float:
    return r.one(math.sin(x)) if math.isfinite(x) else math.nan


class Quaternion(MathRecord):
    """``Quaternion`` (x, y, z, w); the default is the identity rotation.

    ``q * Quaternion`` composes, ``q * Vector3`` rotates, ``Vector3 * q`` rotates by the
    inverse, ``+ -`` and ``* /`` by a number work per component, ``-q`` negates.
    """

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

    @float_fields
    def __new__(
        cls,
        x: SupportsFloat = 0.0,
        y: SupportsFloat = 0.0,
        z: SupportsFloat = 0.0,
        w: SupportsFloat = 1.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z), _f(w)))

    x: float = _field(0)

    y: float = _field(1)

    z: float = _field(2)

    w: float = _field(3)

    def _q(self, r: Reals) -> tuple[float, ...]:
        return r.four(*self)

    def _new(self, values: Any) -> Self:
        return tuple.__new__(type(self), values)

    # ---- operators ------------------------------------------------------------------

    def __add__(self, other: object) -> Self:
        if type(other) is not type(self):
            mixed("+", self, other)
        r = reals()
        return self._new(r.all([a + b for a, b in zip(self._q(r), other._q(r), strict=True)]))

    def __sub__(self, other: object) -> Self:
        if type(other) is not type(self):
            mixed("-", self, other)
        r = reals()
        return self._new(r.all([a - b for a, b in zip(self._q(r), other._q(r), strict=True)]))

    def __neg__(self) -> Self:
        return self._new([-a for a in self._q(reals())])

    def __mul__(self, other: object) -> Any:
        r = reals()
        if type(other) is Quaternion:
            return self._compose(r, other)
        if type(other) is Vector3:
            return self.xform(other)
        if is_scalar(other):
            s = r.one(float(other))  # type: ignore[arg-type]
            return self._new(r.all([a * s for a in self._q(r)]))
        mixed("*", self, other)

    def __rmul__(self, other: object) -> Any:
        if type(other) is Vector3:
            return self.xform_inv(other)
        if is_scalar(other):
            return self * other
        mixed("*", other, self)

    def __truediv__(self, other: object) -> Self:
        """Times ``1 / s``, as Godot computes it."""
        if not is_scalar(other):
            mixed("/", self, other)
        r = reals()
        s = r.one(div(1.0, r.one(float(other))))  # type: ignore[arg-type]
        return self._new(r.all([a * s for a in self._q(r)]))

    def _compose(self, r: Reals, other: Quaternion) -> Self:
        one = r.one
        x, y, z, w = self._q(r)
        qx, qy, qz, qw = other._q(r)

        def four(a: float, b: float, c: float, d: float, sign: float) -> float:
            return one(one(one(a + b) + c) + sign * d)

        xx = four(one(w * qx), one(x * qw), one(y * qz), one(z * qy), -1.0)
        yy = four(one(w * qy), one(y * qw), one(z * qx), one(x * qz), -1.0)
        zz = four(one(w * qz), one(z * qw), one(x * qy), one(y * qx), -1.0)
        ww = one(one(one(one(w * qw) - one(x * qx)) - one(y * qy)) - one(z * qz))
        return self._new((xx, yy, zz, ww))

    # ---- methods --------------------------------------------------------------------

    @classmethod
    def from_axis_angle(cls, axis: Vector3, angle: SupportsFloat) -> Self:
        """Godot's ``Quaternion(axis, angle)``: the rotation by ``angle`` radians about
        ``axis`` (the identity when the axis is not normalized, as in Godot's debug builds)."""
        r = reals()
        one = r.one
        a = Vector3()._same(axis)
        if not a.is_normalized():
            return cls()
        length = a.length()
        if length == 0:
            return tuple.__new__(cls, (0.0, 0.0, 0.0, 0.0))
        half = one(one(float(angle)) * 0.5)
        s = one(div(one(sin(half)), length))
        x, y, z = r.three(*a)
        return tuple.__new__(cls, (one(x * s), one(y * s), one(z * s), one(cos(half))))

    @classmethod
    def from_euler(cls, euler: Vector3) -> Self:
        """Godot's ``Quaternion.from_euler``: the rotation by ``euler``'s angles (radians) in
        the YXZ order (Godot's only one here)."""
        r = reals()
        return tuple.__new__(cls, eu.quaternion_from_euler(r, r.three(*Vector3()._same(euler))))

    def get_euler(self, order: SupportsIndex = eu.EulerOrder.YXZ) -> Vector3:
        """The Euler angles (radians) in ``order``, through the rotation matrix; zeros for
        a quaternion that is not normalized or an unknown order (Godot prints an error)."""
        if not self.is_normalized():
            return Vector3()
        r = reals()
        angles = eu.to_euler(r, eu.from_quaternion(r, self._q(r)), int(order))
        return Vector3() if angles is None else tuple.__new__(Vector3, angles)

    def dot(self, with_: Quaternion) -> float:
        """``x * q.x + y * q.y + z * q.z + w * q.w``."""
        r = reals()
        return sum_of_products(r, self._q(r), self._same(with_)._q(r))

    def length_squared(self) -> float:
        """The squared length."""
        return self.dot(self)

    def length(self) -> float:
        """The length."""
        return reals().one(_sqrt(self.length_squared()))

    def normalized(self) -> Self:
        """This divided by its length (NaN for a zero quaternion, as in Godot)."""
        return self / self.length()

    def is_normalized(self) -> bool:
        """Whether the squared length is within ``UNIT_EPSILON`` (0.001) of 1."""
        r = reals()
        squared = self.length_squared()
        return squared == 1 or abs(r.one(squared - 1.0)) < r.one(UNIT_EPSILON)

    def inverse(self) -> Self:
        """``(-x, -y, -z, w)``; the identity for a quaternion that is not normalized."""
        if not self.is_normalized():
            return self._new((0.0, 0.0, 0.0, 1.0))
        x, y, z, w = self._q(reals())
        return self._new((-x, -y, -z, w))

    def xform(self, v: Vector3) -> Vector3:
        """``v`` rotated (unchanged when this is not normalized)."""
        r = reals()
        v = +Vector3()._same(v)
        if not self.is_normalized():
            return v
        x, y, z, w = self._q(r)
        u = tuple.__new__(Vector3, (x, y, z))
        uv = u.cross(v)
        return v + ((uv * w) + u.cross(uv)) * 2

    def xform_inv(self, v: Vector3) -> Vector3:
        """``v`` rotated by the inverse."""
        return self.inverse().xform(v)

    def angle_to(self, to: Quaternion) -> float:
        """The angle between the two rotations: ``acos(2 * dot^2 - 1)``."""
        r = reals()
        one = r.one
        d = self.dot(to)
        return _acos(r, one(one(one(d * d) * 2) - 1.0))

    def slerp(self, to: Quaternion, weight: SupportsFloat) -> Self:
        """Spherical linear interpolation (both must be normalized, else the identity)."""
        if not self.is_normalized() or not self._same(to).is_normalized():
            return self._new((0.0, 0.0, 0.0, 1.0))
        r = reals()
        one = r.one
        w = one(float(weight))
        cosom = self.dot(to)
        target = to._q(r)
        if cosom < 0:
            cosom, target = -cosom, tuple(-c for c in target)
        if one(1.0 - cosom) > r.epsilon:
            omega = _acos(r, cosom)
            sinom = _sin(r, omega)
            # (1.0 - weight) * omega is a double in Godot's source, and so is its sine
            far = (1.0 - w) * omega
            scale0 = one(div(math.sin(far) if math.isfinite(far) else math.nan, sinom))
            scale1 = one(div(_sin(r, one(w * omega)), sinom))
        else:
            scale0, scale1 = one(1.0 - w), w
        return self._new(
            [
                one(one(scale0 * a) + one(scale1 * b))
                for a, b in zip(self._q(r), target, strict=True)
            ]
        )

    def is_equal_approx(self, to: Quaternion) -> bool:
        """Every component within ``CMP_EPSILON`` (relative) of ``to``'s."""
        r = reals()
        return all(
            is_equal_approx(r, a, b) for a, b in zip(self._q(r), self._same(to)._q(r), strict=True)
        )

    def is_finite(self) -> bool:
        """No component is an infinity or NaN."""
        return all(math.isfinite(a) for a in self._q(reals()))
