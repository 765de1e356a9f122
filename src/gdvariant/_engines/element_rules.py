"""What a typed container does with an element of another type, per engine, as data.

Godot 4.3+ decodes a typed Array by typing an empty Array and ``push_back``-ing each element,
and a typed Dictionary (4.4+) by storing each pair; both run the element (for a Dictionary only
the key: values are stored unchecked) through the container's type check. A mismatched element
that ``Variant::can_convert_strict`` allows is converted as the target type's constructor would
convert it (a float into ``Array[int]`` truncates, an int into ``Array[bool]`` is ``!= 0``...);
any other is dropped with an error print while decoding goes on, so the container comes out
shorter and ``decode_var_size`` still counts every byte. ``null`` fits any Object type.
Pandemonium's ``TypedArray`` takes only its own type (and ``null`` for Objects), converting
nothing. Facts: ``docs/binary-format.md`` ("Containers and packed arrays"); checked against
Godot 4.6.3 by ``tests/vectors/godot4.6/typed_containers.json``.

Elements of the right type never reach this module: the decoders compare type numbers and call
:func:`admit` only for a mismatch (or, with full objects, an Object in a class-typed container).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable as Fn
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .._floats import f32 as _f32
from .._values.base import RID, GodotObject, NodePath, StringName, VariantType
from .._values.collections import ContainerKind, ElementType
from .._values.color_names import named_color as _named
from .._values.layouts import PACKED_ARRAYS
from .._values.math import (
    Basis,
    Color,
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
from .._values.packed import PackedStringArray, PackedView
from .profiles import KIND_BARE_RID

__all__ = ["DROP", "ElementRules", "Unconvertible", "admit", "rules_for"]

T = VariantType
_new = tuple.__new__

#: What :func:`admit` returns for an element the container refuses.
DROP: Any = object()

_INT64_MIN = -(2**63)
_INT32_MIN = -(2**31)


def _trunc(x: float, low: int) -> int:
    """A C cast of a double to a signed int of ``-low * 2`` range on x86-64: truncation, and the
    "integer indefinite" value (the minimum) for NaN, infinities and anything out of range."""
    if x != x or not low <= x < -low:
        return low
    return int(x)


def _to_int(x: float) -> int:
    return _trunc(x, _INT64_MIN)


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(_trunc(c, _INT32_MIN) for c in values)


def _reals(values: Any) -> tuple[float, ...]:
    return tuple(_f32(float(c)) for c in values)


def _doubles(values: Any) -> tuple[float, ...]:
    """:mod:`.reals` for a double build, whose ``real_t`` is a double."""
    return tuple(float(c) for c in values)


# ---- conversions between math types (Variant constructors, float32 ``real_t``) -------------


def _basis_from_quaternion(q: Quaternion) -> Basis:
    """``Basis(Quaternion)``: the rotation matrix of q scaled by 2 / |q|^2, in float32 steps."""
    x, y, z, w = q
    d = _f32(_f32(_f32(_f32(x * x) + _f32(y * y)) + _f32(z * z)) + _f32(w * w))
    s = _f32(2.0 / d) if d else math.copysign(math.inf, d) if d == d else math.nan
    xs, ys, zs = _f32(x * s), _f32(y * s), _f32(z * s)
    wx, wy, wz = _f32(w * xs), _f32(w * ys), _f32(w * zs)
    xx, xy, xz = _f32(x * xs), _f32(x * ys), _f32(x * zs)
    yy, yz, zz = _f32(y * ys), _f32(y * zs), _f32(z * zs)
    rows = (
        (_f32(1 - _f32(yy + zz)), _f32(xy - wz), _f32(xz + wy)),
        (_f32(xy + wz), _f32(1 - _f32(xx + zz)), _f32(yz - wx)),
        (_f32(xz - wy), _f32(yz + wx), _f32(1 - _f32(xx + yy))),
    )
    return _basis_of_rows(rows)


def _basis_of_rows(rows: Any) -> Basis:
    return Basis(*(tuple(r[i] for r in rows) for i in range(3)))


def _rows(b: Basis) -> tuple[tuple[float, float, float], ...]:
    return tuple((b[0][i], b[1][i], b[2][i]) for i in range(3))


_CMP_EPSILON = 0.00001
_UNIT_EPSILON = 0.001


def _approx(a: float, b: float, tolerance: float = _CMP_EPSILON) -> bool:
    if a == b:
        return True
    return abs(a - b) < max(tolerance * abs(a), tolerance)


def _is_rotation(b: Basis) -> bool:
    """Godot 4's ``Basis::is_rotation``: conformal columns and a determinant of about 1."""
    cx, cy, cz = b

    def dot(u: Any, v: Any) -> float:
        return float(u[0] * v[0] + u[1] * v[1] + u[2] * v[2])

    lx = dot(cx, cx)
    conformal = (
        _approx(lx, dot(cy, cy))
        and _approx(lx, dot(cz, cz))
        and abs(dot(cx, cy)) < _CMP_EPSILON
        and abs(dot(cx, cz)) < _CMP_EPSILON
        and abs(dot(cy, cz)) < _CMP_EPSILON
    )
    r = _rows(b)
    det = (
        r[0][0] * (r[1][1] * r[2][2] - r[2][1] * r[1][2])
        - r[1][0] * (r[0][1] * r[2][2] - r[2][1] * r[0][2])
        + r[2][0] * (r[0][1] * r[1][2] - r[1][1] * r[0][2])
    )
    return conformal and _approx(det, 1.0, _UNIT_EPSILON)


