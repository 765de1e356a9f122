"""Godot 4.4+'s own JSON form: ``JSON.from_native`` / ``JSON.to_native``, and its stringify.

``from_native`` turns a value into a tree of JSON values: scalars become prefixed strings
(``"i:5"``, ``"f:0.5"``, ``"s:text"``, ``"sn:name"``, ``"np:path"``), untyped Arrays stay
arrays, everything else is ``{"type": ..., "args": [...]}`` (objects: ``"props"``; typed
containers: ``"elem_type"``, ``"key_type"``, ``"value_type"``). ``JSON.stringify`` then
prints it with sorted keys and its own float digits. Both are followed here to the character;
``to_native`` reads the form back as the engine does, losses included (floats in ``"f:"``
keep 14 decimals; RID, Callable and Signal keep nothing; JSON numbers are doubles, so int64
array elements above 2^53 round). Facts: ``docs/json.md``, checked on the
engine by ``tests/live/codec/test_json.py``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable as Fn
from typing import Any

from .._engines.key_rules import RULES, key_token
from .._errors import EncodeError
from .._floats import f32, godot_strtod
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
    Dictionary,
    ElementType,
    TypedArray,
    godot_dictionary,
)
from .._values.layouts import LAYOUTS, MATH_CLASSES
from .._values.packed import (
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    _PackedNumbers,
)
from .tagged import MATH_SIZES, MATH_TYPES, TYPE_NAMES, Bad, member

__all__ = ["from_native_tree", "stringify", "to_native_value"]

T = VariantType
_INT64 = (-(1 << 63), (1 << 63) - 1)
_MAX_DECIMALS = 32
#: Godot's ``Variant::MAX_RECURSION_DEPTH``: to_native reads no deeper.
_MAX_DEPTH = 1024
#: to_native stores each pair in a Godot 4 Dictionary, which folds keys by these rules.
_GODOT4_KEYS = RULES["godot4"]
_GODOT4_TYPES = {vtype: name for vtype, name in TYPE_NAMES.items() if vtype < 100}
_NAMED = {name: vtype for vtype, name in _GODOT4_TYPES.items()}


# ---- Godot's number text --------------------------------------------------------------------


def _strip_zeros(text: str) -> str:
    """``String::num``'s last step: drop trailing zeros after the point, keeping one."""
    if "." not in text:
        return text
    text = text.rstrip("0")
    return text + "0" if text.endswith(".") else text


