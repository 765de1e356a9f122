"""Godot value types that have no lossless plain-Python equivalent.

Plain Python covers ``null`` (None), ``bool``, ``int``, ``float``, ``String`` (str), untyped
``Array`` (list) and ``Dictionary`` (dict) and ``PackedByteArray`` (bytes). Everything else is
one of the classes here. They are immutable and hashable, compare by value *and type*
(``Vector2(1, 2) != Vector2i(1, 2)``, as in Godot), and print as the call that makes them.
Packed arrays live in :mod:`gdvariant._packed`.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, ClassVar, Self, SupportsFloat, SupportsIndex

__all__ = [
    "AABB",
    "RID",
    "Basis",
    "Callable",
    "Color",
    "ContainerKind",
    "Dictionary",
    "ElementType",
    "GodotObject",
    "NodePath",
    "ObjectID",
    "PackedTypedArray",
    "Plane",
    "Projection",
    "Quaternion",
    "Rect2",
    "Rect2i",
    "Signal",
    "StringName",
    "Transform2D",
    "Transform3D",
    "TypedArray",
    "VariantType",
    "Vector2",
    "Vector2i",
    "Vector3",
    "Vector3i",
    "Vector4",
    "Vector4i",
]


class VariantType(enum.IntEnum):
    """Godot's ``Variant::Type``, numbered as in Godot 4.

    Other engine lines number their types differently on the wire; their profiles map those
    numbers onto these names (see :mod:`gdvariant._profiles`). Members from 100 up are types
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


# ---- real (float) vectors -----------------------------------------------------------------


class Vector2(_Record):
    """``Vector2``: two reals (32-bit on the wire unless the engine uses doubles)."""

    __slots__ = ()
    _fields = ("x", "y")

    def __new__(cls, x: SupportsFloat = 0.0, y: SupportsFloat = 0.0) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y)))

    x: float = _field(0)

    y: float = _field(1)


class Vector3(_Record):
    """``Vector3``: three reals."""

    __slots__ = ()
    _fields = ("x", "y", "z")

    def __new__(
        cls, x: SupportsFloat = 0.0, y: SupportsFloat = 0.0, z: SupportsFloat = 0.0
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z)))

    x: float = _field(0)

    y: float = _field(1)

    z: float = _field(2)


class Vector4(_Record):
    """``Vector4``: four reals."""

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

    def __new__(
        cls,
        x: SupportsFloat = 0.0,
        y: SupportsFloat = 0.0,
        z: SupportsFloat = 0.0,
        w: SupportsFloat = 0.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z), _f(w)))

    x: float = _field(0)

    y: float = _field(1)

    z: float = _field(2)

    w: float = _field(3)


class Quaternion(Vector4):
    """``Quaternion`` (x, y, z, w); the default is the identity rotation."""

    __slots__ = ()

    def __new__(
        cls,
        x: SupportsFloat = 0.0,
        y: SupportsFloat = 0.0,
        z: SupportsFloat = 0.0,
        w: SupportsFloat = 1.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(x), _f(y), _f(z), _f(w)))


class Color(_Record):
    """``Color`` (r, g, b, a): always four 32-bit floats on the wire, in every build."""

    __slots__ = ()
    _fields = ("r", "g", "b", "a")

    def __new__(
        cls,
        r: SupportsFloat = 0.0,
        g: SupportsFloat = 0.0,
        b: SupportsFloat = 0.0,
        a: SupportsFloat = 1.0,
    ) -> Self:
        return tuple.__new__(cls, (_f(r), _f(g), _f(b), _f(a)))

    r: float = _field(0)

    g: float = _field(1)

    b: float = _field(2)

    a: float = _field(3)


# ---- integer vectors ----------------------------------------------------------------------


class Vector2i(_Record):
    """``Vector2i``: two signed 32-bit ints."""

    __slots__ = ()
    _fields = ("x", "y")

    def __new__(cls, x: SupportsIndex = 0, y: SupportsIndex = 0) -> Self:
        return tuple.__new__(cls, (_i(x), _i(y)))

    x: int = _field(0)

    y: int = _field(1)


class Vector3i(_Record):
    """``Vector3i``: three signed 32-bit ints."""

    __slots__ = ()
    _fields = ("x", "y", "z")

    def __new__(cls, x: SupportsIndex = 0, y: SupportsIndex = 0, z: SupportsIndex = 0) -> Self:
        return tuple.__new__(cls, (_i(x), _i(y), _i(z)))

    x: int = _field(0)

    y: int = _field(1)

    z: int = _field(2)


