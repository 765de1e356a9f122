"""Which Dictionary keys the engine holds as one key, against ``godot_describe.engine_key``.

Each case is a Dictionary of two pairs whose keys look alike; we write both pairs, the engine
decodes the bytes, and the number of pairs it keeps must be the number our rule predicts.
The live tests compare what the engine holds through that rule, so a wrong rule makes them
fail for some seeds only (issue 12: Godot 3 keeps two ``{}`` keys apart, Godot 4 merges them).
The library's own rule (``gdvariant._engines.key_rules``, which ``convert`` uses to refuse keys the
target would fold) must predict the same count.
"""

from __future__ import annotations

from typing import Any

import pytest
from engines import Engine, engine_decode
from godot_describe import as_engine_holds, canon, expected

import gdvariant as gd
from gdvariant._engines.key_rules import RULES, key_token

pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("impl")]  # every core

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


def _fits(value: Any, profile: gd.Profile) -> bool:
    """Whether ``value`` can be written for ``profile``; Godot 3 can crash (signal 11) writing
    a Dictionary keyed by a Pool array, so those cases are Godot 4's only."""
    try:
        gd.dumps(value, version=profile.name)
    except gd.EncodeError:
        return False
    return profile.int64 and not (profile.name.startswith("3") and "Packed" in repr(value))


def _check(engine: Engine) -> None:
    version = engine.name
    profile = gd.get_profile(version)
    godot3 = version.startswith("3")
    rules = RULES[profile.key_rules]
    cases = []
    for name, first, second in CASES:
        value = gd.Dictionary([(first, "first"), (second, "second")])
        if _fits(value, profile):
            cases.append((name, value))
    blobs = [gd.dumps(value, version=version) for _, value in cases]
    results = engine_decode(engine, engine.oracle, blobs, allow=False)
    wrong = []
    for (name, value), got in zip(cases, results, strict=True):
        assert got["ok"], f"Godot {version} rejected {name}"
        theirs = expected(got["value"], objects=False)
        ours = as_engine_holds(value, godot3)
        if canon(ours) != canon(theirs):
            wrong.append(f"{name}: the engine keeps {len(theirs)} keys, we predict {len(ours)}")
        first, second = (key_token(key, rules) for key, _ in value.items())
        if (1 if first == second else 2) != len(theirs):
            wrong.append(f"{name}: the engine keeps {len(theirs)} keys, _key_rules disagrees")
    assert len(cases) >= 20, [name for name, _ in cases]
    assert not wrong, f"Godot {version}: {wrong}"


def test_godot4_dictionary_keys(godot4: Engine) -> None:
    _check(godot4)


def test_godot3_dictionary_keys(godot3: Engine) -> None:
    _check(godot3)
