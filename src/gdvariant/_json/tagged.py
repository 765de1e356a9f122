"""The tagged JSON form: any gdvariant value as a JSON tree and back, without loss.

JSON's own values stand for themselves: null, true/false, integers (``int``), numbers written
with a ``.`` or an exponent (``float``), strings (``String``), arrays (an untyped ``Array``)
and objects without a ``"$type"`` member (an untyped ``Dictionary`` with String keys).
Everything else is an object whose ``"$type"`` names the Godot type; its other members are
listed in ``schemas/tagged-json.schema.json`` and in ``docs/json.md``. This module holds the
form's tables (type names, math and packed types, integer ranges) and :class:`Bad`;
:mod:`.tagged_write` turns values into JSON trees (Python lists, dicts, str, int, float,
bool, None), :mod:`.tagged_read` turns them back, and :mod:`.api` turns trees into text.

Floats are exact: a ``float`` is written as Python's shortest round-trip digits; a 32-bit
component (of a Vector2, Color, PackedFloat32Array...) as the shortest digits that round to the
same float32, unless the record is marked ``"float64": true``. Non-finite numbers are the
strings ``"inf"``, ``"-inf"``, ``"nan"``, or ``"0x"`` and the 16 hex digits of a NaN's bits.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable as Fn
from typing import Any

from .._engines.text_syntax import GODOT4_NAMES, SCALAR_NAMES
from .._values.base import VariantType
from .._values.layouts import LAYOUTS, PACKED_ARRAYS
from .._values.math import (
    AABB,
    Basis,
    Color,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Transform2D,
    Transform3D,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)
from .._values.packed import _PackedNumbers

__all__ = [
    "F64",
    "INT32",
    "INT64",
    "MATH_CLASS_NAMES",
    "MATH_SIZES",
    "MATH_TYPES",
    "NAMED_TYPES",
    "PACKED_CLASSES",
    "PACKED_NAMES",
    "TAG",
    "TYPE_NAMES",
    "U64",
    "U64_RANGE",
    "Bad",
    "member",
    "quote",
]

T = VariantType
#: The member that marks a tagged object.
TAG = "$type"

#: Godot 4's ``Variant::get_type_name`` of every type, and names for the types only older
#: engines and forks have. Element types of typed containers are spelled with these.
TYPE_NAMES: dict[VariantType, str] = {
    **SCALAR_NAMES,
    **GODOT4_NAMES,
    T.IMAGE: "Image",
    T.INPUT_EVENT: "InputEvent",
    T.PACKED_VECTOR2I_ARRAY: "PackedVector2iArray",
    T.PACKED_VECTOR3I_ARRAY: "PackedVector3iArray",
    T.PACKED_VECTOR4I_ARRAY: "PackedVector4iArray",
    T.TYPED_ARRAY: "TypedArray",
    T.PACKED_TYPED_ARRAY: "PackedTypedArray",
}
NAMED_TYPES = {name: vtype for vtype, name in TYPE_NAMES.items()}

F64 = struct.Struct("<d")
U64 = struct.Struct("<Q")
INT64 = (-(1 << 63), (1 << 63) - 1)
INT32 = (-(1 << 31), (1 << 31) - 1)
U64_RANGE = (0, (1 << 64) - 1)

# How to build each math type from its components in the order of its fields (columns for
# Basis and the rest; LAYOUTS' own order is the wire's, rows for Basis).
_BUILDERS: dict[VariantType, Fn[[list[Any]], Any]] = {
    T.VECTOR2: lambda c: Vector2(*c),
    T.VECTOR2I: lambda c: Vector2i(*c),
    T.RECT2: lambda c: Rect2(c[0:2], c[2:4]),
    T.RECT2I: lambda c: Rect2i(c[0:2], c[2:4]),
    T.VECTOR3: lambda c: Vector3(*c),
    T.VECTOR3I: lambda c: Vector3i(*c),
    T.TRANSFORM2D: lambda c: Transform2D(c[0:2], c[2:4], c[4:6]),
    T.VECTOR4: lambda c: Vector4(*c),
    T.VECTOR4I: lambda c: Vector4i(*c),
    T.PLANE: lambda c: Plane(c[0:3], c[3]),
    T.QUATERNION: lambda c: Quaternion(*c),
    T.AABB: lambda c: AABB(c[0:3], c[3:6]),
    T.BASIS: lambda c: Basis(c[0:3], c[3:6], c[6:9]),
    T.TRANSFORM3D: lambda c: Transform3D((c[0:3], c[3:6], c[6:9]), c[9:12]),
    T.PROJECTION: lambda c: Projection(c[0:4], c[4:8], c[8:12], c[12:16]),
    T.COLOR: lambda c: Color(*c),
}
#: Math types by name: the class, its component kind ("real", "f32" or "i32", from LAYOUTS)
#: and its builder from components in field order.
MATH_TYPES: dict[str, tuple[type, str, Fn[[list[Any]], Any]]] = {
    TYPE_NAMES[vtype]: (LAYOUTS[vtype].cls, LAYOUTS[vtype].kind, build)
    for vtype, build in _BUILDERS.items()
}
MATH_CLASS_NAMES = {cls: name for name, (cls, _, _) in MATH_TYPES.items()}
MATH_SIZES = {name: LAYOUTS[NAMED_TYPES[name]].components for name in MATH_TYPES}

#: Packed numeric arrays: (name, whether it is the 64-bit twin of a 32-bit vector array).
PACKED_NAMES: dict[type[_PackedNumbers], tuple[str, bool]] = {
    cls: (TYPE_NAMES[vtype], wide)
    for vtype, (narrow, flagged) in PACKED_ARRAYS.items()
    for cls, wide in ((narrow, False), (flagged, True))
    if not wide or flagged is not narrow
}
PACKED_CLASSES = {key: cls for cls, key in PACKED_NAMES.items()}


class Bad(Exception):
    """Malformed tagged JSON: ``reason``, and the path segments collected on the way out."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.segments: list[str] = []

    def at(self, segment: str) -> Bad:
        self.segments.append(segment)
        return self

    def path(self) -> str:
        """The jq-style path of the offending node: ``.``, ``.a[3]``, ``.["odd key"]``."""
        text = "".join(reversed(self.segments))
        return "." + text.removeprefix(".") if text else "."


def member(key: str) -> str:
    """The path segment of an object member."""
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        return "." + key
    return "[" + quote(key) + "]"


def quote(key: str) -> str:
    """``key`` as a JSON string, for paths and messages."""
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped + '"'
