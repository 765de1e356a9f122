"""Tagged JSON trees back to values (``from_json``'s half of :mod:`gdvariant._json.tagged`).

The tree comes from ``json.loads`` with :func:`object_pairs` as its hook, so duplicate keys
are seen and refused. Every malformed node raises :class:`~gdvariant._json.tagged.Bad`
with the path to it.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Callable as Fn
from typing import Any

from .._floats import f32
from .._values.base import (
    RID,
    Callable,
    GodotObject,
    NodePath,
    ObjectID,
    Signal,
    StringName,
    VariantType,
)
from .._values.collections import (
    ContainerKind,
    ElementType,
    PackedTypedArray,
    TypedArray,
    godot_dictionary,
)
from .._values.godot2 import Image, InputEvent
from .._values.packed import PackedStringArray
from .tagged import (
    F64,
    INT32,
    INT64,
    MATH_SIZES,
    MATH_TYPES,
    NAMED_TYPES,
    PACKED_CLASSES,
    TAG,
    U64,
    U64_RANGE,
    Bad,
    member,
    quote,
)

__all__ = ["compiled_plan", "from_tree", "object_pairs"]

_HEX_BITS = re.compile(r"0x[0-9a-fA-F]{16}")


# ---- numbers --------------------------------------------------------------------------------


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
            return float(F64.unpack(U64.pack(int(node[2:], 16)))[0])
    raise Bad(
        f'expected a number, "inf", "-inf", "nan" or "0x" and 16 hex digits, got {_show(node)}'
    )


def int_in(node: Any, bounds: tuple[int, int] = INT64, what: str = "an integer") -> int:
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
        text = quote(node)
        return f"the string {text if len(text) <= 40 else text[:37] + '...'}"
    return f"the number {node!r}"


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
            raise Bad(f"duplicate key {quote(key)}").at(member(key))
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
                raise Bad(f"{self.name} needs a {quote(key)} member")
            return default
        try:
            return read(self.fields[key])
        except Bad as exc:
            raise exc.at(member(key)) from None

    def done(self) -> None:
        for key in self.fields:
            if key not in self.used:
                raise Bad(f"{self.name} has no {quote(key)} member").at(member(key))


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
            return ElementType(ContainerKind.NONE, VariantType.NIL)
        vtype = NAMED_TYPES.get(node)
        if vtype is None:
            raise Bad(f"unknown type name {quote(node)}")
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
            return _each(items, lambda n: int_in(n, INT32, "a 32-bit integer"))
        return _each(items, lambda n: real_in(n, not wide))

    return build(f.get("args", components))


def _packed_in(name: str, f: _Fields) -> Any:
    wide = f.get("float64", _bool, False, required=False)
    cls = PACKED_CLASSES.get((name, wide))
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
        bounds = INT32 if cls._code == "i" else INT64
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
    return int_in(node, U64_RANGE, "a 64-bit id")


def _i32(node: Any) -> int:
    return int_in(node, INT32, "a 32-bit integer")


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
    **{key[0]: _named(_packed_in, key[0]) for key in PACKED_CLASSES},
}


def _tagged_in(fields: dict[str, Any]) -> Any:
    name = fields[TAG]
    if type(name) is not str:
        raise Bad(f"expected a type name, got {_show(name)}").at(member(TAG))
    reader = _READERS.get(name)
    if reader is None:
        raise Bad(f"unknown type {quote(name)}").at(member(TAG))
    f = _Fields(name, fields)
    value = reader(f)
    f.done()
    return value


# ---- for the compiled reader ----------------------------------------------------------------


def _as_pairs(node: Any) -> Any:
    """A tree whose objects are dicts (the compiled reader's, no key repeated) with its
    objects as :func:`object_pairs` makes them."""
    if type(node) is dict:
        return _Object([(key, _as_pairs(value)) for key, value in node.items()])
    if type(node) is list:
        return [_as_pairs(item) for item in node]
    return node


def _node_value(node: Any) -> Any:
    """The pure reader's value of one node of the compiled reader's tree (or its error)."""
    return from_tree(_as_pairs(node))


def _packed_form(cls: Any) -> tuple[Any, str, int] | None:
    return None if cls is None else (cls, cls._code, cls._width)


_PLAN = (
    {
        name: (kind == "i32", MATH_SIZES[name], build)
        for name, (_, kind, build) in MATH_TYPES.items()
    },
    {
        name: (
            _packed_form(PACKED_CLASSES[name, False]),
            _packed_form(PACKED_CLASSES.get((name, True))),
        )
        for name, _ in PACKED_CLASSES
    },
    _node_value,
)


def compiled_plan() -> tuple[Any, ...]:
    """What the compiled tagged reader needs (:mod:`.core`): ``(maths, packed, fallback)``,
    where ``maths`` maps each math type's name to whether its components are ints, their count
    and the builder, ``packed`` each numeric packed type's name to its class, array typecode
    and width, narrow and 64-bit (or None), and ``fallback(node)`` is the pure reader's value
    of a node."""
    return _PLAN
