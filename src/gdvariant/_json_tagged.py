"""The tagged JSON form: any gdvariant value as a JSON tree and back, without loss.

JSON's own values stand for themselves: null, true/false, integers (``int``), numbers written
with a ``.`` or an exponent (``float``), strings (``String``), arrays (an untyped ``Array``)
and objects without a ``"$type"`` member (an untyped ``Dictionary`` with String keys).
Everything else is an object whose ``"$type"`` names the Godot type; its other members are
listed in ``schemas/tagged-json.schema.json`` and in ``docs/json.md``. This module turns values
into JSON trees (Python lists, dicts, str, int, float, bool, None) and back; ``_json`` turns
trees into text.

Floats are exact: a ``float`` is written as Python's shortest round-trip digits; a 32-bit
component (of a Vector2, Color, PackedFloat32Array...) as the shortest digits that round to the
same float32, unless the record is marked ``"float64": true``. Non-finite numbers are the
strings ``"inf"``, ``"-inf"``, ``"nan"``, or ``"0x"`` and the 16 hex digits of a NaN's bits.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
from collections.abc import Callable as Fn
from collections.abc import Iterable, Mapping
from typing import Any

from ._errors import EncodeError
from ._layouts import LAYOUTS
from ._legacy import Image, InputEvent
from ._packed import (
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector2Array64,
    PackedVector2iArray,
    PackedVector3Array,
    PackedVector3Array64,
    PackedVector3iArray,
    PackedVector4Array,
    PackedVector4Array64,
    PackedVector4iArray,
    _PackedNumbers,
)
from ._text_float import f32, is_float32
from ._text_syntax import GODOT4_NAMES, SCALAR_NAMES
from ._types import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    ContainerKind,
    Dictionary,
    ElementType,
    GodotObject,
    NodePath,
    ObjectID,
    PackedTypedArray,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
    godot_dictionary,
)

__all__ = ["MATH_SIZES", "MATH_TYPES", "TAG", "TYPE_NAMES", "Bad", "from_tree", "to_tree"]

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
_NAMED_TYPES = {name: vtype for vtype, name in TYPE_NAMES.items()}

_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_QUIET_NAN = 0x7FF8000000000000
_F32_MIN_NORMAL = 2.0**-126
_HEX_BITS = re.compile(r"0x[0-9a-fA-F]{16}")
_INT64 = (-(1 << 63), (1 << 63) - 1)
_INT32 = (-(1 << 31), (1 << 31) - 1)
_U64_RANGE = (0, (1 << 64) - 1)

# Math types: the class, its component kind ("real", "f32" or "i32" as in LAYOUTS), and how
# to build it from its components in the order of its fields (columns for Basis and the rest).
MATH_TYPES: dict[str, tuple[type, str, Fn[[list[Any]], Any]]] = {
    "Vector2": (Vector2, "real", lambda c: Vector2(*c)),
    "Vector2i": (Vector2i, "i32", lambda c: Vector2i(*c)),
    "Rect2": (Rect2, "real", lambda c: Rect2(c[0:2], c[2:4])),
    "Rect2i": (Rect2i, "i32", lambda c: Rect2i(c[0:2], c[2:4])),
    "Vector3": (Vector3, "real", lambda c: Vector3(*c)),
    "Vector3i": (Vector3i, "i32", lambda c: Vector3i(*c)),
    "Transform2D": (Transform2D, "real", lambda c: Transform2D(c[0:2], c[2:4], c[4:6])),
    "Vector4": (Vector4, "real", lambda c: Vector4(*c)),
    "Vector4i": (Vector4i, "i32", lambda c: Vector4i(*c)),
    "Plane": (Plane, "real", lambda c: Plane(c[0:3], c[3])),
    "Quaternion": (Quaternion, "real", lambda c: Quaternion(*c)),
    "AABB": (AABB, "real", lambda c: AABB(c[0:3], c[3:6])),
    "Basis": (Basis, "real", lambda c: Basis(c[0:3], c[3:6], c[6:9])),
    "Transform3D": (
        Transform3D,
        "real",
        lambda c: Transform3D((c[0:3], c[3:6], c[6:9]), c[9:12]),
    ),
    "Projection": (Projection, "real", lambda c: Projection(c[0:4], c[4:8], c[8:12], c[12:16])),
    "Color": (Color, "f32", lambda c: Color(*c)),
}
_MATH_CLASS_NAMES = {cls: name for name, (cls, _, _) in MATH_TYPES.items()}
MATH_SIZES = {name: LAYOUTS[_NAMED_TYPES[name]].components for name in MATH_TYPES}

# Packed numeric arrays: (name, whether it is the 64-bit twin of a 32-bit vector array).
_PACKED: dict[type[_PackedNumbers], tuple[str, bool]] = {
    PackedInt32Array: ("PackedInt32Array", False),
    PackedInt64Array: ("PackedInt64Array", False),
    PackedFloat32Array: ("PackedFloat32Array", False),
    PackedFloat64Array: ("PackedFloat64Array", False),
    PackedVector2Array: ("PackedVector2Array", False),
    PackedVector3Array: ("PackedVector3Array", False),
    PackedVector4Array: ("PackedVector4Array", False),
    PackedVector2Array64: ("PackedVector2Array", True),
    PackedVector3Array64: ("PackedVector3Array", True),
    PackedVector4Array64: ("PackedVector4Array", True),
    PackedColorArray: ("PackedColorArray", False),
    PackedVector2iArray: ("PackedVector2iArray", False),
    PackedVector3iArray: ("PackedVector3iArray", False),
    PackedVector4iArray: ("PackedVector4iArray", False),
}
_PACKED_CLASSES = {key: cls for cls, key in _PACKED.items()}


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
    return "[" + _quote(key) + "]"


def _quote(key: str) -> str:
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped + '"'


# ---- numbers --------------------------------------------------------------------------------


def _special(x: float) -> str:
    """The string of a non-finite float."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    bits = _U64.unpack(_F64.pack(x))[0]
    return "nan" if bits == _QUIET_NAN else f"0x{bits:016x}"