def godot_num(value: float, decimals: int) -> str:
    """``String::num(value, decimals)``: ``%.<decimals>lf`` (``%lf`` when negative), zeros
    stripped."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    decimals = min(decimals, _MAX_DECIMALS)
    text = f"{value:f}" if decimals < 0 else f"{value:.{decimals}f}"
    return _strip_zeros(text)


def num_real(value: float) -> str:
    """``String::num_real(value, true)``, the text of a float in ``"f:"`` strings."""
    if not math.isfinite(value):
        return godot_num(value, 0)
    # C's (int64_t) cast; out of range it gives INT64_MIN on the x86-64 and arm64 builds.
    whole = int(value) if _INT64[0] <= value < 2.0**63 else _INT64[0]
    if value == whole:
        return f"{whole}.0"
    decimals = 14
    if abs(value) > 10:
        decimals -= math.floor(math.log10(abs(value)))
    return godot_num(value, decimals)


def _stringify_float(value: float) -> str:
    """A bare float as ``JSON.stringify`` prints it (``full_precision=false``)."""
    if math.isnan(value):
        return "null"
    if math.isinf(value):
        return "1e99999" if value > 0 else "-1e99999"
    if value == 0:
        return "0.0"
    return godot_num(value, max(1, 14 - math.floor(math.log10(abs(value)))))


def _escape(text: str) -> str:
    """``String::json_escape``: only backslash, quote and \\b \\f \\n \\r \\t \\v."""
    return text.translate(_JSON_ESCAPES)


_JSON_ESCAPES = str.maketrans(
    {
        "\\": "\\\\",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
        "\v": "\\v",
        '"': '\\"',
    }
)


def stringify(tree: Any, indent: str = "") -> str:
    """``JSON.stringify(tree, indent, sort_keys=true)`` of a from_native tree."""
    parts: list[str] = []
    _stringify(tree, indent, 0, parts)
    return "".join(parts)


def _stringify(node: Any, indent: str, level: int, out: list[str]) -> None:
    newline = "\n" if indent else ""
    if node is None:
        out.append("null")
    elif node is True or node is False:
        out.append("true" if node else "false")
    elif isinstance(node, int):
        out.append(str(node))
    elif isinstance(node, float):
        out.append(_stringify_float(node))
    elif isinstance(node, str):
        out.append('"' + _escape(node) + '"')
    elif isinstance(node, list):
        if not node:
            out.append("[]")
            return
        out.append("[" + newline)
        for i, item in enumerate(node):
            if i:
                out.append("," + newline)
            out.append(indent * (level + 1))
            _stringify(item, indent, level + 1, out)
        out.append(newline + indent * level + "]")
    else:
        out.append("{" + newline)
        for i, key in enumerate(sorted(node)):
            if i:
                out.append("," + newline)
            out.append(indent * (level + 1) + '"' + _escape(key) + '"' + (": " if indent else ":"))
            _stringify(node[key], indent, level + 1, out)
        out.append(newline + indent * level + "}")


# ---- from_native ----------------------------------------------------------------------------


def _element_name(spec: ElementType | None, full_objects: bool) -> str | None:
    """``_encode_container_type``: the name of a typed container's element type."""
    if spec is None or spec.kind is ContainerKind.NONE or spec.type is T.NIL:
        return None
    if spec.kind is ContainerKind.BUILTIN and spec.type is not T.OBJECT:
        name = _GODOT4_TYPES.get(spec.type)
        if name is None:
            raise EncodeError(f"Godot 4 has no {spec.type.name} type")
        return name
    if not full_objects:
        raise EncodeError("a container typed with a class or script needs full_objects=True")
    return spec.name or "Object"


def _real(value: float) -> float:
    """A real_t component as the engine holds it: a float32 (Godot's standard build)."""
    return f32(value)


def _args(name: str, values: Any) -> dict[str, Any]:
    return {"type": name, "args": [_real(float(v)) for v in values]}


