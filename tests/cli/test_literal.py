"""The safe expression reader (``gdvariant._cli._literal.parse_value``) behind ``encode``."""

from __future__ import annotations

import contextlib
import math
from typing import Any

import pytest

from gdvariant import (
    AABB,
    RID,
    Callable,
    Color,
    ContainerKind,
    Dictionary,
    ElementType,
    GodotObject,
    NodePath,
    PackedInt32Array,
    PackedStringArray,
    PackedVector2Array,
    Quaternion,
    Rect2,
    StringName,
    Transform3D,
    TypedArray,
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
)
from gdvariant._cli._literal import parse_value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        ("-7", -7),
        ("+7", 7),
        ("1.5", 1.5),
        ("-2.5e3", -2500.0),
        ("'a'", "a"),
        ('"héllo"', "héllo"),
        ("b'\\x00\\x01'", b"\x00\x01"),
        ("True", True),
        ("False", False),
        ("None", None),
        ("true", True),
        ("false", False),
        ("null", None),
        ("  42  ", 42),
        ("0x10", 16),
    ],
)
def test_literals(text: str, expected: Any) -> None:
    value = parse_value(text)
    assert value == expected
    assert type(value) is type(expected)


def test_special_floats() -> None:
    assert parse_value("inf") == math.inf
    assert parse_value("-inf") == -math.inf
    assert math.isnan(parse_value("nan"))
    assert parse_value("[inf, -inf]") == [math.inf, -math.inf]
    assert parse_value("Vector2(-inf, 1)") == Vector2(-math.inf, 1)


def test_nested_containers() -> None:
    text = '[7, "move", [1, [2, [3]]], {"seq": 42, "pos": {"x": -1}}, (1, 2)]'
    assert parse_value(text) == [7, "move", [1, [2, [3]]], {"seq": 42, "pos": {"x": -1}}, (1, 2)]
    assert parse_value("{}") == {}
    assert parse_value("[]") == []
    assert parse_value("{1: 'a', 2.5: 'b', 'k': [None]}") == {1: "a", 2.5: "b", "k": [None]}


def test_value_type_constructors() -> None:
    assert parse_value("Vector2(1, 2)") == Vector2(1, 2)
    assert parse_value("Vector2i(-1, 2)") == Vector2i(-1, 2)
    assert parse_value("Vector3(x=1, z=3)") == Vector3(1, 0, 3)
    assert parse_value("Color(1, 0, 0)") == Color(1, 0, 0, 1)
    assert parse_value("Quaternion()") == Quaternion(0, 0, 0, 1)
    assert parse_value("Rect2((0, 1), size=(2, 3))") == Rect2((0, 1), (2, 3))
    assert parse_value("AABB(Vector3(1, 2, 3), Vector3(4, 5, 6))") == AABB((1, 2, 3), (4, 5, 6))
    assert parse_value("Transform3D(origin=(1, 2, 3))") == Transform3D(None, (1, 2, 3))
    assert parse_value("StringName('n')") == StringName("n")
    assert type(parse_value("StringName('n')")) is StringName
    assert parse_value("RID(5)") == RID(5)
    assert parse_value("Callable()") == Callable()
    assert parse_value("GodotObject('Node', {'name': 'x'})") == GodotObject("Node", {"name": "x"})
    assert parse_value("PackedInt32Array([1, -2])") == PackedInt32Array([1, -2])
    assert parse_value("PackedVector2Array([(1, 2)])") == PackedVector2Array([(1, 2)])
    assert parse_value("PackedStringArray(['a'])") == PackedStringArray(["a"])
    assert parse_value('{"pos": Vector2(1, 2)}') == {"pos": Vector2(1, 2)}


def test_element_types_and_typed_containers() -> None:
    assert parse_value("ElementType.builtin(VariantType.INT)") == ElementType.builtin(
        VariantType.INT
    )
    assert parse_value("ElementType.class_name('Node')") == ElementType.class_name("Node")
    assert parse_value("ElementType.script('res://a.gd')") == ElementType.script("res://a.gd")
    assert parse_value("VariantType.FLOAT") is VariantType.FLOAT
    assert parse_value("ContainerKind.SCRIPT") is ContainerKind.SCRIPT
    assert parse_value("TypedArray(VariantType.INT, [1, 2])") == TypedArray(VariantType.INT, [1, 2])
    assert parse_value(
        "Dictionary([(1, 2)], key_type=VariantType.INT, value_type=VariantType.INT)"
    ) == Dictionary([(1, 2)], VariantType.INT, VariantType.INT)


def test_node_paths() -> None:
    assert parse_value("NodePath('/root/Main:position')") == NodePath("/root/Main:position")
    assert parse_value("NodePath.from_parts(['a:b'], ['c'], True)") == NodePath.from_parts(
        ["a:b"], ["c"], True
    )
    assert parse_value("NodePath.from_parts(('a',), absolute=True)") == NodePath("/a")