def _shortest32(x: float) -> float:
    """The double nearest to the shortest decimal that rounds to float32 ``x``.

    Six significant digits come first: ``%g`` drops trailing zeros, and no decimal of five
    digits or fewer that differs from the six-digit rounding is within a float32's rounding
    interval (about 6e-8 relative), so when six digits read back, that text is the shortest.
    Subnormals have wider intervals and try every length.
    """
    if x == 0:
        return x
    for digits in range(6 if abs(x) >= _F32_MIN_NORMAL else 1, 10):
        candidate = float(f"{x:.{digits}g}")
        if f32(candidate) == x:
            return candidate
    return x


def real_out(x: float, single: bool) -> Any:
    """A component: a number (shortest float32 digits when ``single``) or a special string."""
    if not math.isfinite(x):
        return _special(x)
    return _shortest32(x) if single else x


def _needs_float64(components: Iterable[float]) -> bool:
    return any(math.isfinite(c) and not is_float32(c) for c in components)


def real_in(node: Any, single: bool) -> float:
    """A component back: a JSON number (narrowed to float32 when ``single``) or a special."""
    kind = type(node)
    if kind is float or kind is int:
        try:
            x = float(node)
        except OverflowError:
            raise Bad(f"number {node} is too large for a float") from None
        return f32(x) if single else x
    if kind is str:
        if node == "inf":
            return math.inf
        if node == "-inf":
            return -math.inf
        if node == "nan":
            return math.nan
        if _HEX_BITS.fullmatch(node):
            return float(_F64.unpack(_U64.pack(int(node[2:], 16)))[0])
    raise Bad(
        f'expected a number, "inf", "-inf", "nan" or "0x" and 16 hex digits, got {_show(node)}'
    )


def int_in(node: Any, bounds: tuple[int, int] = _INT64, what: str = "an integer") -> int:
    if type(node) is not int:
        raise Bad(f"expected {what}, got {_show(node)}")
    if not bounds[0] <= node <= bounds[1]:
        raise Bad(f"{node} is out of range for {what} ({bounds[0]}..{bounds[1]})")
    return node