class _FromNative:
    def __init__(self, full_objects: bool) -> None:
        self.full_objects = full_objects

    def tree(self, value: Any) -> Any:
        cls = type(value)
        if value is None or cls is bool:
            return value
        writer = _MATH_ARGS.get(cls)
        if writer is not None:
            return writer(value)
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, int):
            return f"i:{int(value)}"
        if isinstance(value, float):
            return "f:" + num_real(float(value))
        if isinstance(value, StringName):
            return "sn:" + _text(value)
        if isinstance(value, str):
            return "s:" + _text(value)
        if isinstance(value, NodePath):
            return "np:" + _text(str(value))
        if isinstance(value, RID | Callable | Signal):
            return {"type": type(value).__name__}
        if isinstance(value, GodotObject | ObjectID):
            return self.object_(value)
        if isinstance(value, Dictionary | dict):
            return self.dictionary(value)
        if isinstance(value, TypedArray):
            return self.typed_array(value)
        if isinstance(value, PackedStringArray):
            return {"type": "PackedStringArray", "args": [_text(s) for s in value]}
        if isinstance(value, list) or cls is tuple:
            return [self.tree(v) for v in value]
        if isinstance(value, _PackedNumbers):
            return self.packed(value)
        if isinstance(value, bytes | bytearray | memoryview):
            return {"type": "PackedByteArray", "args": list(bytes(value))}
        for base in cls.__mro__[1:]:  # a subclass of a math type
            writer = _MATH_ARGS.get(base)
            if writer is not None:
                return writer(value)
        raise EncodeError(f"Godot 4 has no JSON form for a {cls.__qualname__}")

    def object_(self, value: GodotObject | ObjectID) -> Any:
        if not self.full_objects:
            raise EncodeError("an Object needs full_objects=True (JSON.from_native writes null)")
        if isinstance(value, ObjectID):
            raise EncodeError("an Object sent as its id has no JSON form; decode with objects")
        props: list[Any] = []
        for name, prop in value.properties:
            props += [name, self.tree(prop)]
        return {"type": value.class_name, "props": props}

    def dictionary(self, value: Any) -> Any:
        out: dict[str, Any] = {"type": "Dictionary"}
        pairs = value.items_list if isinstance(value, Dictionary) else value.items()
        if isinstance(value, Dictionary):
            key = _element_name(value.key_type, self.full_objects)
            val = _element_name(value.value_type, self.full_objects)
            if key is not None:
                out["key_type"] = key
            if val is not None:
                out["value_type"] = val
        args: list[Any] = []
        for k, v in pairs:
            args += [self.tree(k), self.tree(v)]
        out["args"] = args
        return out

    def typed_array(self, value: TypedArray) -> Any:
        name = _element_name(value.element_type, self.full_objects)
        items = [self.tree(v) for v in value]
        if name is None:
            return items
        return {"type": "Array", "elem_type": name, "args": items}

    def packed(self, value: _PackedNumbers) -> Any:
        name = next((_PACKED_NAMES[c] for c in type(value).__mro__ if c in _PACKED_NAMES), None)
        if name is None:
            raise EncodeError(f"Godot 4 has no {type(value).__name__}")
        numbers = value._numbers()
        if value._code in "iq":
            return {"type": name, "args": [int(n) for n in numbers]}
        if value._code == "d" and name == "PackedFloat64Array":
            return {"type": name, "args": [float(n) for n in numbers]}
        return {"type": name, "args": [_real(float(n)) for n in numbers]}


def _text(value: str) -> str:
    if "\0" in value:
        raise EncodeError("a Godot String cannot contain NUL (U+0000)")
    return value


def _flat(value: Any) -> list[Any]:
    out: list[Any] = []
    for item in value:
        if isinstance(item, tuple):
            out += _flat(item)
        else:
            out.append(item)
    return out


def _math_writer(name: str, int_args: bool) -> Fn[[Any], Any]:
    if int_args:
        return lambda v: {"type": name, "args": [int(c) for c in _flat(v)]}
    return lambda v: _args(name, _flat(v))


_PACKED_NAMES: dict[type[_PackedNumbers], str] = {
    PackedInt32Array: "PackedInt32Array",
    PackedInt64Array: "PackedInt64Array",
    PackedFloat32Array: "PackedFloat32Array",
    PackedFloat64Array: "PackedFloat64Array",
    PackedVector2Array: "PackedVector2Array",
    PackedVector3Array: "PackedVector3Array",
    PackedVector4Array: "PackedVector4Array",
    PackedColorArray: "PackedColorArray",
}


def _math_writers() -> dict[type, Fn[[Any], Any]]:
    return {cls: _math_writer(name, kind == "i32") for name, (cls, kind, _) in MATH_TYPES.items()}


_MATH_ARGS = _math_writers()


def from_native_tree(value: Any, full_objects: bool) -> Any:
    """The tree ``JSON.from_native(value, full_objects)`` makes."""
    return _FromNative(full_objects).tree(value)


def _components_in_order(cls: type) -> bool:
    """Whether a value of the math class ``cls`` is its own flat tuple of components (its
    layout flattens it with ``tuple``), so the compiled writer reads them off it directly."""
    return issubclass(cls, tuple) and LAYOUTS[MATH_CLASSES[cls]].flatten is tuple


#: (maths, packed, StringName, PackedStringArray) for the compiled writer (:mod:`.core`)
_PLAN: tuple[Any, ...] = (
    {
        cls: (name, kind == "i32", None if _components_in_order(cls) else _flat)
        for name, (cls, kind, _) in MATH_TYPES.items()
    },
    {
        cls: (name, cls._code if cls._code != "d" or name == "PackedFloat64Array" else "D")
        for cls, name in _PACKED_NAMES.items()
    },
    StringName,
    PackedStringArray,
)