def _quaternion_from_basis(b: Basis) -> Quaternion:
    """``Quaternion(Basis)``: identity (with an error print) unless b is a rotation, else the
    classic trace method in float32 steps."""
    if not _is_rotation(b):
        return Quaternion()
    m = _rows(b)
    trace = _f32(_f32(m[0][0] + m[1][1]) + m[2][2])
    q = [0.0, 0.0, 0.0, 0.0]
    if trace > 0.0:
        s = _f32(math.sqrt(_f32(trace + 1.0)))
        q[3] = _f32(s * 0.5)
        s = _f32(0.5 / s)
        q[0] = _f32(_f32(m[2][1] - m[1][2]) * s)
        q[1] = _f32(_f32(m[0][2] - m[2][0]) * s)
        q[2] = _f32(_f32(m[1][0] - m[0][1]) * s)
    else:
        largest = 1 if m[0][0] < m[1][1] else 0
        i = 2 if m[largest][largest] < m[2][2] else largest
        j, k = (i + 1) % 3, (i + 2) % 3
        s = _f32(math.sqrt(_f32(_f32(_f32(m[i][i] - m[j][j]) - m[k][k]) + 1.0)))
        q[i] = _f32(s * 0.5)
        s = _f32(0.5 / s)
        q[3] = _f32(_f32(m[k][j] - m[j][k]) * s)
        q[j] = _f32(_f32(m[j][i] + m[i][j]) * s)
        q[k] = _f32(_f32(m[k][i] + m[i][k]) * s)
    return Quaternion(*q)


def _transform2d_from_3d(t: Transform3D) -> Transform2D:
    basis, origin = t
    return Transform2D(basis[0][:2], basis[1][:2], origin[:2])


def _transform3d_from_2d(t: Transform2D) -> Transform3D:
    x, y, origin = t
    return Transform3D(((x[0], x[1], 0.0), (y[0], y[1], 0.0), (0.0, 0.0, 1.0)), (*origin, 0.0))


def _transform3d_from_projection(p: Projection) -> Transform3D:
    x, y, z, w = p
    return Transform3D((x[:3], y[:3], z[:3]), w[:3])


def _projection_from_transform3d(t: Transform3D) -> Projection:
    (x, y, z), origin = t
    return Projection((*x, 0.0), (*y, 0.0), (*z, 0.0), (*origin, 1.0))


def _color_from_int(n: int) -> Color:
    """``Color(int)``: the low 32 bits as RGBA8 (``Color.hex``)."""
    n &= 0xFFFFFFFF
    return Color(*(_f32(((n >> shift) & 0xFF) / 255.0) for shift in (24, 16, 8, 0)))