def _show(node: Any) -> str:
    """A short description of a JSON node for an error message."""
    if node is None:
        return "null"
    if isinstance(node, bool):
        return "true" if node else "false"
    if isinstance(node, _Object):
        return "an object"
    if isinstance(node, list):
        return "an array"
    if isinstance(node, str):
        text = _quote(node)
        return f"the string {text if len(text) <= 40 else text[:37] + '...'}"
    return f"the number {node!r}"


# ---- value -> tree --------------------------------------------------------------------------


def _tagged(name: str, /, **members: Any) -> dict[str, Any]:
    return {TAG: name, **members}


def _element_out(spec: ElementType | None) -> Any:
    if spec is None or spec.kind is ContainerKind.NONE:
        return "Variant"
    if spec.kind is ContainerKind.BUILTIN:
        return TYPE_NAMES[spec.type]
    if spec.kind is ContainerKind.CLASS_NAME:
        return {"class": spec.name}
    return {"script": spec.name}


def _float_out(value: float) -> Any:
    if math.isfinite(value):
        return float(value)
    return _tagged("float", value=_special(value))


def _math_out(value: Any) -> Any:
    name = next(_MATH_CLASS_NAMES[c] for c in type(value).__mro__ if c in _MATH_CLASS_NAMES)
    components = list(_flatten(value))
    if MATH_TYPES[name][1] == "i32":
        return _tagged(name, args=[int(c) for c in components])
    if _needs_float64(components):
        return _tagged(name, args=[real_out(c, False) for c in components], float64=True)
    return _tagged(name, args=[real_out(c, True) for c in components])


def _flatten(value: Any) -> Iterable[Any]:
    for item in value:
        if isinstance(item, tuple):
            yield from _flatten(item)
        else:
            yield item


def _packed_out(value: _PackedNumbers) -> Any:
    name, wide = _PACKED[type(value)]
    extra = {"float64": True} if wide else {}
    numbers = value._numbers()
    if value._code in "iq":
        flat: list[Any] = [int(n) for n in numbers]
    elif any(math.isnan(n) for n in numbers):  # NaN payloads survive only as raw bytes
        return _tagged(name, **extra, base64=base64.b64encode(bytes(value)).decode("ascii"))
    else:
        single = value._code == "f"
        flat = [real_out(float(n), single) for n in numbers]
    width = value._width
    items = flat if width == 1 else [flat[i : i + width] for i in range(0, len(flat), width)]
    return _tagged(name, **extra, items=items)


def _object_out(value: GodotObject) -> Any:
    props = value.properties
    names = [name for name, _ in props]
    if len(set(names)) == len(names):
        shown: Any = {name: to_tree(v) for name, v in props}
    else:
        shown = [[name, to_tree(v)] for name, v in props]
    return _tagged("Object", **{"class": value.class_name, "properties": shown})


def _dict_out(value: Any) -> Any:
    plain = all(type(k) is str for k in value) and TAG not in value
    if plain:
        return {k: to_tree(v) for k, v in value.items()}
    return _tagged("Dictionary", items=[[to_tree(k), to_tree(v)] for k, v in value.items()])


def _dictionary_out(value: Dictionary) -> Any:
    members: dict[str, Any] = {}
    if value.key_type is not None:
        members["key_type"] = _element_out(value.key_type)
    if value.value_type is not None:
        members["value_type"] = _element_out(value.value_type)
    items = [[to_tree(k), to_tree(v)] for k, v in value.items_list]
    return _tagged("Dictionary", **members, items=items)


def _typed_array_out(value: TypedArray) -> Any:
    name = "PackedTypedArray" if isinstance(value, PackedTypedArray) else "Array"
    items = [to_tree(v) for v in value]
    return _tagged(name, element_type=_element_out(value.element_type), items=items)


def _node_path_out(value: NodePath) -> Any:
    if NodePath(str(value)) == value:
        return _tagged("NodePath", path=str(value))
    return _tagged(
        "NodePath", names=list(value.names), subnames=list(value.subnames), absolute=value.absolute
    )


def _bytes_out(value: Any) -> Any:
    return _tagged("PackedByteArray", base64=base64.b64encode(bytes(value)).decode("ascii"))


def _int_out(value: int) -> int:
    number = int(value)
    if not _INT64[0] <= number <= _INT64[1]:
        raise EncodeError(f"int {number} does not fit in Godot's 64-bit int")
    return number