def compiled_plan() -> tuple[Any, ...]:
    """What the compiled Godot-dialect writer needs to know: ``(maths, packed, StringName,
    PackedStringArray)``, where ``maths`` maps each math class to its name, whether its
    components are ints and how to flatten it (None: it is its own flat tuple), and
    ``packed`` each numeric packed class to its name and the kind of its numbers (``"i"``,
    ``"q"``, ``"f"``, ``"d"``; ``"D"``: doubles written as float32)."""
    return _PLAN


# ---- to_native ------------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _to_int(text: str) -> int:
    """``String::to_int``: digits anywhere count, a ``-`` before any digit flips the sign,
    everything else is skipped; out of range clamps."""
    number = 0
    sign = 1
    for c in text:
        if "0" <= c <= "9":
            number = number * 10 + (ord(c) - 48)
            if number > _INT64[1] + (sign < 0):
                return _INT64[0] if sign < 0 else _INT64[1]
        elif c == "-" and number == 0:
            sign = -sign
    return sign * number


def _to_float(text: str) -> float:
    """``"f:"``'s reading: ``inf``, ``-inf`` and ``nan`` by name, else Godot's strtod of the
    leading number (a sign with no digits after it reads as a zero of that sign)."""
    if text == "inf":
        return math.inf
    if text == "-inf":
        return -math.inf
    if text == "nan":
        return math.nan
    text = text.strip()
    match = _NUMBER.match(text)
    if match:
        return godot_strtod(match.group())
    return -0.0 if text.startswith("-") else 0.0


def _variant_float(node: Any) -> float:
    """A JSON arg converted to a float as Variant does (numbers, bools, null, strings)."""
    if node is None:
        return 0.0
    if isinstance(node, bool | int | float):
        return float(node)
    if isinstance(node, str):
        return _to_float(node)
    raise Bad(f"expected a number, got {type(node).__name__}")


def _c_int(value: float, bits: int) -> int:
    """A double to a C integer of ``bits`` bits, truncating; out of range gives the minimum
    (what x86-64's conversion instruction returns)."""
    low = -(1 << (bits - 1))
    if not math.isfinite(value) or not low <= value < -low:
        return low
    return int(value)


def _variant_int(node: Any, bits: int = 64) -> int:
    if isinstance(node, str):
        return _to_int(node)
    if isinstance(node, int) and not isinstance(node, bool):
        node = float(node)  # JSON numbers are doubles in Godot
    return _c_int(_variant_float(node), bits)