def _html_color(text: str) -> Color | None:
    """An HTML colour (``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, ``#`` optional)."""
    digits = text[1:] if text.startswith("#") else text
    if len(digits) not in (3, 4, 6, 8) or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None
    if len(digits) < 6:
        channels = [int(c, 16) * 17 for c in digits]
    else:
        channels = [int(digits[i : i + 2], 16) for i in range(0, len(digits), 2)]
    if len(channels) == 3:
        channels.append(255)
    return Color(*(_f32(c / 255.0) for c in channels))


def _color_from_string(text: str) -> Color:
    """``Color(String)``: an HTML colour, else a named one, else opaque black."""
    html = _html_color(text)
    if html is not None:
        return html
    named = _named(text)
    return named if named is not None else Color()


# ---- Packed arrays <-> Array -----------------------------------------------------------------

#: Godot 4's packed arrays: each converts to and from an Array.
_PACKED_TYPES = (
    *(T.PACKED_BYTE_ARRAY, T.PACKED_INT32_ARRAY, T.PACKED_INT64_ARRAY, T.PACKED_FLOAT32_ARRAY),
    *(T.PACKED_FLOAT64_ARRAY, T.PACKED_STRING_ARRAY, T.PACKED_VECTOR2_ARRAY),
    *(T.PACKED_VECTOR3_ARRAY, T.PACKED_COLOR_ARRAY, T.PACKED_VECTOR4_ARRAY),
)


class Unconvertible(Exception):
    """A conversion Godot performs that gdvariant does not model; the decoder reports it as a
    :class:`~gdvariant.DecodeError` at the element, with the code ``ERR_UNAVAILABLE``."""


def _unsupported(what: str) -> Unconvertible:
    return Unconvertible(f"Godot converts {what} here; gdvariant does not model that conversion")


def _array_from_packed(value: Any) -> list[Any]:
    if isinstance(value, PackedView):
        value = value.topacked()
    return list(value)


_PLAIN_INT = re.compile(r"-?[0-9]{1,18}")
_DIGITS = frozenset("0123456789")  # Godot's is_digit: ASCII only


def _text_number(v: str, what: str) -> int:
    """``String::to_int`` / ``to_float`` where their result is certain: 0 for text without
    digits, the number for a plain decimal integer."""
    if not any(c in _DIGITS for c in v):
        return 0
    if _PLAIN_INT.fullmatch(v):
        return int(v)
    raise _unsupported(f"the text {v[:20]!r} into a packed {what} element")


def _plain_text(v: Any) -> bool:
    return isinstance(v, str) and not isinstance(v, StringName)


def _as_int(v: Any, narrow: bool = False) -> int:
    """``Variant::operator int64_t``: numbers as numbers, text parsed, anything else 0. For
    ``narrow`` (int32 and byte elements) a float is cast to a 32-bit int, which gives the
    minimum for NaN, infinities and anything out of range."""
    if v is None:
        return 0
    if isinstance(v, (bool, int)):
        return int(v)
    if isinstance(v, float):
        return _trunc(v, _INT32_MIN) if narrow else _to_int(v)
    if _plain_text(v):
        return _text_number(v, "integer")
    return 0  # a StringName or NodePath too: only a String is parsed (measured, 4.6.3)


def _as_float(v: Any) -> float:
    """``Variant::operator double``, as :func:`_as_int`."""
    if v is None:
        return 0.0
    if isinstance(v, (bool, int, float)):
        return float(v)
    if _plain_text(v):
        if "-" in v and not any(c in _DIGITS for c in v):
            # Godot 4.6.3 reads a sign without digits as -0.0 (seen in the live test with
            # "-.\t..."); which minus signs count (after blanks, mid-text) is not pinned down.
            raise _unsupported(f"the text {v[:20]!r} into a packed float element")
        return float(_text_number(v, "float"))
    return 0.0  # a StringName or NodePath too, as for ints


def _as_text(v: Any) -> str:
    """``Variant::operator String`` where it is plain: text, nil, bools, ints and NodePaths
    (written as Godot writes them: "/" first when absolute, names by "/", subnames by ":")."""
    if v is None:
        return "<null>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, str, NodePath)):
        return str(v)
    raise _unsupported(f"a {type(v).__name__} into a PackedStringArray element")


