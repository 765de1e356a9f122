"""``Transform2D``: two basis columns and an origin, with Godot's operators and methods.
Formulas: Godot 4.6's ``core/math/transform_2d.cpp`` and ``transform_2d.h``."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Self, SupportsFloat

from ..base import _field
from .operands import MathRecord, is_scalar, mixed
from .reals import Reals, cos, div, reals, sin
from .rects import Rect2
from .vectors import Vector2

__all__ = ["Transform2D"]

_Six = tuple[float, float, float, float, float, float]


def _xform(r: Reals, m: _Six, vx: float, vy: float) -> tuple[float, float]:
    """``(tdotx(v), tdoty(v))``: the basis of ``m`` (x.x, x.y, y.x, y.y, ...) applied to v."""
    one = r.one
    xx, xy, yx, yy = m[0], m[1], m[2], m[3]
    return one(one(xx * vx) + one(yx * vy)), one(one(xy * vx) + one(yy * vy))


class Transform2D(MathRecord):
    """``Transform2D(x, y, origin)``: the two axis columns and the origin; default identity.

    ``t * Vector2`` transforms a point, ``Vector2 * t`` applies the inverse (as in Godot),
    ``t * Transform2D`` composes, ``t * number`` and ``t / number`` scale every component.
    """

    __slots__ = ()
    _fields = ("x", "y", "origin")

    def __new__(
        cls,
        x: Iterable[float] = (1, 0),
        y: Iterable[float] = (0, 1),
        origin: Iterable[float] = (0, 0),
    ) -> Self:
        return tuple.__new__(cls, (Vector2(*x), Vector2(*y), Vector2(*origin)))

    x: Vector2 = _field(0)

    y: Vector2 = _field(1)

    origin: Vector2 = _field(2)

    def _m(self, r: Reals) -> _Six:
        (xx, xy), (yx, yy), (ox, oy) = self
        return r.all((xx, xy, yx, yy, ox, oy))  # type: ignore[return-value]

    @classmethod
    def _of(cls, m: Iterable[float]) -> Self:
        xx, xy, yx, yy, ox, oy = m
        return tuple.__new__(
            cls,
            (
                tuple.__new__(Vector2, (xx, xy)),
                tuple.__new__(Vector2, (yx, yy)),
                tuple.__new__(Vector2, (ox, oy)),
            ),
        )

    @classmethod
    def from_rotation(cls, rotation: SupportsFloat, position: Vector2 | None = None) -> Self:
        """Godot's ``Transform2D(rotation, position)``: a turn by ``rotation`` radians, then a
        move to ``position``."""
        r = reals()
        a = r.one(float(rotation))
        c, s = r.one(cos(a)), r.one(sin(a))
        ox, oy = (0.0, 0.0) if position is None else r.two(*Vector2()._same(position))
        return cls._of((c, s, -s, c, ox, oy))

    # ---- operators ------------------------------------------------------------------

    def __mul__(self, other: object) -> Any:
        r = reals()
        m = self._m(r)
        if type(other) is Vector2:
            return self.xform(other)
        if type(other) is Rect2:
            return self.xform_rect(other)
        if type(other) is Transform2D:
            n = other._m(r)
            ox, oy = _xform(r, m, n[4], n[5])
            x0, x1 = _xform(r, m, n[0], n[1])
            y0, y1 = _xform(r, m, n[2], n[3])
            return self._of((x0, x1, y0, y1, r.one(ox + m[4]), r.one(oy + m[5])))
        if is_scalar(other):
            s = r.one(float(other))  # type: ignore[arg-type]
            return self._of(r.all([c * s for c in m]))
        mixed("*", self, other)

    def __rmul__(self, other: object) -> Any:
        if type(other) is Vector2:
            return self.xform_inv(other)
        if type(other) is Rect2:
            return self.xform_inv_rect(other)
        if is_scalar(other):
            return self * other
        mixed("*", other, self)

    def __truediv__(self, other: object) -> Self:
        if not is_scalar(other):
            mixed("/", self, other)
        r = reals()
        s = r.one(float(other))  # type: ignore[arg-type]
        return self._of(r.all([div(c, s) for c in self._m(r)]))

    # ---- methods --------------------------------------------------------------------

    def basis_xform(self, v: Vector2) -> Vector2:
        """``v`` transformed by the basis alone (no translation)."""
        r = reals()
        vx, vy = r.two(*self.origin._same(v))
        return tuple.__new__(Vector2, _xform(r, self._m(r), vx, vy))

    def basis_xform_inv(self, v: Vector2) -> Vector2:
        """``v`` transformed by the transposed basis: ``(x.dot(v), y.dot(v))``."""
        return tuple.__new__(Vector2, (self.x.dot(v), self.y.dot(v)))

    def xform(self, v: Vector2) -> Vector2:
        """The point ``v`` transformed: ``t * v``."""
        r = reals()
        m = self._m(r)
        vx, vy = r.two(*self.origin._same(v))
        tx, ty = _xform(r, m, vx, vy)
        return tuple.__new__(Vector2, (r.one(tx + m[4]), r.one(ty + m[5])))

    def xform_inv(self, v: Vector2) -> Vector2:
        """``v * t``: the inverse transform, exact for a rotation and translation only."""
        return self.basis_xform_inv(v - self.origin)

    def xform_rect(self, rect: Rect2) -> Rect2:
        """``t * rect``: the smallest Rect2 holding the transformed rectangle (its position
        moved, then grown to the three other corners, as Godot does)."""
        if type(rect) is not Rect2:
            raise TypeError(f"expected a Rect2, got {type(rect).__name__}")
        x, y = self.x * rect.size.x, self.y * rect.size.y
        position = self.xform(rect.position)
        out = Rect2(position)
        for corner in (position + x, position + y, position + x + y):
            out = out.expand(corner)
        return out

    def xform_inv_rect(self, rect: Rect2) -> Rect2:
        """``rect * t``: the smallest Rect2 holding the rectangle's corners each taken
        through :meth:`xform_inv` (exact for a rotation and translation only)."""
        if type(rect) is not Rect2:
            raise TypeError(f"expected a Rect2, got {type(rect).__name__}")
        r = reals()
        (px, py), (sx, sy) = r.two(*rect.position), r.two(*rect.size)
        right, bottom = r.one(px + sx), r.one(py + sy)
        corners = [(px, bottom), (right, bottom), (right, py)]
        out = Rect2(self.xform_inv(tuple.__new__(Vector2, (px, py))))
        for corner in corners:
            out = out.expand(self.xform_inv(tuple.__new__(Vector2, corner)))
        return out

    def determinant(self) -> float:
        """``x.x * y.y - x.y * y.x``."""
        r = reals()
        one = r.one
        xx, xy, yx, yy = self._m(r)[:4]
        return one(one(xx * yy) - one(xy * yx))

    def inverse(self) -> Self:
        """The inverse of a rotation and translation (the basis transposed)."""
        r = reals()
        xx, xy, yx, yy, ox, oy = self._m(r)
        t = (xx, yx, xy, yy, 0.0, 0.0)
        nx, ny = _xform(r, t, -ox, -oy)
        return self._of((xx, yx, xy, yy, nx, ny))

    def affine_inverse(self) -> Self:
        """The inverse of any invertible transform. A singular one (determinant 0) comes back
        unchanged, as in Godot's debug builds (which print an error)."""
        r = reals()
        one = r.one
        xx, xy, yx, yy, ox, oy = self._m(r)
        det = one(one(xx * yy) - one(xy * yx))
        if det == 0:
            return self._of((xx, xy, yx, yy, ox, oy))
        idet = one(div(1.0, det))
        t = (one(yy * idet), one(xy * -idet), one(yx * -idet), one(xx * idet), 0.0, 0.0)
        nx, ny = _xform(r, t, -ox, -oy)
        return self._of((*t[:4], nx, ny))

    def get_origin(self) -> Vector2:
        """The translation."""
        return +self.origin

    def get_rotation(self) -> float:
        """The rotation in radians: ``atan2(x.y, x.x)``."""
        r = reals()
        xx, xy = r.two(*self.x)
        return r.one(math.atan2(xy, xx))

    def get_scale(self) -> Vector2:
        """``(|x|, sign(determinant) * |y|)``."""
        r = reals()
        det = self.determinant()
        sign = 1.0 if det > 0 else -1.0 if det < 0 else 0.0
        return tuple.__new__(Vector2, (self.x.length(), r.one(sign * self.y.length())))

    def rotated(self, angle: SupportsFloat) -> Self:
        """Rotated by ``angle`` about the parent's origin: ``from_rotation(angle) * self``."""
        return self.from_rotation(angle) * self  # type: ignore[no-any-return]

    def rotated_local(self, angle: SupportsFloat) -> Self:
        """Rotated by ``angle`` in its own frame: ``self * from_rotation(angle)``."""
        return self * self.from_rotation(angle)  # type: ignore[no-any-return]

    def translated(self, offset: Vector2) -> Self:
        """The origin moved by ``offset`` (in the parent's frame)."""
        return tuple.__new__(type(self), (+self.x, +self.y, self.origin + offset))

    def translated_local(self, offset: Vector2) -> Self:
        """The origin moved by ``offset`` in the transform's own frame."""
        return tuple.__new__(type(self), (+self.x, +self.y, self.origin + self.basis_xform(offset)))

    def scaled(self, scale: Vector2) -> Self:
        """Scaled by ``scale`` in the parent's frame (the origin too)."""
        r = reals()
        one = r.one
        sx, sy = r.two(*self.origin._same(scale))
        xx, xy, yx, yy, ox, oy = self._m(r)
        return self._of(
            (one(xx * sx), one(xy * sy), one(yx * sx), one(yy * sy), one(ox * sx), one(oy * sy))
        )

    def scaled_local(self, scale: Vector2) -> Self:
        """Scaled by ``scale`` in its own frame (the origin stays)."""
        sx, sy = reals().two(*self.origin._same(scale))
        return tuple.__new__(type(self), (self.x * sx, self.y * sy, +self.origin))

    def is_equal_approx(self, to: Self) -> bool:
        """Each column approximately equal (``Vector2.is_equal_approx``)."""
        other = self._same(to)
        return all(a.is_equal_approx(b) for a, b in zip(self, other, strict=True))

    def is_finite(self) -> bool:
        """No component is an infinity or NaN."""
        return all(c.is_finite() for c in self)
