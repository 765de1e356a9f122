"""Turn the engine's ``describe()`` trees (see ``tests/live/codec/godot4_oracle.gd``) into
expected values.

This is the test suite's own reading of what the engine reported, built with gdvariant's
public constructors only, so decoder bugs cannot leak into the expectations. ``canon()`` makes
values comparable exactly (floats by their bits, so NaN equals itself and -0.0 differs from 0.0).
"""

from __future__ import annotations

import json
import re
import struct
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import gdvariant as gd

_REAL_VECTORS = {
    "Vector2": gd.Vector2,
    "Vector3": gd.Vector3,
    "Vector4": gd.Vector4,
    "Quaternion": gd.Quaternion,
    "Color": gd.Color,
}
_INT_VECTORS = {"Vector2i": gd.Vector2i, "Vector3i": gd.Vector3i, "Vector4i": gd.Vector4i}
_PACKED_VECTORS = {
    "PackedVector2Array": gd.PackedVector2Array,
    "PackedVector3Array": gd.PackedVector3Array,
    "PackedVector4Array": gd.PackedVector4Array,
    "PackedColorArray": gd.PackedColorArray,
    "PackedVector2Array64": gd.PackedVector2Array64,
    "PackedVector3Array64": gd.PackedVector3Array64,
    "PackedVector4Array64": gd.PackedVector4Array64,
}
_PACKED_INT_VECTORS = {
    "PackedVector2iArray": gd.PackedVector2iArray,
    "PackedVector3iArray": gd.PackedVector3iArray,
    "PackedVector4iArray": gd.PackedVector4iArray,
}
ENCODED_AS_ID = gd.ElementType.class_name("EncodedObjectAsID")


def f64(hex_bits: str) -> float:
    """A double from the hex of its 8 little-endian bytes."""
    return float(struct.unpack("<d", bytes.fromhex(hex_bits))[0])


def text(hex_utf8: str) -> str:
    """A string as Godot's decoder returns it: a leading BOM does not survive ``bytes_to_var``."""
    decoded = bytes.fromhex(hex_utf8).decode("utf-8", "surrogatepass")  # 3.2.3 writes them
    return decoded[1:] if decoded.startswith("\ufeff") else decoded


def u64(decimal: str) -> int:
    """An id the engine printed as a signed 64-bit int, as the unsigned value on the wire."""
    return int(decimal) & 0xFFFF_FFFF_FFFF_FFFF


def element_type(spec: list[Any] | None, objects: bool) -> gd.ElementType | None:
    """A container's element type; without objects Godot names object types EncodedObjectAsID."""
    if spec is None:
        return None
    kind, arg = spec
    if kind == "builtin":  # a Godot 4 type number, or a VariantType name
        vtype = gd.VariantType[arg] if isinstance(arg, str) else gd.VariantType(arg)
        return gd.ElementType.builtin(vtype)
    if not objects:
        return ENCODED_AS_ID
    if kind == "class":
        return gd.ElementType.class_name(arg)
    return gd.ElementType.script(arg)


