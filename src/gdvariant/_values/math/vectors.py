"""``Vector2``, ``Vector3``, ``Vector4``: two to four reals, with Godot's operators and methods.

Every operation takes the components as the engine holds them (``real_t``, see
:mod:`.reals`) and computes in the engine's order, rounding after each step, so a result is the
one a Godot build gives, bit for bit (trigonometry: within one float32 ulp). The formulas are
read from Godot 4.6's ``core/math/vector2.cpp``, ``vector3.h`` and ``vector4.cpp``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any, Self, SupportsFloat

from ..base import _f, _field, _Record
from . import reals as _r
from .operands import is_scalar, mixed
from .reals import Reals, reals

__all__ = ["Vector2", "Vector3", "Vector4"]

_Op = Callable[[float, float], float]


def _sum_of_products(r: Reals, a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """``a.x * b.x + a.y * b.y + ...``, left to right, each step rounded."""
    one = r.one
    total = one(a[0] * b[0])
    for i in range(1, len(a)):
        total = one(total + one(a[i] * b[i]))
    return total


class _RealVector(_Record):
    """What Vector2, Vector3 and Vector4 share: componentwise operators and methods."""

    __slots__ = ()

    # ---- operators ------------------------------------------------------------------

    def _each(self, other: object, op: _Op, symbol: str) -> Self:
        r = reals()
        if type(other) is type(self):
            b = r.all(other)
            values = [op(x, y) for x, y in zip(r.all(self), b, strict=True)]
        elif is_scalar(other):
            s = r.one(float(other))  # type: ignore[arg-type]
            values = [op(x, s) for x in r.all(self)]
        else:
            mixed(symbol, self, other)
        return tuple.__new__(type(self), r.all(values))

    def __add__(self, other: object) -> Self:
        if type(other) is not type(self):
            mixed("+", self, other)
        return self._each(other, operator.add, "+")

    def __sub__(self, other: object) -> Self:
        if type(other) is not type(self):
            mixed("-", self, other)
        return self._each(other, operator.sub, "-")

    def __mul__(self, other: object) -> Self:
        return self._each(other, operator.mul, "*")

    def __truediv__(self, other: object) -> Self:
        return self._each(other, _r.div, "/")

    def __rmul__(self, other: object) -> Self:
        if not is_scalar(other):
            mixed("*", other, self)
        return self._each(other, operator.mul, "*")

    def __radd__(self, other: object) -> Self:
        mixed("+", other, self)

    def __rsub__(self, other: object) -> Self:
        mixed("-", other, self)

    def __rtruediv__(self, other: object) -> Self:
        mixed("/", other, self)

    def __neg__(self) -> Self:
        return tuple.__new__(type(self), [-x for x in reals().all(self)])

    def __pos__(self) -> Self:
        return tuple.__new__(type(self), reals().all(self))

    def __abs__(self) -> Self:
        return self.abs()

    # ---- lengths and products -------------------------------------------------------

    def dot(self, with_: Self) -> float:
        """``a.x * b.x + a.y * b.y ...``."""
        r = reals()
        return _sum_of_products(r, r.all(self), r.all(self._same(with_)))

    def length_squared(self) -> float:
        """The squared length (no square root)."""
        r = reals()
        a = r.all(self)
        return _sum_of_products(r, a, a)

    def length(self) -> float:
        """The length: ``sqrt(length_squared())``."""
        return reals().one(_r.sqrt(self.length_squared()))

    def _delta(self, to: Self) -> tuple[float, ...]:
        r = reals()
        return r.all([b - a for a, b in zip(r.all(self), r.all(self._same(to)), strict=True)])

    def distance_squared_to(self, to: Self) -> float:
        """The squared distance to ``to``."""
        d = self._delta(to)
        return _sum_of_products(reals(), d, d)

    def distance_to(self, to: Self) -> float:
        """The distance to ``to``."""
        return reals().one(_r.sqrt(self.distance_squared_to(to)))

    def normalized(self) -> Self:
        """This vector scaled to length 1; a zero vector stays zero."""
        r = reals()
        a = r.all(self)
        squared = _sum_of_products(r, a, a)
        if squared == 0:
            return self._zero_normal(a)
        length = r.one(_r.sqrt(squared))
        return tuple.__new__(type(self), r.all([_r.div(x, length) for x in a]))

    def _zero_normal(self, a: tuple[float, ...]) -> Self:
        """What ``normalized`` gives for a zero vector: zeros (Vector2 keeps its own)."""
        return tuple.__new__(type(self), (0.0,) * len(a))

    def is_equal_approx(self, to: Self) -> bool:
        """Every component within ``CMP_EPSILON`` (relative) of ``to``'s."""
        r = reals()
        return all(
            _r.is_equal_approx(r, a, b)
            for a, b in zip(r.all(self), r.all(self._same(to)), strict=True)
        )

    def is_zero_approx(self) -> bool:
        """Every component within ``CMP_EPSILON`` of zero."""
        r = reals()
        return all(_r.is_zero_approx(r, a) for a in r.all(self))

    def is_finite(self) -> bool:
        """No component is an infinity or NaN."""
        return all(math.isfinite(a) for a in reals().all(self))

    # ---- componentwise --------------------------------------------------------------

    def _map(self, fn: Callable[[float], float]) -> Self:
        return tuple.__new__(type(self), [fn(x) for x in reals().all(self)])

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

    def lerp(self, to: Self, weight: SupportsFloat) -> Self:
        """The linear interpolation ``a + (b - a) * weight``, per component."""
        r = reals()
        one, w = r.one, r.one(float(weight))
        b = r.all(self._same(to))
        return tuple.__new__(
            type(self),
            [one(x + one(one(y - x) * w)) for x, y in zip(r.all(self), b, strict=True)],
        )

    def clamp(self, min: Self, max: Self) -> Self:  # noqa: A002 (Godot's names)
        """Each component limited to ``[min, max]`` (Godot's ``CLAMP``: NaN passes)."""
        r = reals()
        lo, hi = r.all(self._same(min)), r.all(self._same(max))
        return tuple.__new__(
            type(self),
            [
                b if a < b else (c if a > c else a)
                for a, b, c in zip(r.all(self), lo, hi, strict=True)
            ],
        )

    def snapped(self, step: Self) -> Self:
        """Each component rounded to the nearest multiple of ``step``'s (in doubles, as
        Godot's ``Math::snapped`` computes)."""
        r = reals()
        steps = r.all(self._same(step))
        return tuple.__new__(
            type(self), r.all([_snap(a, s) for a, s in zip(r.all(self), steps, strict=True)])
        )

    def snappedf(self, step: SupportsFloat) -> Self:
        """:meth:`snapped` with one step for every component."""
        r = reals()
        s = r.one(float(step))
        return tuple.__new__(type(self), r.all([_snap(a, s) for a in r.all(self)]))

    def min(self, with_: Self) -> Self:
        """The componentwise minimum."""
        r = reals()
        b = r.all(self._same(with_))
        return tuple.__new__(
            type(self), [x if x < y else y for x, y in zip(r.all(self), b, strict=True)]
        )

    def max(self, with_: Self) -> Self:
        """The componentwise maximum."""
        r = reals()
        b = r.all(self._same(with_))
        return tuple.__new__(
            type(self), [x if x > y else y for x, y in zip(r.all(self), b, strict=True)]
        )

    def _same(self, other: Any) -> Self:
        if type(other) is not type(self):
            raise TypeError(
                f"expected a {type(self).__name__}, got {type(other).__name__} "
                "(math types do not mix with other types or plain tuples)"
            )
        return other

    def _move_toward(self, to: Self, delta: SupportsFloat) -> Self:
        """``move_toward`` of Vector2 and Vector3: ``to`` when within ``delta``, else a
        step of ``delta`` toward it."""
        r = reals()
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


