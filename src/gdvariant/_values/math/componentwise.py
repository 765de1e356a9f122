"""What the real vectors and Color share: componentwise operators and methods, computed step
by step in the engine's precision (see :mod:`.reals`).

Vector2/3/4 compute in ``real_t`` (float32, or double inside ``math_precision(double=True)``);
Color is float32 in every build, so it sets :attr:`Componentwise._fixed`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import ClassVar, Self, SupportsFloat

from . import reals as _r
from .operands import MathRecord, is_scalar, mixed
from .reals import Reals, reals

__all__ = ["Componentwise", "sum_of_products"]

_Op = Callable[[float, float], float]


def sum_of_products(r: Reals, a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """``a.x * b.x + a.y * b.y + ...``, left to right, each step rounded."""
    one = r.one
    total = one(a[0] * b[0])
    for i in range(1, len(a)):
        total = one(total + one(a[i] * b[i]))
    return total


class Componentwise(MathRecord):
    """``+ - * /`` with the same type (componentwise) and ``* /`` with a scalar, ``lerp``,
    ``clamp``, ``is_equal_approx``."""

    __slots__ = ()
    #: The precision this type always computes in (Color: float32), or None for ``real_t``.
    _fixed: ClassVar[Reals | None] = None

    def _rs(self) -> Reals:
        return self._fixed or reals()

    def _each(self, other: object, op: _Op, symbol: str) -> Self:
        r = self._rs()
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
        if isinstance(other, MathRecord) and type(other) is not type(self):
            return NotImplemented  # Vector2 * Transform2D: the transform's __rmul__ answers
        return self._each(other, operator.mul, "*")

    def __truediv__(self, other: object) -> Self:
        return self._each(other, _r.div, "/")

    def __rmul__(self, other: object) -> Self:
        if not is_scalar(other):
            mixed("*", other, self)
        return self._each(other, operator.mul, "*")

    def __neg__(self) -> Self:
        return tuple.__new__(type(self), [-x for x in self._rs().all(self)])

    def __pos__(self) -> Self:
        return tuple.__new__(type(self), self._rs().all(self))

    def _map(self, fn: Callable[[float], float]) -> Self:
        return tuple.__new__(type(self), [fn(x) for x in self._rs().all(self)])

    def lerp(self, to: Self, weight: SupportsFloat) -> Self:
        """The linear interpolation ``a + (b - a) * weight``, per component."""
        r = self._rs()
        one, w = r.one, r.one(float(weight))
        b = r.all(self._same(to))
        return tuple.__new__(
            type(self),
            [one(x + one(one(y - x) * w)) for x, y in zip(r.all(self), b, strict=True)],
        )

    def clamp(self, min: Self, max: Self) -> Self:  # noqa: A002 (Godot's names)
        """Each component limited to ``[min, max]`` (Godot's ``CLAMP``: NaN passes)."""
        r = self._rs()
        lo, hi = r.all(self._same(min)), r.all(self._same(max))
        return tuple.__new__(
            type(self),
            [
                b if a < b else (c if a > c else a)
                for a, b, c in zip(r.all(self), lo, hi, strict=True)
            ],
        )

    def is_equal_approx(self, to: Self) -> bool:
        """Every component within ``CMP_EPSILON`` (relative) of ``to``'s."""
        r = self._rs()
        return all(
            _r.is_equal_approx(r, a, b)
            for a, b in zip(r.all(self), r.all(self._same(to)), strict=True)
        )
