"""Typed Arrays and lossless Dictionaries (``gdvariant._values.collections``).

Expectations come from Godot's semantics (``1``, ``1.0`` and ``true`` are three keys; a typed
Array's element type is part of its value), never from gdvariant's own output.
"""

from __future__ import annotations

import operator
import pickle
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import (
    ContainerKind,
    Dictionary,
    ElementType,
    StringName,
    TypedArray,
    VariantType,
)

NAMESPACE: dict[str, Any] = dict(vars(gd))


def test_container_reprs_round_trip() -> None:
    values: list[Any] = [
        StringName("name"),
        TypedArray(VariantType.INT, [1, 2, 3]),
        TypedArray(ElementType.class_name("Node"), []),
        Dictionary([(1, "a"), (1.0, "b"), (True, "c")]),
        Dictionary({"k": 1}, VariantType.STRING, VariantType.INT),
        ElementType(ContainerKind.NONE, VariantType.NIL),
    ]
    for value in values:
        again = eval(repr(value), NAMESPACE)
        assert type(again) is type(value)
        assert again == value


# ---- ElementType / TypedArray ---------------------------------------------------------------


def test_element_type_constructors() -> None:
    b = ElementType.builtin(VariantType.INT)
    assert (b.kind, b.type, b.name) == (ContainerKind.BUILTIN, VariantType.INT, "")
    c = ElementType.class_name("Node")
    assert (c.kind, c.type, c.name) == (ContainerKind.CLASS_NAME, VariantType.OBJECT, "Node")
    s = ElementType.script("res://a.gd")
    assert (s.kind, s.type, s.name) == (ContainerKind.SCRIPT, VariantType.OBJECT, "res://a.gd")
    assert ElementType(1, 2) == b  # type: ignore[arg-type]
    assert type(ElementType(1, 2).kind) is ContainerKind  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ElementType(ContainerKind.BUILTIN, 999)  # type: ignore[arg-type]


def test_typed_array_element_type() -> None:
    a = TypedArray(VariantType.INT, [1, 2])
    assert a.element_type == ElementType.builtin(VariantType.INT)
    assert list(a) == [1, 2]
    assert isinstance(a, list)
    a.append(3)
    assert len(a) == 3
    with pytest.raises(ValueError):
        TypedArray(None, [])  # type: ignore[arg-type]


def test_typed_array_equality_includes_element_type() -> None:
    ints = TypedArray(VariantType.INT, [1, 2])
    assert ints == TypedArray(ElementType.builtin(VariantType.INT), (1, 2))
    assert ints != TypedArray(VariantType.FLOAT, [1, 2])
    assert ints != [1, 2]
    assert operator.ne([1, 2], ints)  # list.__ne__ on the left
    assert TypedArray(ElementType.class_name("Node"), []) != TypedArray(
        ElementType.class_name("Node2D"), []
    )
    with pytest.raises(TypeError):
        hash(ints)


# ---- Dictionary -----------------------------------------------------------------------------


def test_dictionary_keeps_keys_python_would_merge() -> None:
    d = Dictionary([(1, "int"), (1.0, "float"), (True, "bool")])
    assert len(d) == 3
    assert d.items() == [(1, "int"), (1.0, "float"), (True, "bool")]
    assert d.keys() == [1, 1.0, True]
    assert d.values() == ["int", "float", "bool"]
    assert list(d) == [1, 1.0, True]
    assert d[1] == "int"
    assert d[1.0] == "float"
    assert d[True] == "bool"
    assert d.get(1.0) == "float"
    assert d.get(2) is None
    assert d.get(2, "x") == "x"
    with pytest.raises(KeyError):
        d[2]


def test_dictionary_unhashable_keys() -> None:
    d = Dictionary([([1, 2], "list"), ({"a": 1}, "dict")])
    assert d[[1, 2]] == "list"
    assert d[{"a": 1}] == "dict"


def test_dictionary_from_mapping_and_types() -> None:
    d = Dictionary({"a": 1}, VariantType.STRING, ElementType.builtin(VariantType.INT))
    assert d.items() == [("a", 1)]
    assert d.key_type == ElementType.builtin(VariantType.STRING)
    assert d.value_type == ElementType.builtin(VariantType.INT)
    assert Dictionary().key_type is None and Dictionary().value_type is None


