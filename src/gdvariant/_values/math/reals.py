"""How the math types compute: Godot's ``real_t`` arithmetic, step by step, in Python floats.

A standard Godot build computes in single precision: every ``+ - * /`` and ``sqrt`` of two
float32s gives the nearest float32 of the exact result. A Python float is a double, and a
double holds the exact sum, difference and product of two float32s' nearest double closely
enough that rounding it to float32 afterwards is the correctly rounded float32 result (the
same holds for quotient and square root: 53 >= 2 * 24 + 2 bits). So each method computes in
doubles and rounds to float32 after every basic operation, as the engine's compiled code does.

A ``precision=double`` build computes in doubles: inside :func:`math_precision` ``(double=True)``
the rounding step is the identity. The choice is a context variable, so threads and asyncio
tasks each keep their own.

The engine's trigonometry (``sinf``, ``cosf``, ``atan2f``) is the C library's; here it is the
double function rounded to float32, which is within one float32 ulp of it (documented in
docs/math.md).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from struct import Struct

__all__ = [
    "CMP_EPSILON",
    "UNIT_EPSILON",
    "Reals",
    "ceil",
    "div",
    "floor",
    "is_equal_approx",
    "math_precision",
    "reals",
    "round_half_away",
    "sqrt",
]

#: Godot's ``CMP_EPSILON`` (math_defs.h): the tolerance of ``is_equal_approx`` and friends.
CMP_EPSILON = 0.00001
#: Godot's ``UNIT_EPSILON`` in standard builds: how far from 1 ``is_normalized`` lets a
#: squared length be.
UNIT_EPSILON = 0.001

#: Pack and unpack of n float32s: a C cast of each double on the way in, for n up to 16.
_CODECS = {n: (Struct(f"<{n}f").pack, Struct(f"<{n}f").unpack) for n in range(1, 17)}
_PACK1, _UNPACK1 = _CODECS[1]


def _f32_all(values: Sequence[float]) -> tuple[float, ...]:
    """Each value as a C cast to float holds it (past float32's range: an infinity)."""
    return tuple(array("f", values))


def _f32_one(value: float) -> float:
    try:
        return _UNPACK1(_PACK1(value))[0]  # type: ignore[no-any-return]
    except OverflowError:  # struct refuses what rounds to infinity; a C cast does not
        return _f32_all((value,))[0]


def _f32_many(values: Sequence[float]) -> tuple[float, ...]:
    try:
        pack, unpack = _CODECS[len(values)]
        return unpack(pack(*values))
    except (OverflowError, KeyError):
        return _f32_all(values)


def _f32_n(*values: float) -> tuple[float, ...]:
    return _f32_many(values)


def _double(*values: float) -> tuple[float, ...]:
    return values


class Reals:
    """One build's ``real_t``: ``one(x)`` rounds one value, ``two(a, b)``... ``four`` round
    several at once (a tuple), ``all(values)`` a sequence; ``epsilon`` is
    ``(real_t)CMP_EPSILON``.
    """

    __slots__ = ("all", "double", "epsilon", "four", "one", "three", "two")

    def __init__(self, double: bool) -> None:
        self.double = double
        if double:
            self.two = self.three = self.four = _double
            self.one: Callable[[float], float] = float
            self.all: Callable[[Sequence[float]], tuple[float, ...]] = tuple
        else:
            self.two = self.three = self.four = _f32_n
            self.one = _f32_one
            self.all = _f32_many
        self.epsilon = self.one(CMP_EPSILON)


SINGLE = Reals(double=False)
DOUBLE = Reals(double=True)
_CURRENT: ContextVar[Reals] = ContextVar("gdvariant_real_t", default=SINGLE)


def reals() -> Reals:
    """The ``real_t`` the math computes in here (single precision unless told otherwise)."""
    return _CURRENT.get()


@contextmanager
def math_precision(double: bool) -> Iterator[None]:
    """Compute the math types' operators and methods as a ``precision=double`` Godot build
    does (``double=True``), or as a standard single-precision build (the default), inside the
    ``with`` block."""
    if not isinstance(double, bool):
        raise TypeError(f"double must be True or False, not {double!r}")
    token = _CURRENT.set(DOUBLE if double else SINGLE)
    try:
        yield
    finally:
        _CURRENT.reset(token)


# ---- IEEE operations that Python's float operators refuse --------------------------------


def div(a: float, b: float) -> float:
    """``a / b`` as IEEE 754 gives it: a signed infinity or NaN where Python raises."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, math.copysign(1.0, a) * math.copysign(1.0, b))


def sqrt(a: float) -> float:
    """IEEE ``sqrt``: NaN below zero, where :func:`math.sqrt` raises."""
    return math.sqrt(a) if a >= 0 else (a if a == 0 else math.nan)


def floor(a: float) -> float:
    """C's ``floor``: keeps infinities, NaN and the sign of zero."""
    if not math.isfinite(a):
        return a
    return math.copysign(float(math.floor(a)), a)


def ceil(a: float) -> float:
    """C's ``ceil``: keeps infinities, NaN and the sign of zero (``ceil(-0.5)`` is -0.0)."""
    if not math.isfinite(a):
        return a
    return math.copysign(float(math.ceil(a)), a)


def round_half_away(a: float) -> float:
    """C's ``round``: halves away from zero (Python's ``round`` takes halves to even)."""
    if not math.isfinite(a):
        return a
    m = abs(a)
    f = float(math.floor(m))
    if m - f >= 0.5:  # exact: f and m are within one of each other
        f += 1.0
    return math.copysign(f, a)


def sin(a: float) -> float:
    """``sin``, NaN for an infinity (where :func:`math.sin` raises)."""
    return math.sin(a) if math.isfinite(a) else math.nan


def cos(a: float) -> float:
    """``cos``, NaN for an infinity (where :func:`math.cos` raises)."""
    return math.cos(a) if math.isfinite(a) else math.nan


def is_equal_approx(r: Reals, a: float, b: float) -> bool:
    """``Math::is_equal_approx(a, b)`` in ``r``'s precision: equal, or closer than
    ``CMP_EPSILON`` scaled by ``|a|`` (at least ``CMP_EPSILON``)."""
    if a == b:
        return True
    one, eps = r.one, r.epsilon
    tolerance = one(eps * abs(a))
    if tolerance < eps:
        tolerance = eps
    return abs(one(a - b)) < tolerance


def is_zero_approx(r: Reals, a: float) -> bool:
    """``Math::is_zero_approx``: ``|a| < CMP_EPSILON``."""
    return abs(a) < r.epsilon
