"""``Rect2`` and ``Rect2i``: a position and a size, with Godot's methods. Formulas: Godot 4.6's
``core/math/rect2.h`` and ``rect2i.h`` (sums in ``real_t``, or wrapping int32)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self, SupportsFloat, SupportsIndex

from ..base import _field
from .integer_vectors import Vector2i
from .operands import MathRecord, wrap32
from .reals import reals
from .vectors import Vector2

__all__ = ["Rect2", "Rect2i"]


class Rect2(MathRecord):
    """``Rect2(position, size)``."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(cls, position: Iterable[float] = (0, 0), size: Iterable[float] = (0, 0)) -> Self:
        return tuple.__new__(cls, (Vector2(*position), Vector2(*size)))

    position: Vector2 = _field(0)

    size: Vector2 = _field(1)

    def _edges(self) -> tuple[float, float, float, float]:
        """``(x, y, x + width, y + height)`` in ``real_t``."""
        r = reals()
        x, y, w, h = r.four(*self[0], *self[1])
        return x, y, r.one(x + w), r.one(y + h)

    @property
    def end(self) -> Vector2:
        """The corner opposite ``position``: ``position + size``."""
        return self.position + self.size

    def get_area(self) -> float:
        """``width * height``."""
        r = reals()
        w, h = r.two(*self[1])
        return r.one(w * h)

    def get_center(self) -> Vector2:
        """``position + size * 0.5``."""
        return self.position + self.size * 0.5

    def has_area(self) -> bool:
        """Both sides longer than zero."""
        w, h = reals().two(*self[1])
        return w > 0 and h > 0

    def has_point(self, point: Vector2) -> bool:
        """Whether ``point`` is inside: the top-left edges count, the bottom-right ones not."""
        px, py = reals().two(*self.position._same(point))
        x, y, right, bottom = self._edges()
        return not (px < x or py < y or px >= right or py >= bottom)

    def intersects(self, rect: Rect2, include_borders: bool = False) -> bool:
        """Whether the two overlap (touching edges only with ``include_borders``)."""
        x, y, right, bottom = self._edges()
        ox, oy, oright, obottom = self._same(rect)._edges()
        if include_borders:
            return not (x > oright or right < ox or y > obottom or bottom < oy)
        return not (x >= oright or right <= ox or y >= obottom or bottom <= oy)

    def encloses(self, rect: Rect2) -> bool:
        """Whether ``rect`` lies wholly inside this one."""
        other: Rect2 = self._same(rect)
        x, y, right, bottom = self._edges()
        ox, oy, oright, obottom = other._edges()
        return ox >= x and oy >= y and oright <= right and obottom <= bottom

    def merge(self, rect: Rect2) -> Rect2:
        """The smallest rect holding both."""
        other = self._same(rect)
        position = other.position.min(self.position)
        end = (other.position + other.size).max(self.position + self.size)
        return tuple.__new__(Rect2, (position, end - position))

    def intersection(self, rect: Rect2) -> Rect2:
        """The overlap of the two, or an empty Rect2 at the origin when they do not overlap."""
        other = self._same(rect)
        if not self.intersects(other):
            return Rect2()
        position = other.position.max(self.position)
        end = (other.position + other.size).min(self.position + self.size)
        return tuple.__new__(Rect2, (position, end - position))

    def grow(self, amount: SupportsFloat) -> Rect2:
        """Each side moved out by ``amount`` (in by a negative one)."""
        r = reals()
        one = r.one
        d = one(float(amount))
        x, y, w, h = r.four(*self[0], *self[1])
        twice = one(d * 2)
        return Rect2((one(x - d), one(y - d)), (one(w + twice), one(h + twice)))

    def expand(self, to: Vector2) -> Rect2:
        """The smallest rect holding this one and the point ``to``."""
        r = reals()
        px, py = r.two(*self.position._same(to))
        x, y, right, bottom = self._edges()
        x, y = (px if px < x else x), (py if py < y else y)
        right, bottom = (px if px > right else right), (py if py > bottom else bottom)
        return Rect2((x, y), (r.one(right - x), r.one(bottom - y)))

    def abs(self) -> Rect2:
        """The same area with a size of no negative sides."""
        r = reals()
        x, y, w, h = r.four(*self[0], *self[1])
        position = (r.one(x + (w if w < 0 else 0.0)), r.one(y + (h if h < 0 else 0.0)))
        return Rect2(position, (abs(w), abs(h)))

    def is_equal_approx(self, rect: Rect2) -> bool:
        """Position and size each approximately equal (``Vector2.is_equal_approx``)."""
        other = self._same(rect)
        return self.position.is_equal_approx(other.position) and self.size.is_equal_approx(
            other.size
        )