class Vector4i(_Record):
    """``Vector4i``: four signed 32-bit ints."""

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

    def __new__(
        cls,
        x: SupportsIndex = 0,
        y: SupportsIndex = 0,
        z: SupportsIndex = 0,
        w: SupportsIndex = 0,
    ) -> Self:
        return tuple.__new__(cls, (_i(x), _i(y), _i(z), _i(w)))

    x: int = _field(0)

    y: int = _field(1)

    z: int = _field(2)

    w: int = _field(3)


# ---- composite math types (fields are vectors, as in Godot's API) -------------------------


class Rect2(_Record):
    """``Rect2(position, size)``."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(cls, position: Iterable[float] = (0, 0), size: Iterable[float] = (0, 0)) -> Self:
        return tuple.__new__(cls, (Vector2(*position), Vector2(*size)))

    position: Vector2 = _field(0)

    size: Vector2 = _field(1)


class Rect2i(_Record):
    """``Rect2i(position, size)`` with integer vectors."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(cls, position: Iterable[int] = (0, 0), size: Iterable[int] = (0, 0)) -> Self:
        return tuple.__new__(cls, (Vector2i(*position), Vector2i(*size)))

    position: Vector2i = _field(0)

    size: Vector2i = _field(1)


class Plane(_Record):
    """``Plane(normal, d)``."""

    __slots__ = ()
    _fields = ("normal", "d")

    def __new__(cls, normal: Iterable[float] = (0, 0, 0), d: SupportsFloat = 0.0) -> Self:
        return tuple.__new__(cls, (Vector3(*normal), _f(d)))

    normal: Vector3 = _field(0)

    d: float = _field(1)


class AABB(_Record):
    """``AABB(position, size)``."""

    __slots__ = ()
    _fields = ("position", "size")

    def __new__(
        cls, position: Iterable[float] = (0, 0, 0), size: Iterable[float] = (0, 0, 0)
    ) -> Self:
        return tuple.__new__(cls, (Vector3(*position), Vector3(*size)))

    position: Vector3 = _field(0)

    size: Vector3 = _field(1)


class Transform2D(_Record):
    """``Transform2D(x, y, origin)``: the two axis columns and the origin; default identity."""

    __slots__ = ()
    _fields = ("x", "y", "origin")

    def __new__(
        cls,
        x: Iterable[float] = (1, 0),
        y: Iterable[float] = (0, 1),
        origin: Iterable[float] = (0, 0),
    ) -> Self:
        return tuple.__new__(cls, (Vector2(*x), Vector2(*y), Vector2(*origin)))

    x: Vector2 = _field(0)

    y: Vector2 = _field(1)

    origin: Vector2 = _field(2)


class Basis(_Record):
    """``Basis(x, y, z)``: the three axis columns; default identity.

    The wire stores rows (``x.x, y.x, z.x, x.y, ...``); this class holds columns as Godot's
    API does.
    """

    __slots__ = ()
    _fields = ("x", "y", "z")

    def __new__(
        cls,
        x: Iterable[float] = (1, 0, 0),
        y: Iterable[float] = (0, 1, 0),
        z: Iterable[float] = (0, 0, 1),
    ) -> Self:
        return tuple.__new__(cls, (Vector3(*x), Vector3(*y), Vector3(*z)))

    x: Vector3 = _field(0)

    y: Vector3 = _field(1)

    z: Vector3 = _field(2)


class Transform3D(_Record):
    """``Transform3D(basis, origin)``; default identity."""

    __slots__ = ()
    _fields = ("basis", "origin")

    def __new__(
        cls, basis: Iterable[Iterable[float]] | None = None, origin: Iterable[float] = (0, 0, 0)
    ) -> Self:
        b = Basis() if basis is None else Basis(*basis)
        return tuple.__new__(cls, (b, Vector3(*origin)))

    basis: Basis = _field(0)

    origin: Vector3 = _field(1)


class Projection(_Record):
    """``Projection(x, y, z, w)``: four Vector4 columns; default identity."""

    __slots__ = ()
    _fields = ("x", "y", "z", "w")

    def __new__(
        cls,
        x: Iterable[float] = (1, 0, 0, 0),
        y: Iterable[float] = (0, 1, 0, 0),
        z: Iterable[float] = (0, 0, 1, 0),
        w: Iterable[float] = (0, 0, 0, 1),
    ) -> Self:
        return tuple.__new__(cls, (Vector4(*x), Vector4(*y), Vector4(*z), Vector4(*w)))

    x: Vector4 = _field(0)

    y: Vector4 = _field(1)

    z: Vector4 = _field(2)

    w: Vector4 = _field(3)


