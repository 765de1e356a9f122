"""The value model (``gdvariant._types``): construction, equality, hashing, repr, pickling.

Expectations come from Godot's semantics (default values, ``Vector2 != Vector2i``, NodePath
syntax) and from how each value is built, never from gdvariant's own output.
"""

from __future__ import annotations

import copy
import math
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
    ContainerKind,
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


# ---- constructors and defaults --------------------------------------------------------------


def test_vector_defaults_are_zero() -> None:
    assert tuple(Vector2()) == (0.0, 0.0)
    assert tuple(Vector3()) == (0.0, 0.0, 0.0)
    assert tuple(Vector4()) == (0.0, 0.0, 0.0, 0.0)
    assert tuple(Vector2i()) == (0, 0)
    assert tuple(Vector3i()) == (0, 0, 0)
    assert tuple(Vector4i()) == (0, 0, 0, 0)


def test_vector_fields() -> None:
    v = Vector4(1, 2, 3, 4)
    assert (v.x, v.y, v.z, v.w) == (1.0, 2.0, 3.0, 4.0)
    vi = Vector3i(7, 8, 9)
    assert (vi.x, vi.y, vi.z) == (7, 8, 9)
    assert Vector2(y=5).y == 5.0
    assert Vector2(1, 2)._asdict() == {"x": 1.0, "y": 2.0}


def test_quaternion_default_is_identity() -> None:
    q = Quaternion()
    assert (q.x, q.y, q.z, q.w) == (0.0, 0.0, 0.0, 1.0)


def test_color_alpha_defaults_to_one() -> None:
    c = Color(1, 0.5, 0)
    assert (c.r, c.g, c.b, c.a) == (1.0, 0.5, 0.0, 1.0)
    assert Color().a == 1.0
    assert Color(0, 0, 0, 0).a == 0.0


def test_basis_default_is_identity() -> None:
    b = Basis()
    assert b.x == Vector3(1, 0, 0)
    assert b.y == Vector3(0, 1, 0)
    assert b.z == Vector3(0, 0, 1)


def test_transform2d_default_is_identity() -> None:
    t = Transform2D()
    assert (t.x, t.y, t.origin) == (Vector2(1, 0), Vector2(0, 1), Vector2(0, 0))


def test_transform3d_default_is_identity() -> None:
    t = Transform3D()
    assert t.basis == Basis((1, 0, 0), (0, 1, 0), (0, 0, 1))
    assert t.origin == Vector3(0, 0, 0)


def test_transform3d_accepts_a_basis() -> None:
    b = Basis((0, 1, 0), (-1, 0, 0), (0, 0, 1))
    t = Transform3D(b, (1, 2, 3))
    assert t.basis == b
    assert type(t.basis) is Basis
    assert t.origin == Vector3(1, 2, 3)


def test_projection_default_is_identity() -> None:
    p = Projection()
    rows = [p.x, p.y, p.z, p.w]
    for i, column in enumerate(rows):
        assert type(column) is Vector4
        assert tuple(column) == tuple(1.0 if j == i else 0.0 for j in range(4))


def test_composite_fields_are_vectors() -> None:
    r = Rect2((1, 2), (3, 4))
    assert r.position == Vector2(1, 2) and r.size == Vector2(3, 4)
    ri = Rect2i((1, 2), (3, 4))
    assert ri.position == Vector2i(1, 2) and ri.size == Vector2i(3, 4)
    assert type(ri.position) is Vector2i
    p = Plane((0, 1, 0), 5)
    assert p.normal == Vector3(0, 1, 0) and p.d == 5.0
    a = AABB((1, 2, 3), (4, 5, 6))
    assert a.position == Vector3(1, 2, 3) and a.size == Vector3(4, 5, 6)
    assert Rect2() == Rect2((0, 0), (0, 0))
    assert AABB() == AABB((0, 0, 0), (0, 0, 0))
    assert Plane() == Plane((0, 0, 0), 0)


def test_handles() -> None:
    assert RID().id == 0
    assert RID(2**63).id == 2**63
    assert ObjectID(42).id == 42
    s = Signal("hit", 7)
    assert (s.name, s.object_id) == ("hit", 7)
    assert Signal() == Signal("", 0)
    assert Callable() == Callable()
    assert len(Callable()) == 0


# ---- coercion -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        Vector2(1, 2),
        Vector3(1, 2, 3),
        Vector4(1, 2, 3, 4),
        Quaternion(0, 0, 0, 1),
        Color(1, 0, 0),
        Plane((0, 1, 0), 3),
        Rect2((1, 2), (3, 4)),
        AABB((1, 2, 3), (4, 5, 6)),
        Transform2D(),
        Basis(),
        Transform3D(),
        Projection(),
    ],
    ids=lambda v: type(v).__name__,
)
def test_ints_become_floats_in_real_types(value: Any) -> None:
    def leaves(v: Any) -> list[Any]:
        return [x for item in v for x in leaves(item)] if isinstance(v, tuple) else [v]

    components = leaves(value)
    assert components
    assert all(type(x) is float for x in components)


def test_integer_types_hold_ints() -> None:
    assert all(type(x) is int for x in Vector4i(True, 2, 3, 4))
    assert Vector2i(True, False) == Vector2i(1, 0)
    assert type(Rect2i((1, 2), (3, 4)).size.x) is int
    assert type(RID(True).id) is int


def test_integer_vector_from_non_int_is_type_error_or_truncates() -> None:
    with pytest.raises(TypeError):
        Vector2i("1", 2)  # type: ignore[arg-type]
    try:
        v = Vector2i(1.5, 2)  # type: ignore[arg-type]
    except TypeError:
        return
    assert v == Vector2i(1, 2)


def test_rect2_from_integer_vectors_converts() -> None:
    r = Rect2(Vector2i(1, 2), Vector2i(3, 4))
    assert r.position == Vector2(1, 2)
    assert type(r.position) is Vector2


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


def test_pickle_keeps_typed_array_element_type() -> None:
    a = TypedArray(ElementType.class_name("Node"), [1])
    again = pickle.loads(pickle.dumps(a))
    assert again.element_type == ElementType.class_name("Node")


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


def test_floats_keep_special_values() -> None:
    v = Vector2(math.inf, -0.0)
    assert v.x == math.inf
    assert math.copysign(1.0, v.y) == -1.0
    assert math.isnan(Vector3(math.nan, 0, 0).x)
