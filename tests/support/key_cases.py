"""Dictionaries of two keys that look alike: the cases that show which keys an engine holds
as one (Godot 3 compares Dictionaries by identity, Godot 4 by value). The engines judge them in
tests/live/codec/test_dictionary_keys.py; the library's rule must agree with the suite's
engine-checked one on them in tests/engines/test_key_rules.py."""

from __future__ import annotations

from typing import Any

import gdvariant as gd

NAN = float("nan")
T = gd.VariantType

#: (name, first key, second key); every engine line gets the cases its types allow.
CASES: list[tuple[str, Any, Any]] = [
    ("empty Dictionaries", {}, {}),
    ("equal Dictionaries", {1: 2}, {1: 2}),
    ("Dictionaries in another order", {1: 1, 2: 2}, {2: 2, 1: 1}),
    ("empty Arrays", [], []),
    ("equal Arrays", [1, "a"], [1, "a"]),
    ("Arrays holding a Dictionary", [{}], [{}]),
    ("Arrays holding an Array holding a Dictionary", [[{}]], [[{}]]),
    ("Dictionaries holding an Array", {1: []}, {1: []}),
    ("int and float", 1, 1.0),
    ("Arrays of int and float", [1], [1.0]),
    ("Arrays of bool and int", [True], [1]),
    ("zero and negative zero", 0.0, -0.0),
    ("Arrays of zero and negative zero", [0.0], [-0.0]),
    ("NaN twice", NAN, NAN),
    ("Arrays of NaN", [NAN], [NAN]),
    ("Arrays of Arrays of NaN", [[NAN]], [[NAN]]),
    ("Dictionaries with a NaN value", {1: NAN}, {1: NAN}),
    ("Dictionaries with a NaN key", {NAN: 1}, {NAN: 1}),
    ("Vector2 with negative zero", gd.Vector2(0, 0), gd.Vector2(-0.0, 0)),
    ("Vector2 with NaN", gd.Vector2(NAN, 0), gd.Vector2(NAN, 0)),
    ("Arrays of Vector2 with NaN", [gd.Vector2(NAN, 1)], [gd.Vector2(NAN, 1)]),
    ("NodePath and String", gd.NodePath("a"), "a"),
    ("Arrays of NodePath and String", [gd.NodePath("a")], ["a"]),
    ("String and StringName", "a", gd.StringName("a")),
    ("Arrays of String and StringName", ["a"], [gd.StringName("a")]),
    ("Dictionaries keyed by String and StringName", {"a": 1}, {gd.StringName("a"): 1}),
    ("Dictionaries valued String and StringName", {1: "a"}, {1: gd.StringName("a")}),
    ("Array[int] and Array", gd.TypedArray(T.INT, [1]), [1]),
    ("PackedFloat64Array of NaN", gd.PackedFloat64Array([NAN]), gd.PackedFloat64Array([NAN])),
    ("PackedFloat64Array of zeros", gd.PackedFloat64Array([0.0]), gd.PackedFloat64Array([-0.0])),
    ("Arrays of packed NaN", [gd.PackedFloat32Array([NAN])], [gd.PackedFloat32Array([NAN])]),
]