class Rect2i(MathRecord):
    """``Rect2i(position, size)`` with integer vectors; sums wrap as int32."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(cls, position: Iterable[int] = (0, 0), size: Iterable[int] = (0, 0)) -> Self:
        return tuple.__new__(cls, (Vector2i(*position), Vector2i(*size)))

    position: Vector2i = _field(0)

    size: Vector2i = _field(1)

    def _edges(self) -> tuple[int, int, int, int]:
        (x, y), (w, h) = self
        return x, y, wrap32(x + w), wrap32(y + h)

    @property
    def end(self) -> Vector2i:
        """The corner opposite ``position``: ``position + size``."""
        return self.position + self.size

    def get_area(self) -> int:
        """``width * height``, wrapping as int32 (as the engine's ``int``)."""
        return wrap32(self.size.x * self.size.y)

    def get_center(self) -> Vector2i:
        """``position + size / 2`` (division truncated toward zero)."""
        return self.position + self.size / 2  # type: ignore[no-any-return]

    def has_area(self) -> bool:
        """Both sides longer than zero."""
        return self.size.x > 0 and self.size.y > 0

    def has_point(self, point: Vector2i) -> bool:
        """Whether ``point`` is inside: the top-left edges count, the bottom-right ones not."""
        px, py = self.position._same(point)
        x, y, right, bottom = self._edges()
        return not (px < x or py < y or px >= right or py >= bottom)

    def intersects(self, rect: Rect2i) -> bool:
        """Whether the two overlap (touching edges do not)."""
        x, y, right, bottom = self._edges()
        ox, oy, oright, obottom = self._same(rect)._edges()
        return not (x >= oright or right <= ox or y >= obottom or bottom <= oy)

    def encloses(self, rect: Rect2i) -> bool:
        """Whether ``rect`` lies wholly inside this one."""
        other: Rect2i = self._same(rect)
        x, y, right, bottom = self._edges()
        ox, oy, oright, obottom = other._edges()
        return ox >= x and oy >= y and oright <= right and obottom <= bottom

    def merge(self, rect: Rect2i) -> Rect2i:
        """The smallest rect holding both."""
        other = self._same(rect)
        position = other.position.min(self.position)
        end = (other.position + other.size).max(self.position + self.size)
        return tuple.__new__(Rect2i, (position, end - position))

    def intersection(self, rect: Rect2i) -> Rect2i:
        """The overlap of the two, or an empty Rect2i when they do not overlap."""
        other = self._same(rect)
        if not self.intersects(other):
            return Rect2i()
        position = other.position.max(self.position)
        end = (other.position + other.size).min(self.position + self.size)
        return tuple.__new__(Rect2i, (position, end - position))

    def expand(self, to: Vector2i) -> Rect2i:
        """The smallest rect holding this one and the point ``to`` (sums wrap as int32)."""
        px, py = self.position._same(to)
        x, y, right, bottom = self._edges()
        x, y = (px if px < x else x), (py if py < y else y)
        right, bottom = (px if px > right else right), (py if py > bottom else bottom)
        return Rect2i((x, y), (wrap32(right - x), wrap32(bottom - y)))

    def abs(self) -> Rect2i:
        """The same area with a size of no negative sides (``INT32_MIN`` stays, as in C)."""
        (x, y), (w, h) = self
        position = (wrap32(x + (w if w < 0 else 0)), wrap32(y + (h if h < 0 else 0)))
        return Rect2i(position, (wrap32(abs(w)), wrap32(abs(h))))

    def grow(self, amount: SupportsIndex) -> Rect2i:
        """Each side moved out by ``amount`` (in by a negative one)."""
        d = wrap32(int(amount))
        (x, y), (w, h) = self
        twice = wrap32(d * 2)
        return Rect2i((wrap32(x - d), wrap32(y - d)), (wrap32(w + twice), wrap32(h + twice)))
