"""``Projection``: a 4x4 matrix as four Vector4 columns, with Godot's products and determinant.
Formulas: Godot 4.6's ``core/math/projection.cpp``. (Its ``inverse`` and the camera builders
are not here yet.)"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self

from ..base import _field
from .operands import MathRecord, mixed
from .reals import Reals, reals
from .vectors import Vector4

__all__ = ["Projection"]

#: The determinant's 24 terms in the order Godot's source adds them (the order decides the
#: rounding): a sign and, for columns 0 to 3, the component each product takes.
_TERMS = (
    "+3210",
    "-2310",
    "-3120",
    "+1320",
    "+2130",
    "-1230",
    "-3201",
    "+2301",
    "+3021",
    "-0321",
    "-2031",
    "+0231",
    "+3102",
    "-1302",
    "-3012",
    "+0312",
    "+1032",
    "-0132",
    "-2103",
    "+1203",
    "+2013",
    "-0213",
    "-1023",
    "+0123",
)


class Projection(MathRecord):
    """``Projection(x, y, z, w)``: four Vector4 columns; default identity.

    ``p * Projection`` composes, ``p * Vector4`` transforms, ``Vector4 * p`` applies the
    transpose, as Godot does.
    """

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

    def __new__(
        cls,
        x: Iterable[float] = (1, 0, 0, 0),
        y: Iterable[float] = (0, 1, 0, 0),
        z: Iterable[float] = (0, 0, 1, 0),
        w: Iterable[float] = (0, 0, 0, 1),
    ) -> Self:
        return tuple.__new__(cls, (Vector4(*x), Vector4(*y), Vector4(*z), Vector4(*w)))

    x: Vector4 = _field(0)

    y: Vector4 = _field(1)

    z: Vector4 = _field(2)

    w: Vector4 = _field(3)

    def _columns(self, r: Reals) -> tuple[tuple[float, ...], ...]:
        return tuple(r.four(*c) for c in self)

    def _of(self, columns: Iterable[Iterable[float]]) -> Self:
        return tuple.__new__(type(self), [tuple.__new__(Vector4, c) for c in columns])

    def __mul__(self, other: object) -> Any:
        r = reals()
        if type(other) is Vector4:
            return self.xform(other)
        if type(other) is not Projection:
            mixed("*", self, other)
        one, c, m = r.one, self._columns(r), other._columns(r)
        out = []
        for j in range(4):
            column = []
            for i in range(4):
                ab = 0.0  # Godot starts the sum at 0: a first -0.0 product becomes +0.0
                for k in range(4):
                    ab = one(ab + one(c[k][i] * m[j][k]))
                column.append(ab)
            out.append(column)
        return self._of(out)

    def __rmul__(self, other: object) -> Any:
        if type(other) is Vector4:
            return self.xform_inv(other)
        mixed("*", other, self)

    def xform(self, v: Vector4) -> Vector4:
        """``p * v``: ``x * v.x + y * v.y + z * v.z + w * v.w`` over the columns."""
        r = reals()
        c, u = self._columns(r), r.four(*self.x._same(v))
        return tuple.__new__(Vector4, [_dot4(r, [c[k][i] for k in range(4)], u) for i in range(4)])

    def xform_inv(self, v: Vector4) -> Vector4:
        """``v * p``: each column dotted with ``v``."""
        r = reals()
        c, u = self._columns(r), r.four(*self.x._same(v))
        return tuple.__new__(Vector4, [_dot4(r, c[k], u) for k in range(4)])

    def determinant(self) -> float:
        """The determinant, the 24 products summed in Godot's order."""
        r = reals()
        one, c = r.one, self._columns(r)
        total = 0.0
        for n, term in enumerate(_TERMS):
            product = c[0][int(term[1])]
            for col in (1, 2, 3):
                product = one(product * c[col][int(term[col + 1])])
            if n == 0:
                total = product if term[0] == "+" else -product
            else:
                total = one(total + product if term[0] == "+" else total - product)
        return total


def _dot4(r: Reals, a: Iterable[float], b: tuple[float, ...]) -> float:
    one = r.one
    total = 0.0
    for n, (x, y) in enumerate(zip(a, b, strict=True)):
        p = one(x * y)
        total = p if n == 0 else one(total + p)
    return total
