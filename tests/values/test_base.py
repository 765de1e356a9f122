"""The value model's records (``gdvariant._values.base``): handles, equality, hash, repr, pickling.

Expectations come from Godot's semantics (default values, ``Vector2 != Vector2i``, NodePath
syntax) and from how each value is built, never from gdvariant's own output.
"""

from __future__ import annotations

import copy
import operator
import pickle
from typing import Any

import pytest

import gdvariant as gd
from gdvariant import (
    AABB,
    RID,
    Basis,
    Callable,
    Color,
    Dictionary,
    ElementType,
    GodotObject,
    NodePath,
    ObjectID,
    Plane,
    Projection,
    Quaternion,
    Rect2,
    Rect2i,
    Signal,
    StringName,
    Transform2D,
    Transform3D,
    TypedArray,
    VariantType,
    Vector2,
    Vector2i,
    Vector3,
    Vector3i,
    Vector4,
    Vector4i,
)

NAMESPACE: dict[str, Any] = dict(vars(gd))

# One non-default example of every immutable value type.
RECORDS: list[Any] = [
    Vector2(1.5, -2),
    Vector2i(3, -4),
    Vector3(1, 2, 3),
    Vector3i(-1, 0, 7),
    Vector4(1, 2, 3, 4),
    Vector4i(5, 6, 7, -8),
    Quaternion(0.5, 0.5, 0.5, 0.5),
    Color(0.25, 0.5, 0.75, 0.125),
    Rect2((1, 2), (3, 4)),
    Rect2i((1, 2), (3, 4)),
    Plane((0, 1, 0), 2.5),
    AABB((1, 2, 3), (4, 5, 6)),
    Transform2D((0, 1), (-1, 0), (5, 6)),
    Basis((0, 1, 0), (-1, 0, 0), (0, 0, 2)),
    Transform3D(((0, 1, 0), (-1, 0, 0), (0, 0, 2)), (7, 8, 9)),
    Projection((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16)),
    NodePath("/root/Main:position:x"),
    RID(12345678901234),
    ObjectID(2**40 + 3),
    Callable(),
    Signal("pressed", 99),
    GodotObject("Node2D", {"name": "Player", "position": Vector2(1, 2)}),
    ElementType.builtin(VariantType.INT),
    ElementType.class_name("Node"),
    ElementType.script("res://enemy.gd"),
]


def _ids(values: list[Any]) -> list[str]:
    return [type(v).__name__ + str(i) for i, v in enumerate(values)]


# ---- handles -----------------------------------------------------------------------------


def test_handles() -> None:
    assert RID().id == 0
    assert RID(2**63).id == 2**63
    assert ObjectID(42).id == 42
    s = Signal("hit", 7)
    assert (s.name, s.object_id) == ("hit", 7)
    assert Signal() == Signal("", 0)
    assert Callable() == Callable()
    assert len(Callable()) == 0


# ---- immutability ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", RECORDS, ids=_ids(RECORDS))
def test_attribute_assignment_fails(value: Any) -> None:
    field = value._fields[0] if value._fields else "anything"
    with pytest.raises(AttributeError):
        setattr(value, field, 0)
    with pytest.raises(AttributeError):
        value.new_attribute = 1
    if len(value):
        with pytest.raises(TypeError):
            value[0] = 0


def test_string_name_is_immutable_and_slotted() -> None:
    with pytest.raises(AttributeError):
        StringName("a").extra = 1  # type: ignore[attr-defined]


# ---- equality and hashing -------------------------------------------------------------------


@pytest.mark.parametrize("value", RECORDS, ids=_ids(RECORDS))
def test_hashable_and_equal_to_a_rebuilt_copy(value: Any) -> None:
    rebuilt = eval(repr(value), NAMESPACE)
    assert rebuilt is not value
    assert rebuilt == value
    assert not operator.ne(rebuilt, value)
    assert hash(rebuilt) == hash(value)
    assert {value: "v"}[rebuilt] == "v"


@pytest.mark.parametrize("value", RECORDS, ids=_ids(RECORDS))
def test_not_equal_to_plain_tuple(value: Any) -> None:
    plain = tuple(value)
    assert value != plain
    assert plain != value
    assert not operator.eq(value, plain)