def expected(tree: list[Any], objects: bool) -> Any:
    """The value the engine described; ``objects`` selects the with-objects encoding's view."""
    tag = tree[0]
    if tag == "nil":
        return None
    if tag == "bool":
        return bool(tree[1])
    if tag == "int":
        return int(tree[1])
    if tag == "float":
        return f64(tree[1])
    if tag == "String":
        return text(tree[1])
    if tag == "StringName":
        return gd.StringName(text(tree[1]))
    if tag in _REAL_VECTORS:
        return _REAL_VECTORS[tag](*map(f64, tree[1]))
    if tag in _INT_VECTORS:
        return _INT_VECTORS[tag](*tree[1])
    if tag == "Rect2i":
        x, y, w, h = tree[1]
        return gd.Rect2i((x, y), (w, h))
    if tag in ("Rect2", "Plane", "AABB", "Transform2D", "Basis", "Transform3D", "Projection"):
        return _composite(tag, [f64(c) for c in tree[1]])
    if tag == "NodePath":
        return gd.NodePath.from_parts(map(text, tree[2]), map(text, tree[3]), tree[1])
    if tag == "RID":
        return gd.RID(u64(tree[1]))
    if tag == "Object":
        _, class_name, instance_id, props = tree
        ids = [expected(v, objects) for name, v in props if name == "object_id"]
        if class_name == "EncodedObjectAsID" and ids and not objects:  # decoded from an id
            return gd.ObjectID(ids[0] & (2**64 - 1))
        if not objects:
            return gd.ObjectID(u64(instance_id))
        return gd.GodotObject(class_name, [(name, expected(v, objects)) for name, v in props])
    if tag == "Callable":
        return gd.Callable()
    if tag == "Signal":
        return gd.Signal(text(tree[1]), u64(tree[2]))
    if tag == "Array":
        items = [expected(item, objects) for item in tree[2]]
        etype = element_type(tree[1], objects or tree[1] == ["class", "EncodedObjectAsID"])
        return items if etype is None else gd.TypedArray(etype, items)
    if tag == "PackedTypedArray":  # Pandemonium
        items = [expected(item, objects) for item in tree[2]]
        etype = element_type(tree[1], objects or tree[1] == ["class", "EncodedObjectAsID"])
        assert etype is not None
        return gd.PackedTypedArray(etype, items)
    if tag == "Image":  # Godot 2
        fmt, mipmaps, width, height, data = tree[1:]
        return gd.Image(fmt, mipmaps, width, height, bytes.fromhex(data))
    if tag == "InputEvent":  # Godot 2
        etype, device, modifiers, code, axis_value = tree[1:]
        return gd.InputEvent(etype, device, modifiers, code, f64(axis_value))
    if tag in _PACKED_INT_VECTORS:
        return _PACKED_INT_VECTORS[tag](tree[1])
    if tag == "Dictionary":
        pairs = [(expected(k, objects), expected(v, objects)) for k, v in tree[3]]
        key_type, value_type = element_type(tree[1], objects), element_type(tree[2], objects)
        return as_godot_dictionary(pairs, key_type, value_type)
    if tag == "PackedByteArray":
        return bytes.fromhex(tree[1])
    if tag in ("PackedInt32Array", "PackedInt64Array"):
        return getattr(gd, tag)(int(n) for n in tree[1])
    if tag in ("PackedFloat32Array", "PackedFloat64Array"):
        return getattr(gd, tag)(f64(n) for n in tree[1])
    if tag == "PackedStringArray":
        return gd.PackedStringArray(text(s) for s in tree[1])
    if tag in _PACKED_VECTORS:
        return _PACKED_VECTORS[tag]([f64(c) for c in item] for item in tree[1])
    raise ValueError(f"unknown describe tag {tag!r}")


def _composite(tag: str, c: list[float]) -> Any:
    if tag == "Rect2":
        return gd.Rect2(c[0:2], c[2:4])
    if tag == "Plane":
        return gd.Plane(c[0:3], c[3])
    if tag == "AABB":
        return gd.AABB(c[0:3], c[3:6])
    if tag == "Transform2D":
        return gd.Transform2D(c[0:2], c[2:4], c[4:6])
    if tag == "Basis":
        return gd.Basis(c[0:3], c[3:6], c[6:9])
    if tag == "Transform3D":
        return gd.Transform3D((c[0:3], c[3:6], c[6:9]), c[9:12])
    return gd.Projection(c[0:4], c[4:8], c[8:12], c[12:16])


def as_godot_dictionary(
    pairs: list[tuple[Any, Any]],
    key_type: gd.ElementType | None = None,
    value_type: gd.ElementType | None = None,
) -> Any:
    """The documented rule: a plain dict when it holds every pair as-is, else a Dictionary."""
    if key_type is None and value_type is None:
        try:
            plain = dict(pairs)
        except TypeError:
            plain = None
        if plain is not None and len(plain) == len(pairs):
            return plain
    return gd.Dictionary(pairs, key_type, value_type)


def canon(value: Any) -> tuple[Any, ...]:
    """An exactly comparable (and hashable) form: type names kept, floats as bits.

    Flat: each node in pre-order as a small tuple that carries its child count, so equal
    forms mean equal values. Built without recursion and compared without it, since Python
    3.12 caps C-level recursion (nested tuple comparison) below a 1024-deep value."""
    out: list[tuple[Any, ...]] = []
    stack = [value]
    while stack:
        node, children = _canon_node(stack.pop())
        out.append(node)
        stack.extend(reversed(children))
    return tuple(out)


def _canon_node(value: Any) -> tuple[tuple[Any, ...], list[Any]]:
    """One value's own part of :func:`canon`, and its children in order."""
    if isinstance(value, float):
        return ("float", struct.pack("<d", value)), []
    if isinstance(value, bool | int | None | bytes):
        return (type(value).__name__, value), []
    if isinstance(value, gd.StringName):
        return ("StringName", str(value)), []
    if isinstance(value, str):
        return ("str", value), []
    if isinstance(value, gd.TypedArray):
        return ("TypedArray", value.element_type, len(value)), list(value)
    if isinstance(value, list):
        return ("list", len(value)), value
    if isinstance(value, dict):
        return ("dict", len(value)), [x for pair in value.items() for x in pair]
    if isinstance(value, gd.Dictionary):
        pairs = [x for pair in value.items() for x in pair]
        return ("Dictionary", value.key_type, value.value_type, len(value)), pairs
    if isinstance(value, gd.PackedView):
        return ("PackedView", value.kind.__name__, value.tobytes()), []
    if isinstance(value, tuple):  # every immutable gdvariant value type is a tuple
        return (type(value).__name__, len(value)), list(value)
    return (type(value).__name__, bytes(value)), []  # packed numeric arrays: their exact bytes