# ---- names, paths, handles ----------------------------------------------------------------


class StringName(str):
    """``StringName``: a ``str`` that travels with its own type id (``&"name"`` in GDScript)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"StringName({str.__repr__(self)})"


class NodePath(_Record):
    """``NodePath``: node names, subnames (properties) and whether it is absolute.

    ``NodePath("/root/Main:position:x")`` parses Godot's path syntax; ``str()`` gives it back.
    """

    __slots__ = ()
    _fields = ("names", "subnames", "absolute")

    def __new__(cls, path: str = "") -> Self:
        absolute = path.startswith("/")
        node_part, _, sub_part = path.partition(":")
        names = tuple(n for n in node_part.split("/") if n)
        subnames = tuple(s for s in sub_part.split(":") if s) if sub_part else ()
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


# ---- typed containers ---------------------------------------------------------------------


class ContainerKind(enum.IntEnum):
    """How a typed container names its element type (header bits, Godot 4.3+)."""

    NONE = 0
    BUILTIN = 1
    CLASS_NAME = 2
    SCRIPT = 3


class ElementType(_Record):
    """The element (or key/value) type of a typed Array or Dictionary.

    ``ElementType.builtin(VariantType.INT)`` is ``Array[int]``; ``ElementType.class_name("Node")``
    is ``Array[Node]``; ``ElementType.script("res://enemy.gd")`` a script class.
    """

    __slots__ = ()
    _fields = ("kind", "type", "name")

    def __new__(cls, kind: ContainerKind, type: VariantType, name: str = "") -> Self:  # noqa: A002
        return tuple.__new__(cls, (ContainerKind(kind), VariantType(type), str(name)))

    @classmethod
    def builtin(cls, type: VariantType) -> Self:  # noqa: A002 - Godot's name
        """A built-in type such as ``VariantType.INT``."""
        return cls(ContainerKind.BUILTIN, type)

    @classmethod
    def class_name(cls, name: str) -> Self:
        """An engine class such as ``"Node"``."""
        return cls(ContainerKind.CLASS_NAME, VariantType.OBJECT, name)

    @classmethod
    def script(cls, path: str) -> Self:
        """A script class, named by its ``res://`` path."""
        return cls(ContainerKind.SCRIPT, VariantType.OBJECT, path)

    kind: ContainerKind = _field(0)

    type: VariantType = _field(1)

    name: str = _field(2)

    def __repr__(self) -> str:
        if self.kind is ContainerKind.BUILTIN:
            return f"ElementType.builtin(VariantType.{self.type.name})"
        if self.kind is ContainerKind.CLASS_NAME:
            return f"ElementType.class_name({self.name!r})"
        if self.kind is ContainerKind.SCRIPT:
            return f"ElementType.script({self.name!r})"
        return "ElementType(ContainerKind.NONE, VariantType.NIL)"


def _same_key(a: Any, b: Any) -> bool:
    """Godot keeps 1, 1.0 and true apart: keys match only with the same type."""
    return type(a) is type(b) and bool(a == b)


_MISSING = object()


def _index_key(key: Any) -> tuple[type, Any] | None:
    """Where a key goes in a Dictionary's lookup index: by type and value, so that 1, 1.0
    and true stay apart as :func:`_same_key` keeps them; None for an unhashable key or one
    unequal to itself (NaN), which only a scan can match."""
    try:
        hash(key)
    except TypeError:
        return None
    if key != key:
        return None
    return (type(key), key)


def _element_type(spec: ElementType | VariantType | None) -> ElementType | None:
    if spec is None or isinstance(spec, ElementType):
        return spec
    return ElementType.builtin(VariantType(spec))


class TypedArray(list):  # type: ignore[type-arg]
    """A typed ``Array`` (``Array[int]``, ``Array[Node]``): a list that knows its element type."""

    __slots__ = ("element_type",)

    def __init__(self, element_type: ElementType | VariantType, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        spec = _element_type(element_type)
        if spec is None:
            raise ValueError("TypedArray needs an element type; use a list for an untyped Array")
        self.element_type: ElementType = spec

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is type(self)
            and self.element_type == other.element_type
            and list.__eq__(self, other)
        )

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.element_type!r}, {list.__repr__(self)})"