def _snap(value: float, step: float) -> float:
    """``Math::snapped(double, double)``: ``floor(value / step + 0.5) * step`` unless step is 0."""
    if step == 0:
        return value
    return _r.floor(_r.div(value, step) + 0.5) * step


class Vector2(_RealVector):
    """``Vector2``: two reals (32-bit on the wire unless the engine uses doubles)."""

    __slots__ = ()
    _fields = ("x", "y")

    def __new__(cls, x: SupportsFloat = 0.0, y: SupportsFloat = 0.0) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y)))

    x: float = _field(0)

    y: float = _field(1)

    def _zero_normal(self, a: tuple[float, ...]) -> Self:
        return tuple.__new__(type(self), a)  # Vector2::normalize leaves a zero vector as is

    def cross(self, with_: Vector2) -> float:
        """The 2D cross product ``x * with.y - y * with.x``."""
        r = reals()
        one = r.one
        x, y = r.two(*self)
        wx, wy = r.two(*self._same(with_))
        return one(one(x * wy) - one(y * wx))

    def angle(self) -> float:
        """The angle to the positive X axis, ``atan2(y, x)``, in radians."""
        r = reals()
        x, y = r.two(*self)
        return r.one(math.atan2(y, x))

    def angle_to(self, to: Vector2) -> float:
        """The signed angle to ``to``: ``atan2(cross(to), dot(to))``."""
        r = reals()
        return r.one(math.atan2(self.cross(to), self.dot(to)))

    def rotated(self, angle: SupportsFloat) -> Vector2:
        """This vector rotated by ``angle`` radians."""
        r = reals()
        one = r.one
        a = one(float(angle))
        sine, cosi = one(_r.sin(a)), one(_r.cos(a))
        x, y = r.two(*self)
        return tuple.__new__(
            Vector2,
            (one(one(x * cosi) - one(y * sine)), one(one(x * sine) + one(y * cosi))),
        )

    def move_toward(self, to: Vector2, delta: SupportsFloat) -> Vector2:
        """``to`` if it is within ``delta``, else this moved ``delta`` toward it."""
        return self._move_toward(to, delta)


class Vector3(_RealVector):
    """``Vector3``: three reals."""

    __slots__ = ()
    _fields = ("x", "y", "z")

    def __new__(
        cls, x: SupportsFloat = 0.0, y: SupportsFloat = 0.0, z: SupportsFloat = 0.0
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z)))

    x: float = _field(0)

    y: float = _field(1)

    z: float = _field(2)

    def cross(self, with_: Vector3) -> Vector3:
        """The cross product."""
        r = reals()
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

    def angle_to(self, to: Vector3) -> float:
        """The unsigned angle to ``to``: ``atan2(|cross(to)|, dot(to))``."""
        r = reals()
        return r.one(math.atan2(self.cross(to).length(), self.dot(to)))

    def move_toward(self, to: Vector3, delta: SupportsFloat) -> Vector3:
        """``to`` if it is within ``delta``, else this moved ``delta`` toward it."""
        return self._move_toward(to, delta)


class Vector4(_RealVector):
    """``Vector4``: four reals."""

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

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