def same_but_padding(ours: bytes, theirs: bytes) -> bool:
    """Equal, except where the engine left padding unwritten and we wrote zeros (Godot 3's
    NodePath strings): same length, and every differing byte is a zero of ours."""
    return len(ours) == len(theirs) and all(
        a == b or a == 0 for a, b in zip(ours, theirs, strict=True)
    )


@contextmanager
def deep_recursion(limit: int = 10_000) -> Iterator[None]:
    """Let the recursive helpers here walk values nested to Godot's 1024 limit."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def engine_key(key: Any, godot3: bool = False) -> Any:
    """A token that is equal for two Dictionary keys exactly when the engine holds them as one.

    Engine-verified (``tests/live/codec/test_dictionary_keys.py``). Both lines compare key types
    strictly (``1`` and ``1.0`` stay apart) and take ``0.0`` for ``-0.0``. Godot 4 compares
    every container by value, in order, ignoring an Array's element type; a String key and a
    StringName key are one, and NaN matches NaN, but a bare float or string inside an Array or
    as a Dictionary value is compared strictly (``[NAN]`` twice is two keys). Godot 3 compares
    Arrays and math values by content, NaN matching NaN at any depth, but a Dictionary only by
    identity: a key holding a Dictionary anywhere never matches another.
    """
    return _key_token(key, "key", godot3)


def _float_token(x: float, nan_matches: bool) -> Any:
    if x != x:
        return ("nan",) if nan_matches else object()
    return ("float", 0.0 if x == 0 else x)


def _key_token(value: Any, place: str, godot3: bool) -> Any:
    """``place`` is "key" (a key, at any depth), "element" (in an Array, or a Dictionary
    value) or "part" (a component of a math value or packed array)."""
    if isinstance(value, float):
        return _float_token(value, godot3 or place != "element")
    if isinstance(value, str) and not godot3 and place == "key":
        return ("str", str(value))  # String and StringName
    if isinstance(value, list):  # TypedArray too: its element type does not count
        return ("Array", tuple(_key_token(v, "element", godot3) for v in value))
    if isinstance(value, dict | gd.Dictionary):
        if godot3:
            return object()
        return (
            "Dictionary",
            tuple(
                (_key_token(k, "key", godot3), _key_token(v, "element", godot3))
                for k, v in value.items()
            ),
        )
    if isinstance(value, tuple) or (isinstance(value, bytes) and type(value) is not bytes):
        return (type(value).__name__, tuple(_key_token(v, "part", godot3) for v in value))
    return canon(value)


def as_engine_holds(value: Any, godot3: bool = False) -> Any:
    """``value`` as the engine holds it once decoded, where that differs from the bytes:
    :func:`merge_keys`, and with ``godot3`` a NodePath with no names and no subnames loses its
    absolute flag, as Godot 3's NodePath constructor makes it (godot3.md §5.1)."""
    return _held(value, godot3, godot3)


def merge_keys(value: Any, godot3: bool = False) -> Any:
    """One pair per Dictionary key, as the engine keeps it (the first position, the last
    value), where we keep every pair as written; :func:`engine_key` says which keys are one."""
    return _held(value, godot3, False)


def _held(value: Any, godot3: bool, relative_root: bool) -> Any:
    if isinstance(value, gd.TypedArray):
        items = [_held(v, godot3, relative_root) for v in value]
        return type(value)(value.element_type, items)
    if isinstance(value, list):
        return [_held(v, godot3, relative_root) for v in value]
    if isinstance(value, dict | gd.Dictionary):
        pairs: list[tuple[Any, Any]] = []
        where: dict[Any, int] = {}
        for key, val in value.items():
            key, val = _held(key, godot3, relative_root), _held(val, godot3, relative_root)
            tag = engine_key(key, godot3)
            if tag in where:
                pairs[where[tag]] = (pairs[where[tag]][0], val)
            else:
                where[tag] = len(pairs)
                pairs.append((key, val))
        key_type, value_type = getattr(value, "key_type", None), getattr(value, "value_type", None)
        return as_godot_dictionary(pairs, key_type, value_type)
    if isinstance(value, gd.GodotObject):
        props = [(name, _held(v, godot3, relative_root)) for name, v in value.properties]
        return gd.GodotObject(value.class_name, props)
    if relative_root and value == gd.NodePath("/"):
        return gd.NodePath("")
    return value


