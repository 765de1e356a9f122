"""Packed arrays (``gdvariant._values.packed``): element-wise sequence behaviour over wire bytes.

Expected bytes are built with :mod:`struct` from the layouts in ``shared/spec/godot4.md`` §4
(little-endian, f32 components, count x element size).
"""

from __future__ import annotations

import copy
import math
import operator
import pickle
import struct
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import (
    Color,
    PackedColorArray,
    PackedFloat32Array,
    PackedFloat64Array,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedVector4Array,
    Vector2,
    Vector3,
    Vector4,
)

NAMESPACE: dict[str, Any] = dict(vars(gd))

# (class, struct code of one component, components per element, element class or None,
#  sample elements, Godot type number)
CASES: list[tuple[type[Any], str, int, type[Any] | None, list[Any], int]] = [
    (PackedInt32Array, "i", 1, None, [0, 1, -1, 2**31 - 1, -(2**31)], 30),
    (PackedInt64Array, "q", 1, None, [0, -5, 2**63 - 1, -(2**63)], 31),
    (PackedFloat32Array, "f", 1, None, [0.0, 1.5, -2.25, 0.15625], 32),
    (PackedFloat64Array, "d", 1, None, [0.0, 0.1, -1e300, 1 / 3], 33),
    (PackedVector2Array, "f", 2, Vector2, [(1, 2), (-0.5, 4)], 35),
    (PackedVector3Array, "f", 3, Vector3, [(1, 2, 3), (4.5, -6, 0)], 36),
    (PackedVector4Array, "f", 4, Vector4, [(1, 2, 3, 4), (0, 0, 0, 0.25)], 38),
    (PackedColorArray, "f", 4, Color, [(1, 0, 0, 1), (0.5, 0.25, 0.125, 0)], 37),
]
IDS = [c[0].__name__ for c in CASES]


def _flat(items: list[Any], width: int) -> list[Any]:
    return [x for item in items for x in item] if width > 1 else list(items)


def _expected(items: list[Any], code: str, width: int, item: type[Any] | None) -> list[Any]:
    if item is None:
        return [float(x) if code in "fd" else x for x in items]
    return [item(*t) for t in items]


@pytest.mark.parametrize(("cls", "code", "width", "item", "items", "tid"), CASES, ids=IDS)
def test_construction_and_wire_bytes(
    cls: type[Any], code: str, width: int, item: type[Any] | None, items: list[Any], tid: int
) -> None:
    a = cls(items)
    flat = _flat(items, width)
    raw = struct.pack(f"<{len(flat)}{code}", *flat)
    assert bytes(a) == raw
    assert type(bytes(a)) is bytes
    assert isinstance(a, bytes)
    assert cls.itemsize == struct.calcsize(f"<{code}") * width
    assert len(a) == len(items)


@pytest.mark.parametrize(("cls", "code", "width", "item", "items", "tid"), CASES, ids=IDS)
def test_sequence_behaviour(
    cls: type[Any], code: str, width: int, item: type[Any] | None, items: list[Any], tid: int
) -> None:
    a = cls(items)
    expected = _expected(items, code, width, item)
    assert list(a) == expected
    assert a.tolist() == expected
    assert a[0] == expected[0]
    assert a[-1] == expected[-1]
    assert a[len(items) - 1] == expected[-1]
    assert a[-len(items)] == expected[0]
    if item is not None:
        assert type(a[0]) is item
        assert all(type(x) is item for x in a)
    with pytest.raises(IndexError):
        a[len(items)]
    with pytest.raises(IndexError):
        a[-len(items) - 1]
    assert expected[1] in a
    assert list(reversed(a)) == expected[::-1]
    assert bool(a) and not bool(cls())


@pytest.mark.parametrize(("cls", "code", "width", "item", "items", "tid"), CASES, ids=IDS)
def test_slices_keep_the_type(
    cls: type[Any], code: str, width: int, item: type[Any] | None, items: list[Any], tid: int
) -> None:
    a = cls(items)
    expected = _expected(items, code, width, item)
    for s in (slice(1, None), slice(None, 1), slice(None, None, -1), slice(5, 9)):
        part = a[s]
        assert type(part) is cls
        assert part.tolist() == expected[s]


