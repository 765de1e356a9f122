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

import gdvariant as gd
from gdvariant._engines.key_rules import RULES, key_token
from tests.support.engines import Engine, engine_decode
from tests.support.godot_describe import as_engine_holds, canon, expected
from tests.support.key_cases import CASES

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.usefixtures("impl")]  # every core


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
