"""Value types only Godot 2.x has on the wire: ``Image`` (type 15) and ``InputEvent`` (type 19).

Godot 3 turned both into Objects, so they travel as values only with ``version="2"``. Facts:
``docs/binary-format.md`` ("Godot 2 only").
"""

from __future__ import annotations

import enum
from struct import Struct
from typing import Self, SupportsFloat, SupportsIndex

from .base import _f, _field, _i, _Record

__all__ = ["Image", "InputEvent", "InputEventType"]


class Image(_Record):
    """A Godot 2 ``Image``: format number, mipmap count, size and the raw pixel data.

    The data is kept exactly as written; nothing checks that it matches the size and format
    (Godot 2 itself turns a mismatch into an empty Image when it decodes one).
    """

    __slots__ = ()
    _fields = ("format", "mipmaps", "width", "height", "data")

    #: Godot 2's ``Image::FORMAT_MAX``: format numbers must be below it.
    FORMAT_MAX = 23

    def __new__(
        cls,
        format: SupportsIndex = 0,  # noqa: A002 - Godot's name
        mipmaps: SupportsIndex = 0,
        width: SupportsIndex = 0,
        height: SupportsIndex = 0,
        data: bytes | bytearray | memoryview = b"",
    ) -> Self:
        return tuple.__new__(cls, (_i(format), _i(mipmaps), _i(width), _i(height), bytes(data)))

    format: int = _field(0)

    mipmaps: int = _field(1)

    width: int = _field(2)

    height: int = _field(3)

    data: bytes = _field(4)


class InputEventType(enum.IntEnum):
    """Godot 2's ``InputEvent::Type``."""

    NONE = 0
    KEY = 1
    MOUSE_MOTION = 2
    MOUSE_BUTTON = 3
    JOYSTICK_MOTION = 4
    JOYSTICK_BUTTON = 5
    SCREEN_TOUCH = 6
    SCREEN_DRAG = 7
    ACTION = 8


class InputEvent(_Record):
    """What a Godot 2 ``InputEvent`` keeps on the wire.

    ``code`` is the key scancode (KEY), the button index (MOUSE_BUTTON, JOYSTICK_BUTTON), the
    axis (JOYSTICK_MOTION) or the touch index (SCREEN_TOUCH); ``modifiers`` is the KEY
    modifier mask (the ``MASK_*`` bits) and ``axis_value`` the JOYSTICK_MOTION value. Godot 2
    sends nothing else: positions, ``pressed``, ``echo`` and ``unicode`` are lost on the wire.
    """

    __slots__ = ()
    _fields = ("type", "device", "modifiers", "code", "axis_value")

    MASK_SHIFT = 1 << 25
    MASK_ALT = 1 << 26
    MASK_META = 1 << 27
    MASK_CTRL = 1 << 28
    #: Every modifier bit the wire carries.
    MODIFIER_MASK = MASK_SHIFT | MASK_ALT | MASK_META | MASK_CTRL

    def __new__(
        cls,
        type: SupportsIndex = InputEventType.NONE,  # noqa: A002 - Godot's name
        device: SupportsIndex = 0,
        modifiers: SupportsIndex = 0,
        code: SupportsIndex = 0,
        axis_value: SupportsFloat = 0.0,
    ) -> Self:
        return tuple.__new__(cls, (_i(type), _i(device), _i(modifiers), _i(code), _f(axis_value)))

    type: int = _field(0)

    device: int = _field(1)

    modifiers: int = _field(2)

    code: int = _field(3)

    axis_value: float = _field(4)


#: The fields each event type sends after its type, device and length words: (modifiers, code)
#: for KEY, (code, axis_value) for JOYSTICK_MOTION, (code,) for the button and touch events.
#: Other types send nothing more.
EVENT_PAYLOADS: dict[int, Struct] = {
    InputEventType.KEY: Struct("<Ii"),
    InputEventType.MOUSE_BUTTON: Struct("<i"),
    InputEventType.JOYSTICK_MOTION: Struct("<if"),
    InputEventType.JOYSTICK_BUTTON: Struct("<i"),
    InputEventType.SCREEN_TOUCH: Struct("<i"),
}
