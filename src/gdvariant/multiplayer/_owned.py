"""What a client's synchronizer may set: each value its owner syncs checked against the
property's type in the owned NetClass before anything keeps it.

A stock Godot client sends each property with the Variant type its script declares, so a
well-typed value is the one path that must stay cheap: one ``type(value) is`` test, then the
codec's own ``encode`` as the range check (an ``Int(16)`` in 16 bits, a ``Str`` within its
bytes and without NUL, a ``Quant`` within its range), so that a kept value is one
``node.state`` would also take. Another type is converted where Godot 4.6 converts it when
a sync sets a typed property (docs/multiplayer.md, "What an owner may sync": numbers into
each other, integer vectors into float ones, a StringName or NodePath into a String); anything
else, and a value out of range, is a :class:`~gdvariant.multiplayer.wire.ProtocolError`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

from .. import (
    EncodeError,
    NodePath,
    Quaternion,
    StringName,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)
from .._floats import f32
from .._net.peerlog import clip
from ..replication import (
    Angle,
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    Coord,
    EntityRef,
    Enum,
    Float32,
    Float64,
    Half,
    Int,
    Normal,
    Quant,
    Quat,
    Str,
    UInt,
    Variant,
    VarInt,
    VarUInt,
    Vec2,
    Vec3,
    Vec4,
)
from .wire import ProtocolError

#: nothing here is public: the synchronizers' own machinery, reached by module
__all__: list[str] = []

#: ``check(value)``: the value to keep (converted as Godot converts it), or ProtocolError
Check = Callable[[Any], Any]

_INT_LOW, _INT_END = -(1 << 63), 1 << 63
_FLOATS = (Quant, Coord, Angle, Half, Float32, Float64)
#: each vector codec's Godot type, and the integer vector Godot converts into it
_VECTORS: tuple[tuple[type[Codec], type, type], ...] = (
    (Vec2, Vector2, Vector2i),
    (Vec3, Vector3, Vector3i),
    (Normal, Vector3, Vector3i),
    (Vec4, Vector4, Vector4i),
)


def _described(value: Any) -> str:
    """A client's value named in a few words: its type, and its value when that is one
    number or a clipped string; never the repr of a container (a client's may be 1,024
    levels deep, past Python's recursion limit)."""
    kind = type(value)
    if value is None or kind in (bool, int, float):
        return f"{kind.__name__} {value!r}"
    if isinstance(value, str):
        return f"{kind.__name__} '{clip(value, 24)}'"
    try:
        return f"{kind.__name__} of {len(value)}"
    except TypeError:
        return kind.__name__


def _refuse(value: Any, codec: Codec) -> ProtocolError:
    return ProtocolError(f"{_described(value)} is no value of {codec!r}")


def _as_int(value: Any, codec: Codec) -> int:
    """An int from a bool, or from a float truncated toward zero as Godot's ``int()`` does;
    a float that no int64 holds (Godot makes it -2**63) is refused."""
    kind = type(value)
    if kind is bool:
        return int(value)
    if kind is float and math.isfinite(value):
        whole = int(value)  # toward zero
        if _INT_LOW <= whole < _INT_END:
            return whole
    raise _refuse(value, codec)


def _as_float(value: Any, codec: Codec) -> float:
    if type(value) is int or type(value) is bool:
        return float(value)
    raise _refuse(value, codec)


def _as_bool(value: Any, codec: Codec) -> bool:
    if type(value) is int or type(value) is float:
        return bool(value)
    raise _refuse(value, codec)


def _as_string(value: Any, codec: Codec) -> str:
    if isinstance(value, StringName | NodePath):
        return str(value)
    raise _refuse(value, codec)


def _typed(
    codec: Codec,
    kind: type,
    convert: Callable[[Any, Codec], Any],
    domain: Callable[[Any], object] | None,
) -> Check:
    """A check for values of ``kind``, others through ``convert``, then ``domain`` (the
    codec's ``encode``, or None when the type says all)."""

    def check(value: Any) -> Any:
        if type(value) is not kind:
            value = convert(value, codec)
        if domain is not None:
            try:
                domain(value)
            except (EncodeError, TypeError, ValueError, OverflowError) as exc:
                raise ProtocolError(f"{_described(value)} is outside {codec!r}: {exc}") from None
        return value

    return check


def _unsigned(codec: Codec) -> Callable[[Any], object]:
    """``codec.encode`` of an unsigned value as Godot holds it: 2**63 and above negative."""
    encode = codec.encode
    return lambda v: encode(v + (1 << 64) if v < 0 else v)


def _members(codec: Enum) -> Callable[[Any], object]:
    allowed = frozenset(codec.describe()[3])

    def member(value: Any) -> None:
        if value not in allowed:
            raise EncodeError(f"no member is {value}")

    return member


def _vector(codec: Codec, kind: type, ints: type) -> Check:
    def convert(value: Any, codec: Codec) -> Any:
        if type(value) is not ints:
            raise _refuse(value, codec)
        return kind(*(f32(float(c)) for c in cast("tuple[int, ...]", value)))

    return _typed(codec, kind, convert, codec.encode)


def _entity_ref(codec: EntityRef) -> Check:
    ints = _typed(codec, int, _as_int, codec.encode)
    return lambda value: None if value is None else ints(value)


def _array(codec: ArrayOf) -> Check:
    element = value_check(codec.element)

    def check(value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise _refuse(value, codec)
        if len(value) > codec.max_len:
            raise ProtocolError(f"{len(value)} elements do not fit {codec!r}")
        out = []
        for i, item in enumerate(value):
            try:
                out.append(element(item))
            except ProtocolError as exc:
                raise ProtocolError(f"element {i} of {codec!r}: {exc.reason}") from None
        return out

    return check


def _anything(codec: Variant) -> Check:
    def check(value: Any) -> Any:
        try:
            codec.encode(value)
        except (EncodeError, TypeError, ValueError, OverflowError) as exc:
            raise ProtocolError(f"{_described(value)} is outside {codec!r}: {exc}") from None
        return value

    return check


def value_check(codec: Codec) -> Check:
    """The check of one property's values, as Godot holds them (``godot_value``)."""
    if isinstance(codec, Bool):
        return _typed(codec, bool, _as_bool, None)
    if isinstance(codec, UInt | VarUInt):
        return _typed(codec, int, _as_int, _unsigned(codec))
    if isinstance(codec, Int | VarInt):
        return _typed(codec, int, _as_int, codec.encode)
    if isinstance(codec, Enum):
        return _typed(codec, int, _as_int, _members(codec))
    if isinstance(codec, EntityRef):
        return _entity_ref(codec)
    if isinstance(codec, _FLOATS):
        return _typed(codec, float, _as_float, codec.encode)
    for vec, kind, ints in _VECTORS:
        if isinstance(codec, vec):
            return _vector(codec, kind, ints)
    if isinstance(codec, Quat):
        return _typed(codec, Quaternion, _refuse_any, codec.encode)
    if isinstance(codec, Bytes):  # before Str: a Bytes is a Str
        return _typed(codec, bytes, _refuse_any, codec.encode)
    if isinstance(codec, Str):
        return _typed(codec, str, _as_string, codec.encode)
    if isinstance(codec, ArrayOf):
        return _array(codec)
    if isinstance(codec, Variant):
        return _anything(codec)
    raise TypeError(f"no check for {codec!r}")


def _refuse_any(value: Any, codec: Codec) -> Any:
    raise _refuse(value, codec)