def _as_color(v: Any) -> Color:
    """``Variant::operator Color``: a Color, an RGBA8 int, an HTML colour; else black."""
    if isinstance(v, Color):
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        return _color_from_int(v)
    if _plain_text(v):
        html = _html_color(v)
        if html is None and _named(v) is not None:
            raise _unsupported("a colour name into a PackedColorArray element")
        return Color() if html is None else html
    return Color()  # a StringName or NodePath too, whatever its text (measured, 4.6.3)


def _as_vector(cls: type, size: int) -> Fn[[Any], Any]:
    def convert(v: Any) -> Any:
        if type(v) is cls:  # not a subclass: a Quaternion is no Vector4 to Godot
            return v
        if v is None or isinstance(v, (bool, int, float, Quaternion, str, NodePath)):
            return cls(*([0.0] * size))  # measured: numbers, text, names, paths give zeros
        raise _unsupported(f"a {type(v).__name__} into a {cls.__name__} element")

    return convert


def _packed_from_array(vtype: VariantType, double: bool) -> Fn[[list[Any]], Any]:
    """An Array into a packed array, its real vectors at the build's width (``double``)."""
    if vtype == T.PACKED_BYTE_ARRAY:
        return lambda items: bytes(_as_int(v, narrow=True) & 0xFF for v in items)
    if vtype == T.PACKED_STRING_ARRAY:
        return lambda items: PackedStringArray([_as_text(v) for v in items])
    cls = PACKED_ARRAYS[vtype][1 if double else 0]
    element: Fn[[Any], Any]
    if vtype in (T.PACKED_INT32_ARRAY, T.PACKED_INT64_ARRAY):
        bits = 32 if vtype == T.PACKED_INT32_ARRAY else 64

        def element(v: Any) -> int:
            n = _as_int(v, narrow=bits == 32) & ((1 << bits) - 1)
            return n - (1 << bits) if n >> (bits - 1) else n

    elif vtype in (T.PACKED_FLOAT32_ARRAY, T.PACKED_FLOAT64_ARRAY):
        element = _as_float
    elif vtype == T.PACKED_COLOR_ARRAY:
        element = _as_color
    else:
        vector = {T.PACKED_VECTOR2_ARRAY: (Vector2, 2), T.PACKED_VECTOR3_ARRAY: (Vector3, 3)}
        vector[T.PACKED_VECTOR4_ARRAY] = (Vector4, 4)
        element = _as_vector(*vector[vtype])
    return lambda items: cls([element(v) for v in items])


# ---- the rule tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class ElementRules:
    """One engine's type check for typed containers.

    ``converts[target][source]`` turns an element of type ``source`` into ``target`` (the pairs
    ``can_convert_strict`` allows and a constructor performs); any other mismatch is dropped.
    """

    name: str
    converts: Mapping[VariantType, Mapping[VariantType, Fn[[Any], Any]]]
    #: Typed Dictionaries check their values too (Godot 4.6.3 does not: measured).
    checks_values: bool = False
    #: Objects in class-typed containers are checked against the class (full objects only).
    checks_classes: bool = True


