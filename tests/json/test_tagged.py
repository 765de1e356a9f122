"""The tagged JSON form (``to_json`` / ``from_json``): lossless, documented, schema-valid.

Every golden value (engine-written, 4.6, 3.6 and 3.2), every derived vector (Godot 2,
Pandemonium, older 4.x and double builds) and random values for each engine release go through
``to_json`` and back to the same bytes, and every text ``to_json`` writes is valid under the
shipped JSON Schema. The documented spellings are checked on hand-written examples, and bad
input on hand-written mistakes. The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import struct
from functools import cache
from importlib import resources
from typing import Any

import jsonschema
import pytest

import gdvariant as gd
from gdvariant._json.tagged import TYPE_NAMES
from tests.support.engines import SEED
from tests.support.godot_describe import deep_recursion, expected
from tests.support.paths import VECTORS
from tests.support.random_values import RELEASES, random_value
from tests.support.vectors import DELIBERATE, golden

T = gd.VariantType
GOLDEN = {"4.6": "godot4.6", "3.6": "godot3.6", "3.2": "godot3.2"}
DERIVED = ("godot2.json", "pandemonium.json", "godot4-older.json")
RANDOM_PER_RELEASE = 150


@cache
def _validator() -> jsonschema.protocols.Validator:
    text = resources.files("gdvariant").joinpath("schemas/tagged-json.schema.json").read_text()
    schema = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


_VALID: set[str] = set()


def _valid(text: str) -> None:
    """``text`` is valid under the shipped schema (each distinct text is checked once)."""
    if text not in _VALID:
        with deep_recursion(50_000):
            _validator().validate(json.loads(text))
        _VALID.add(text)


def _round_trip(value: Any, version: str, double: bool = False) -> str:
    """``to_json`` of ``value``: schema-valid, and read back to a value with the same bytes."""
    text = gd.to_json(value)
    _valid(text)
    back = gd.from_json(text)
    ours = gd.dumps(back, version=version, double=double, full_objects=True)
    assert ours == gd.dumps(value, version=version, double=double, full_objects=True), text[:300]
    return text


@pytest.mark.parametrize("version", list(GOLDEN))
def test_every_golden_value_round_trips(version: str) -> None:
    count = 0
    for record in golden(version):
        for key, objects in (("bytes_objects", True), ("bytes", False)):
            value = gd.loads(bytes.fromhex(record[key]), version=version, allow_objects=objects)
            _round_trip(value, version)
            count += 1
    assert count == 2 * 1000


def _derived() -> list[tuple[str, str, dict[str, Any]]]:
    cases = []
    for name in DERIVED:
        data = json.loads((VECTORS / "derived" / name).read_text(encoding="utf-8"))
        for vector in data["vectors"]:
            if vector["kind"] != "error" and vector["name"] not in DELIBERATE:
                cases += [(f"{name}:{vector['name']}@{v}", v, vector) for v in vector["versions"]]
    return cases


@pytest.mark.parametrize(
    ("version", "vector"), [c[1:] for c in _derived()], ids=[c[0] for c in _derived()]
)
def test_every_derived_vector_round_trips(version: str, vector: dict[str, Any]) -> None:
    options = vector.get("options", {})
    double = bool(options.get("double", False))
    data = bytes.fromhex(vector["hex"])
    if vector["kind"] == "encode":
        value = expected(vector["value"], objects=True)
    else:
        value = gd.decode(data, version=version, double=double, allow_objects=True)[0]
    _round_trip(value, version, double)


@pytest.mark.slow
@pytest.mark.parametrize("version", RELEASES)
def test_random_values_round_trip(version: str) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    rng = random.Random(f"{SEED}-{version}")
    for _ in range(RANDOM_PER_RELEASE):
        _round_trip(random_value(rng, version=version), version)


def test_floats_round_trip_bit_for_bit() -> None:
    rng = random.Random(SEED)
    doubles = [
        struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(500)
    ]
    singles = [
        struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0] for _ in range(500)
    ]
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 5e-324, 1.7976931348623157e308]
    for x in doubles + singles + specials:
        back = gd.from_json(gd.to_json(x))
        assert struct.pack("<d", back) == struct.pack("<d", x)
        for value in ([x], gd.PackedFloat64Array([x]), gd.Vector2(x, -x)):
            back = gd.from_json(gd.to_json(value))
            assert gd.dumps(back, double=True) == gd.dumps(value, double=True)
    specials32 = [*specials[:6], 1.401298464324817e-45, 3.4028234663852886e38]
    for x in singles + specials32:  # float32 values in float32 places
        singles_in: list[Any] = [
            gd.Vector2(x, -x),
            gd.Color(x, 0, 0, x),
            gd.PackedFloat32Array([x]),
            gd.PackedColorArray([(x, x, x, x)]),
        ]
        for value in singles_in:
            assert gd.dumps(gd.from_json(gd.to_json(value))) == gd.dumps(value)


def test_deepest_values_round_trip() -> None:
    arrays: Any = []
    for _ in range(1023):
        arrays = [arrays]
    dictionaries: Any = gd.Dictionary([(1, None)])
    for _ in range(1023):
        dictionaries = gd.Dictionary([(1, dictionaries)])
    for value in (arrays, dictionaries):
        assert gd.dumps(gd.from_json(gd.to_json(value))) == gd.dumps(value)


# ---- the documented spellings (docs/json.md) ------------------------------------------------

PLAIN = [
    (None, "null"),
    (True, "true"),
    (-42, "-42"),
    (9223372036854775807, "9223372036854775807"),
    (1.0, "1.0"),
    (-0.0, "-0.0"),
    (0.1, "0.1"),
    (1e300, "1e+300"),
    ('é\n"', '"é\\n\\""'),
    ([1, "a", None, [2.5]], '[1, "a", null, [2.5]]'),
    ({"hp": 100, "name": "Ann", "pos": [1, 2]}, '{"hp": 100, "name": "Ann", "pos": [1, 2]}'),
    ({}, "{}"),
]

TAGGED = [
    (math.inf, {"$type": "float", "value": "inf"}),
    (-math.inf, {"$type": "float", "value": "-inf"}),
    (math.nan, {"$type": "float", "value": "nan"}),
    (-math.nan, {"$type": "float", "value": "0xfff8000000000000"}),
    (gd.StringName("jump"), {"$type": "StringName", "value": "jump"}),
    (gd.NodePath("/root/Main:position:x"), {"$type": "NodePath", "path": "/root/Main:position:x"}),
    (
        gd.NodePath.from_parts(["a:b", ""], [], True),
        {"$type": "NodePath", "names": ["a:b", ""], "subnames": [], "absolute": True},
    ),
    # float32 components print as their shortest float32 digits...
    (
        gd.Vector2(struct.unpack("<f", struct.pack("<f", 0.1))[0], 2),
        {"$type": "Vector2", "args": [0.1, 2.0]},
    ),
    (gd.Color(1, 0.5, 0, 1), {"$type": "Color", "args": [1.0, 0.5, 0.0, 1.0]}),
    (
        gd.Vector2(1.401298464324817e-45, 3.4028234663852886e38),  # float32's extremes
        {"$type": "Vector2", "args": [1e-45, 3.4028235e38]},
    ),
    # ...unless one is not a float32: then all are exact doubles, and the record says so.
    (gd.Vector2(0.1, 2), {"$type": "Vector2", "args": [0.1, 2.0], "float64": True}),
    (gd.Vector3(math.inf, -0.0, math.nan), {"$type": "Vector3", "args": ["inf", -0.0, "nan"]}),
    (gd.Vector2i(3, -4), {"$type": "Vector2i", "args": [3, -4]}),
    (gd.Rect2i((1, 2), (3, 4)), {"$type": "Rect2i", "args": [1, 2, 3, 4]}),
    (gd.Plane((0, 1, 0), 5), {"$type": "Plane", "args": [0.0, 1.0, 0.0, 5.0]}),
    # Basis and Transform3D: columns (the axes), then the origin.
    (
        gd.Basis((1, 2, 3), (4, 5, 6), (7, 8, 9)),
        {"$type": "Basis", "args": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]},
    ),
    (
        gd.Transform3D(None, (7, 8, 9)),
        {
            "$type": "Transform3D",
            "args": [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 7.0, 8.0, 9.0],
        },
    ),
    (gd.RID(5), {"$type": "RID", "id": 5}),
    (gd.ObjectID(1234), {"$type": "ObjectID", "id": 1234}),
    (gd.Callable(), {"$type": "Callable"}),
    (gd.Signal("hit", 77), {"$type": "Signal", "name": "hit", "object_id": 77}),
    (b"\x01\x02\xff", {"$type": "PackedByteArray", "base64": "AQL/"}),
    (gd.PackedInt32Array([1, -2]), {"$type": "PackedInt32Array", "items": [1, -2]}),
    (
        gd.PackedFloat32Array([0.1, -math.inf]),
        {"$type": "PackedFloat32Array", "items": [0.1, "-inf"]},
    ),
    (
        gd.PackedFloat64Array([math.nan]),
        {"$type": "PackedFloat64Array", "base64": "AAAAAAAA+H8="},
    ),
    (gd.PackedStringArray(["a", "b"]), {"$type": "PackedStringArray", "items": ["a", "b"]}),
    (
        gd.PackedVector2Array([(1, 2), (3, 4)]),
        {"$type": "PackedVector2Array", "items": [[1.0, 2.0], [3.0, 4.0]]},
    ),
    (
        gd.PackedVector2Array64([(0.1, 2)]),
        {"$type": "PackedVector2Array", "float64": True, "items": [[0.1, 2.0]]},
    ),
    (
        gd.TypedArray(T.INT, [1, 2]),
        {"$type": "Array", "element_type": "int", "items": [1, 2]},
    ),
    (
        gd.TypedArray(gd.ElementType.class_name("Node"), []),
        {"$type": "Array", "element_type": {"class": "Node"}, "items": []},
    ),
    # Keys JSON objects cannot hold, keys Python would merge, and typed Dictionaries.
    ({1: "a", "b": 2}, {"$type": "Dictionary", "items": [[1, "a"], ["b", 2]]}),
    (
        gd.Dictionary([(1, "int"), (1.0, "float"), (True, "bool")]),
        {"$type": "Dictionary", "items": [[1, "int"], [1.0, "float"], [True, "bool"]]},
    ),
    (
        gd.Dictionary([("a", 1), (gd.StringName("a"), 2)]),
        {"$type": "Dictionary", "items": [["a", 1], [{"$type": "StringName", "value": "a"}, 2]]},
    ),
    ({"$type": "not a tag"}, {"$type": "Dictionary", "items": [["$type", "not a tag"]]}),
    (
        gd.Dictionary({"a": 1}, T.STRING, T.INT),
        {"$type": "Dictionary", "key_type": "String", "value_type": "int", "items": [["a", 1]]},
    ),
    (
        gd.GodotObject("Node2D", {"name": "Ship", "position": gd.Vector2(1, 2)}),
        {
            "$type": "Object",
            "class": "Node2D",
            "properties": {"name": "Ship", "position": {"$type": "Vector2", "args": [1.0, 2.0]}},
        },
    ),
]


@pytest.mark.parametrize(("value", "text"), PLAIN, ids=[t for _, t in PLAIN])
def test_json_values_stay_plain(value: Any, text: str) -> None:
    assert gd.to_json(value) == text
    _valid(text)
    back = gd.from_json(text)
    assert type(back) is type(value) and gd.dumps(back) == gd.dumps(value)


@pytest.mark.parametrize(("value", "tree"), TAGGED, ids=[str(t) for _, t in TAGGED])
def test_documented_tagged_forms(value: Any, tree: dict[str, Any]) -> None:
    text = gd.to_json(value)
    assert _same_tree(json.loads(text), tree), text
    _validator().validate(tree)
    back = gd.from_json(json.dumps(tree))
    assert gd.dumps(back, full_objects=True) == gd.dumps(value, full_objects=True)


def _same_tree(a: Any, b: Any) -> bool:
    """JSON trees equal with ints and floats apart (``1`` is not ``1.0``) and bits of floats."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same_tree(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_tree(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    return bool(a == b)


