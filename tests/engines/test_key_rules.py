"""``gdvariant._engines.key_rules`` against the suite's own engine-checked key rule.

``godot_describe.engine_key`` is how the tests read what the engine holds, and
``tests/live/codec/test_dictionary_keys.py`` checks both rules against Godot 4.6 and 3.x on
named cases. Here the library's rule must agree with the suite's on many random pairs of keys
built from a small pool of look-alikes (so that most pairs are near misses), nested a few levels
deep.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import gdvariant as gd
from gdvariant._engines.key_rules import RULES, key_token
from tests.support.godot_describe import engine_key
from tests.support.key_cases import CASES

NAN = float("nan")
#: Leaves that look alike to one engine or the other.
POOL: list[Any] = [
    0,
    1,
    True,
    0.0,
    -0.0,
    1.0,
    NAN,
    "a",
    gd.StringName("a"),
    gd.NodePath("a"),
    None,
    gd.Vector2(0.0, 1.0),
    gd.Vector2(-0.0, 1.0),
    gd.Vector2(NAN, 1.0),
    gd.Vector2i(0, 1),
    gd.PackedFloat32Array([NAN, -0.0]),
    gd.PackedFloat32Array([NAN, 0.0]),
    gd.PackedInt32Array([0]),
    b"\x00",
    gd.RID(),
]


def _look_alike(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth >= 3 or roll < 0.5:
        return rng.choice(POOL)
    items = [_look_alike(rng, depth + 1) for _ in range(rng.randrange(3))]
    if roll < 0.7:
        return items
    if roll < 0.75:
        return gd.TypedArray(gd.VariantType.INT, [i for i in items if type(i) is int])
    keys = [_look_alike(rng, depth + 1) for _ in items]
    return gd.Dictionary(list(zip(keys, items, strict=True)))


def _same(a: Any, b: Any, line: str) -> bool:
    rules = RULES[line]
    return key_token(a, rules) == key_token(b, rules)


@pytest.mark.parametrize("line", ["godot4", "godot3"])
def test_the_named_cases_fold_as_the_suite_says(line: str) -> None:
    godot3 = line == "godot3"
    for name, first, second in CASES:
        suite = engine_key(first, godot3) == engine_key(second, godot3)
        assert _same(first, second, line) == suite, name


@pytest.mark.parametrize("line", ["godot4", "godot3"])
def test_random_look_alike_keys_fold_as_the_suite_says(line: str) -> None:
    rng = random.Random(20261127)
    godot3 = line == "godot3"
    folded = 0
    for _ in range(3000):
        first = _look_alike(rng)
        # A third of the pairs are one value twice (two keys on the wire), so equal keys are
        # common too.
        second = first if rng.random() < 0.3 else _look_alike(rng)
        suite = engine_key(first, godot3) == engine_key(second, godot3)
        assert _same(first, second, line) == suite, (first, second)
        folded += suite
    assert folded > 300  # the pool gives both verdicts often


def test_a_key_nested_past_the_recursion_limit_has_a_token() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    token = key_token(deep, RULES["godot4"])
    assert token == key_token(deep, RULES["godot4"])
    assert len(token) == 5001