@pytest.mark.parametrize(("cls", "code", "width", "item", "items", "tid"), CASES, ids=IDS)
def test_buffer_protocol(
    cls: type[Any], code: str, width: int, item: type[Any] | None, items: list[Any], tid: int
) -> None:
    a = cls(items)
    flat = _flat(items, width)
    view = memoryview(a)
    assert view.nbytes == len(flat) * struct.calcsize(code)
    assert view.readonly
    if struct.pack("=i", 1) == struct.pack("<i", 1):  # native little-endian host
        numbers = view.cast(code).tolist()  # type: ignore[call-overload]
        assert numbers == [float(x) if code in "fd" else x for x in flat]


@pytest.mark.parametrize(("cls", "code", "width", "item", "items", "tid"), CASES, ids=IDS)
def test_frombuffer(
    cls: type[Any], code: str, width: int, item: type[Any] | None, items: list[Any], tid: int
) -> None:
    flat = _flat(items, width)
    raw = struct.pack(f"<{len(flat)}{code}", *flat)
    a = cls.frombuffer(raw)
    assert type(a) is cls
    assert a == cls(items)
    assert cls.frombuffer(bytearray(raw)) == a
    assert cls.frombuffer(memoryview(raw)) == a
    assert len(cls.frombuffer(b"")) == 0
    with pytest.raises(ValueError):
        cls.frombuffer(raw + b"\0")
    with pytest.raises(ValueError):
        cls.frombuffer(raw[:-1])


@pytest.mark.parametrize(("cls", "code", "width", "item", "items", "tid"), CASES, ids=IDS)
def test_equality_hash_repr_pickle(
    cls: type[Any], code: str, width: int, item: type[Any] | None, items: list[Any], tid: int
) -> None:
    a = cls(items)
    b = cls(items)
    assert a == b
    assert not operator.ne(a, b)
    assert hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert a != bytes(a)
    assert bytes(a) != a
    assert a != cls(items[:1])
    assert a != list(a)
    text = repr(a)
    assert text.startswith(f"{cls.__name__}([")
    assert eval(text, NAMESPACE) == a
    for again in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert type(again) is cls
        assert again == a


@pytest.mark.parametrize(("cls", "code", "width", "item", "items", "tid"), CASES, ids=IDS)
def test_dumps_is_header_count_and_raw_data(
    cls: type[Any], code: str, width: int, item: type[Any] | None, items: list[Any], tid: int
) -> None:
    a = cls(items)
    flat = _flat(items, width)
    expected = struct.pack("<II", tid, len(items)) + struct.pack(f"<{len(flat)}{code}", *flat)
    assert gd.dumps(a) == expected
    assert gd.loads(expected) == a
    assert type(gd.loads(expected)) is cls


def test_construction_from_vectors_and_tuples_agree() -> None:
    assert PackedVector2Array([Vector2(1, 2)]) == PackedVector2Array([(1, 2)])
    assert PackedVector3Array([Vector3(1, 2, 3)]) == PackedVector3Array([[1, 2, 3]])
    assert PackedColorArray([Color(1, 0, 0)]) == PackedColorArray([(1, 0, 0, 1)])
    assert PackedVector4Array(v for v in [Vector4(1, 2, 3, 4)]) == PackedVector4Array(
        [(1, 2, 3, 4)]
    )


def test_wrong_component_count_is_value_error() -> None:
    with pytest.raises(ValueError):
        PackedVector2Array([(1, 2, 3)])
    with pytest.raises(ValueError):
        PackedVector3Array([(1, 2)])


