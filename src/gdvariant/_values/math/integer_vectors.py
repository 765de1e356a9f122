"""``Vector2i``, ``Vector3i``, ``Vector4i``: signed 32-bit components with Godot's operators.

Arithmetic wraps as the engine's ``int32_t`` does; ``/`` and ``%`` truncate toward zero as C
does and refuse a zero divisor (where GDScript stops with "Division by zero error"). With a
float, ``*`` and ``/`` give the real vector (``Vector2i(3, 4) * 0.5`` is a Vector2), as
Godot's Variant operators do. Formulas: Godot 4.6's ``core/math/vector2i.cpp`` and friends.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any, ClassVar, Self, SupportsIndex

from ..base import _field, _i
from ..constructors import int_fields
from . import reals as _r
from .operands import MathRecord, is_scalar, mixed, wrap32
from .reals import reals
from .vectors import Vector2, Vector3, Vector4, _RealVector

__all__ = ["Vector2i", "Vector3i", "Vector4i"]

_INT32_MIN = -(2**31)


def _c_div(a: int, b: int) -> int:
    """C's ``a / b`` for ints: truncated toward zero."""
    if b == 0:
        raise ZeroDivisionError("Division by zero error (integer vector)")
    q = abs(a) // abs(b)
    return wrap32(q if (a < 0) == (b < 0) else -q)


def _c_mod(a: int, b: int) -> int:
    """C's ``a % b`` for ints: the remainder takes the dividend's sign."""
    if b == 0:
        raise ZeroDivisionError("Modulo by zero error (integer vector)")
    q = abs(a) // abs(b)
    return a - b * (q if (a < 0) == (b < 0) else -q)


def _to_int32(value: float) -> int:
    """A double converted to ``int32_t`` as x86-64 does: truncated; out of range or NaN gives
    INT32_MIN."""
    if math.isfinite(value) and -2147483649.0 < value < 2147483648.0:
        return int(value)
    return _INT32_MIN


