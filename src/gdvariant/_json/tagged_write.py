"""Values to tagged JSON trees (``to_json``'s half of :mod:`gdvariant._json.tagged`).

Plain JSON values stand for themselves; everything else becomes an object tagged with
``"$type"``. Floats are written exactly: shortest round-trip digits, float32 components as
the shortest digits that read back to the same float32, non-finite numbers as strings.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable as Fn
from collections.abc import Iterable, Mapping
from typing import Any

from .._errors import EncodeError
from .._floats import f32, is_float32
from .._values.base import RID, Callable, GodotObject, NodePath, ObjectID, Signal, StringName
from .._values.collections import (
    ContainerKind,
    Dictionary,
    ElementType,
    PackedTypedArray,
    TypedArray,
)
from .._values.godot2 import Image, InputEvent
from .._values.layouts import LAYOUTS, MATH_CLASSES
from .._values.packed import PackedStringArray, _PackedNumbers
from .tagged import F64, INT64, MATH_CLASS_NAMES, MATH_TYPES, PACKED_NAMES, TAG, TYPE_NAMES, U64

__all__ = ["compiled_plan", "to_tree"]

_QUIET_NAN = 0x7FF8000000000000
_F32_MIN_NORMAL = 2.0**-126


# ---- numbers --------------------------------------------------------------------------------


def _special(x: float) -> str:
    """The string of a non-finite float."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    bits = U64.unpack(F64.pack(x))[0]
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
    name = next(MATH_CLASS_NAMES[c] for c in type(value).__mro__ if c in MATH_CLASS_NAMES)
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
    name, wide = PACKED_NAMES[type(value)]
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
    if not INT64[0] <= number <= INT64[1]:
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
    **dict.fromkeys(MATH_CLASS_NAMES, _math_out),
    **dict.fromkeys(PACKED_NAMES, _packed_out),
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


def _components_in_order(cls: type) -> bool:
    """Whether a value of the math class ``cls`` is its own flat tuple of components (its
    layout flattens it with ``tuple``), so the compiled writer reads them off it directly."""
    return issubclass(cls, tuple) and LAYOUTS[MATH_CLASSES[cls]].flatten is tuple


def _flat_list(value: Any) -> list[Any]:
    return list(_flatten(value))


#: (maths, packed, StringName) for the compiled writer (:mod:`.core`)
_PLAN: tuple[Any, ...] = (
    {
        cls: (name, MATH_TYPES[name][1] == "i32", None if _components_in_order(cls) else _flat_list)
        for cls, name in MATH_CLASS_NAMES.items()
    },
    {cls: (name, wide, cls._code, cls._width) for cls, (name, wide) in PACKED_NAMES.items()},
    StringName,
)


def compiled_plan() -> tuple[Any, ...]:
    """What the compiled tagged writer needs to know: ``(maths, packed, StringName)``, where
    ``maths`` maps each math class to its name, whether its components are ints and how to
    flatten it (None: it is its own flat tuple), and ``packed`` each numeric packed class to
    its name, whether it is the 64-bit form, its array typecode and its width."""
    return _PLAN
