"""``Plane``: a normal and a distance from the origin, with Godot's methods. Formulas: Godot
4.6's ``core/math/plane.h`` and ``plane.cpp``."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Self, SupportsFloat

from ..base import _f, _field
from .operands import MathRecord
from .reals import CMP_EPSILON, div, is_equal_approx, reals
from .vectors import Vector3

__all__ = ["Plane"]


class Plane(MathRecord):
    """``Plane(normal, d)``: the points p with ``normal.dot(p) == d``. ``-plane`` flips it."""

    __slots__ = ()
    _fields = ("normal", "d")

    def __new__(cls, normal: Iterable[float] = (0, 0, 0), d: SupportsFloat = 0.0) -> Self:
        return tuple.__new__(cls, (Vector3(*normal), _f(d)))

    normal: Vector3 = _field(0)

    d: float = _field(1)

    def __neg__(self) -> Self:
        return tuple.__new__(type(self), (-self.normal, -reals().one(self.d)))

    def distance_to(self, point: Vector3) -> float:
        """The signed distance of ``point``: ``normal.dot(point) - d``."""
        r = reals()
        return r.one(self.normal.dot(point) - r.one(self.d))

    def is_point_over(self, point: Vector3) -> bool:
        """Whether ``point`` is on the side the normal points to."""
        return self.normal.dot(point) > reals().one(self.d)

    def has_point(self, point: Vector3, tolerance: SupportsFloat = CMP_EPSILON) -> bool:
        """Whether ``point`` is within ``tolerance`` of the plane."""
        r = reals()
        return abs(self.distance_to(point)) <= r.one(float(tolerance))

    def project(self, point: Vector3) -> Vector3:
        """``point`` moved onto the plane along the normal."""
        return point - self.normal * self.distance_to(point)

    def get_center(self) -> Vector3:
        """The point of the plane nearest the origin (for a unit normal): ``normal * d``."""
        return self.normal * self.d

    def normalized(self) -> Self:
        """The normal made unit length, ``d`` scaled with it; a zero normal gives all zeros."""
        r = reals()
        length = self.normal.length()
        if length == 0:
            return tuple.__new__(type(self), (Vector3(), 0.0))
        return tuple.__new__(type(self), (self.normal / length, r.one(div(r.one(self.d), length))))

    def is_equal_approx(self, to: Plane) -> bool:
        """Normal and ``d`` approximately equal."""
        r = reals()
        other: Plane = self._same(to)
        return self.normal.is_equal_approx(other.normal) and is_equal_approx(
            r, r.one(self.d), r.one(other.d)
        )

    def is_finite(self) -> bool:
        """No component is an infinity or NaN."""
        return self.normal.is_finite() and math.isfinite(reals().one(self.d))
