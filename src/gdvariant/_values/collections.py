"""Godot's Array and Dictionary where a Python ``list`` or ``dict`` cannot hold them.

An untyped Array is a ``list`` and a Dictionary whose keys Python keeps apart is a ``dict``;
the classes here carry what those lose: a typed Array's element type (:class:`TypedArray`),
a typed Dictionary's key and value types, and keys that would merge or cannot be hashed
(:class:`Dictionary`). :func:`godot_dictionary` picks the plain form when it is lossless.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Self

from .base import VariantType, _field, _Record

__all__ = [
    "ContainerKind",
    "Dictionary",
    "ElementType",
    "PackedTypedArray",
    "TypedArray",
]


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


def index_key(key: Any, kind: type | None = None) -> tuple[type, Any] | None:
    """Where a key goes in a Dictionary's lookup index: by type (or ``kind``, for types an
    engine merges) and value, so that 1, 1.0 and true stay apart as :func:`_same_key` keeps
    them; None for an unhashable key or one unequal to itself (NaN), which only a scan can
    match."""
    try:
        hash(key)
    except TypeError:
        return None
    if key != key:
        return None
    return (type(key) if kind is None else kind, key)


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
        slot = index_key(key)
        if slot is None:
            for k, v in self._pairs:
                if _same_key(k, key):
                    return v
            return _MISSING
        if self._index is None:
            index: dict[tuple[type, Any], Any] = {}
            for k, v in self._pairs:
                at = index_key(k)
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
            buckets.setdefault(index_key(pair[0]), []).append(pair)
        for key, value in self._pairs:
            candidates = buckets.get(index_key(key), [])
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