class _ToNative:
    def __init__(self, allow_objects: bool) -> None:
        self.allow_objects = allow_objects
        self.level = 0  # containers around the node being read

    def value(self, node: Any) -> Any:
        if node is None or isinstance(node, bool):
            return node
        if isinstance(node, str):
            return self.string(node)
        if isinstance(node, list):
            return self.items(node)
        if isinstance(node, dict):
            if self.level > _MAX_DEPTH:
                raise Bad(f"nested deeper than Godot's {_MAX_DEPTH} levels")
            return self.typed(node)
        raise Bad(f'a bare number ({node!r}) is not a value here: Godot writes "i:" or "f:"')

    def items(self, nodes: list[Any]) -> list[Any]:
        """The values of a container's elements (an Array, or a typed container's args)."""
        if self.level > _MAX_DEPTH:
            raise Bad(f"nested deeper than Godot's {_MAX_DEPTH} levels")
        self.level += 1
        out = []
        for i, item in enumerate(nodes):
            try:
                out.append(self.value(item))
            except Bad as exc:
                raise exc.at(f"[{i}]") from None
        self.level -= 1
        return out

    def string(self, text: str) -> Any:
        if text.startswith("i:"):
            return _to_int(text[2:])
        if text.startswith("f:"):
            return _to_float(text[2:])
        if text.startswith("s:"):
            return text[2:]
        if text.startswith("sn:"):
            return StringName(text[3:])
        if text.startswith("np:"):
            return NodePath(text[3:])
        raise Bad('a string needs a type prefix ("i:", "f:", "s:", "sn:" or "np:")')

    def typed(self, node: dict[str, Any]) -> Any:
        if "type" not in node:
            raise Bad('an object needs a "type" member')
        name = node["type"]
        if not isinstance(name, str):
            raise Bad("expected a type name").at(".type")
        vtype = _NAMED.get(name)
        if vtype is None:
            return self.object_(name, node)
        if vtype in (T.NIL, T.BOOL):
            raise Bad(f'"{name}" is plain JSON; it takes no "type"').at(".type")
        if vtype in (T.INT, T.FLOAT, T.STRING, T.STRING_NAME, T.NODE_PATH):
            raise Bad(f"a {name} is written as a prefixed string, not an object").at(".type")
        if vtype is T.RID:
            return RID()
        if vtype is T.CALLABLE:
            return Callable()
        if vtype is T.SIGNAL:
            return Signal()
        args = node.get("args")
        if not isinstance(args, list):
            raise Bad(f'{name} needs an "args" array').at(".args" if "args" in node else "")
        try:
            if vtype is T.DICTIONARY:
                return self.dictionary(node, args)
            if vtype is T.ARRAY:
                return self.array(node, args)
            return _CONSTRUCT[vtype](name, args)
        except Bad as exc:
            if not exc.segments:
                exc.at(".args")
            raise

    def element(self, node: dict[str, Any], key: str) -> ElementType | None:
        if key not in node:
            return None
        name = node[key]
        if not isinstance(name, str):
            raise Bad("expected a type name").at(member(key))
        vtype = _NAMED.get(name)
        if vtype is not None and vtype is not T.OBJECT:
            return None if vtype is T.NIL else ElementType.builtin(vtype)
        if not self.allow_objects:
            raise Bad(
                f'element type "{name}" is a class or script: it needs allow_objects=True'
            ).at(member(key))
        if name.startswith("res://"):
            return ElementType.script(name)
        return ElementType.class_name(name)

    def dictionary(self, node: dict[str, Any], args: list[Any]) -> Any:
        if len(args) % 2:
            raise Bad("a Dictionary needs an even number of args (key, value, ...)")
        key_type = self.element(node, "key_type")
        value_type = self.element(node, "value_type")
        items = self.items(args)
        keys: list[Any] = []
        values: list[Any] = []
        slots: dict[Any, int] = {}
        for key, value in zip(items[0::2], items[1::2], strict=True):
            token = key_token(key, _GODOT4_KEYS)
            if token in slots:  # the same key in Godot: the later value replaces the earlier
                values[slots[token]] = value
                continue
            slots[token] = len(keys)
            keys.append(key)
            values.append(value)
        return godot_dictionary(keys, values, key_type, value_type)

    def array(self, node: dict[str, Any], args: list[Any]) -> Any:
        spec = self.element(node, "elem_type")
        items = self.items(args)
        return items if spec is None else TypedArray(spec, items)

    def object_(self, name: str, node: dict[str, Any]) -> Any:
        if not self.allow_objects:
            raise Bad(f'unknown type "{name}" (an Object needs allow_objects=True)').at(".type")
        props = node.get("props")
        if not isinstance(props, list) or len(props) % 2:
            raise Bad(f'Object "{name}" needs a "props" array of names and values').at(".props")
        pairs = []
        self.level += 1
        for i in range(0, len(props), 2):
            prop = props[i]
            if not isinstance(prop, str):
                raise Bad("expected a property name").at(f".props[{i}]")
            try:
                pairs.append((prop, self.value(props[i + 1])))
            except Bad as exc:
                raise exc.at(f".props[{i + 1}]") from None
        self.level -= 1
        return GodotObject(name, pairs)


