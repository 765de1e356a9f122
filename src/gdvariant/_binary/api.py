"""The one-call API: ``dumps``, ``loads`` and ``decode``."""

from __future__ import annotations

from typing import Any

from .._engines.profiles import Profile, get_profile
from .._limits import DEFAULT_LIMITS, Limits
from . import core
from .codec import Buffer, codec_for

__all__ = ["decode", "dumps", "loads"]

# The default options (Godot 4, no objects, default limits) go straight to the core: for a
# small message, resolving the options would cost as much as the decoding itself.
_GODOT4 = get_profile("4")


def dumps(
    value: Any,
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    full_objects: bool = False,
) -> bytes:
    """Encode ``value`` as Godot's ``var_to_bytes`` would.

    ``version`` picks the engine release (see ``gdvariant versions``); ``double=True`` writes
    as a ``precision=double`` build of it (Godot 4), with 64-bit math types.
    With ``full_objects=True``, as ``var_to_bytes_with_objects``: :class:`GodotObject` values are
    written whole, and typed containers keep their class names and script paths.
    Raises :class:`EncodeError` (naming the path) for values the engine cannot hold.
    """
    if version == "4" and not double and not full_objects:
        return core.encode_value(value, _GODOT4, False)
    return codec_for(version, double, False, full_objects).encode(value)


def decode(
    data: Buffer,
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    offset: int = 0,
    limits: Limits = DEFAULT_LIMITS,
    packed_views: bool = False,
) -> tuple[Any, int]:
    """Decode the value at ``offset`` in ``data``; return it and how many bytes it used.

    The count is what Godot's ``decode_var_size`` reports. Bytes after the value are ignored.
    Full objects are refused unless ``allow_objects=True``; decoded objects are inert records.
    The value is what the engine holds after reading the bytes, so ``dumps`` writes it back:
    both 32- and 64-bit reals (math types, packed vectors) are read, and held at the build's
    width, float32 unless ``double=True`` (a 64-bit 1e300 reads as inf, as in Godot 4.6).
    ``limits`` caps depth, size, lengths and counts (:class:`Limits`; safe defaults).
    ``packed_views=True``: numeric packed arrays and PackedByteArrays come back as
    :class:`PackedView` objects over ``data``, not copies (see :func:`loads`).
    """
    codec = codec_for(version, double, allow_objects, False, limits, packed_views)
    try:
        value, end = codec.decode(data, offset)
    except TypeError:
        if isinstance(data, str):
            raise _text_given("decode") from None
        raise
    return value, end - offset


def loads(
    data: Buffer,
    *,
    version: str | int | Profile = "4",
    double: bool = False,
    allow_objects: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    packed_views: bool = False,
) -> Any:
    """Decode ``data``, which must hold exactly one value (``bytes_to_var`` with no leftovers).

    ``packed_views=True`` skips copying packed arrays: each numeric packed array and
    PackedByteArray comes back as a read-only :class:`PackedView` of its bytes in ``data``,
    which it keeps alive. ``dumps`` writes a view as its array. Pass ``bytes`` (or do not
    change the buffer while views of it live: they see the change, and a ``bytearray`` cannot
    be resized meanwhile).
    """
    try:
        if version == "4" and not double and not allow_objects and limits is DEFAULT_LIMITS:
            return core.decode_whole(data, _GODOT4, False, DEFAULT_LIMITS, packed_views)
        codec = codec_for(version, double, allow_objects, False, limits, packed_views)
        return codec.decode_whole(data)
    except TypeError:
        if isinstance(data, str):
            raise _text_given("loads") from None
        raise


def _text_given(name: str) -> TypeError:
    """A str where bytes belong: what to give instead."""
    return TypeError(
        f"{name}() reads bytes, not str: give it the bytes var_to_bytes wrote (open files "
        "with open(path, 'rb')); for Godot's text syntax use gdvariant.from_text()"
    )