def test_typed_containers_read_back_typed() -> None:
    value = gd.from_json('{"$type": "Array", "element_type": "Vector2", "items": []}')
    assert value == gd.TypedArray(T.VECTOR2, [])
    value = gd.from_json(
        '{"$type": "Dictionary", "key_type": {"script": "res://a.gd"}, "items": []}'
    )
    assert value == gd.Dictionary({}, gd.ElementType.script("res://a.gd"))


def test_plain_objects_read_as_dicts_and_merging_keys_as_dictionaries() -> None:
    assert gd.from_json('{"a": {"b": [1]}}') == {"a": {"b": [1]}}
    value = gd.from_json('{"$type": "Dictionary", "items": [[1, 2], [true, 3]]}')
    assert isinstance(value, gd.Dictionary) and value.items_list == ((1, 2), (True, 3))
    assert gd.from_json('{"$type": "Dictionary", "items": [[1, 2], ["x", 3]]}') == {1: 2, "x": 3}


def test_indent_and_bytes_input() -> None:
    text = gd.to_json({"a": [1]}, indent=2)
    _valid(text)
    assert text == '{\n  "a": [\n    1\n  ]\n}'
    assert gd.from_json(text.encode()) == {"a": [1]}
    assert gd.from_json(b'\xef\xbb\xbf"x"') == "x"


