"""``AABB``: an axis-aligned box (position and size), with Godot's methods. Formulas: Godot
4.6's ``core/math/aabb.h`` and ``aabb.cpp`` (sums in ``real_t``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self, SupportsFloat

from ..base import _field
from .operands import MathRecord
from .reals import reals
from .vectors import Vector3

__all__ = ["AABB"]


class AABB(MathRecord):
    """``AABB(position, size)``."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(
        cls, position: Iterable[float] = (0, 0, 0), size: Iterable[float] = (0, 0, 0)
    ) -> Self:
        return tuple.__new__(cls, (Vector3(*position), Vector3(*size)))

    position: Vector3 = _field(0)

    size: Vector3 = _field(1)

    def _corners(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """``(position, position + size)`` in ``real_t``."""
        r = reals()
        p, s = r.three(*self[0]), r.three(*self[1])
        return p, r.three(*(a + b for a, b in zip(p, s, strict=True)))

    @property
    def end(self) -> Vector3:
        """The corner opposite ``position``: ``position + size``."""
        return self.position + self.size

    def get_center(self) -> Vector3:
        """``position + size * 0.5``."""
        return self.position + self.size * 0.5

    def get_volume(self) -> float:
        """``size.x * size.y * size.z``."""
        r = reals()
        x, y, z = r.three(*self[1])
        return r.one(r.one(x * y) * z)

    def has_volume(self) -> bool:
        """All three sides longer than zero."""
        x, y, z = reals().three(*self[1])
        return x > 0 and y > 0 and z > 0

    def has_point(self, point: Vector3) -> bool:
        """Whether ``point`` is inside or on the surface (every face counts)."""
        q = reals().three(*self.position._same(point))
        low, high = self._corners()
        return not any(c < lo for c, lo in zip(q, low, strict=True)) and not any(
            c > hi for c, hi in zip(q, high, strict=True)
        )

    def intersects(self, with_: AABB) -> bool:
        """Whether the two overlap (touching faces do not)."""
        low, high = self._corners()
        other: AABB = self._same(with_)
        olow, ohigh = other._corners()
        return not any(
            a >= ob or b <= oa for a, b, oa, ob in zip(low, high, olow, ohigh, strict=True)
        )

    def encloses(self, with_: AABB) -> bool:
        """Whether ``with_`` lies wholly inside this box (faces may touch)."""
        low, high = self._corners()
        other: AABB = self._same(with_)
        olow, ohigh = other._corners()
        return all(a <= oa and b >= ob for a, b, oa, ob in zip(low, high, olow, ohigh, strict=True))

    def merge(self, with_: AABB) -> AABB:
        """The smallest box holding both."""
        r = reals()
        low, high = self._corners()
        other: AABB = self._same(with_)
        olow, ohigh = other._corners()
        lo = [a if a < b else b for a, b in zip(low, olow, strict=True)]
        hi = [a if a > b else b for a, b in zip(high, ohigh, strict=True)]
        return AABB(lo, r.three(*(b - a for a, b in zip(lo, hi, strict=True))))

    def intersection(self, with_: AABB) -> AABB:
        """The overlap of the two (faces count), or an empty AABB when they do not meet."""
        r = reals()
        low, high = self._corners()
        other: AABB = self._same(with_)
        olow, ohigh = other._corners()
        lo, hi = [], []
        for a, b, oa, ob in zip(low, high, olow, ohigh, strict=True):
            if a > ob or b < oa:
                return AABB()
            lo.append(a if a > oa else oa)
            hi.append(b if b < ob else ob)
        return AABB(lo, r.three(*(b - a for a, b in zip(lo, hi, strict=True))))

    def grow(self, by: SupportsFloat) -> AABB:
        """Each face moved out by ``by`` (in by a negative amount)."""
        r = reals()
        one = r.one
        d = one(float(by))
        twice = one(2.0 * d)
        p, s = r.three(*self[0]), r.three(*self[1])
        return AABB([one(c - d) for c in p], [one(c + twice) for c in s])

    def expand(self, to_point: Vector3) -> AABB:
        """The smallest box holding this one and the point ``to_point``."""
        r = reals()
        q = r.three(*self.position._same(to_point))
        low, high = self._corners()
        lo = [p if p < a else a for p, a in zip(q, low, strict=True)]
        hi = [p if p > b else b for p, b in zip(q, high, strict=True)]
        return AABB(lo, r.three(*(b - a for a, b in zip(lo, hi, strict=True))))

    def abs(self) -> AABB:
        """The same box with no negative side."""
        r = reals()
        p, s = r.three(*self[0]), r.three(*self[1])
        position = [r.one(a + (b if b < 0 else 0.0)) for a, b in zip(p, s, strict=True)]
        return AABB(position, [abs(b) for b in s])

    def is_equal_approx(self, aabb: AABB) -> bool:
        """Position and size each approximately equal."""
        other: AABB = self._same(aabb)
        return self.position.is_equal_approx(other.position) and self.size.is_equal_approx(
            other.size
        )
