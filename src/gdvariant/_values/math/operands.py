"""What the math types' operators accept: Godot's scalars, and a clear error for the rest.

The types are tuples, so a plain tuple or list on either side of ``+`` or ``*`` would
otherwise concatenate or repeat; every operator raises :class:`TypeError` instead.
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = ["is_scalar", "mixed", "wrap32"]


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
