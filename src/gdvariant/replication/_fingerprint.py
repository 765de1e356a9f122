"""The canonical schema description, its fingerprints, and a readable diff.

The description is a plain Godot value (nested Arrays, never Dictionaries, so its bytes are
canonical) that a client can receive with ``bytes_to_var`` and build a decoder from::

    ["gdvariant.replication", FORMAT, [class, ...]]          classes in class-id order
    class = [table name, class id, [prop, ...]]              props in flat-index order
    prop  = [index, path, codec descriptor, audience ("" = everyone), flags (1 = hot),
             default's bit width, default's bits as PackedByteArray (little-endian)]

A fingerprint is BLAKE2b with an 8-byte digest (``hashlib``, never Python's salted
``hash()``) of gdvariant's Variant encoding of a class description (per class) or of the
whole description (global).
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Sequence
from typing import Any

import gdvariant

from ._codecs import (
    ArrayOf,
    Bool,
    Bytes,
    Codec,
    EntityRef,
    Enum,
    Int,
    Str,
    UInt,
    Variant,
    VarInt,
    VarUInt,
)
from ._flatten import FlatProp
from ._float_codecs import (
    Angle,
    Coord,
    Float32,
    Float64,
    Half,
    Normal,
    Quant,
    Quat,
    Vec2,
    Vec3,
    Vec4,
)

__all__ = [
    "DESCRIPTION_TAG",
    "FORMAT",
    "class_description",
    "codec_from_description",
    "diff_descriptions",
    "fingerprint",
    "prop_description",
]

DESCRIPTION_TAG = "gdvariant.replication"
#: Bumped whenever the description or the wire format changes meaning.
FORMAT = 2


def prop_description(prop: FlatProp) -> list[Any]:
    """One flat property as the description lists it."""
    bits, width = prop.codec.encode(prop.default)
    return [
        prop.index,
        prop.path,
        prop.codec.describe(),
        prop.audience or "",
        1 if prop.hot else 0,
        width,
        bits.to_bytes((width + 7) >> 3, "little"),
    ]


def class_description(name: str, class_id: int, props: Sequence[FlatProp]) -> list[Any]:
    """One class as the description lists it."""
    return [name, class_id, [prop_description(p) for p in props]]


def fingerprint(description: Any) -> bytes:
    """BLAKE2b-64 of the Variant encoding of ``description``."""
    return hashlib.blake2b(gdvariant.dumps(description), digest_size=8).digest()


def _show(prop: Sequence[Any]) -> str:
    index, path, codec, audience, flags, width, _ = prop
    extra = (" hot" if flags & 1 else "") + (f" audience={audience}" if audience else "")
    return f"[{index}] {path} {codec}{extra} (default {width} bits)"


def diff_descriptions(a: Sequence[Any], b: Sequence[Any]) -> list[str]:
    """What differs between two descriptions, one line per class, naming the first
    differing property; empty when they agree."""
    lines: list[str] = []
    if list(a[:2]) != list(b[:2]):
        lines.append(f"format: {list(a[:2])} != {list(b[:2])}")
    left = {c[0]: c for c in a[2]}
    right = {c[0]: c for c in b[2]}
    for name in sorted(left.keys() | right.keys()):
        if name not in right:
            lines.append(f"{name}: only in the first schema")
            continue
        if name not in left:
            lines.append(f"{name}: only in the second schema")
            continue
        ca, cb = left[name], right[name]
        if ca[1] != cb[1]:
            lines.append(f"{name}: class id {ca[1]} != {cb[1]}")
        pa, pb = ca[2], cb[2]
        for i in range(max(len(pa), len(pb))):
            sa = _show(pa[i]) if i < len(pa) else "(none)"
            sb = _show(pb[i]) if i < len(pb) else "(none)"
            if i >= len(pa) or i >= len(pb) or list(pa[i]) != list(pb[i]):
                if sa == sb:
                    sa, sb = repr(list(pa[i])), repr(list(pb[i]))
                lines.append(f"{name}: first difference at index {i}: {sa} != {sb}")
                break
    return lines


def codec_from_description(desc: Sequence[Any]) -> Codec:
    """Rebuild a codec from its ``describe()`` list (a client's half of the handshake)."""
    if not isinstance(desc, Sequence) or not desc or not isinstance(desc[0], str):
        raise ValueError(f"not a codec descriptor: {desc!r}")
    name, params = desc[0], list(desc[1:])
    if name in _SIMPLE:
        simple: Codec = _SIMPLE[name](*params)
        return simple
    if name in ("Vec2", "Vec3", "Vec4"):
        return _VECS[name](codec_from_description(params[0]))
    if name == "ArrayOf":
        return ArrayOf(codec_from_description(params[0]), int(params[1]))
    if name == "Enum":
        enum_name, names, values = params
        made = enum.IntEnum(str(enum_name), list(zip(names, values, strict=True)))  # type: ignore[misc]
        return Enum(made)
    raise ValueError(f"unknown codec {name!r}")


_SIMPLE: dict[str, Any] = {
    c.name: c
    for c in (
        Bool,
        UInt,
        Int,
        VarUInt,
        VarInt,
        Quant,
        Coord,
        Angle,
        Normal,
        Quat,
        Half,
        Float32,
        Float64,
        Str,
        Bytes,
        EntityRef,
        Variant,
    )
}
_VECS: dict[str, type[Vec2] | type[Vec3] | type[Vec4]] = {"Vec2": Vec2, "Vec3": Vec3, "Vec4": Vec4}
