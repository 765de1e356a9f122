"""The value model's base: Godot's type ids, the record base class, names and handles.

Plain Python covers ``null`` (None), ``bool``, ``int``, ``float``, ``String`` (str), untyped
``Array`` (list) and ``Dictionary`` (dict) and ``PackedByteArray`` (bytes). Everything else is
a class of gdvariant's: :class:`VariantType` numbers them, and the records (subclasses of
:class:`_Record`) are immutable and hashable, compare by value *and type*
(``Vector2(1, 2) != Vector2i(1, 2)``, as in Godot), and print as the call that makes them.
This module holds the names, paths, handles and objects (StringName, NodePath, RID,
ObjectID, Callable, Signal, GodotObject); the math types live in :mod:`gdvariant._values.math`,
typed Arrays and lossless Dictionaries in :mod:`gdvariant._values.collections`, packed arrays in
:mod:`gdvariant._values.packed`.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Self, SupportsFloat, SupportsIndex

__all__ = [
    "RID",
    "Callable",
    "GodotObject",
    "NodePath",
    "ObjectID",
    "Signal",
    "StringName",
    "VariantType",
]


class VariantType(enum.IntEnum):
    """Godot's ``Variant::Type``, numbered as in Godot 4.

    Other engine lines number their types differently on the wire; their profiles map those
    numbers onto these names (see :mod:`gdvariant._engines.profiles`). Members from 100 up are types
    that Godot 4 lacks: Godot 2's Image and InputEvent, and the Pandemonium fork's pools of
    integer vectors and its typed arrays.
    """

    NIL = 0
    BOOL = 1
    INT = 2
    FLOAT = 3
    STRING = 4
    VECTOR2 = 5
    VECTOR2I = 6
    RECT2 = 7
    RECT2I = 8
    VECTOR3 = 9
    VECTOR3I = 10
    TRANSFORM2D = 11
    VECTOR4 = 12
    VECTOR4I = 13
    PLANE = 14
    QUATERNION = 15
    AABB = 16
    BASIS = 17
    TRANSFORM3D = 18
    PROJECTION = 19
    COLOR = 20
    STRING_NAME = 21
    NODE_PATH = 22
    RID = 23
    OBJECT = 24
    CALLABLE = 25
    SIGNAL = 26
    DICTIONARY = 27
    ARRAY = 28
    PACKED_BYTE_ARRAY = 29
    PACKED_INT32_ARRAY = 30
    PACKED_INT64_ARRAY = 31
    PACKED_FLOAT32_ARRAY = 32
    PACKED_FLOAT64_ARRAY = 33
    PACKED_STRING_ARRAY = 34
    PACKED_VECTOR2_ARRAY = 35
    PACKED_VECTOR3_ARRAY = 36
    PACKED_COLOR_ARRAY = 37
    PACKED_VECTOR4_ARRAY = 38
    IMAGE = 100
    INPUT_EVENT = 101
    PACKED_VECTOR2I_ARRAY = 102
    PACKED_VECTOR3I_ARRAY = 103
    PACKED_VECTOR4I_ARRAY = 104
    TYPED_ARRAY = 105
    PACKED_TYPED_ARRAY = 106


class _Record(tuple):  # type: ignore[type-arg]
    """Base of the immutable value types: a tuple whose equality and hash include its type."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple.__hash__(self)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self))})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), tuple(self)))

    def _asdict(self) -> dict[str, Any]:
        """The fields by name, like ``NamedTuple._asdict``."""
        return dict(zip(self._fields, self, strict=True))


def _field(index: int) -> Any:
    """A read-only named field of a value type: item ``index`` of the tuple."""
    return property(operator.itemgetter(index))


def _rebuild(cls: type[_Record], fields: tuple[Any, ...]) -> _Record:
    """Unpickle/copy a value type from its fields, bypassing the user-facing constructor."""
    return tuple.__new__(cls, fields)


def _f(value: SupportsFloat) -> float:
    return float(value)


def _i(value: SupportsIndex) -> int:
    return operator.index(value)


# ---- names, paths, handles ----------------------------------------------------------------