def test_equality_includes_type() -> None:
    assert Vector2(1, 2) != Vector2i(1, 2)
    assert Vector2i(1, 2) != Vector2(1, 2)
    assert Vector2(1, 2) != (1, 2)
    assert Vector2i(1, 2) != (1, 2)
    assert Vector2(1, 2) != [1.0, 2.0]
    assert Quaternion(0, 0, 0, 1) != Vector4(0, 0, 0, 1)
    assert Vector4(0, 0, 0, 1) != Quaternion(0, 0, 0, 1)
    assert Color(0, 0, 0, 1) != Vector4(0, 0, 0, 1)
    assert Rect2((1, 2), (3, 4)) != Rect2i((1, 2), (3, 4))
    assert RID(5) != ObjectID(5)
    assert Vector3(1, 2, 3) == Vector3(1.0, 2.0, 3.0)


def test_distinct_types_are_distinct_dict_keys() -> None:
    keys = [
        Vector2(1, 2),
        Vector2i(1, 2),
        (1, 2),
        (1.0, 2.0),
        Quaternion(0, 0, 0, 1),
        Vector4(0, 0, 0, 1),
        Color(0, 0, 0, 1),
        Vector4i(0, 0, 0, 1),
        RID(5),
        ObjectID(5),
    ]
    table = {k: i for i, k in enumerate(keys)}
    # (1, 2) and (1.0, 2.0) are the same Python key; every gdvariant type stays separate.
    assert len(table) == len(keys) - 1
    assert table[Vector2(1, 2)] == 0
    assert table[Vector2i(1, 2)] == 1
    assert table[Quaternion(0, 0, 0, 1)] == 4
    assert table[Vector4(0, 0, 0, 1)] == 5
    assert len({Vector2(1, 2), Vector2i(1, 2), Vector2(1, 2)}) == 2


def test_nested_equality_uses_value_types() -> None:
    assert Transform3D() == Transform3D(Basis(), (0, 0, 0))
    assert Transform2D((1, 0), (0, 1), (2, 3)) != Transform2D((1, 0), (0, 1), (2, 4))


# ---- repr -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", RECORDS, ids=_ids(RECORDS))
def test_repr_names_the_type_and_round_trips(value: Any) -> None:
    text = repr(value)
    assert text.startswith(type(value).__name__)
    again = eval(text, NAMESPACE)
    assert type(again) is type(value)
    assert again == value


def test_repr_is_readable() -> None:
    assert repr(Vector2(1, 2)) == "Vector2(1.0, 2.0)"
    assert repr(Vector2i(1, 2)) == "Vector2i(1, 2)"
    assert repr(StringName("x")) == "StringName('x')"
    assert repr(ElementType.builtin(VariantType.INT)) == "ElementType.builtin(VariantType.INT)"
    assert str(Vector3(1, 2, 3)) == repr(Vector3(1, 2, 3))


def test_godot_object_repr_keeps_duplicate_properties() -> None:
    obj = GodotObject("Node", [("a", 1), ("a", 2)])
    assert eval(repr(obj), NAMESPACE) == obj


# ---- StringName -----------------------------------------------------------------------------


def test_string_name_is_a_str() -> None:
    s = StringName("jump")
    assert isinstance(s, str)
    assert s == "jump"
    assert operator.eq("jump", s)  # str.__eq__ on the left
    assert hash(s) == hash("jump")
    assert s.upper() == "JUMP"
    assert str(s) == "jump"
    assert type(StringName("a")) is StringName


# ---- NodePath -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "names", "subnames", "absolute"),
    [
        ("a/b:c", ("a", "b"), ("c",), False),
        ("/root", ("root",), (), True),
        ("", (), (), False),
        ("../x", ("..", "x"), (), False),
        (":prop:sub", (), ("prop", "sub"), False),
        ("/root/Main:position:x", ("root", "Main"), ("position", "x"), True),
        (".", (".",), (), False),
    ],
)
def test_node_path_parsing(
    text: str, names: tuple[str, ...], subnames: tuple[str, ...], absolute: bool
) -> None:
    p = NodePath(text)
    assert p.names == names
    assert p.subnames == subnames
    assert p.absolute is absolute
    assert str(p) == text
    assert p == NodePath.from_parts(names, subnames, absolute)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("a:", NodePath.from_parts(["a"])),
        ("a:b:", NodePath.from_parts(["a"], ["b"])),
        ("//a//b/", NodePath.from_parts(["a", "b"], absolute=True)),
        ("/:", NodePath.from_parts([], absolute=True)),
        ("a::b", NodePath()),
        ("a::", NodePath()),
        ("::", NodePath()),
        ("/a/b:c::", NodePath()),
    ],
)
def test_node_path_parsing_keeps_the_engines_odd_cases(text: str, parsed: NodePath) -> None:
    """Empty names skipped, one trailing colon allowed, an empty subname before another colon
    voids the path (tests/live/codec/test_element_rules.py asks Godot 4.6 the same)."""
    assert NodePath(text) == parsed