_WRITERS: dict[type, Fn[[Any], Any]] = {
    type(None): lambda v: None,
    bool: bool,
    int: _int_out,
    float: _float_out,
    str: str,
    StringName: lambda v: _tagged("StringName", value=str(v)),
    NodePath: _node_path_out,
    RID: lambda v: _tagged("RID", id=v.id),
    ObjectID: lambda v: _tagged("ObjectID", id=v.id),
    Callable: lambda v: _tagged("Callable"),
    Signal: lambda v: _tagged("Signal", name=v.name, object_id=v.object_id),
    GodotObject: _object_out,
    dict: _dict_out,
    Dictionary: _dictionary_out,
    list: lambda v: [to_tree(x) for x in v],
    tuple: lambda v: [to_tree(x) for x in v],
    TypedArray: _typed_array_out,
    bytes: _bytes_out,
    bytearray: _bytes_out,
    memoryview: _bytes_out,
    PackedStringArray: lambda v: _tagged("PackedStringArray", items=list(v)),
    Image: lambda v: _tagged(
        "Image",
        format=v.format,
        mipmaps=v.mipmaps,
        width=v.width,
        height=v.height,
        data=base64.b64encode(v.data).decode("ascii"),
    ),
    InputEvent: lambda v: _tagged(
        "InputEvent",
        type=int(v.type),
        device=v.device,
        modifiers=v.modifiers,
        code=v.code,
        axis_value=real_out(v.axis_value, False),
    ),
    **dict.fromkeys(_MATH_CLASS_NAMES, _math_out),
    **dict.fromkeys(_PACKED, _packed_out),
}


def _writer(cls: type) -> Fn[[Any], Any]:
    for base in cls.__mro__:
        writer = _WRITERS.get(base)
        if writer is not None:
            _WRITERS[cls] = writer
            return writer
    if issubclass(cls, Mapping):
        return _dict_out
    raise TypeError(f"cannot write a {cls.__qualname__} as a Godot value")


def to_tree(value: Any) -> Any:
    """The tagged JSON tree of ``value``; ``TypeError`` for a value no Godot type holds,
    :class:`EncodeError` for one out of a Godot type's range."""
    writer = _WRITERS.get(type(value)) or _writer(type(value))
    return writer(value)


# ---- tree -> value --------------------------------------------------------------------------


class _Object(list):  # type: ignore[type-arg]
    """A JSON object as the parser hands it over: its (key, value) pairs, duplicates kept."""

    __slots__ = ()


def object_pairs(pairs: list[tuple[str, Any]]) -> _Object:
    """``object_pairs_hook`` for ``json.loads``: keep objects as pairs."""
    return _Object(pairs)


def _members(node: _Object) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in node:
        if key in seen:
            raise Bad(f"duplicate key {_quote(key)}").at(member(key))
        seen[key] = value
    return seen


def _array_items(node: Any, what: str = "an array") -> list[Any]:
    if not isinstance(node, list) or isinstance(node, _Object):
        raise Bad(f"expected {what}, got {_show(node)}")
    return node


def _each(items: list[Any], read: Fn[[Any], Any]) -> list[Any]:
    out = []
    for i, item in enumerate(items):
        try:
            out.append(read(item))
        except Bad as exc:
            raise exc.at(f"[{i}]") from None
    return out


def from_tree(node: Any) -> Any:
    """The value of a tagged JSON tree (objects as :func:`object_pairs` makes them)."""
    kind = type(node)
    if kind is str or kind is float or kind is bool or node is None:
        return node
    if kind is int:
        return int_in(node, what="a 64-bit integer")
    if kind is _Object:
        fields = _members(node)
        if TAG in fields:
            return _tagged_in(fields)
        out = {}
        for key, value in fields.items():
            try:
                out[key] = from_tree(value)
            except Bad as exc:
                raise exc.at(member(key)) from None
        return out
    if kind is list:
        return _each(node, from_tree)
    raise Bad(f"unexpected {_show(node)}")  # pragma: no cover - json.loads makes no other


