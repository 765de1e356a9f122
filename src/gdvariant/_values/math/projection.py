"""``Projection``: a 4x4 matrix as four Vector4 columns, with Godot's products, determinant,
inverse, camera builders and the camera measures game code reads. Formulas: Godot 4.6's
``core/math/projection.cpp`` and ``projection.h``; the inverse is in :mod:`.matrix4`, the
builders in :mod:`.projections`."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Self, SupportsFloat, SupportsIndex

from ..base import _field
from . import projections as pj
from .aabb import AABB
from .matrix4 import Columns4, inverse
from .operands import MathRecord, mixed
from .plane import Plane
from .reals import Reals, div, reals
from .rects import Rect2
from .vectors import Vector2, Vector3, Vector4

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

    # ---- inverse ----------------------------------------------------------------------

    def inverse(self) -> Self:
        """The inverse, by Godot's elimination with partial pivoting; a matrix whose
        elimination meets a zero pivot comes back unchanged (Godot prints an error)."""
        r = reals()
        c = self._columns(r)
        inverted = inverse(r, c)
        return self._of(c if inverted is None else inverted)

    # ---- builders ---------------------------------------------------------------------

    @classmethod
    def _built(cls, columns: Columns4) -> Self:
        return tuple.__new__(cls, [tuple.__new__(Vector4, c) for c in columns])

    @classmethod
    def create_perspective(
        cls,
        fovy: SupportsFloat,
        aspect: SupportsFloat,
        z_near: SupportsFloat,
        z_far: SupportsFloat,
        flip_fov: bool = False,
    ) -> Self:
        """A perspective camera: vertical field of view ``fovy`` in degrees (horizontal
        with ``flip_fov``); the identity when the depth range, the field of view or the
        aspect is zero, as in Godot."""
        r = reals()
        fov, aspect_, near, far = r.all([float(fovy), float(aspect), float(z_near), float(z_far)])
        return cls._built(pj.perspective(r, fov, aspect_, near, far, bool(flip_fov)))

    @classmethod
    def create_orthogonal(
        cls,
        left: SupportsFloat,
        right: SupportsFloat,
        bottom: SupportsFloat,
        top: SupportsFloat,
        z_near: SupportsFloat,
        z_far: SupportsFloat,
    ) -> Self:
        """An orthogonal camera seeing the box between the six planes."""
        r = reals()
        args = r.all([float(a) for a in (left, right, bottom, top, z_near, z_far)])
        return cls._built(pj.orthogonal(r, *args))

    @classmethod
    def create_orthogonal_aspect(
        cls,
        size: SupportsFloat,
        aspect: SupportsFloat,
        z_near: SupportsFloat,
        z_far: SupportsFloat,
        flip_fov: bool = False,
    ) -> Self:
        """An orthogonal camera ``size`` high (wide with ``flip_fov``) at ``aspect``."""
        r = reals()
        size_, aspect_, near, far = r.all([float(a) for a in (size, aspect, z_near, z_far)])
        return cls._built(pj.orthogonal_aspect(r, size_, aspect_, near, far, bool(flip_fov)))

    @classmethod
    def create_frustum(
        cls,
        left: SupportsFloat,
        right: SupportsFloat,
        bottom: SupportsFloat,
        top: SupportsFloat,
        z_near: SupportsFloat,
        z_far: SupportsFloat,
    ) -> Self:
        """A perspective camera from its near plane's sides; the identity unless ``right >
        left``, ``top > bottom`` and ``z_far > z_near`` (Godot prints an error)."""
        r = reals()
        args = r.all([float(a) for a in (left, right, bottom, top, z_near, z_far)])
        return cls._built(pj.frustum(r, *args))

    @classmethod
    def create_frustum_aspect(
        cls,
        size: SupportsFloat,
        aspect: SupportsFloat,
        offset: Vector2,
        z_near: SupportsFloat,
        z_far: SupportsFloat,
        flip_fov: bool = False,
    ) -> Self:
        """A frustum ``size`` high (wide with ``flip_fov``) at ``aspect``, moved by
        ``offset``."""
        r = reals()
        size_, aspect_, near, far = r.all([float(a) for a in (size, aspect, z_near, z_far)])
        ox, oy = r.two(*Vector2()._same(offset))
        return cls._built(pj.frustum_aspect(r, size_, aspect_, (ox, oy), near, far, bool(flip_fov)))

    @classmethod
    def create_fit_aabb(cls, aabb: AABB) -> Self:
        """The matrix that maps ``aabb`` onto the cube from -1 to 1."""
        if type(aabb) is not AABB:
            raise TypeError(f"expected an AABB, got {type(aabb).__name__}")
        r = reals()
        return cls._built(pj.fit_aabb(r, r.three(*aabb.position), r.three(*aabb.size)))

    @classmethod
    def create_depth_correction(cls, flip_y: bool) -> Self:
        """The matrix from OpenGL's clip space to Vulkan's (z into 0..1, reversed), ``y``
        flipped with ``flip_y``."""
        y = -1.0 if flip_y else 1.0
        return cls._built(
            ((1.0, 0.0, 0.0, 0.0), (0.0, y, 0.0, 0.0), (0.0, 0.0, -0.5, 0.0), (0.0, 0.0, 0.5, 1.0))
        )

    @classmethod
    def create_light_atlas_rect(cls, rect: Rect2) -> Self:
        """The matrix that maps the unit square onto ``rect``."""
        if type(rect) is not Rect2:
            raise TypeError(f"expected a Rect2, got {type(rect).__name__}")
        (px, py), (w, h) = reals().two(*rect.position), reals().two(*rect.size)
        return cls._built(
            ((w, 0.0, 0.0, 0.0), (0.0, h, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (px, py, 0.0, 1.0))
        )

    @staticmethod
    def get_fovy(fovx: SupportsFloat, aspect: SupportsFloat) -> float:
        """The vertical field of view (degrees) of the horizontal one ``fovx`` at
        ``aspect`` (computed mostly in doubles, as Godot does)."""
        r = reals()
        return pj.fovy(r, r.one(float(fovx)), r.one(float(aspect)))

    # ---- what a camera matrix says ------------------------------------------------------

    def get_z_near(self) -> float:
        """The near plane's distance, for a projection along z."""
        r = reals()
        c = self._columns(r)
        return r.one(div(r.one(c[3][3] + c[3][2]), r.one(c[2][3] + c[2][2])))

    def get_z_far(self) -> float:
        """The far plane's distance, for a projection along z."""
        r = reals()
        c = self._columns(r)
        return r.one(div(r.one(c[3][3] - c[3][2]), r.one(c[2][3] - c[2][2])))

    def get_aspect(self) -> float:
        """Width over height: ``y.y / x.x``."""
        r = reals()
        c = self._columns(r)
        return r.one(div(c[1][1], c[0][0]))

    def get_fov(self) -> float:
        """The horizontal field of view in degrees (both halves of an asymmetrical one)."""
        r = reals()
        one, c = r.one, self._columns(r)
        to_degrees = one(180.0 / one(math.pi))  # Godot 4.6's float rad_to_deg: pi in float
        if c[2][0] == 0:
            return one(one(2.0 * one(math.atan2(1.0, c[0][0]))) * to_degrees)
        right = one(math.atan2(one(c[2][0] + 1.0), c[0][0]))
        left = one(math.atan2(one(c[2][0] - 1.0), c[0][0]))
        return one(one(right - left) * to_degrees)

    def is_orthogonal(self) -> bool:
        """Whether this is an orthogonal projection (``z.w == 0``)."""
        return self._columns(reals())[2][3] == 0

    def get_lod_multiplier(self) -> float:
        """``2 / x.x``: how much a distance shrinks on screen."""
        r = reals()
        return r.one(div(2.0, self._columns(r)[0][0]))

    def _half_extents(self, depth: float) -> Vector2:
        r = reals()
        one, c = r.one, self._columns(r)
        w = one(one(-depth * c[2][3]) + c[3][3])
        return tuple.__new__(Vector2, (one(div(w, c[0][0])), one(div(w, c[1][1]))))

    def get_viewport_half_extents(self) -> Vector2:
        """Half the near plane's width and height."""
        return self._half_extents(self.get_z_near())

    def get_far_plane_half_extents(self) -> Vector2:
        """Half the far plane's width and height."""
        return self._half_extents(self.get_z_far())

    def get_pixels_per_meter(self, for_pixel_width: SupportsIndex) -> int:
        """How many of ``for_pixel_width`` pixels one unit at the near plane spans (an int
        converted as x86 converts: out of range or NaN gives -2**31)."""
        r = reals()
        one, c = r.one, self._columns(r)
        pixels = ((int(for_pixel_width) + 2**31) & 0xFFFFFFFF) - 2**31
        span = one(one(-self.get_z_near() * c[2][3]) + c[3][3])
        width = one(div(one(2.0 * span), c[0][0]))
        ratio = one(div(one(float(pixels)), width))
        if math.isfinite(ratio) and -(2.0**31) <= ratio < 2.0**31:
            return int(ratio)
        return -(2**31)

    def perspective_znear_adjusted(self, new_znear: SupportsFloat) -> Self:
        """This perspective with its near plane moved to ``new_znear`` (the far one kept)."""
        r = reals()
        one = r.one
        c = [list(col) for col in self._columns(r)]
        far, near = self.get_z_far(), one(float(new_znear))
        depth = one(far - near)
        c[2][2] = one(div(-one(far + near), depth))
        c[3][2] = one(div(one(one(-2.0 * near) * far), depth))
        return self._of(c)

    def get_projection_plane(self, plane: SupportsIndex) -> Plane:
        """One of the six clipping planes, normalized: 0 near, 1 far, 2 left, 3 top,
        4 right, 5 bottom (another number: ``Plane()``, as in Godot)."""
        r = reals()
        one, c = r.one, self._columns(r)
        row, sign = _PLANES.get(int(plane), (-1, 0.0))
        if row < 0:
            return Plane()
        a, b, cc, d = (one(col[3] + sign * col[row]) for col in c)
        return tuple.__new__(Plane, (Vector3(-a, -b, -cc), d)).normalized()

    def flipped_y(self) -> Self:
        """The y column negated."""
        c = self._columns(reals())
        return self._of((c[0], [-v for v in c[1]], c[2], c[3]))

    def jitter_offseted(self, offset: Vector2) -> Self:
        """The w column's x and y moved by ``offset`` (Godot's spelling)."""
        r = reals()
        ox, oy = r.two(*Vector2()._same(offset))
        c = self._columns(r)
        w = (r.one(c[3][0] + ox), r.one(c[3][1] + oy), c[3][2], c[3][3])
        return self._of((c[0], c[1], c[2], w))


#: ``get_projection_plane``'s planes: which row of the matrix meets the w row, and how.
_PLANES = {0: (2, 1.0), 1: (2, -1.0), 2: (0, 1.0), 3: (1, -1.0), 4: (0, -1.0), 5: (1, 1.0)}


def _dot4(r: Reals, a: Iterable[float], b: tuple[float, ...]) -> float:
    one = r.one
    total = 0.0
    for n, (x, y) in enumerate(zip(a, b, strict=True)):
        p = one(x * y)
        total = p if n == 0 else one(total + p)
    return total