def test_node_path_default_is_empty() -> None:
    assert NodePath() == NodePath("")
    assert str(NodePath()) == ""


def test_node_path_from_parts() -> None:
    p = NodePath.from_parts(["root", "Main"], ["position"], absolute=True)
    assert str(p) == "/root/Main:position"
    assert p == NodePath("/root/Main:position")
    assert NodePath.from_parts(iter(["a"])).names == ("a",)
    assert NodePath.from_parts(["a"]).absolute is False
    assert NodePath.from_parts(["a"], absolute=1).absolute is True  # type: ignore[arg-type]


def test_node_path_absolute_differs_from_relative() -> None:
    assert NodePath("/a") != NodePath("a")
    assert NodePath("a:b") != NodePath("a/b")


def test_node_path_repr_falls_back_to_parts() -> None:
    # A name holding ':' cannot be spelled as path text; repr must still round-trip.
    odd = NodePath.from_parts(["a:b"], ["c/d"])
    again = eval(repr(odd), NAMESPACE)
    assert again == odd
    assert again.names == ("a:b",)
    assert eval(repr(NodePath("a/b:c")), NAMESPACE) == NodePath("a/b:c")


# ---- GodotObject ----------------------------------------------------------------------------


def test_godot_object_get_and_properties() -> None:
    obj = GodotObject("Node2D", {"name": "Player", "visible": False})
    assert obj.class_name == "Node2D"
    assert obj.properties == (("name", "Player"), ("visible", False))
    assert obj.get("name") == "Player"
    assert obj.get("visible") is False
    assert obj.get("missing") is None
    assert obj.get("missing", 5) == 5
    assert GodotObject("Node", [("a", 1)]) == GodotObject("Node", {"a": 1})
    assert GodotObject("Node").properties == ()


def test_godot_object_property_order_matters() -> None:
    a = GodotObject("Node", [("x", 1), ("y", 2)])
    b = GodotObject("Node", [("y", 2), ("x", 1)])
    assert a != b


def test_godot_object_repr() -> None:
    obj = GodotObject("Node", {"name": "n", "pos": Vector2(1, 2)})
    text = repr(obj)
    assert text.startswith("GodotObject('Node', {")
    assert "Vector2(1.0, 2.0)" in text
    assert eval(text, NAMESPACE) == obj


# ---- pickling and copying -------------------------------------------------------------------

PICKLABLE: list[Any] = [
    *[v for v in RECORDS if not isinstance(v, NodePath)],
    StringName("s"),
    TypedArray(VariantType.INT, [1, 2]),
    Dictionary([(1, "a"), (1.0, "b")], VariantType.INT, None),
]


@pytest.mark.parametrize("value", PICKLABLE, ids=_ids(PICKLABLE))
def test_pickle_and_copy(value: Any) -> None:
    for again in (
        pickle.loads(pickle.dumps(value)),
        copy.copy(value),
        copy.deepcopy(value),
    ):
        assert type(again) is type(value)
        assert again == value


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_node_path_pickle_and_copy(how: str) -> None:
    p = NodePath("/root/Main:position")
    if how == "pickle":
        again = pickle.loads(pickle.dumps(p))
    elif how == "copy":
        again = copy.copy(p)
    else:
        again = copy.deepcopy(p)
    assert again == p


@pytest.mark.parametrize(
    "value",
    [gd.Vector2(1.5, -2), gd.Transform2D((1, 0), (0, 1), (3, 4)), gd.Dictionary({1: "a"})],
    ids=["Vector2", "Transform2D", "Dictionary"],
)
def test_pickles_from_before_the_module_split_still_load(value: Any) -> None:
    # Before the math types and containers moved out of _types, pickles named them there.
    module = type(value).__module__.encode()
    old = pickle.dumps(value, protocol=2).replace(module + b"\n", b"gdvariant._types\n")
    assert b"gdvariant._types\n" + type(value).__name__.encode() in old
    assert pickle.loads(old) == value
