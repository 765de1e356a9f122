"""What the math types' operators accept: Godot's scalars, and a clear error for the rest.

The types are tuples, so a plain tuple or list on either side of ``+`` or ``*`` would
otherwise concatenate or repeat; every operator raises :class:`TypeError` instead.
"""

from __future__ import annotations

from typing import Any, NoReturn

from ..base import _Record

__all__ = ["MathRecord", "is_scalar", "mixed", "wrap32"]


def is_scalar(value: object) -> bool:
    """An int or float (not a bool): what GDScript's ``int`` and ``float`` arrive as."""
    kind = type(value)
    if kind is float or kind is int:
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def mixed(op: str, left: Any, right: Any) -> NoReturn:
    """Raise the TypeError for ``left op right`` that Godot's Variant operators refuse."""
    hint = ""
    if type(left) in (tuple, list) or type(right) in (tuple, list):
        hint = " (math types do not mix with plain tuples or lists: build the Godot type first)"
    raise TypeError(
        f"unsupported operand types for {op}: {type(left).__name__!r} and "
        f"{type(right).__name__!r}{hint}"
    )


def wrap32(value: int) -> int:
    """``value`` as a C ``int32_t`` holds it after a wrapping operation."""
    return ((value + 0x80000000) & 0xFFFFFFFF) - 0x80000000


class MathRecord(_Record):
    """Base of the math types: a tuple whose ``+ - * / %`` are Godot's or a TypeError, never
    the tuple's concatenation or repetition. A type defines the operators Godot has."""

    __slots__ = ()

    def __add__(self, other: object) -> Any:
        mixed("+", self, other)

    def __radd__(self, other: object) -> Any:
        mixed("+", other, self)

    def __sub__(self, other: object) -> Any:
        mixed("-", self, other)

    def __rsub__(self, other: object) -> Any:
        mixed("-", other, self)

    def __mul__(self, other: object) -> Any:
        if isinstance(other, MathRecord):
            return NotImplemented  # Rect2 * Transform2D: the transform's __rmul__ answers
        mixed("*", self, other)

    def __rmul__(self, other: object) -> Any:
        mixed("*", other, self)

    def __truediv__(self, other: object) -> Any:
        mixed("/", self, other)

    def __rtruediv__(self, other: object) -> Any:
        mixed("/", other, self)

    def __mod__(self, other: object) -> Any:
        mixed("%", self, other)

    def __rmod__(self, other: object) -> Any:
        mixed("%", other, self)

    def _same(self, other: Any) -> Any:
        """``other``, checked to be of this type (a method's argument)."""
        if type(other) is not type(self):
            raise TypeError(
                f"expected a {type(self).__name__}, got {type(other).__name__} "
                "(math types do not mix with other types or plain tuples)"
            )
        return other
