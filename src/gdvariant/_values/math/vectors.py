"""``Vector2``, ``Vector3``, ``Vector4``: two to four reals, with Godot's operators and methods.

Every operation takes the components as the engine holds them (``real_t``, see
:mod:`.reals`) and computes in the engine's order, rounding after each step, so a result is the
one a Godot build gives, bit for bit (trigonometry: within one float32 ulp). The formulas are
read from Godot 4.6's ``core/math/vector2.cpp``, ``vector3.h`` and ``vector4.cpp``.
"""

from __future__ import annotations

import math
from typing import Self, SupportsFloat

from ..base import _f, _field
from ..constructors import float_fields
from . import reals as _r
from .componentwise import Componentwise
from .componentwise import sum_of_products as _sum_of_products
from .matrices import axis_angle, xform
from .reals import UNIT_EPSILON
from .reals import reals as reals_now

__all__ = ["Vector2", "Vector3", "Vector4"]


class _RealVector(Componentwise):
    """What Vector2, Vector3 and Vector4 share."""

    __slots__ = ()

    def __abs__(self) -> Self:
        return self.abs()

    # ---- lengths and products -------------------------------------------------------

    def dot(self, with_: Self) -> float:
        """``a.x * b.x + a.y * b.y ...``."""
        r = self._rs()
        return _sum_of_products(r, r.all(self), r.all(self._same(with_)))

    def length_squared(self) -> float:
        """The squared length (no square root)."""
        r = self._rs()
        a = r.all(self)
        return _sum_of_products(r, a, a)

    def length(self) -> float:
        """The length: ``sqrt(length_squared())``."""
        return self._rs().one(_r.sqrt(self.length_squared()))

    def _delta(self, to: Self) -> tuple[float, ...]:
        r = self._rs()
        return r.all([b - a for a, b in zip(r.all(self), r.all(self._same(to)), strict=True)])

    def distance_squared_to(self, to: Self) -> float:
        """The squared distance to ``to``."""
        d = self._delta(to)
        return _sum_of_products(self._rs(), d, d)

    def distance_to(self, to: Self) -> float:
        """The distance to ``to``."""
        return self._rs().one(_r.sqrt(self.distance_squared_to(to)))

    def normalized(self) -> Self:
        """This vector scaled to length 1; a zero vector stays zero."""
        r = self._rs()
        a = r.all(self)
        squared = _sum_of_products(r, a, a)
        if squared == 0:
            return self._zero_normal(a)
        length = r.one(_r.sqrt(squared))
        return tuple.__new__(type(self), r.all([_r.div(x, length) for x in a]))

    def _zero_normal(self, a: tuple[float, ...]) -> Self:
        """What ``normalized`` gives for a zero vector: zeros (Vector2 keeps its own)."""
        return tuple.__new__(type(self), (0.0,) * len(a))

    def is_zero_approx(self) -> bool:
        """Every component within ``CMP_EPSILON`` of zero."""
        r = self._rs()
        return all(_r.is_zero_approx(r, a) for a in r.all(self))

    def is_finite(self) -> bool:
        """No component is an infinity or NaN."""
        return all(math.isfinite(a) for a in self._rs().all(self))

    # ---- componentwise --------------------------------------------------------------

    def abs(self) -> Self:
        """Each component's absolute value."""
        return self._map(abs)

    def floor(self) -> Self:
        """Each component rounded down."""
        return self._map(_r.floor)

    def ceil(self) -> Self:
        """Each component rounded up."""
        return self._map(_r.ceil)

    def round(self) -> Self:
        """Each component rounded to the nearest integer, halves away from zero."""
        return self._map(_r.round_half_away)

    def sign(self) -> Self:
        """Each component's sign: 1.0, -1.0, or 0.0 (for zeros and NaN)."""
        return self._map(lambda x: 1.0 if x > 0 else -1.0 if x < 0 else 0.0)

    def snapped(self, step: Self) -> Self:
        """Each component rounded to the nearest multiple of ``step``'s (in doubles, as
        Godot's ``Math::snapped`` computes)."""
        r = self._rs()
        steps = r.all(self._same(step))
        return tuple.__new__(
            type(self), r.all([_snap(a, s) for a, s in zip(r.all(self), steps, strict=True)])
        )

    def snappedf(self, step: SupportsFloat) -> Self:
        """:meth:`snapped` with one step for every component."""
        r = self._rs()
        s = r.one(float(step))
        return tuple.__new__(type(self), r.all([_snap(a, s) for a in r.all(self)]))

    def clampf(self, min: SupportsFloat, max: SupportsFloat) -> Self:  # noqa: A002
        """Each component limited to ``[min, max]`` (Godot's ``CLAMP``: NaN passes)."""
        r = self._rs()
        lo, hi = r.one(float(min)), r.one(float(max))
        return tuple.__new__(
            type(self), [lo if a < lo else (hi if a > hi else a) for a in r.all(self)]
        )

    def min(self, with_: Self) -> Self:
        """The componentwise minimum."""
        r = self._rs()
        b = r.all(self._same(with_))
        return tuple.__new__(
            type(self), [x if x < y else y for x, y in zip(r.all(self), b, strict=True)]
        )

    def max(self, with_: Self) -> Self:
        """The componentwise maximum."""
        r = self._rs()
        b = r.all(self._same(with_))
        return tuple.__new__(
            type(self), [x if x > y else y for x, y in zip(r.all(self), b, strict=True)]
        )

    def direction_to(self, to: Self) -> Self:
        """The unit vector from this point toward ``to`` (``(to - self).normalized()``)."""
        other: Self = self._same(to)
        return (other - self).normalized()

    def is_normalized(self) -> bool:
        """Whether the squared length is within ``UNIT_EPSILON`` (0.001) of 1."""
        r = self._rs()
        squared = self.length_squared()
        return squared == 1 or abs(r.one(squared - 1.0)) < r.one(UNIT_EPSILON)


