"""``Basis`` and ``Transform3D``, with Godot's operators and methods. Formulas: Godot 4.6's
``core/math/basis.h``, ``basis.cpp``, ``transform_3d.h`` and ``transform_3d.cpp``.

Godot stores a Basis as rows; the record holds columns (``x``, ``y``, ``z``) as Godot's API
shows them. The arithmetic here works on the rows, in the engine's order: ``R[i][j]`` is
component ``i`` of column ``j``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self, SupportsFloat, SupportsIndex

from ..base import _field
from . import euler as eu
from . import matrices as mx
from .aabb import AABB
from .matrices import Rows as _Rows
from .matrices import Three as _Three
from .operands import MathRecord, is_scalar, mixed
from .plane import Plane
from .quaternion import Quaternion
from .reals import Reals, div, reals
from .vectors import Vector3

__all__ = ["Basis", "Transform3D"]


def _rotation(r: Reals, axis: Vector3, angle: SupportsFloat) -> _Rows | None:
    return mx.axis_angle(r, r.three(*Vector3()._same(axis)), r.one(float(angle)))


class Basis(MathRecord):
    """``Basis(x, y, z)``: the three axis columns; default identity.

    The wire stores rows (``x.x, y.x, z.x, x.y, ...``); this class holds columns as Godot's
    API does. ``b * Vector3`` transforms, ``Vector3 * b`` applies the transpose (as Godot),
    ``b * Basis`` composes, ``b * number`` and ``b / number`` scale.
    """

    __slots__ = ()
    _fields = ("x", "y", "z")

    def __new__(
        cls,
        x: Iterable[float] = (1, 0, 0),
        y: Iterable[float] = (0, 1, 0),
        z: Iterable[float] = (0, 0, 1),
    ) -> Self:
        return tuple.__new__(cls, (Vector3(*x), Vector3(*y), Vector3(*z)))

    x: Vector3 = _field(0)

    y: Vector3 = _field(1)

    z: Vector3 = _field(2)

    def _rows(self, r: Reals) -> _Rows:
        (xx, xy, xz), (yx, yy, yz), (zx, zy, zz) = self
        return r.all((xx, yx, zx, xy, yy, zy, xz, yz, zz))

    @classmethod
    def _of(cls, m: _Rows) -> Self:
        return tuple.__new__(
            cls,
            (
                tuple.__new__(Vector3, (m[0], m[3], m[6])),
                tuple.__new__(Vector3, (m[1], m[4], m[7])),
                tuple.__new__(Vector3, (m[2], m[5], m[8])),
            ),
        )

    def __mul__(self, other: object) -> Any:
        r = reals()
        if type(other) is Vector3:
            return tuple.__new__(Vector3, mx.xform(r, self._rows(r), r.three(*other)))
        if type(other) is Basis:
            return self._of(mx.times(r, self._rows(r), other._rows(r)))
        if is_scalar(other):
            s = r.one(float(other))  # type: ignore[arg-type]
            return self._of(r.all([v * s for v in self._rows(r)]))
        mixed("*", self, other)

    def __rmul__(self, other: object) -> Any:
        if type(other) is Vector3:
            return self.xform_inv(other)
        if is_scalar(other):
            return self * other
        mixed("*", other, self)

    def __truediv__(self, other: object) -> Self:
        if not is_scalar(other):
            mixed("/", self, other)
        r = reals()
        s = r.one(float(other))  # type: ignore[arg-type]
        return self._of(r.all([div(v, s) for v in self._rows(r)]))

    @classmethod
    def from_axis_angle(cls, axis: Vector3, angle: SupportsFloat) -> Self:
        """Godot's ``Basis(axis, angle)``: the rotation by ``angle`` radians about ``axis``
        (the identity when the axis is not normalized, as in Godot's debug builds)."""
        r = reals()
        rows = _rotation(r, axis, angle)
        return cls() if rows is None else cls._of(rows)

    @classmethod
    def from_euler(cls, euler: Vector3, order: SupportsIndex = eu.EulerOrder.YXZ) -> Self:
        """Godot's ``Basis.from_euler``: the rotation by ``euler``'s angles (radians) about
        x, y and z, in ``order`` (an :class:`EulerOrder`; another number gives the identity,
        as in Godot)."""
        r = reals()
        rows = eu.from_euler(r, r.three(*Vector3()._same(euler)), int(order))
        return cls() if rows is None else cls._of(rows)

    @classmethod
    def from_quaternion(cls, quaternion: Quaternion) -> Self:
        """Godot's ``Basis(quaternion)``: the rotation matrix of ``quaternion``."""
        r = reals()
        return cls._of(eu.from_quaternion(r, quaternion._q(r)))

    def get_euler(self, order: SupportsIndex = eu.EulerOrder.YXZ) -> Vector3:
        """The Euler angles (radians) of this basis, a rotation, in ``order`` (scale and
        shear are not taken out first, as in Godot; another order gives zeros)."""
        r = reals()
        angles = eu.to_euler(r, self._rows(r), int(order))
        return Vector3() if angles is None else tuple.__new__(Vector3, angles)

    def slerp(self, to: Basis, weight: SupportsFloat) -> Self:
        """Spherical interpolation of the rotations (through quaternions), each row's length
        interpolated linearly. A basis that is not a rotation counts as the identity's
        rotation (Godot's debug builds print an error), its scale still interpolated."""
        r = reals()
        one = r.one
        other: Basis = self._same(to)
        w = one(float(weight))
        m, n = self._rows(r), other._rows(r)
        start = tuple.__new__(Quaternion, eu.to_quaternion(r, m))
        end = tuple.__new__(Quaternion, eu.to_quaternion(r, n))
        turned = eu.from_quaternion(r, start.slerp(end, w)._q(r))
        out: list[float] = []
        for i in (0, 3, 6):
            a = tuple.__new__(Vector3, m[i : i + 3]).length()
            b = tuple.__new__(Vector3, n[i : i + 3]).length()
            s = one(a + one(one(b - a) * w))
            out.extend(one(v * s) for v in turned[i : i + 3])
        return self._of(tuple(out))

    def rotated(self, axis: Vector3, angle: SupportsFloat) -> Self:
        """This basis rotated about ``axis`` (in the parent's frame):
        ``Basis(axis, angle) * self``."""
        return self.from_axis_angle(axis, angle) * self  # type: ignore[no-any-return]

    def xform(self, v: Vector3) -> Vector3:
        """``b * v``."""
        return self * self.x._same(v)  # type: ignore[no-any-return]

    def xform_inv(self, v: Vector3) -> Vector3:
        """``v * b``: ``v`` by the transposed basis (the inverse of a rotation)."""
        r = reals()
        return tuple.__new__(Vector3, mx.xform_inv(r, self._rows(r), r.three(*self.x._same(v))))

    def determinant(self) -> float:
        """The determinant, expanded along the first column as Godot does."""
        r = reals()
        one = r.one
        m = self._rows(r)
        a = one(m[0] * mx.cofactor(r, m, 1, 1, 2, 2))
        b = one(m[3] * mx.cofactor(r, m, 0, 1, 2, 2))
        c = one(m[6] * mx.cofactor(r, m, 0, 1, 1, 2))
        return one(one(a - b) + c)

    def transposed(self) -> Self:
        """Rows and columns swapped."""
        return self._of(mx.transposed(self._rows(reals())))

    def inverse(self) -> Self:
        """The inverse; a singular basis comes back unchanged, as in Godot's debug builds."""
        r = reals()
        m = self._rows(r)
        inverted = mx.inverse(r, m)
        return self._of(m if inverted is None else inverted)

    def orthonormalized(self) -> Self:
        """Gram-Schmidt: the columns made unit length and perpendicular, x first."""
        x = self.x.normalized()
        y = (self.y - x * x.dot(self.y)).normalized()
        z = (self.z - x * x.dot(self.z) - y * y.dot(self.z)).normalized()
        return tuple.__new__(type(self), (x, y, z))

    def get_scale(self) -> Vector3:
        """The length of each column, negated when the determinant is negative."""
        det = self.determinant()
        sign = 1.0 if det > 0 else -1.0 if det < 0 else 0.0
        return Vector3(*(c.length() for c in self)) * sign

    def is_equal_approx(self, to: Self) -> bool:
        """Each column approximately equal (``Vector3.is_equal_approx``)."""
        other = self._same(to)
        return all(a.is_equal_approx(b) for a, b in zip(self, other, strict=True))

    def is_finite(self) -> bool:
        """No component is an infinity or NaN."""
        return all(c.is_finite() for c in self)


class Transform3D(MathRecord):
    """``Transform3D(basis, origin)``; default identity. ``t * Vector3`` transforms a point,
    ``Vector3 * t`` applies the inverse of a rotation and translation, ``t * Transform3D``
    composes, ``t * number`` scales."""

    __slots__ = ()
    _fields = ("basis", "origin")

    def __new__(
        cls, basis: Iterable[Iterable[float]] | None = None, origin: Iterable[float] = (0, 0, 0)
    ) -> Self:
        b = Basis() if basis is None else Basis(*basis)
        return tuple.__new__(cls, (b, Vector3(*origin)))

    basis: Basis = _field(0)

    origin: Vector3 = _field(1)

    def _parts(self, r: Reals) -> tuple[_Rows, _Three]:
        return self[0]._rows(r), r.three(*self[1])

    def _of(self, m: _Rows, origin: Iterable[float]) -> Self:
        return tuple.__new__(type(self), (Basis._of(m), tuple.__new__(Vector3, origin)))

    def __mul__(self, other: object) -> Any:
        if type(other) is Vector3:
            return self.xform(other)
        if type(other) is AABB:
            return self.xform_aabb(other)
        if type(other) is Plane:
            return self.xform_plane(other)
        r = reals()
        m, o = self._parts(r)
        if type(other) is Transform3D:
            n, p = other._parts(r)
            return self._of(mx.times(r, m, n), self._point(r, m, o, p))
        if is_scalar(other):
            s = r.one(float(other))  # type: ignore[arg-type]
            return self._of(r.all([v * s for v in m]), r.all([v * s for v in o]))
        mixed("*", self, other)

    def __rmul__(self, other: object) -> Any:
        if type(other) is Vector3:
            return self.xform_inv(other)
        if type(other) is AABB:
            return self.xform_inv_aabb(other)
        if type(other) is Plane:
            return self.xform_inv_plane(other)
        if is_scalar(other):
            return self * other
        mixed("*", other, self)

    @staticmethod
    def _point(r: Reals, m: _Rows, o: _Three, v: _Three) -> _Three:
        return r.three(*(a + b for a, b in zip(mx.xform(r, m, v), o, strict=True)))

    def xform(self, v: Vector3) -> Vector3:
        """The point ``v`` transformed: ``t * v``."""
        r = reals()
        m, o = self._parts(r)
        return tuple.__new__(Vector3, self._point(r, m, o, r.three(*self.origin._same(v))))

    def xform_inv(self, v: Vector3) -> Vector3:
        """``v * t``: exact inverse for a rotation and translation only."""
        r = reals()
        m, _ = self._parts(r)
        d = self.origin._same(v) - self.origin
        return tuple.__new__(Vector3, mx.xform_inv(r, m, r.three(*d)))

    def xform_aabb(self, aabb: AABB) -> AABB:
        """``t * aabb``: the smallest AABB holding the transformed box (per axis, the
        smaller and larger of each basis entry times the box's two corners)."""
        if type(aabb) is not AABB:
            raise TypeError(f"expected an AABB, got {type(aabb).__name__}")
        r = reals()
        one = r.one
        m, o = self._parts(r)
        low, high = aabb._corners()
        tmin, tmax = list(o), list(o)
        for i in range(3):
            for j in range(3):
                e, f = one(m[i * 3 + j] * low[j]), one(m[i * 3 + j] * high[j])
                if e < f:
                    tmin[i], tmax[i] = one(tmin[i] + e), one(tmax[i] + f)
                else:
                    tmin[i], tmax[i] = one(tmin[i] + f), one(tmax[i] + e)
        size = r.three(*(b - a for a, b in zip(tmin, tmax, strict=True)))
        return tuple.__new__(AABB, (tuple.__new__(Vector3, tmin), tuple.__new__(Vector3, size)))

    def xform_inv_aabb(self, aabb: AABB) -> AABB:
        """``aabb * t``: the smallest AABB holding the box's eight corners each taken
        through :meth:`xform_inv` (exact for a rotation and translation only)."""
        if type(aabb) is not AABB:
            raise TypeError(f"expected an AABB, got {type(aabb).__name__}")
        (px, py, pz), (ex, ey, ez) = aabb._corners()
        corners = [
            (x, y, z) for x in (ex, px) for y in (ey, py) for z in (ez, pz)
        ]  # Godot's order: the far corner first, the position last
        out = AABB(self.xform_inv(tuple.__new__(Vector3, corners[0])))
        for corner in corners[1:]:
            out = out.expand(self.xform_inv(tuple.__new__(Vector3, corner)))
        return out

    def xform_plane(self, plane: Plane) -> Plane:
        """``t * plane``: the plane through the transformed point ``normal * d``, its normal
        taken through the inverse transposed basis and normalized (right for any invertible
        transform)."""
        if type(plane) is not Plane:
            raise TypeError(f"expected a Plane, got {type(plane).__name__}")
        point = self.xform(plane.normal * plane.d)
        normal_basis = self.basis.inverse().transposed()
        return _plane(normal_basis.xform(plane.normal), point)

    def xform_inv_plane(self, plane: Plane) -> Plane:
        """``plane * t``: the plane through ``normal * d`` taken through
        :meth:`affine_inverse`, its normal through the transposed basis, normalized."""
        if type(plane) is not Plane:
            raise TypeError(f"expected a Plane, got {type(plane).__name__}")
        point = self.affine_inverse().xform(plane.normal * plane.d)
        return _plane(self.basis.transposed().xform(plane.normal), point)

    def inverse(self) -> Self:
        """The inverse of a rotation and translation (the basis transposed)."""
        r = reals()
        m, o = self._parts(r)
        t = mx.transposed(m)
        return self._of(t, mx.xform(r, t, (-o[0], -o[1], -o[2])))

    def affine_inverse(self) -> Self:
        """The inverse of any invertible transform (a singular basis stays, as in Godot's
        debug builds, and the origin is still moved through it)."""
        r = reals()
        m, o = self._parts(r)
        inverted = mx.inverse(r, m)
        t = m if inverted is None else inverted
        return self._of(t, mx.xform(r, t, (-o[0], -o[1], -o[2])))

    def rotated(self, axis: Vector3, angle: SupportsFloat) -> Self:
        """Rotated about ``axis`` through the parent's origin (the origin turns too)."""
        turn = Basis.from_axis_angle(axis, angle)
        return tuple.__new__(type(self), (turn * self.basis, turn * self.origin))

    def rotated_local(self, axis: Vector3, angle: SupportsFloat) -> Self:
        """Rotated about ``axis`` in its own frame (the origin stays)."""
        turn = Basis.from_axis_angle(axis, angle)
        return tuple.__new__(type(self), (self.basis * turn, +self.origin))

    def translated(self, offset: Vector3) -> Self:
        """The origin moved by ``offset`` (in the parent's frame)."""
        return tuple.__new__(type(self), (self.basis * 1, self.origin + offset))

    def is_equal_approx(self, to: Self) -> bool:
        """Basis and origin approximately equal."""
        other: Transform3D = self._same(to)
        return self.basis.is_equal_approx(other.basis) and self.origin.is_equal_approx(other.origin)

    def is_finite(self) -> bool:
        """No component is an infinity or NaN."""
        return self.basis.is_finite() and self.origin.is_finite()


def _plane(normal: Vector3, point: Vector3) -> Plane:
    """``Plane(n, n.dot(point))`` with ``n`` the normalized ``normal``."""
    n = normal.normalized()
    return tuple.__new__(Plane, (n, n.dot(point)))