def test_lone_surrogates_are_escaped() -> None:
    text = gd.to_json(["a\ud800b"])
    assert text == '["a\\ud800b"]'
    assert gd.from_json(text) == ["a\ud800b"]


def test_schema_names_every_type_the_reader_knows() -> None:
    schema = json.loads(
        resources.files("gdvariant").joinpath("schemas/tagged-json.schema.json").read_text()
    )
    defs = schema["$defs"]
    tags = {d["properties"]["$type"]["const"] for d in defs.values() if "const" in str(d)[:80]}
    assert set(defs["tagged"]["properties"]["$type"]["enum"]) == tags
    from gdvariant._json.tagged_read import _READERS

    assert tags == set(_READERS)
    names = schema["$defs"]["elementType"]["anyOf"][0]["enum"]
    assert set(names) == {"Variant", *TYPE_NAMES.values()}


# ---- bad input ------------------------------------------------------------------------------

SYNTAX_ERRORS = [
    ("", 1, 1),
    ("[1, 2", 1, 6),
    ('{"a": 1,\n "b" 2}', 2, 6),
    ("[1] x", 1, 5),
    ("'a'", 1, 1),
]


@pytest.mark.parametrize(("text", "line", "column"), SYNTAX_ERRORS)
def test_broken_json_says_where(text: str, line: int, column: int) -> None:
    with pytest.raises(gd.JSONError) as info:
        gd.from_json(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert str(info.value).startswith(f"line {line}, column {column}: ")
    assert isinstance(info.value, gd.DecodeError)


BAD_NODES = [
    ('{"$type": "Vector3", "args": [1, 2]}', ".args", "Vector3 needs 3 components, got 2"),
    ('{"$type": "Vector2", "args": [1, "x"]}', ".args[1]", "expected a number"),
    ('{"$type": "Vector2i", "args": [1, 2.5]}', ".args[1]", "expected a 32-bit integer"),
    ('{"$type": "Vector2i", "args": [1, 2147483648]}', ".args[1]", "out of range"),
    ('{"$type": "Vector2i", "args": [1, 2], "float64": true}', ".float64", "integer components"),
    ('{"$type": "Vector4", "arg": [1, 2, 3, 4]}', ".", 'Vector4 needs a "args" member'),
    ('{"$type": "Vector2", "args": [1, 2], "x": 1}', ".x", 'Vector2 has no "x" member'),
    ('{"$type": "Vectr2", "args": [1, 2]}', '.["$type"]', 'unknown type "Vectr2"'),
    ('{"$type": 5}', '.["$type"]', "expected a type name"),
    ('{"a": [1, {"b": {"$type": "RID", "id": -1}}]}', ".a[1].b.id", "out of range"),
    ('{"a": 1, "a": 2}', ".a", 'duplicate key "a"'),
    ('{"odd key": [NaN]}', ".", "NaN is not JSON"),
    ("[99999999999999999999]", ".[0]", "out of range for a 64-bit integer"),
    ('{"$type": "float", "value": "0x12"}', ".value", "expected a number"),
    ('{"$type": "PackedByteArray", "base64": "!!"}', ".base64", "expected base64 text"),
    ('{"$type": "PackedInt32Array", "base64": "AQID"}', ".base64", "not a whole number"),
    (
        '{"$type": "PackedVector2Array", "items": [[1, 2], [3]]}',
        ".items[1]",
        "expected 2 components",
    ),
    ('{"$type": "PackedColorArray", "items": [], "float64": true}', ".float64", "no 64-bit form"),
    ('{"$type": "Dictionary", "items": [[1, 2, 3]]}', ".items[0]", "expected a [key, value] pair"),
    ('{"$type": "Dictionary", "items": [], "key_type": "Thing"}', ".key_type", "unknown type name"),
    (
        '{"$type": "Array", "element_type": {"klass": "Node"}, "items": []}',
        ".element_type",
        "expected a type name",
    ),
    (
        '{"$type": "NodePath", "names": ["a"], "subnames": [], "absolute": 1}',
        ".absolute",
        "expected true or false",
    ),
    (
        '{"$type": "Object", "class": "Node", "properties": [["a"]]}',
        ".properties[0]",
        "[name, value] pair",
    ),
    ('{"$type": "StringName", "value": null}', ".value", "expected a string, got null"),
    ('{"$type": "Dictionary", "items": {"a": 1}}', ".items", "expected an array, got an object"),
]


@pytest.mark.parametrize(("text", "path", "reason"), BAD_NODES)
def test_bad_nodes_name_their_path(text: str, path: str, reason: str) -> None:
    with pytest.raises(gd.JSONError) as info:
        gd.from_json(text)
    assert info.value.path == path, str(info.value)
    assert reason in str(info.value)
    assert str(info.value).endswith(f" at {path}")


def test_huge_number_reads_as_infinity() -> None:
    assert gd.from_json('{"$type": "float", "value": 1e999}') == math.inf
    assert gd.from_json("1e999") == math.inf


def test_input_that_is_not_utf8_or_too_deep() -> None:
    with pytest.raises(gd.JSONError, match="not UTF-8"):
        gd.from_json(b'"\xff"')
    with pytest.raises(gd.JSONError, match="nested 5000 levels deep"):
        gd.from_json("[" * 5000 + "]" * 5000)


def test_values_that_are_not_godot_values() -> None:
    with pytest.raises(gd.EncodeError, match="cannot write a set"):
        gd.to_json({1, 2})
    with pytest.raises(gd.EncodeError, match="cannot write a object"):
        gd.to_json([object()])


def test_ints_out_of_godots_range() -> None:
    with pytest.raises(gd.EncodeError, match="64-bit"):
        gd.to_json([2**63])
    with pytest.raises(gd.JSONError, match="out of range"):
        gd.from_json("[9223372036854775808]")


_MUTATION_CHARS = '{}[]":,.-+eE019az$\\ \n'


def _mutations(text: str, rng: random.Random, count: int) -> list[str]:
    out = []
    for _ in range(count):
        chars = list(text)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(chars) + 1)
            roll = rng.random()
            if roll < 0.4 and at < len(chars):
                del chars[at]
            elif roll < 0.7 and at < len(chars):
                chars[at] = rng.choice(_MUTATION_CHARS)
            else:
                chars.insert(at, rng.choice(_MUTATION_CHARS))
        out.append("".join(chars))
    return out


@pytest.mark.parametrize("dialect", ["tagged", "godot"])
def test_broken_texts_raise_only_json_errors(dialect: str) -> None:
    """Mutated texts either read (and then write and read back alike) or raise JSONError."""
    rng = random.Random(f"{SEED}-{dialect}")
    read = rejected = 0
    for record in golden("4.6")[::10]:
        value = gd.loads(bytes.fromhex(record["bytes"]))
        try:
            text = gd.to_json(value, dialect=dialect)  # type: ignore[arg-type]
        except gd.EncodeError:
            continue
        for broken in _mutations(text, rng, 10):
            try:
                back = gd.from_json(broken, dialect=dialect)  # type: ignore[arg-type]
            except gd.JSONError:
                rejected += 1
                continue
            read += 1
            if dialect == "tagged":
                again = gd.from_json(gd.to_json(back))
                with contextlib.suppress(gd.EncodeError):
                    assert gd.dumps(again) == gd.dumps(back)
    assert read and rejected, (read, rejected)


def test_unknown_dialect() -> None:
    with pytest.raises(ValueError, match="dialect"):
        gd.to_json(1, dialect="yaml")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dialect"):
        gd.from_json("1", dialect="yaml")  # type: ignore[arg-type]