def check_engine_record(record: dict[str, Any], version: str) -> None:
    """An engine-written record (golden file or live ``generate``): both byte forms decode,
    using every byte, to the value the engine described, and encode back to its bytes.

    Two engine habits are allowed for: Godot drops a leading BOM when it decodes a String, so
    no decoder can give those bytes back; and where the engine leaves NodePath padding
    unwritten (Godot 3) our bytes may differ only where we wrote zeros, and must read back to
    the same value.
    """
    described = json.dumps(record["value"])
    padding = "NodePath" in gd.get_profile(version).unwritten_padding
    for key, objects in (("bytes", False), ("bytes_objects", True)):
        where = f"{record['i']} {record['name']} ({key})"
        data = bytes.fromhex(record[key])
        value, used = gd.decode(data, version=version, allow_objects=objects)
        assert used == len(data), where
        assert canon(value) == canon(expected(record["value"], objects)), where
        if '"efbbbf' in described:
            continue
        ours = gd.dumps(value, version=version, full_objects=objects)
        if ours != data and padding and '"NodePath"' in described:
            assert same_but_padding(ours, data), where
            assert canon(gd.loads(ours, version=version, allow_objects=objects)) == canon(value)
        else:
            assert ours == data, where


def walk(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """``value`` with ``leaf`` applied to everything that is not a container."""
    if isinstance(value, gd.TypedArray):
        return type(value)(value.element_type, [walk(v, leaf) for v in value])
    if isinstance(value, list):
        return [walk(v, leaf) for v in value]
    if isinstance(value, dict):
        return {walk(k, leaf): walk(v, leaf) for k, v in value.items()}
    if isinstance(value, gd.Dictionary):
        pairs = [(walk(k, leaf), walk(v, leaf)) for k, v in value.items()]
        return gd.Dictionary(pairs, value.key_type, value.value_type)
    return leaf(value)


_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _as_godot36_writes(text: str) -> str:
    joined = _PAIR.sub(lambda m: m.group().encode("utf-16", "surrogatepass").decode("utf-16"), text)
    return _SURROGATE.sub(" ", joined)


def surrogates_as_spaces(value: Any) -> Any:
    """As Godot 3.6 describes and re-encodes a String (its ``String::utf8``): a high-low
    surrogate pair as the character it stands for, each other surrogate as a space."""

    def leaf(v: Any) -> Any:
        if isinstance(v, gd.StringName):
            return gd.StringName(_as_godot36_writes(v))
        if isinstance(v, str):
            return _as_godot36_writes(v)
        if isinstance(v, gd.PackedStringArray):
            return gd.PackedStringArray(_as_godot36_writes(s) for s in v)
        if isinstance(v, gd.NodePath):
            names, subnames = (map(_as_godot36_writes, part) for part in (v.names, v.subnames))
            return gd.NodePath.from_parts(names, subnames, v.absolute)
        return v

    return walk(value, leaf)


_ANY_OBJECT = gd.ElementType.builtin(gd.VariantType.OBJECT)


def _object_type(element_type: gd.ElementType | None) -> gd.ElementType | None:
    """Object element types as one: how the engine's description names an Object type
    (``EncodedObjectAsID``, an empty class) is not what these vectors test."""
    if element_type is not None and element_type.type == gd.VariantType.OBJECT:
        return _ANY_OBJECT
    return element_type


def objects_as_seen(value: Any) -> Any:
    """Objects reduced to what both sides know: an id-decoded object (Godot makes it an
    ``EncodedObjectAsID``) is its id; a full object is its class (the engine adds every
    default property of the class, which gdvariant does not know)."""

    def leaf(v: Any) -> Any:
        if isinstance(v, gd.GodotObject):
            props = dict(v.properties)
            if v.class_name == "EncodedObjectAsID":
                return gd.ObjectID(props["object_id"] & (2**64 - 1))
            return gd.GodotObject(v.class_name)
        return v

    value = walk(value, leaf)
    if isinstance(value, gd.TypedArray):
        return type(value)(_object_type(value.element_type), value)  # type: ignore[arg-type]
    if isinstance(value, gd.Dictionary):
        key_type, value_type = _object_type(value.key_type), _object_type(value.value_type)
        return gd.Dictionary(value.items(), key_type, value_type)
    return value


def objects_inside(value: Any) -> bool:
    """Whether ``value`` holds a full Object: the engine instantiates its class when it reads
    the text (adding the class's default properties), which no text reader can mirror."""
    if isinstance(value, gd.GodotObject):
        return True
    if isinstance(value, gd.Dictionary):
        return any(objects_inside(k) or objects_inside(v) for k, v in value.items_list)
    if isinstance(value, dict):
        return any(objects_inside(k) or objects_inside(v) for k, v in value.items())
    if isinstance(value, list):
        return any(objects_inside(v) for v in value)
    return False