class _Vector23(_RealVector):
    """What Vector2 and Vector3 share beyond the rest: motion along and against surfaces.

    ``slide``, ``reflect`` and ``bounce`` want a normalized normal: as in Godot's debug builds,
    another gives a zero vector (Godot prints an error).
    """

    __slots__ = ()

    def move_toward(self, to: Self, delta: SupportsFloat) -> Self:
        """``to`` if it is within ``delta``, else this moved ``delta`` toward it."""
        r = self._rs()
        one, d = r.one, r.one(float(delta))
        vd = self._delta(to)
        length = one(_r.sqrt(_sum_of_products(r, vd, vd)))
        if length <= d or length < r.epsilon:
            return tuple.__new__(type(self), r.all(to))
        return tuple.__new__(
            type(self),
            [
                one(x + one(one(_r.div(v, length)) * d))
                for x, v in zip(r.all(self), vd, strict=True)
            ],
        )

    def limit_length(self, length: SupportsFloat = 1.0) -> Self:
        """This vector shortened to ``length`` if it is longer."""
        r = self._rs()
        limit = r.one(float(length))
        current = self.length()
        if current > 0 and limit < current:
            return self / current * limit
        return +self

    def project(self, to: Self) -> Self:
        """The projection onto ``to``: ``to * (dot(to) / to.length_squared())``."""
        r = self._rs()
        other: Self = self._same(to)
        return other * r.one(_r.div(self.dot(other), other.length_squared()))

    def slide(self, n: Self) -> Self:
        """The part of this vector along the plane (or line) of normal ``n``."""
        normal: Self = self._same(n)
        if not normal.is_normalized():
            return tuple.__new__(type(self), (0.0,) * len(self))
        return self - normal * self.dot(normal)

    def reflect(self, n: Self) -> Self:
        """This vector mirrored across the plane (or line) of normal ``n``."""
        normal: Self = self._same(n)
        if not normal.is_normalized():
            return tuple.__new__(type(self), (0.0,) * len(self))
        return normal * 2 * self.dot(normal) - self

    def bounce(self, n: Self) -> Self:
        """``-reflect(n)``: this vector bounced off the plane (or line) of normal ``n``."""
        return -self.reflect(n)


def _slerp_scale(r: _r.Reals, a: _Vector23, b: _Vector23, weight: float) -> float | None:
    """``lerp(|a|, |b|, weight) / |a|``: how ``slerp`` scales the turned vector; None when
    either is a zero vector (slerp falls back to lerp)."""
    one = r.one
    start_squared, end_squared = a.length_squared(), b.length_squared()
    if start_squared == 0 or end_squared == 0:
        return None
    start, end = one(_r.sqrt(start_squared)), one(_r.sqrt(end_squared))
    result = one(start + one(one(end - start) * weight))
    return one(_r.div(result, start))


def _snap(value: float, step: float) -> float:
    """``Math::snapped(double, double)``: ``floor(value / step + 0.5) * step`` unless step is 0."""
    if step == 0:
        return value
    return _r.floor(_r.div(value, step) + 0.5) * step