@pytest.mark.parametrize(
    ("cls", "bad"),
    [
        (PackedInt32Array, 2**31),
        (PackedInt32Array, -(2**31) - 1),
        (PackedInt64Array, 2**63),
        (PackedInt64Array, -(2**63) - 1),
        (PackedInt32Array, 1.5),
        (PackedInt32Array, "1"),
        (PackedFloat32Array, "x"),
    ],
)
def test_out_of_range_or_wrong_kind_is_value_error(cls: type[Any], bad: Any) -> None:
    with pytest.raises(ValueError, match=rf"^{cls.__name__}: element 1 \(.*\) is not a"):
        cls([0, bad])


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: PackedInt32Array([2**31]), "element 0 (2147483648) is not a 32-bit integer"),
        (lambda: PackedVector2Array([(1, 2), 3]), "element 1 (3) is not 2 numbers"),
        (lambda: gd.PackedVector2iArray([(1, 2.5)]), "element 0 ((1, 2.5)) is not 2 integers"),
        (lambda: PackedInt32Array(iter([1.5])), "'float' object cannot be interpreted"),
    ],
)
def test_the_bad_element_of_a_list_is_named(make: Any, message: str) -> None:
    # An iterator is spent by the time the error is known: Python's message is kept.
    with pytest.raises(ValueError) as info:
        make()
    assert message in str(info.value)


def test_float32_rounds_to_single_precision() -> None:
    a = PackedFloat32Array([0.1])
    assert a[0] == struct.unpack("<f", struct.pack("<f", 0.1))[0]
    assert a[0] != 0.1
    assert PackedFloat64Array([0.1])[0] == 0.1


def test_special_floats() -> None:
    a = PackedFloat32Array([math.inf, -math.inf, math.nan, -0.0])
    assert a[0] == math.inf and a[1] == -math.inf
    assert math.isnan(a[2])
    assert math.copysign(1.0, a[3]) == -1.0


def test_equality_is_by_type() -> None:
    raw = struct.pack("<2i", 1, 2)
    ints = PackedInt32Array.frombuffer(raw)
    floats = PackedFloat32Array.frombuffer(raw)
    assert bytes(ints) == bytes(floats)
    assert ints != floats
    assert floats != ints
    assert len({ints, floats}) == 2
    v4 = PackedVector4Array([(1, 2, 3, 4)])
    colors = PackedColorArray([(1, 2, 3, 4)])
    assert bytes(v4) == bytes(colors)
    assert v4 != colors
    assert {v4: "v", colors: "c"}[colors] == "c"


def test_immutable() -> None:
    a = PackedInt32Array([1, 2])
    with pytest.raises(TypeError):
        a[0] = 5  # type: ignore[index]
    with pytest.raises(AttributeError):
        a.extra = 1  # type: ignore[attr-defined]


def test_empty_arrays() -> None:
    for cls, *_ in CASES:
        a = cls()
        assert len(a) == 0
        assert a.tolist() == []
        assert bytes(a) == b""
        assert a == cls([])


def test_contains_compares_elements() -> None:
    a = PackedVector2Array([(1, 2)])
    assert Vector2(1, 2) in a
    assert Vector2(2, 1) not in a
    assert 7 in PackedInt64Array([5, 7])
    assert 6 not in PackedInt64Array([5, 7])


def test_index_and_count_speak_in_elements() -> None:
    a = PackedInt32Array([5, 7])
    assert a.index(7) == 1
    assert a.count(0) == 0


def test_str_is_readable() -> None:
    a = PackedInt32Array([1])
    assert str(a) == repr(a)


# ---- PackedStringArray ----------------------------------------------------------------------


def test_packed_string_array() -> None:
    a = PackedStringArray(["a", "bc", ""])
    assert len(a) == 3
    assert list(a) == ["a", "bc", ""]
    assert a[1] == "bc" and a[-1] == ""
    assert "bc" in a
    assert a == PackedStringArray(("a", "bc", ""))
    assert a != ("a", "bc", "")
    assert a != ["a", "bc", ""]
    assert hash(a) == hash(PackedStringArray(["a", "bc", ""]))
    assert repr(a) == "PackedStringArray(['a', 'bc', ''])"
    assert eval(repr(a), NAMESPACE) == a
    assert PackedStringArray([1]) == PackedStringArray(["1"])  # type: ignore[list-item]
    assert PackedStringArray() == PackedStringArray([])


