"""Godot's math value type that is a record only so far: Projection (its arithmetic refuses
plain tuples; Godot's methods are to come).

It is an immutable record whose fields (four Vector4 columns) have Godot's names, as the other
math types are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self

from ..base import _field
from .operands import MathRecord
from .vectors import Vector4

__all__ = [
    "Projection",
]


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