def test_dictionary_equality() -> None:
    assert Dictionary([("a", 1)]) == Dictionary({"a": 1})
    assert Dictionary([("a", 1)]) != Dictionary([("a", 2)])
    assert Dictionary([("a", 1)]) != {"a": 1}
    assert Dictionary({"a": 1}, VariantType.STRING) != Dictionary({"a": 1})
    assert Dictionary({"a": 1}, None, VariantType.INT) != Dictionary({"a": 1}, VariantType.INT)
    with pytest.raises(TypeError):
        hash(Dictionary())


def test_dictionary_equality_distinguishes_key_types() -> None:
    assert Dictionary([(1, "a")]) != Dictionary([(1.0, "a")])
    assert Dictionary([(1, "a")]) != Dictionary([(True, "a")])


def test_dictionary_equality_ignores_order() -> None:
    assert Dictionary([("a", 1), ("b", 2)]) == Dictionary([("b", 2), ("a", 1)])


def test_dictionary_contains_agrees_with_getitem() -> None:
    d = Dictionary([(1, "int")])
    assert 1 in d
    assert 1.0 not in d


def test_dictionary_lookup_keeps_godot_key_identity() -> None:
    d = Dictionary([(StringName("k"), "name"), ("k", "str"), ("k", "second"), (0.0, "zero")])
    assert d["k"] == "str"  # the first of two equal keys, as Godot keeps it
    assert d[StringName("k")] == "name"
    assert d[-0.0] == "zero"
    nan = float("nan")
    assert nan not in Dictionary([(nan, 1)])  # NaN is unequal to itself, as before
    assert Dictionary([([1], "a"), ((1,), "b")])[[1]] == "a"


def test_dictionary_pairs_are_immutable() -> None:
    d = Dictionary([(1, "a")])
    assert d.items_list == ((1, "a"),)
    with pytest.raises(AttributeError):
        d.items_list.append((2, "b"))  # type: ignore[attr-defined]
    d.items().append((2, "b"))  # a copy
    assert len(d) == 1


def test_dictionary_equality_counts_pairs() -> None:
    assert Dictionary([(1, "a"), (1, "a")]) != Dictionary([(1, "a"), (1, "b")])
    assert Dictionary([(1, "a"), (1, "b")]) == Dictionary([(1, "b"), (1, "a")])
    assert Dictionary([([1], "a"), ([2], "b")]) == Dictionary([([2], "b"), ([1], "a")])
    assert Dictionary([([1], "a"), ([1], "a")]) != Dictionary([([1], "a"), ([2], "a")])


class _CountedKey:
    """A hashable key that counts the comparisons made with it."""

    compared = 0

    def __init__(self, n: int) -> None:
        self.n = n

    def __hash__(self) -> int:
        return hash(self.n)

    def __eq__(self, other: object) -> bool:
        _CountedKey.compared += 1
        return isinstance(other, _CountedKey) and other.n == self.n


def test_dictionary_lookup_and_equality_do_not_scan() -> None:
    """Issue 15: lookups were a scan of every pair and equality compared every pair with
    every other; with 20,000 keys both now compare a handful of keys per pair."""
    size = 20_000
    d = Dictionary([(_CountedKey(i), i) for i in range(size)])
    assert d[_CountedKey(0)] == 0  # the first lookup builds the index: one pass
    _CountedKey.compared = 0
    assert d[_CountedKey(size - 1)] == size - 1
    assert d.get(_CountedKey(size)) is None
    assert _CountedKey.compared <= 4
    reordered = Dictionary(list(reversed(d.items())))
    _CountedKey.compared = 0
    assert d == reordered
    assert _CountedKey.compared <= 6 * size  # a scan per pair would be 200 million


def test_pickle_keeps_typed_array_element_type() -> None:
    a = TypedArray(ElementType.class_name("Node"), [1])
    again = pickle.loads(pickle.dumps(a))
    assert again.element_type == ElementType.class_name("Node")
