"""The compressed Variant form of SceneMultiplayer (``encode_and_compress_variant``).

Every RPC argument and every spawn or sync value is one of these. The first byte is a meta
byte: bits 0-5 the Variant type, bits 6-7 an encode mode. BOOL keeps its value in bit 7 and
takes one byte; INT is written in the smallest of 8/16/32/64 bits that holds it (mode 0-3);
every other type is exactly ``var_to_bytes`` (its first byte is already the type). Lists are
plain concatenations: the count comes from the packet or the replication config.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

from ... import DEFAULT_LIMITS, DecodeError, EncodeError, Limits, decode, dumps
from ._reader import Buffer

__all__ = [
    "decode_compressed",
    "decode_compressed_list",
    "encode_compressed",
    "encode_compressed_list",
]

BOOL = 1
INT = 2
TYPE_MASK = 0x3F
MODE_SHIFT = 6
BOOL_TRUE = 0x80
#: (mode, struct) for INT, smallest first: the encoder takes the first that holds the value.
INT_FORMS = (
    (0, struct.Struct("<b")),
    (1, struct.Struct("<h")),
    (2, struct.Struct("<i")),
    (3, struct.Struct("<q")),
)
INT_BY_MODE = dict(INT_FORMS)
#: (low, high, INT meta byte, struct) per INT form, smallest first: the bounds worked out once.
INT_RANGES = tuple(
    (-(1 << (form.size * 8 - 1)), 1 << (form.size * 8 - 1), INT | mode << MODE_SHIFT, form)
    for mode, form in INT_FORMS
)


def encode_compressed(value: Any, *, full_objects: bool = False) -> bytes:
    """``value`` as SceneMultiplayer writes it: the same bytes as Godot 4.6 for every type."""
    if isinstance(value, bool):
        return bytes([BOOL | (BOOL_TRUE if value else 0)])
    if isinstance(value, int):
        for low, high, meta, form in INT_RANGES:
            if low <= value < high:
                return bytes((meta,)) + form.pack(value)
        raise EncodeError(f"int {value} does not fit in 64 bits")
    return dumps(value, full_objects=full_objects)


def encode_compressed_list(values: Iterable[Any], *, full_objects: bool = False) -> bytes:
    """Values back to back, with no count (``encode_and_compress_variants``)."""
    return b"".join(encode_compressed(value, full_objects=full_objects) for value in values)


def decode_compressed(
    data: Buffer,
    offset: int = 0,
    *,
    end: int | None = None,
    allow_objects: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Any, int]:
    """Decode one compressed value at ``offset`` (reading no further than ``end``); return it
    and the offset after it. Any width of INT is accepted, as Godot's decoder does."""
    view = memoryview(data)
    stop = len(view) if end is None else end
    if offset >= stop:
        raise DecodeError("truncated value: no meta byte", offset)
    meta = view[offset]
    kind, mode = meta & TYPE_MASK, meta >> MODE_SHIFT
    if kind == BOOL:  # Godot reads bit 7 only, whatever the mode bits say
        return bool(meta & BOOL_TRUE), offset + 1
    if kind == INT:
        form = INT_BY_MODE[mode]
        if offset + 1 + form.size > stop:
            raise DecodeError(f"truncated {form.size * 8}-bit INT", offset)
        return int(form.unpack_from(view, offset + 1)[0]), offset + 1 + form.size
    value, size = decode(view[:stop], offset=offset, allow_objects=allow_objects, limits=limits)
    return value, offset + size


def decode_compressed_list(
    data: Buffer,
    offset: int = 0,
    *,
    end: int | None = None,
    count: int | None = None,
    allow_objects: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[list[Any], int]:
    """Decode ``count`` values from ``offset``, or every value up to ``end`` when ``count`` is
    None (then the values must fill that span exactly); return them and the offset after."""
    stop = memoryview(data).nbytes if end is None else end
    if count is not None and type(data) is bytes:
        return _decode_counted(data, offset, stop, count, allow_objects, limits)
    values: list[Any] = []
    while (len(values) < count) if count is not None else (offset < stop):
        value, offset = decode_compressed(
            data, offset, end=stop, allow_objects=allow_objects, limits=limits
        )
        values.append(value)
    return values, offset


def _decode_counted(
    data: bytes, offset: int, stop: int, count: int, allow_objects: bool, limits: Limits
) -> tuple[list[Any], int]:
    """:func:`decode_compressed_list` of ``count`` values from bytes (an RPC's arguments):
    BOOL and INT read here, with no call per value; anything else, or an INT cut short, by
    :func:`decode_compressed`, which gives the same values and the same errors."""
    values: list[Any] = []
    append = values.append
    while len(values) < count:
        meta = data[offset] if offset < stop else TYPE_MASK  # none: the general path's error
        kind = meta & TYPE_MASK
        if kind == BOOL:
            append(bool(meta & BOOL_TRUE))
            offset += 1
            continue
        if kind == INT:
            form = INT_BY_MODE[meta >> MODE_SHIFT]
            if offset + 1 + form.size <= stop:
                append(form.unpack_from(data, offset + 1)[0])
                offset += 1 + form.size
                continue
        value, offset = decode_compressed(
            data, offset, end=stop, allow_objects=allow_objects, limits=limits
        )
        append(value)
    return values, offset