class _IntVector(MathRecord):
    """What Vector2i, Vector3i and Vector4i share."""

    __slots__ = ()
    #: The real vector a float operand turns this into.
    _real: ClassVar[type[_RealVector]]

    def _each(self, other: object, op: Callable[[int, int], int], symbol: str) -> Self:
        if type(other) is type(self):
            values = [wrap32(op(a, b)) for a, b in zip(self, other, strict=True)]
        elif type(other) is int or (isinstance(other, int) and not isinstance(other, bool)):
            s = wrap32(other)
            values = [wrap32(op(a, s)) for a in self]
        else:
            mixed(symbol, self, other)
        return tuple.__new__(type(self), values)

    def _as_real(self) -> Any:
        return tuple.__new__(self._real, reals().all([float(c) for c in self]))

    def __add__(self, other: object) -> Self:
        if type(other) is not type(self):
            mixed("+", self, other)
        return self._each(other, operator.add, "+")

    def __sub__(self, other: object) -> Self:
        if type(other) is not type(self):
            mixed("-", self, other)
        return self._each(other, operator.sub, "-")

    def __mul__(self, other: object) -> Any:
        if type(other) is float or (is_scalar(other) and not isinstance(other, int)):
            return self._as_real() * other
        return self._each(other, operator.mul, "*")

    def __rmul__(self, other: object) -> Any:
        if not is_scalar(other):
            mixed("*", other, self)
        return self.__mul__(other)

    def __truediv__(self, other: object) -> Any:
        if type(other) is float or (is_scalar(other) and not isinstance(other, int)):
            if other == 0:
                raise ZeroDivisionError("Division by zero error (integer vector by 0.0)")
            return self._as_real() / other
        return self._each(other, _c_div, "/")

    def __mod__(self, other: object) -> Self:
        return self._each(other, _c_mod, "%")

    def __neg__(self) -> Self:
        return tuple.__new__(type(self), [wrap32(-a) for a in self])

    def __pos__(self) -> Self:
        return self

    def __abs__(self) -> Self:
        return self.abs()

    def length_squared(self) -> int:
        """The squared length, in 64 bits (as Godot; it wraps past 2**63)."""
        total = int(sum(a * a for a in self))
        return ((total + 2**63) & (2**64 - 1)) - 2**63

    def length(self) -> float:
        """The length, a double in every build."""
        return _r.sqrt(float(self.length_squared()))

    def distance_squared_to(self, to: Self) -> int:
        """The squared distance to ``to``."""
        other: Self = self._same(to)
        return (other - self).length_squared()

    def distance_to(self, to: Self) -> float:
        """The distance to ``to``."""
        other: Self = self._same(to)
        return (other - self).length()

    def abs(self) -> Self:
        """Each component's absolute value (INT32_MIN stays itself, as in C)."""
        return tuple.__new__(type(self), [wrap32(abs(a)) for a in self])

    def sign(self) -> Self:
        """Each component's sign: 1, -1 or 0."""
        return tuple.__new__(type(self), [(a > 0) - (a < 0) for a in self])

    def clamp(self, min: Self, max: Self) -> Self:  # noqa: A002 (Godot's names)
        """Each component limited to ``[min, max]``."""
        lo, hi = self._same(min), self._same(max)
        return tuple.__new__(
            type(self),
            [b if a < b else (c if a > c else a) for a, b, c in zip(self, lo, hi, strict=True)],
        )

    def snapped(self, step: Self) -> Self:
        """Each component rounded to the nearest multiple of ``step``'s (computed in doubles,
        as Godot does)."""
        return tuple.__new__(
            type(self),
            [_snap_int(a, s) for a, s in zip(self, self._same(step), strict=True)],
        )

    def clampi(self, min: SupportsIndex, max: SupportsIndex) -> Self:  # noqa: A002
        """Each component limited to ``[min, max]`` (both cut to int32 first)."""
        lo, hi = wrap32(int(min)), wrap32(int(max))
        return tuple.__new__(type(self), [lo if a < lo else (hi if a > hi else a) for a in self])

    def snappedi(self, step: SupportsIndex) -> Self:
        """:meth:`snapped` with one step (cut to int32) for every component."""
        s = wrap32(int(step))
        return tuple.__new__(type(self), [_snap_int(a, s) for a in self])

    def min(self, with_: Self) -> Self:
        """The componentwise minimum."""
        return tuple.__new__(
            type(self), [min(a, b) for a, b in zip(self, self._same(with_), strict=True)]
        )

    def max(self, with_: Self) -> Self:
        """The componentwise maximum."""
        return tuple.__new__(
            type(self), [max(a, b) for a, b in zip(self, self._same(with_), strict=True)]
        )


def _snap_int(value: int, step: int) -> int:
    if step == 0:
        return value
    return _to_int32(_r.floor(value / step + 0.5) * step)


class Vector2i(_IntVector):
    """``Vector2i``: two signed 32-bit ints."""

    __slots__ = ()
    _fields = ("x", "y")
    _real = Vector2

    @int_fields
    def __new__(cls, x: SupportsIndex = 0, y: SupportsIndex = 0) -> Self:
        return tuple.__new__(cls, (_i(x), _i(y)))

    x: int = _field(0)

    y: int = _field(1)


class Vector3i(_IntVector):
    """``Vector3i``: three signed 32-bit ints."""

    __slots__ = ()
    _fields = ("x", "y", "z")
    _real = Vector3

    @int_fields
    def __new__(cls, x: SupportsIndex = 0, y: SupportsIndex = 0, z: SupportsIndex = 0) -> Self:
        return tuple.__new__(cls, (_i(x), _i(y), _i(z)))

    x: int = _field(0)

    y: int = _field(1)

    z: int = _field(2)


class Vector4i(_IntVector):
    """``Vector4i``: four signed 32-bit ints."""

    __slots__ = ()
    _fields = ("x", "y", "z", "w")
    _real = Vector4

    @int_fields
    def __new__(
        cls,
        x: SupportsIndex = 0,
        y: SupportsIndex = 0,
        z: SupportsIndex = 0,
        w: SupportsIndex = 0,
    ) -> Self:
        return tuple.__new__(cls, (_i(x), _i(y), _i(z), _i(w)))

    x: int = _field(0)

    y: int = _field(1)

    z: int = _field(2)

    w: int = _field(3)