class _Fields:
    """The members of one tagged object, each read once; unknown members are an error."""

    def __init__(self, name: str, fields: dict[str, Any]) -> None:
        self.name = name
        self.fields = fields
        self.used = {TAG}

    def has(self, key: str) -> bool:
        return key in self.fields

    def get(
        self, key: str, read: Fn[[Any], Any], default: Any = None, required: bool = True
    ) -> Any:
        self.used.add(key)
        if key not in self.fields:
            if required:
                raise Bad(f"{self.name} needs a {_quote(key)} member")
            return default
        try:
            return read(self.fields[key])
        except Bad as exc:
            raise exc.at(member(key)) from None

    def done(self) -> None:
        for key in self.fields:
            if key not in self.used:
                raise Bad(f"{self.name} has no {_quote(key)} member").at(member(key))


def _str(node: Any) -> str:
    if type(node) is not str:
        raise Bad(f"expected a string, got {_show(node)}")
    return node


def _bool(node: Any) -> bool:
    if type(node) is not bool:
        raise Bad(f"expected true or false, got {_show(node)}")
    return node


def _b64(node: Any) -> bytes:
    text = _str(node)
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Bad("expected base64 text") from None


def _element_in(node: Any) -> ElementType:
    if type(node) is str:
        if node == "Variant":
            return ElementType(ContainerKind.NONE, T.NIL)
        vtype = _NAMED_TYPES.get(node)
        if vtype is None:
            raise Bad(f"unknown type name {_quote(node)}")
        return ElementType.builtin(vtype)
    if type(node) is _Object:
        fields = _members(node)
        if len(fields) == 1 and "class" in fields:
            return ElementType.class_name(_str(fields["class"]))
        if len(fields) == 1 and "script" in fields:
            return ElementType.script(_str(fields["script"]))
    raise Bad(f'expected a type name, {{"class": ...}} or {{"script": ...}}, got {_show(node)}')


def _pairs_in(node: Any) -> list[tuple[Any, Any]]:
    def pair(item: Any) -> tuple[Any, Any]:
        both = _array_items(item, "a [key, value] pair")
        if len(both) != 2:
            raise Bad(f"expected a [key, value] pair, got {len(both)} items")
        return from_tree(both[0]), from_tree(both[1])

    return _each(_array_items(node), pair)


def _math_in(name: str, f: _Fields) -> Any:
    _, kind, build = MATH_TYPES[name]
    size = MATH_SIZES[name]
    wide = f.get("float64", _bool, False, required=False)
    if wide and kind == "i32":
        raise Bad(f"{name} has integer components; it takes no float64").at(".float64")

    def components(node: Any) -> list[Any]:
        items = _array_items(node)
        if len(items) != size:
            raise Bad(f"{name} needs {size} components, got {len(items)}")
        if kind == "i32":
            return _each(items, lambda n: int_in(n, _INT32, "a 32-bit integer"))
        return _each(items, lambda n: real_in(n, not wide))

    return build(f.get("args", components))


def _packed_in(name: str, f: _Fields) -> Any:
    wide = f.get("float64", _bool, False, required=False)
    cls = _PACKED_CLASSES.get((name, wide))
    if cls is None:
        raise Bad(f"{name} has no 64-bit form").at(".float64")
    if f.has("base64"):
        raw = f.get("base64", _b64)
        if len(raw) % cls.itemsize:
            raise Bad(f"{len(raw)} bytes is not a whole number of {cls.itemsize}-byte items").at(
                ".base64"
            )
        return cls.frombuffer(raw)
    width = cls._width
    if cls._code in "iq":
        bounds = _INT32 if cls._code == "i" else _INT64
        what = "a 32-bit integer" if cls._code == "i" else "a 64-bit integer"

        def number(n: Any) -> Any:
            return int_in(n, bounds, what)
    else:
        single = cls._code == "f"

        def number(n: Any) -> Any:
            return real_in(n, single)

    def element(node: Any) -> Any:
        parts = _array_items(node, f"an array of {width} components")
        if len(parts) != width:
            raise Bad(f"expected {width} components, got {len(parts)}")
        return _each(parts, number)

    items = f.get("items", _array_items)
    try:
        return cls(_each(items, number if width == 1 else element))
    except Bad as exc:
        raise exc.at(".items") from None


