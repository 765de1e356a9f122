"""Godot's composite math value types: rects, planes, quaternions, transforms, Color.

Each is an immutable :class:`~gdvariant._values.base._Record` whose fields have Godot's names; the
composite ones (Rect2, Transform3D...) hold vectors as in Godot's API. Real components are
floats, integer ones ints, whatever the engine's wire width.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self, SupportsFloat

from ..base import _f, _field, _Record
from .integer_vectors import Vector2i
from .vectors import Vector2, Vector3, Vector4

__all__ = [
    "AABB",
    "Basis",
    "Color",
    "Plane",
    "Projection",
    "Quaternion",
    "Rect2",
    "Rect2i",
    "Transform2D",
    "Transform3D",
]


class Quaternion(_Record):
    """``Quaternion`` (x, y, z, w); the default is the identity rotation."""

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

    def __new__(
        cls,
        x: SupportsFloat = 0.0,
        y: SupportsFloat = 0.0,
        z: SupportsFloat = 0.0,
        w: SupportsFloat = 1.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z), _f(w)))

    x: float = _field(0)

    y: float = _field(1)

    z: float = _field(2)

    w: float = _field(3)


class Color(_Record):
    """``Color`` (r, g, b, a): always four 32-bit floats on the wire, in every build."""

    __slots__ = ()
    _fields = ("r", "g", "b", "a")

    def __new__(
        cls,
        r: SupportsFloat = 0.0,
        g: SupportsFloat = 0.0,
        b: SupportsFloat = 0.0,
        a: SupportsFloat = 1.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(r), _f(g), _f(b), _f(a)))

    r: float = _field(0)

    g: float = _field(1)

    b: float = _field(2)

    a: float = _field(3)


# ---- composite math types (fields are vectors, as in Godot's API) -------------------------


class Rect2(_Record):
    """``Rect2(position, size)``."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(cls, position: Iterable[float] = (0, 0), size: Iterable[float] = (0, 0)) -> Self:
        return tuple.__new__(cls, (Vector2(*position), Vector2(*size)))

    position: Vector2 = _field(0)

    size: Vector2 = _field(1)


class Rect2i(_Record):
    """``Rect2i(position, size)`` with integer vectors."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(cls, position: Iterable[int] = (0, 0), size: Iterable[int] = (0, 0)) -> Self:
        return tuple.__new__(cls, (Vector2i(*position), Vector2i(*size)))

    position: Vector2i = _field(0)

    size: Vector2i = _field(1)


class Plane(_Record):
    """``Plane(normal, d)``."""

    __slots__ = ()
    _fields = ("normal", "d")

    def __new__(cls, normal: Iterable[float] = (0, 0, 0), d: SupportsFloat = 0.0) -> Self:
        return tuple.__new__(cls, (Vector3(*normal), _f(d)))

    normal: Vector3 = _field(0)

    d: float = _field(1)


class AABB(_Record):
    """``AABB(position, size)``."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(
        cls, position: Iterable[float] = (0, 0, 0), size: Iterable[float] = (0, 0, 0)
    ) -> Self:
        return tuple.__new__(cls, (Vector3(*position), Vector3(*size)))

    position: Vector3 = _field(0)

    size: Vector3 = _field(1)


class Transform2D(_Record):
    """``Transform2D(x, y, origin)``: the two axis columns and the origin; default identity."""

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


class Basis(_Record):
    """``Basis(x, y, z)``: the three axis columns; default identity.

    The wire stores rows (``x.x, y.x, z.x, x.y, ...``); this class holds columns as Godot's
    API does.
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


class Transform3D(_Record):
    """``Transform3D(basis, origin)``; default identity."""

    __slots__ = ()
    _fields = ("basis", "origin")

    def __new__(
        cls, basis: Iterable[Iterable[float]] | None = None, origin: Iterable[float] = (0, 0, 0)
    ) -> Self:
        b = Basis() if basis is None else Basis(*basis)
        return tuple.__new__(cls, (b, Vector3(*origin)))

    basis: Basis = _field(0)

    origin: Vector3 = _field(1)


class Projection(_Record):
    """``Projection(x, y, z, w)``: four Vector4 columns; default identity."""

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