def test_packed_string_array_wire_layout() -> None:
    # Items: u32 length including a trailing NUL, the bytes, the NUL, zero pad to 4 (spec §4).
    a = PackedStringArray(["ab", "", "abc"])
    expected = (
        struct.pack("<II", 34, 3)
        + struct.pack("<I", 3)
        + b"ab\0\0"
        + struct.pack("<I", 1)
        + b"\0\0\0\0"
        + struct.pack("<I", 4)
        + b"abc\0"
    )
    assert gd.dumps(a) == expected
    assert gd.loads(expected) == a


def test_packed_string_array_pickle_and_copy() -> None:
    one = PackedStringArray(["abc"])
    assert copy.copy(one) == one
    two = PackedStringArray(["a", "b"])
    assert pickle.loads(pickle.dumps(two)) == two
    assert copy.deepcopy(two) == two


def test_packed_string_array_slice_keeps_type() -> None:
    a = PackedStringArray(["a", "b", "c"])
    assert a[:2] == PackedStringArray(["a", "b"])


# ---- bulk -----------------------------------------------------------------------------------


def test_dumps_of_a_million_float32_is_one_block() -> None:
    n = 1_000_000
    raw = struct.pack(f"<{n}f", *range(n))  # small ints are exact in f32
    a = PackedFloat32Array.frombuffer(raw)
    assert len(a) == n
    assert a[n - 1] == float(n - 1)
    data = gd.dumps(a)
    assert len(data) == 8 + 4 * n
    assert data[:8] == struct.pack("<II", 32, n)
    assert data[8:] == raw
    back = gd.loads(data)
    assert type(back) is PackedFloat32Array
    assert back == a


# ---------------------------------------------------------------- PackedView


def test_a_view_shares_the_memory_it_is_made_of() -> None:
    raw = struct.pack("<3f", 1.0, 2.5, -4.0)
    view = gd.PackedView(PackedFloat32Array, raw)
    assert view.kind is PackedFloat32Array and view.itemsize == 4 and len(view) == 3
    assert view.data.obj is raw and view.data.readonly
    assert view.tobytes() == raw and bytes(view) == raw
    assert type(view.topacked()) is PackedFloat32Array
    assert view.topacked() == PackedFloat32Array([1.0, 2.5, -4.0])
    assert view.tolist() == [1.0, 2.5, -4.0]
    assert repr(view) == "PackedView(PackedFloat32Array, 3 elements)"


def test_a_view_of_a_bytearray_sees_it_and_cannot_change_it() -> None:
    buffer = bytearray(struct.pack("<2i", 7, 8))
    view = gd.PackedView(PackedInt32Array, buffer)
    buffer[0] = 9
    assert view.tolist() == [9, 8]
    with pytest.raises(TypeError):
        view.data[0] = 1
    with pytest.raises(BufferError):
        buffer.append(0)  # the view holds an export of the buffer


def test_a_view_equals_and_hashes_as_the_array_of_its_kind() -> None:
    array = PackedVector2Array([(1, 2), (3, 4)])
    view = gd.PackedView(PackedVector2Array, bytes(array))
    assert view == array and array == view and hash(view) == hash(array)
    assert view != PackedFloat32Array([1, 2, 3, 4]) and view != bytes(array)
    assert view == gd.PackedView(PackedVector2Array, bytes(array))
    assert view != gd.PackedView(PackedFloat32Array, bytes(array))
    raw = gd.PackedView(bytes, b"abc")
    assert (
        raw == b"abc" and operator.eq(b"abc", raw) and hash(raw) == hash(b"abc") and len(raw) == 3
    )
    assert raw.topacked() == b"abc" and type(raw.topacked()) is bytes
    assert pickle.loads(pickle.dumps(view)) == array
    lookup: dict[Any, int] = {array: 1}
    assert lookup[view] == 1


def test_a_view_needs_a_packed_kind_and_whole_items() -> None:
    with pytest.raises(TypeError, match="kind"):
        gd.PackedView(PackedStringArray, b"")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="kind"):
        gd.PackedView(bytearray, b"")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="6 bytes is not a whole number"):
        gd.PackedView(PackedFloat32Array, bytes(6))