def test_reprs_parse_back() -> None:
    values: list[Any] = [
        Vector2(1.5, -2),
        Transform3D(),
        NodePath.from_parts(["x:y"]),
        TypedArray(ElementType.class_name("Node"), []),
        Dictionary([(1, "a"), (1.0, "b")]),
        PackedInt32Array([3]),
        Vector2(math.inf, 0),
    ]
    for value in values:
        assert parse_value(repr(value)) == value


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os')",
        "__import__('os').system('true')",
        "open('/etc/passwd')",
        "eval('1')",
        "print(1)",
        "os",
        "x",
        "Vector2.__class__",
        "Vector2.__init__",
        "Vector2._fields",
        "VariantType.__class__.__bases__",
        "().__class__",
        "Vector2(1, 2).__class__",
        "Vector2(1, 2).x",
        "Vector2(**{'x': 1})",
        "Vector2(*[1, 2])",
        "{**{'a': 1}}",
        "lambda: 1",
        "[x for x in (1, 2)]",
        "{x: 1 for x in (1, 2)}",
        "{x for x in (1, 2)}",
        "(x for x in (1, 2))",
        "1 + 2",
        "-'a'",
        "-True",
        "not 1",
        "~1",
        "{1, 2}",
        "f'{1}'",
        "Vector2.mro()",
        "VariantType(2)",
        "ElementType.mro()",
        "NodePath.from_parts.__func__",
        "GodotObject('Node').get('x')",
        "1 if True else 2",
        "[1][0]",
        "(y := 1)",
        "",
        "import os",
        "Vector2(",
    ],
)
def test_refused_with_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_value(text)


def test_error_names_what_was_refused() -> None:
    with pytest.raises(ValueError, match="__import__"):
        parse_value("__import__('os')")
    with pytest.raises(ValueError, match=r"\*\*"):
        parse_value("Vector2(**{'x': 1})")


def test_keys_python_would_merge_stay_apart_as_in_godot() -> None:
    # 1, 1.0 and true are three keys of a Godot Dictionary; a dict would keep one pair.
    value = parse_value('{1: "a", 1.0: "b", true: "c"}')
    assert value == Dictionary([(1, "a"), (1.0, "b"), (True, "c")])
    assert [type(k) for k in value] == [int, float, bool]
    assert parse_value("{'a': 1, StringName('a'): 2}") == Dictionary(
        [("a", 1), (StringName("a"), 2)]
    )


def test_array_and_dictionary_keys_make_a_dictionary() -> None:
    assert parse_value("{[1]: 2, {}: 3}") == Dictionary([([1], 2), ({}, 3)])


@pytest.mark.parametrize(
    ("text", "column"),
    [("{1: 'a', 1: 'b'}", 10), ("{'k': 0, 'k': 1}", 10), ("[{[1]: 2, [1]: 3}]", 11)],
)
def test_a_repeated_key_is_refused(text: str, column: int) -> None:
    with pytest.raises(ValueError, match=rf"is repeated \(at column {column}\)"):
        parse_value(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Vector2(1)", "Vector2 takes 0 or 2 arguments (x, y), got 1 (at column 1)"),
        ("[Vector3(1, 2, 3, 4)]", "Vector3 takes 0 or 3 arguments (x, y, z), got 4 (at column 2)"),
        ("Color(1, 0)", "Color takes 0, 3 or 4 arguments (r, g, b, a), got 2 (at column 1)"),
        ("Rect2i((1, 2))", "Rect2i takes 0 or 2 arguments (position, size), got 1"),
        ("GodotObject()", "GodotObject(class_name, properties): missing a required argument"),
        ("Vector2(q=1)", "Vector2(x, y): got an unexpected keyword argument 'q'"),
        ("NodePath('a', 'b')", "NodePath(path): too many positional arguments"),
        ("Vector2('a', 1)", "Vector2: x must be a number, not str 'a' (at column 1)"),
        ("Vector2i(1, 2.5)", "Vector2i: y must be an integer, not float 2.5"),
        ("NodePath(1)", "NodePath: path must be a string, not int 1"),
        ("Basis(1, 2, 3)", "Basis: x must be a list or tuple, not int 1"),
        ("Dictionary(1)", "Dictionary: items must be a dict or a list of pairs, not int 1"),
        ("PackedInt32Array([2**3])", "not allowed in a value expression: '2 ** 3'"),
        ("PackedInt32Array([8, 1e10])", "PackedInt32Array: element 1 (10000000000.0) is not a"),
    ],
)
def test_wrong_arguments_are_refused_in_our_words(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_value(text)
    assert message in str(info.value)
    for internal in ("__new__", "__init__", "object is not", "argument after *", "attribute"):
        assert internal not in str(info.value)


def test_deep_unary_nesting_is_value_error() -> None:
    # 10_000 levels overflow CPython's parser stack (MemoryError) whatever the recursion limit.
    for depth in (1000, 10_000):
        with contextlib.suppress(ValueError):
            assert parse_value("-" * depth + "1") == 1


def test_deep_list_nesting_is_value_error() -> None:
    with pytest.raises(ValueError):
        parse_value("[" * 300 + "]" * 300)
