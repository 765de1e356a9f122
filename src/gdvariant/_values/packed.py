"""Packed arrays: one immutable class per Godot ``Packed*Array`` kind, stored in bulk.

Each numeric class is a ``bytes`` subclass whose bytes are exactly the little-endian element
data that travels on the wire, so decoding and encoding copy one block, and the buffer
protocol works (``numpy.frombuffer(a, "<f4")``, ``memoryview(a)``). ``len()``, indexing and
iteration speak in elements (floats, ints or vectors), not bytes. ``PackedByteArray`` is plain
``bytes``; ``PackedStringArray`` is a tuple of ``str``.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any, ClassVar, Self, SupportsIndex, overload

from .base import _Record
from .math import Color, Vector2, Vector2i, Vector3, Vector3i, Vector4, Vector4i

__all__ = [
    "PackedColorArray",
    "PackedFloat32Array",
    "PackedFloat64Array",
    "PackedInt32Array",
    "PackedInt64Array",
    "PackedStringArray",
    "PackedVector2Array",
    "PackedVector2Array64",
    "PackedVector2iArray",
    "PackedVector3Array",
    "PackedVector3Array64",
    "PackedVector3iArray",
    "PackedVector4Array",
    "PackedVector4Array64",
    "PackedVector4iArray",
    "PackedView",
]

_LITTLE = sys.byteorder == "little"


class _PackedNumbers(bytes):
    """Base: little-endian element data in a ``bytes``; element-wise ``len``/index/iteration."""

    __slots__ = ()
    _code: ClassVar[str]  # array typecode of one component
    _width: ClassVar[int] = 1  # components per element
    _item: ClassVar[type[_Record] | None] = None  # element class for vectors and colors

    def __new__(cls, items: Iterable[Any] = ()) -> Self:
        flat: Iterable[Any] = chain.from_iterable(items) if cls._width > 1 else items
        try:
            data = array(cls._code, flat)
        except (OverflowError, TypeError) as exc:
            raise ValueError(f"{cls.__name__}: {cls._bad_element(items) or exc}") from None
        if len(data) % cls._width:
            raise ValueError(f"{cls.__name__}: every element needs {cls._width} components")
        if not _LITTLE:
            data.byteswap()
        return bytes.__new__(cls, data)

    @classmethod
    def _bad_element(cls, items: Iterable[Any]) -> str | None:
        """Which element of a list or tuple could not be stored, and what was wanted."""
        if not isinstance(items, list | tuple):
            return None
        integers = cls._code in "iq"
        if cls._width > 1:
            wanted = f"{cls._width} {'integers' if integers else 'numbers'}"
        elif integers:
            wanted = f"a {array(cls._code).itemsize * 8}-bit integer"
        else:
            wanted = "a number"
        for index, item in enumerate(items):
            try:
                array(cls._code, item if cls._width > 1 else (item,))
            except (OverflowError, TypeError):
                return f"element {index} ({item!r}) is not {wanted}"
        return None

    @classmethod
    def frombuffer(cls, data: bytes | bytearray | memoryview) -> Self:
        """Wrap raw little-endian element data (as found on the wire) without converting it."""
        raw = bytes(data)
        if len(raw) % cls.itemsize:
            raise ValueError(f"{cls.__name__}: {len(raw)} bytes is not a whole number of items")
        return bytes.__new__(cls, raw)

    itemsize: ClassVar[int]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.itemsize = array(cls._code).itemsize * cls._width

    def _numbers(self) -> memoryview | array[Any]:
        """The components as numbers (a zero-copy view on little-endian hosts)."""
        if _LITTLE:
            return memoryview(self).cast(self._code)  # type: ignore[call-overload,no-any-return]
        data = array(self._code, bytes(self))
        data.byteswap()
        return data

    def __len__(self) -> int:
        return bytes.__len__(self) // self.itemsize

    def __iter__(self) -> Iterator[Any]:
        nums = self._numbers()
        if self._item is None:
            return iter(nums)
        item = self._item
        w = self._width
        columns = [nums[i::w] for i in range(w)]
        return (tuple.__new__(item, t) for t in zip(*columns, strict=True))

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Self: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        n = len(self)
        if isinstance(index, slice):
            return type(self)(list(self)[index]) if self._item else type(self)(self.tolist()[index])
        i = index.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{type(self).__name__} index out of range")
        nums = self._numbers()
        if self._item is None:
            return nums[i]
        w = self._width
        return tuple.__new__(self._item, tuple(nums[i * w : i * w + w]))

    def __contains__(self, item: object) -> bool:
        return any(item == x for x in self)

    def tolist(self) -> list[Any]:
        """The elements as a list of Python numbers or vectors."""
        return list(self)

    def index(self, item: Any, *args: Any) -> int:
        """Position of the first element equal to ``item`` (elements, not bytes)."""
        return self.tolist().index(item, *args)

    def count(self, item: Any, *args: Any) -> int:
        """How many elements equal ``item`` (elements, not bytes)."""
        return self.tolist().count(item)

    def __add__(self, other: Any) -> Self:
        if type(other) is not type(self):
            return NotImplemented
        return bytes.__new__(type(self), bytes(self) + bytes(other))

    def __mul__(self, times: SupportsIndex) -> Self:
        return bytes.__new__(type(self), bytes(self) * times)

    __rmul__ = __mul__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedView):
            return other == self
        return type(other) is type(self) and bytes.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, bytes.__hash__(self)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tolist()!r})"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self).frombuffer, (bytes(self),))


class PackedInt32Array(_PackedNumbers):
    """``PackedInt32Array``: signed 32-bit ints."""

    __slots__ = ()
    _code = "i"


class PackedInt64Array(_PackedNumbers):
    """``PackedInt64Array``: signed 64-bit ints."""

    __slots__ = ()
    _code = "q"


class PackedFloat32Array(_PackedNumbers):
    """``PackedFloat32Array``: 32-bit floats."""

    __slots__ = ()
    _code = "f"


class PackedFloat64Array(_PackedNumbers):
    """``PackedFloat64Array``: 64-bit floats."""

    __slots__ = ()
    _code = "d"


class PackedVector2Array(_PackedNumbers):
    """``PackedVector2Array``: Vector2 elements (32-bit components)."""

    __slots__ = ()
    _code = "f"
    _width = 2
    _item = Vector2


class PackedVector3Array(_PackedNumbers):
    """``PackedVector3Array``: Vector3 elements (32-bit components)."""

    __slots__ = ()
    _code = "f"
    _width = 3
    _item = Vector3


class PackedVector4Array(_PackedNumbers):
    """``PackedVector4Array`` (Godot 4.3+): Vector4 elements (32-bit components)."""

    __slots__ = ()
    _code = "f"
    _width = 4
    _item = Vector4


class PackedVector2Array64(PackedVector2Array):
    """A ``PackedVector2Array`` from a double-precision build: 64-bit components."""

    __slots__ = ()
    _code = "d"


class PackedVector3Array64(PackedVector3Array):
    """A ``PackedVector3Array`` from a double-precision build: 64-bit components."""

    __slots__ = ()
    _code = "d"


class PackedVector4Array64(PackedVector4Array):
    """A ``PackedVector4Array`` from a double-precision build: 64-bit components."""

    __slots__ = ()
    _code = "d"


class PackedVector2iArray(_PackedNumbers):
    """Pandemonium's ``PoolVector2iArray``: Vector2i elements."""

    __slots__ = ()
    _code = "i"
    _width = 2
    _item = Vector2i