def _godot4_converts(double: bool) -> dict[VariantType, dict[VariantType, Fn[[Any], Any]]]:
    """Godot 4's conversions; ``double``: a ``precision=double`` build's, whose reals (vector
    components, packed vectors) are doubles. Its Basis and Quaternion conversions are still
    computed in float32 steps here: no double build was at hand to measure them."""
    reals = _doubles if double else _reals

    def vec(cls: type, of: Fn[[Any], tuple[Any, ...]]) -> Fn[[Any], Any]:
        return lambda v: _new(cls, of(v))

    def rect(cls: type, vcls: type, of: Fn[[Any], tuple[Any, ...]]) -> Fn[[Any], Any]:
        return lambda r: _new(cls, (_new(vcls, of(r[0])), _new(vcls, of(r[1]))))

    table: dict[VariantType, dict[VariantType, Fn[[Any], Any]]] = {
        T.BOOL: {T.INT: lambda v: v != 0, T.FLOAT: lambda v: v != 0},
        T.INT: {T.BOOL: int, T.FLOAT: _to_int},
        T.FLOAT: {T.BOOL: float, T.INT: float},
        T.STRING: {T.STRING_NAME: str, T.NODE_PATH: str},
        T.STRING_NAME: {T.STRING: StringName},
        T.NODE_PATH: {T.STRING: NodePath},
        T.VECTOR2: {T.VECTOR2I: vec(Vector2, reals)},
        T.VECTOR2I: {T.VECTOR2: vec(Vector2i, _ints)},
        T.VECTOR3: {T.VECTOR3I: vec(Vector3, reals)},
        T.VECTOR3I: {T.VECTOR3: vec(Vector3i, _ints)},
        T.VECTOR4: {T.VECTOR4I: vec(Vector4, reals)},
        T.VECTOR4I: {T.VECTOR4: vec(Vector4i, _ints)},
        T.RECT2: {T.RECT2I: rect(Rect2, Vector2, reals)},
        T.RECT2I: {T.RECT2: rect(Rect2i, Vector2i, _ints)},
        T.TRANSFORM2D: {T.TRANSFORM3D: _transform2d_from_3d},
        T.QUATERNION: {T.BASIS: _quaternion_from_basis},
        T.BASIS: {T.QUATERNION: _basis_from_quaternion},
        T.TRANSFORM3D: {
            T.TRANSFORM2D: _transform3d_from_2d,
            T.QUATERNION: lambda q: Transform3D(_basis_from_quaternion(q)),
            T.BASIS: lambda b: Transform3D(b),
            T.PROJECTION: _transform3d_from_projection,
        },
        T.PROJECTION: {T.TRANSFORM3D: _projection_from_transform3d},
        T.COLOR: {T.STRING: _color_from_string, T.INT: _color_from_int},
        T.RID: {T.OBJECT: lambda _: RID(0)},  # no decoded object has an RID of its own
        T.ARRAY: {vtype: _array_from_packed for vtype in _PACKED_TYPES},
    }
    for vtype in _PACKED_TYPES:
        table[vtype] = {T.ARRAY: _packed_from_array(vtype, double)}
    return table


#: Each engine's rules, by the name a :class:`~gdvariant.Profile` gives in ``element_rules``.
RULES: Mapping[str, ElementRules] = MappingProxyType(
    {
        "godot4": ElementRules("godot4", _godot4_converts(False)),
        "godot4-double": ElementRules("godot4-double", _godot4_converts(True)),
        "pandemonium": ElementRules("pandemonium", {}),
    }
)


def rules_for(name: str) -> ElementRules | None:
    """The rules a profile names; ``None`` for an engine without typed containers."""
    return RULES[name] if name else None


#: A few engine classes and their parents, for the class check of full objects. A class not
#: listed here is taken to fit (we have no ClassDB): the object is kept.
_PARENTS = {
    "EncodedObjectAsID": "RefCounted",
    "RefCounted": "Object",
    "Resource": "RefCounted",
    "Node": "Object",
    "Node2D": "CanvasItem",
    "Node3D": "Node",
    "CanvasItem": "Node",
    "Control": "CanvasItem",
}


def _inherits(cls: str, base: str) -> bool:
    """Whether engine class ``cls`` is ``base`` or derives from it; true when either class is
    one we do not know."""
    known = _PARENTS.keys() | {"Object"}
    if base == "Object" or cls not in known or base not in known:
        return True
    while cls != base and cls in _PARENTS:
        cls = _PARENTS[cls]
    return cls == base


def admit(rules: ElementRules, value: Any, kind: int, element_type: ElementType) -> Any:
    """``value`` (decoded as type number ``kind``) as a container of ``element_type`` keeps it:
    itself, converted, or :data:`DROP`."""
    target = element_type.type
    if kind == KIND_BARE_RID:
        kind = T.RID
    if kind == target:
        if target != T.OBJECT or element_type.kind == ContainerKind.BUILTIN:
            return value
        if (
            not rules.checks_classes
            or value is None
            or element_type.kind != ContainerKind.CLASS_NAME
        ):
            return value  # null fits; a script class we cannot check
        cls = value.class_name if isinstance(value, GodotObject) else "EncodedObjectAsID"
        return value if _inherits(cls, element_type.name) else DROP
    if kind == T.NIL and target == T.OBJECT:
        return value
    convert = rules.converts.get(target, {}).get(VariantType(kind))
    if convert is None:
        return DROP
    return convert(value)