def _object_in(f: _Fields) -> Any:
    class_name = f.get("class", _str)

    def properties(node: Any) -> list[tuple[str, Any]]:
        if type(node) is _Object:
            out = []
            for key, value in _members(node).items():
                try:
                    out.append((key, from_tree(value)))
                except Bad as exc:
                    raise exc.at(member(key)) from None
            return out

        def pair(item: Any) -> tuple[str, Any]:
            both = _array_items(item, "a [name, value] pair")
            if len(both) != 2:
                raise Bad(f"expected a [name, value] pair, got {len(both)} items")
            return _str(both[0]), from_tree(both[1])

        return _each(_array_items(node, "an object or an array of pairs"), pair)

    return GodotObject(class_name, f.get("properties", properties, [], required=False))


def _dictionary_in(f: _Fields) -> Any:
    key_type = f.get("key_type", _element_in, None, required=False)
    value_type = f.get("value_type", _element_in, None, required=False)
    pairs = f.get("items", _pairs_in)
    keys = [k for k, _ in pairs]
    values = [v for _, v in pairs]
    return godot_dictionary(keys, values, key_type, value_type)


def _node_path_in(f: _Fields) -> Any:
    if f.has("path"):
        return NodePath(f.get("path", _str))

    def names(node: Any) -> list[str]:
        return _each(_array_items(node), _str)

    return NodePath.from_parts(
        f.get("names", names), f.get("subnames", names), f.get("absolute", _bool)
    )


def _u64(node: Any) -> int:
    return int_in(node, _U64_RANGE, "a 64-bit id")


def _i32(node: Any) -> int:
    return int_in(node, _INT32, "a 32-bit integer")


def _named(read: Fn[[str, _Fields], Any], name: str) -> Fn[[_Fields], Any]:
    """A reader of the type ``name`` from a reader shared by several types."""
    return lambda f: read(name, f)


_READERS: dict[str, Fn[[_Fields], Any]] = {
    "float": lambda f: f.get("value", lambda n: real_in(n, False)),
    "StringName": lambda f: StringName(f.get("value", _str)),
    "NodePath": _node_path_in,
    "RID": lambda f: RID(f.get("id", _u64)),
    "ObjectID": lambda f: ObjectID(f.get("id", _u64)),
    "Callable": lambda f: Callable(),
    "Signal": lambda f: Signal(f.get("name", _str), f.get("object_id", _u64)),
    "Object": _object_in,
    "Dictionary": _dictionary_in,
    "Array": lambda f: TypedArray(
        f.get("element_type", _element_in),
        f.get("items", lambda n: _each(_array_items(n), from_tree)),
    ),
    "PackedTypedArray": lambda f: PackedTypedArray(
        f.get("element_type", _element_in),
        f.get("items", lambda n: _each(_array_items(n), from_tree)),
    ),
    "PackedByteArray": lambda f: f.get("base64", _b64),
    "PackedStringArray": lambda f: PackedStringArray(
        f.get("items", lambda n: _each(_array_items(n), _str))
    ),
    "Image": lambda f: Image(
        f.get("format", _i32),
        f.get("mipmaps", _i32),
        f.get("width", _i32),
        f.get("height", _i32),
        f.get("data", _b64),
    ),
    "InputEvent": lambda f: InputEvent(
        f.get("type", _i32),
        f.get("device", _i32),
        f.get("modifiers", lambda n: int_in(n, (0, (1 << 32) - 1), "a 32-bit mask")),
        f.get("code", _i32),
        f.get("axis_value", lambda n: real_in(n, False)),
    ),
    **{name: _named(_math_in, name) for name in MATH_TYPES},
    **{key[0]: _named(_packed_in, key[0]) for key in _PACKED_CLASSES},
}


def _tagged_in(fields: dict[str, Any]) -> Any:
    name = fields[TAG]
    if type(name) is not str:
        raise Bad(f"expected a type name, got {_show(name)}").at(member(TAG))
    reader = _READERS.get(name)
    if reader is None:
        raise Bad(f"unknown type {_quote(name)}").at(member(TAG))
    f = _Fields(name, fields)
    value = reader(f)
    f.done()
    return value