class PackedVector3iArray(_PackedNumbers):
    """Pandemonium's ``PoolVector3iArray``: Vector3i elements."""

    __slots__ = ()
    _code = "i"
    _width = 3
    _item = Vector3i


class PackedVector4iArray(_PackedNumbers):
    """Pandemonium's ``PoolVector4iArray``: Vector4i elements."""

    __slots__ = ()
    _code = "i"
    _width = 4
    _item = Vector4i


class PackedColorArray(_PackedNumbers):
    """``PackedColorArray``: Color elements (always 32-bit components)."""

    __slots__ = ()
    _code = "f"
    _width = 4
    _item = Color


class PackedView:
    """A read-only packed array that still lies in the buffer it was decoded from (no copy).

    ``loads(data, packed_views=True)`` gives one for each numeric packed array (and each
    PackedByteArray) instead of a copy of its bytes. ``kind`` is the class a normal decode
    gives (:class:`PackedFloat32Array`..., ``bytes`` for a PackedByteArray), ``data`` a
    read-only byte ``memoryview`` into the input, which it keeps alive. ``len()`` counts
    elements; :meth:`topacked` makes the normal (copied) array; ``dumps`` writes a view as its
    kind. It equals the array of its kind with the same bytes, and hashes the same.
    """

    __slots__ = ("_data", "_kind")

    _kind: type[bytes]
    _data: memoryview

    def __init__(self, kind: type[bytes], data: bytes | bytearray | memoryview) -> None:
        if kind is not bytes and not (isinstance(kind, type) and issubclass(kind, _PackedNumbers)):
            raise TypeError(
                f"PackedView kind must be bytes or a packed numeric array, not {kind!r}"
            )
        view = memoryview(data).cast("B").toreadonly()
        if view.nbytes % _itemsize(kind):
            raise ValueError(f"{kind.__name__}: {view.nbytes} bytes is not a whole number of items")
        self._kind = kind
        self._data = view

    @classmethod
    def _wrap(cls, kind: type[bytes], data: memoryview) -> PackedView:
        """A view on ``data``, already a read-only byte slice of whole items (the decoders)."""
        view = object.__new__(cls)
        view._kind = kind
        view._data = data
        return view

    @property
    def kind(self) -> type[bytes]:
        """The class of the array this views: ``PackedFloat32Array``..., ``bytes``."""
        return self._kind

    @property
    def data(self) -> memoryview:
        """The array's wire bytes (little-endian elements), a read-only view of the input."""
        return self._data

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return _itemsize(self._kind)

    def __len__(self) -> int:
        return self._data.nbytes // _itemsize(self._kind)

    def __buffer__(self, flags: int) -> memoryview:
        """The buffer protocol (Python 3.12+; before that, use :attr:`data`)."""
        return self._data

    def __bytes__(self) -> bytes:
        return self._data.tobytes()

    def tobytes(self) -> bytes:
        """A copy of the wire bytes."""
        return self._data.tobytes()

    def topacked(self) -> bytes:
        """The normal array of :attr:`kind` (a copy), as a decode without views gives."""
        if self._kind is bytes:
            return self._data.tobytes()
        return self._kind.frombuffer(self._data)  # type: ignore[attr-defined,no-any-return]

    def tolist(self) -> list[Any]:
        """The elements as a list of Python numbers or vectors."""
        return list(self.topacked())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedView):
            return other._kind is self._kind and other._data == self._data
        return type(other) is self._kind and self._data == other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        if self._kind is bytes:
            return hash(self._data)
        return hash((self._kind.__name__, hash(self._data)))

    def __repr__(self) -> str:
        return f"PackedView({self._kind.__name__}, {len(self)} elements)"

    def __reduce__(self) -> tuple[Any, ...]:
        return (PackedView, (self._kind, self._data.tobytes()))


def _itemsize(kind: type[bytes]) -> int:
    return 1 if kind is bytes else kind.itemsize  # type: ignore[attr-defined]


class PackedStringArray(_Record):
    """``PackedStringArray``: an immutable sequence of ``str``."""

    __slots__ = ()

    def __new__(cls, items: Iterable[str] = ()) -> Self:
        return tuple.__new__(cls, tuple(str(s) for s in items))

    @overload
    def __getitem__(self, index: SupportsIndex) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Self: ...
    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        if isinstance(index, slice):
            return tuple.__new__(type(self), tuple.__getitem__(self, index))
        return tuple.__getitem__(self, index)

    def __repr__(self) -> str:
        return f"PackedStringArray({list(self)!r})"
