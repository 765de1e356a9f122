"""Godot's JSON dialect offline: texts Godot 4.6 printed, and what its to_native read.

The expected texts below were printed by Godot 4.6.3 (``JSON.stringify(JSON.from_native(v))``)
and the expected values read by its ``JSON.to_native``; ``tests/live/codec/test_json.py`` checks
the same against the engine on every run with engines.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import gdvariant as gd

T = gd.VariantType

WRITTEN = [
    (0.1 + 0.2, '"f:0.3"'),
    (1 / 3, '"f:0.33333333333333"'),
    (1e-20, '"f:0.0"'),
    (123456789.0, '"f:123456789.0"'),
    (1.5e16, '"f:15000000000000000.0"'),
    (-0.0, '"f:0.0"'),
    (math.inf, '"f:inf"'),
    (-math.inf, '"f:-inf"'),
    (math.nan, '"f:nan"'),
    (5, '"i:5"'),
    ("x", '"s:x"'),
    (gd.StringName("x"), '"sn:x"'),
    (gd.NodePath("a:b"), '"np:a:b"'),
    (gd.Vector2(0.1, math.inf), '{"args":[0.100000001490116,1e99999],"type":"Vector2"}'),
    (gd.Vector2(1.5, -2.25), '{"args":[1.5,-2.25],"type":"Vector2"}'),
    (gd.Vector2i(-1, 2), '{"args":[-1,2],"type":"Vector2i"}'),
    (
        {1: 2, "b": [gd.StringName("x"), gd.NodePath("a:b")]},
        '{"args":["i:1","i:2","s:b",["sn:x","np:a:b"]],"type":"Dictionary"}',
    ),
    (b"\x01\x02", '{"args":[1,2],"type":"PackedByteArray"}'),
    (gd.PackedInt64Array([2**63 - 1]), '{"args":[9223372036854775807],"type":"PackedInt64Array"}'),
    (gd.RID(7), '{"type":"RID"}'),
    (
        gd.Dictionary({"a": 1}, T.STRING, T.INT),
        '{"args":["s:a","i:1"],"key_type":"String","type":"Dictionary","value_type":"int"}',
    ),
    ('a\vb\x01c"\\/é', '"s:a\\vb\x01c\\"\\\\/é"'),
    (gd.TypedArray(gd.ElementType.class_name("Node"), []), None),
]


@pytest.mark.parametrize(("value", "text"), WRITTEN, ids=[repr(t) for _, t in WRITTEN])
def test_texts_godot_writes(value: Any, text: str | None) -> None:
    if text is None:  # Godot writes null (and logs an error): we refuse instead
        with pytest.raises(gd.EncodeError, match="full_objects"):
            gd.to_json(value, dialect="godot")
        expected = '{"args":[],"elem_type":"Node","type":"Array"}'
        assert gd.to_json(value, dialect="godot", full_objects=True) == expected
        return
    assert gd.to_json(value, dialect="godot") == text


def test_objects_need_full_objects_both_ways() -> None:
    obj = gd.GodotObject("RefCounted", {"script": None})
    with pytest.raises(gd.EncodeError, match="full_objects"):
        gd.to_json(obj, dialect="godot")
    text = gd.to_json(obj, dialect="godot", full_objects=True)
    assert text == '{"props":["script",null],"type":"RefCounted"}'
    assert gd.from_json(text, dialect="godot", allow_objects=True) == obj
    with pytest.raises(gd.JSONError, match="allow_objects"):
        gd.from_json(text, dialect="godot")


READ = [
    ('"f:inf"', math.inf),
    ('"f:-inf"', -math.inf),
    ('"i:99999999999999999999"', 2**63 - 1),
    ('"i:12abc"', 12),
    ('"f:1e400"', math.inf),
    ('{"type":"Vector2i","args":[1.9,-2.9]}', gd.Vector2i(1, -2)),
    ('{"type":"RID"}', gd.RID()),
    ('{"type":"Signal"}', gd.Signal()),
    ('["s:a", null, true]', ["a", None, True]),
    ('{"type":"Array","elem_type":"int","args":["i:1"]}', gd.TypedArray(T.INT, [1])),
]


@pytest.mark.parametrize(("text", "value"), READ, ids=[t for t, _ in READ])
def test_values_godot_reads(text: str, value: Any) -> None:
    assert gd.from_json(text, dialect="godot") == value


def test_nan_reads_as_nan() -> None:
    assert math.isnan(gd.from_json('"f:nan"', dialect="godot"))


def test_keys_godot_merges_are_merged() -> None:
    args = '[{"type":"RID"},"i:1",{"type":"RID"},"i:2","s:a","i:3","sn:a","i:4"]'
    text = '{"type":"Dictionary","args":' + args + "}"
    value = gd.from_json(text, dialect="godot")
    assert value == {gd.RID(): 2, "a": 4}  # the first key stays, the last value wins
    assert [type(k) for k in value] == [gd.RID, str]


def test_indent_is_godots() -> None:
    text = gd.to_json({"a": []}, dialect="godot", indent="\t")
    assert text == '{\n\t"args": [\n\t\t"s:a",\n\t\t[]\n\t],\n\t"type": "Dictionary"\n}'


BAD = [
    ("5", "bare number", "."),
    ('["i:1", 2.5]', "bare number", ".[1]"),
    ('"x:1"', "type prefix", "."),
    ('{"args": []}', '"type"', "."),
    ('{"type": "Vector2", "args": [1]}', "needs 2 args", ".args"),
    ('{"type": "int", "args": []}', "prefixed string", ".type"),
    ('{"type": "Dictionary", "args": ["s:a"]}', "even number", ".args"),
    ('{"type": "Array", "elem_type": "Node", "args": []}', "allow_objects", ".elem_type"),
    ('{"type": "Sprite2D", "props": []}', "allow_objects", ".type"),
    ("[1,", "expected ']'", None),
]


#: Godot's own JSON syntax (tests/live/codec/test_json.py checks each on the engine).
SYNTAX = [
    (
        '{"type":"PackedFloat64Array","args":[01,1.,-.5,1E+2,],}',
        gd.PackedFloat64Array([1, 1, -0.5, 100]),
    ),
    ('["s:a",]', ["a"]),
    ('["s:a\x01\tb", "s:\\/"]', ["a\x01\tb", "/"]),
    ('{"type":"Vector2","args":[1,2],"args":[3,4]}', gd.Vector2(3, 4)),
    ('  "s:a"  \n ', "a"),
]

SYNTAX_ERRORS = [
    ("[,]", 1, 2, "expected a value"),
    ('"s:a" x', 1, 7, "expected the end"),
    ("\n\n  [+1]", 3, 4, "unexpected character '+'"),
    ('["s:\\v"]', 1, 5, "invalid escape sequence"),
    ('["s:\\ud800"]', 1, 5, "unpaired lead surrogate"),
    ("[NaN]", 1, 2, "expected true, false or null"),
    ('{"type" "RID"}', 1, 9, "expected ':'"),
    ('"s:unterminated', 1, 1, "unterminated string"),
]


@pytest.mark.parametrize(("text", "value"), SYNTAX, ids=[t for t, _ in SYNTAX])
def test_godots_syntax_is_read(text: str, value: Any) -> None:
    assert gd.from_json(text, dialect="godot") == value


@pytest.mark.parametrize(("text", "line", "column", "reason"), SYNTAX_ERRORS)
def test_godots_syntax_errors(text: str, line: int, column: int, reason: str) -> None:
    with pytest.raises(gd.JSONError) as info:
        gd.from_json(text, dialect="godot")
    assert (info.value.line, info.value.column) == (line, column), str(info.value)
    assert reason in str(info.value)


def test_godots_nesting_limit() -> None:
    """Godot reads values nested 1024 deep inside the outermost container, and no deeper."""
    with pytest.raises(gd.JSONError, match="deeper than 1024"):
        gd.from_json("[" * 1026 + "]" * 1026, dialect="godot")
    value = gd.from_json("[" * 1025 + "]" * 1025, dialect="godot")
    for _ in range(1024):
        value = value[0]
    assert value == []


@pytest.mark.parametrize(("text", "reason", "path"), BAD)
def test_errors(text: str, reason: str, path: str | None) -> None:
    with pytest.raises(gd.JSONError, match=reason) as info:
        gd.from_json(text, dialect="godot")
    if path is not None:
        assert info.value.path == path


def test_types_godot_4_lacks_are_refused() -> None:
    for value in (gd.Image(), gd.PackedVector2iArray([(1, 2)]), gd.ObjectID(5), {1, 2}):
        with pytest.raises(gd.EncodeError):
            gd.to_json(value, dialect="godot", full_objects=True)


class _Point(gd.Vector2):
    """A user's subclass of a math type."""


def test_subclasses_write_as_their_godot_type() -> None:
    assert gd.to_json(_Point(1, 2), dialect="godot") == '{"args":[1.0,2.0],"type":"Vector2"}'
    assert gd.to_json(_Point(1, 2)) == '{"$type": "Vector2", "args": [1.0, 2.0]}'