class Vector2(_Vector23):
    """``Vector2``: two reals (32-bit on the wire unless the engine uses doubles)."""

    __slots__ = ()
    _fields = ("x", "y")

    @float_fields
    def __new__(cls, x: SupportsFloat = 0.0, y: SupportsFloat = 0.0) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y)))

    x: float = _field(0)

    y: float = _field(1)

    def _zero_normal(self, a: tuple[float, ...]) -> Self:
        return tuple.__new__(type(self), a)  # Vector2::normalize leaves a zero vector as is

    @staticmethod
    def from_angle(angle: SupportsFloat) -> Vector2:
        """The unit vector at ``angle`` radians from the X axis: ``(cos, sin)``."""
        one = reals_now().one
        a = one(float(angle))
        return tuple.__new__(Vector2, (one(_r.cos(a)), one(_r.sin(a))))

    def cross(self, with_: Vector2) -> float:
        """The 2D cross product ``x * with.y - y * with.x``."""
        r = self._rs()
        one = r.one
        x, y = r.two(*self)
        wx, wy = r.two(*self._same(with_))
        return one(one(x * wy) - one(y * wx))

    def angle(self) -> float:
        """The angle to the positive X axis, ``atan2(y, x)``, in radians."""
        r = self._rs()
        x, y = r.two(*self)
        return r.one(math.atan2(y, x))

    def angle_to(self, to: Vector2) -> float:
        """The signed angle to ``to``: ``atan2(cross(to), dot(to))``."""
        r = self._rs()
        return r.one(math.atan2(self.cross(to), self.dot(to)))

    def rotated(self, angle: SupportsFloat) -> Vector2:
        """This vector rotated by ``angle`` radians."""
        r = self._rs()
        one = r.one
        a = one(float(angle))
        sine, cosi = one(_r.sin(a)), one(_r.cos(a))
        x, y = r.two(*self)
        return tuple.__new__(
            Vector2,
            (one(one(x * cosi) - one(y * sine)), one(one(x * sine) + one(y * cosi))),
        )

    def slerp(self, to: Vector2, weight: SupportsFloat) -> Vector2:
        """Spherical interpolation: turned ``weight`` of the way toward ``to`` while the
        length goes linearly; a zero vector at either end gives :meth:`lerp`."""
        r = self._rs()
        other: Vector2 = self._same(to)
        w = r.one(float(weight))
        scale = _slerp_scale(r, self, other, w)
        if scale is None:
            return self.lerp(other, w)
        return self.rotated(r.one(self.angle_to(other) * w)) * scale


class Vector3(_Vector23):
    """``Vector3``: three reals."""

    __slots__ = ()
    _fields = ("x", "y", "z")

    @float_fields
    def __new__(
        cls, x: SupportsFloat = 0.0, y: SupportsFloat = 0.0, z: SupportsFloat = 0.0
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z)))

    x: float = _field(0)

    y: float = _field(1)

    z: float = _field(2)

    def cross(self, with_: Vector3) -> Vector3:
        """The cross product."""
        r = self._rs()
        one = r.one
        x, y, z = r.three(*self)
        wx, wy, wz = r.three(*self._same(with_))
        return tuple.__new__(
            Vector3,
            (
                one(one(y * wz) - one(z * wy)),
                one(one(z * wx) - one(x * wz)),
                one(one(x * wy) - one(y * wx)),
            ),
        )

    def rotated(self, axis: Vector3, angle: SupportsFloat) -> Vector3:
        """This vector rotated by ``angle`` radians about ``axis`` (unchanged but for rounding
        when the axis is not normalized, as in Godot's debug builds)."""
        r = self._rs()
        rows = axis_angle(r, r.three(*self._same(axis)), r.one(float(angle)))
        rows = rows if rows is not None else (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
        return tuple.__new__(Vector3, xform(r, rows, r.three(*self)))

    def angle_to(self, to: Vector3) -> float:
        """The unsigned angle to ``to``: ``atan2(|cross(to)|, dot(to))``."""
        r = self._rs()
        return r.one(math.atan2(self.cross(to).length(), self.dot(to)))

    def slerp(self, to: Vector3, weight: SupportsFloat) -> Vector3:
        """Spherical interpolation: turned ``weight`` of the way toward ``to`` about their
        common normal while the length goes linearly; a zero vector at either end, or two
        parallel ones, give :meth:`lerp`."""
        r = self._rs()
        other: Vector3 = self._same(to)
        w = r.one(float(weight))
        scale = _slerp_scale(r, self, other, w)
        axis = self.cross(other)
        axis_squared = axis.length_squared()
        if scale is None or axis_squared == 0:
            return self.lerp(other, w)
        axis = axis / r.one(_r.sqrt(axis_squared))
        return self.rotated(axis, r.one(self.angle_to(other) * w)) * scale


class Vector4(_RealVector):
    """``Vector4``: four reals."""

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

    @float_fields
    def __new__(
        cls,
        x: SupportsFloat = 0.0,
        y: SupportsFloat = 0.0,
        z: SupportsFloat = 0.0,
        w: SupportsFloat = 0.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z), _f(w)))

    x: float = _field(0)

    y: float = _field(1)

    z: float = _field(2)

    w: float = _field(3)
