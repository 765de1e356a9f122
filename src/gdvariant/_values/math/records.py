"""Godot's math value types that are records only so far: planes, boxes, quaternions, bases,
transforms, projections (their arithmetic refuses plain tuples; Godot's methods are to come).

Each is an immutable :class:`~gdvariant._values.base._Record` whose fields have Godot's names; the
composite ones (Rect2, Transform3D...) hold vectors as in Godot's API. Real components are
floats, integer ones ints, whatever the engine's wire width.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self, SupportsFloat

from ..base import _f, _field
from .operands import MathRecord
from .vectors import Vector3, Vector4

__all__ = [
    "AABB",
    "Plane",
    "Projection",
]


class Plane(MathRecord):
    """``Plane(normal, d)``."""

    __slots__ = ()
    _fields = ("normal", "d")

    def __new__(cls, normal: Iterable[float] = (0, 0, 0), d: SupportsFloat = 0.0) -> Self:
        return tuple.__new__(cls, (Vector3(*normal), _f(d)))

    normal: Vector3 = _field(0)

    d: float = _field(1)


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


class Projection(MathRecord):
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