class StringName(str):
    """``StringName``: a ``str`` that travels with its own type id (``&"name"`` in GDScript)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"StringName({str.__repr__(self)})"


class NodePath(_Record):
    """``NodePath``: node names, subnames (properties) and whether it is absolute.

    ``NodePath("/root/Main:position:x")`` parses Godot's path syntax; ``str()`` gives it back.
    As the engine's parser does, empty names are skipped and one trailing ``:`` is allowed, but
    an empty subname before another ``:`` (``"a::b"``) makes the whole path empty
    (docs/binary-format.md, "typed containers").
    """

    __slots__ = ()
    _fields = ("names", "subnames", "absolute")

    def __new__(cls, path: str = "") -> Self:
        absolute = path.startswith("/")
        node_part, colon, sub_part = path.partition(":")
        names = tuple(n for n in node_part.split("/") if n)
        subnames = tuple(sub_part.split(":")) if colon else ()
        if subnames and not subnames[-1]:
            subnames = subnames[:-1]
        if "" in subnames:
            return tuple.__new__(cls, ((), (), False))
        return tuple.__new__(cls, (names, subnames, absolute))

    @classmethod
    def from_parts(
        cls, names: Iterable[str], subnames: Iterable[str] = (), absolute: bool = False
    ) -> Self:
        """Build from the parts as they travel on the wire."""
        return tuple.__new__(cls, (tuple(names), tuple(subnames), bool(absolute)))

    names: tuple[str, ...] = _field(0)

    subnames: tuple[str, ...] = _field(1)

    absolute: bool = _field(2)

    def __str__(self) -> str:
        text = ("/" if self.absolute else "") + "/".join(self.names)
        if self.subnames:
            text += ":" + ":".join(self.subnames)
        return text

    def __repr__(self) -> str:
        if NodePath(str(self)) == self:
            return f"NodePath({str(self)!r})"
        return f"NodePath.from_parts({self.names!r}, {self.subnames!r}, {self.absolute!r})"


class RID(_Record):
    """``RID``: an opaque 64-bit server resource id."""

    __slots__ = ()
    _fields = ("id",)

    def __new__(cls, id: SupportsIndex = 0) -> Self:  # noqa: A002 - Godot's name
        return tuple.__new__(cls, (_i(id),))

    id: int = _field(0)


class ObjectID(_Record):
    """An Object sent as its instance id (Godot decodes it to ``EncodedObjectAsID``)."""

    __slots__ = ()
    _fields = ("id",)

    def __new__(cls, id: SupportsIndex) -> Self:  # noqa: A002 - Godot's name
        return tuple.__new__(cls, (_i(id),))

    id: int = _field(0)


class Callable(_Record):
    """``Callable``: Godot writes no data for it, so every Callable is the same empty one."""

    __slots__ = ()

    def __new__(cls) -> Self:
        return tuple.__new__(cls, ())


class Signal(_Record):
    """``Signal(name, object_id)``: what Godot keeps of a Signal on the wire."""

    __slots__ = ()
    _fields = ("name", "object_id")

    def __new__(cls, name: str = "", object_id: SupportsIndex = 0) -> Self:
        return tuple.__new__(cls, (str(name), _i(object_id)))

    name: str = _field(0)

    object_id: int = _field(1)


class GodotObject(_Record):
    """A full Object as ``var_to_bytes_with_objects`` writes it: an inert record.

    ``class_name`` is the native class; ``properties`` are (name, value) pairs in the engine's
    order. Nothing is instantiated, imported or called when one is decoded.
    """

    __slots__ = ()
    _fields = ("class_name", "properties")

    def __new__(
        cls, class_name: str, properties: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()
    ) -> Self:
        items = properties.items() if isinstance(properties, Mapping) else properties
        return tuple.__new__(cls, (str(class_name), tuple((str(k), v) for k, v in items)))

    class_name: str = _field(0)

    properties: tuple[tuple[str, Any], ...] = _field(1)

    def get(self, name: str, default: Any = None) -> Any:
        """The value of property ``name``, or ``default``."""
        for key, value in self.properties:
            if key == name:
                return value
        return default

    def __repr__(self) -> str:
        props = self.properties
        names = {name for name, _ in props}
        shown = dict(props) if len(names) == len(props) else list(props)
        return f"GodotObject({self.class_name!r}, {shown!r})"


_MOVED = {
    "math": (
        "AABB Basis Color Plane Projection Quaternion Rect2 Rect2i Transform2D Transform3D "
        "Vector2 Vector2i Vector3 Vector3i Vector4 Vector4i"
    ),
    "collections": "ContainerKind Dictionary ElementType PackedTypedArray TypedArray",
}


def __getattr__(name: str) -> Any:
    """Classes that lived here before the math types and containers got their own modules:
    pickles name a class by its defining module, so older pickles still find them here."""
    for module, names in _MOVED.items():
        if name in names.split():
            import importlib

            return getattr(importlib.import_module(f"gdvariant._values.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