class PackedTypedArray(TypedArray):
    """Pandemonium's ``PackedTypedArray`` (type 28 in its newest table): a typed array kind of
    its own, with the same layout as its ``TypedArray``."""

    __slots__ = ()


class Dictionary:
    """A Godot ``Dictionary`` that a Python ``dict`` cannot hold without loss.

    The decoder returns a plain ``dict`` whenever it can; it returns this class when the
    Dictionary is typed (``Dictionary[String, int]``), or when its keys would merge in Python
    (``1``, ``1.0`` and ``true`` are three keys in Godot) or cannot be hashed (Array or
    Dictionary keys). It keeps every (key, value) pair in order and is immutable; lookups of
    hashable keys go through an index built on first use.
    """

    __slots__ = ("_index", "_pairs", "key_type", "value_type")

    def __init__(
        self,
        items: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = (),
        key_type: ElementType | VariantType | None = None,
        value_type: ElementType | VariantType | None = None,
    ) -> None:
        pairs = items.items() if isinstance(items, Mapping) else items
        self._pairs: tuple[tuple[Any, Any], ...] = tuple((k, v) for k, v in pairs)
        self._index: dict[tuple[type, Any], Any] | None = None
        self.key_type = _element_type(key_type)
        self.value_type = _element_type(value_type)

    @property
    def items_list(self) -> tuple[tuple[Any, Any], ...]:
        """The (key, value) pairs in order, duplicates included."""
        return self._pairs

    def items(self) -> list[tuple[Any, Any]]:
        """The (key, value) pairs in order."""
        return list(self._pairs)

    def keys(self) -> list[Any]:
        return [k for k, _ in self._pairs]

    def values(self) -> list[Any]:
        return [v for _, v in self._pairs]

    def __len__(self) -> int:
        return len(self._pairs)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())

    def _lookup(self, key: Any) -> Any:
        """The value of the first pair whose key is ``key``, or ``_MISSING``."""
        slot = _index_key(key)
        if slot is None:
            for k, v in self._pairs:
                if _same_key(k, key):
                    return v
            return _MISSING
        if self._index is None:
            index: dict[tuple[type, Any], Any] = {}
            for k, v in self._pairs:
                at = _index_key(k)
                if at is not None:
                    index.setdefault(at, v)
            self._index = index
        return self._index.get(slot, _MISSING)

    def __getitem__(self, key: Any) -> Any:
        value = self._lookup(key)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return self._lookup(key) is not _MISSING

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._lookup(key)
        return default if value is _MISSING else value

    def __eq__(self, other: object) -> bool:
        """Equal when typed alike and holding the same pairs, in any order (as in Godot)."""
        if not (
            isinstance(other, Dictionary)
            and self.key_type == other.key_type
            and self.value_type == other.value_type
            and len(self._pairs) == len(other._pairs)
        ):
            return False
        # Pairs of ``other`` by key (hashable keys) or in one list (the rest); each pair of
        # ours takes a matching one out, so equality costs O(n) where keys hash.
        buckets: dict[tuple[type, Any] | None, list[tuple[Any, Any]]] = {}
        for pair in other._pairs:
            buckets.setdefault(_index_key(pair[0]), []).append(pair)
        for key, value in self._pairs:
            candidates = buckets.get(_index_key(key), [])
            for i, (k, v) in enumerate(candidates):
                if _same_key(key, k) and value == v:
                    del candidates[i]
                    break
            else:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        types = ""
        if self.key_type is not None or self.value_type is not None:
            types = f", key_type={self.key_type!r}, value_type={self.value_type!r}"
        return f"Dictionary({self.items_list!r}{types})"


def godot_dictionary(
    keys: list[Any],
    values: list[Any],
    key_type: ElementType | None = None,
    value_type: ElementType | None = None,
) -> Any:
    """A plain dict when it holds every pair as written, else a :class:`Dictionary`.

    A dict would merge keys that Godot keeps apart (``1``, ``1.0``, ``true``; a String and a
    StringName) and cannot hold Array or Dictionary keys; typed Dictionaries keep their types.
    """
    if key_type is None and value_type is None:
        try:
            d = dict(zip(keys, values, strict=True))
        except TypeError:  # an unhashable key (Array, Dictionary)
            pass
        else:
            if len(d) == len(keys):
                return d
    return Dictionary(zip(keys, values, strict=True), key_type, value_type)