def _sized(size: int, build: Fn[[list[Any]], Any], ints: bool = False) -> Fn[[str, list[Any]], Any]:
    def construct(name: str, args: list[Any]) -> Any:
        if len(args) != size:
            raise Bad(f"{name} needs {size} args, got {len(args)}")
        if ints:
            return build([_variant_int(a, 32) for a in args])
        return build([f32(_variant_float(a)) for a in args])

    return construct


def _packed(cls: type, width: int, convert: Fn[[Any], Any]) -> Fn[[str, list[Any]], Any]:
    def construct(name: str, args: list[Any]) -> Any:
        if len(args) % width:
            raise Bad(f"{name} needs a multiple of {width} args, got {len(args)}")
        flat = [convert(a) for a in args]
        if width == 1:
            return cls(flat)
        return cls([flat[i : i + width] for i in range(0, len(flat), width)])

    return construct


def _math_constructors() -> dict[VariantType, Fn[[str, list[Any]], Any]]:
    return {
        _NAMED[name]: _sized(MATH_SIZES[name], build, kind == "i32")
        for name, (_, kind, build) in MATH_TYPES.items()
    }


def _single(node: Any) -> float:
    return f32(_variant_float(node))


_CONSTRUCT: dict[VariantType, Fn[[str, list[Any]], Any]] = {
    **_math_constructors(),
    T.PACKED_BYTE_ARRAY: lambda name, args: bytes(_variant_int(a) & 0xFF for a in args),
    T.PACKED_INT32_ARRAY: _packed(PackedInt32Array, 1, lambda a: _variant_int(a, 32)),
    T.PACKED_INT64_ARRAY: _packed(PackedInt64Array, 1, _variant_int),
    T.PACKED_FLOAT32_ARRAY: _packed(PackedFloat32Array, 1, _single),
    T.PACKED_FLOAT64_ARRAY: _packed(PackedFloat64Array, 1, _variant_float),
    T.PACKED_STRING_ARRAY: lambda name, args: PackedStringArray(_variant_str(a) for a in args),
    T.PACKED_VECTOR2_ARRAY: _packed(PackedVector2Array, 2, _single),
    T.PACKED_VECTOR3_ARRAY: _packed(PackedVector3Array, 3, _single),
    T.PACKED_COLOR_ARRAY: _packed(PackedColorArray, 4, _single),
    T.PACKED_VECTOR4_ARRAY: _packed(PackedVector4Array, 4, _single),
}


def _variant_str(node: Any) -> str:
    if isinstance(node, str):
        return node
    raise Bad(f"expected a string, got {node!r}")


def to_native_value(tree: Any, allow_objects: bool) -> Any:
    """The value ``JSON.to_native(tree, allow_objects)`` makes, or :class:`Bad` where the
    engine reports an error (and returns null)."""
    return _ToNative(allow_objects).value(tree)


def _node_value(node: Any, level: int, allow_objects: bool) -> Any:
    """The pure reader's value of a node ``level`` containers deep (or its error)."""
    reader = _ToNative(allow_objects)
    reader.level = level
    return reader.value(node)


_MATH_READ = {
    name: (kind == "i32", MATH_SIZES[name], build) for name, (_, kind, build) in MATH_TYPES.items()
}
#: The numeric packed arrays the compiled reader builds: (class, array typecode, width)
_PACKED_READ = {name: (cls, cls._code, cls._width) for cls, name in _PACKED_NAMES.items()}
_READ_PLANS = {
    allow: (
        _MATH_READ,
        _PACKED_READ,
        StringName,
        NodePath,
        lambda node, level, allow=allow: _node_value(node, level, allow),
    )
    for allow in (False, True)
}


def compiled_read_plan(allow_objects: bool) -> tuple[Any, ...]:
    """What the compiled Godot-dialect reader needs (:mod:`.core`): ``(maths, packed,
    StringName, NodePath, fallback)``, where ``maths`` maps each math type's name to whether
    its components are ints, their count and the builder, ``packed`` each numeric packed
    type's name to its class, array typecode and width, and ``fallback(node, level)`` is the
    pure reader's value of a node ``level`` containers deep."""
    return _READ_PLANS[allow_objects]
