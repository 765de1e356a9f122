"""Differential testing against Godot 4.6 and 3.6 on 10,000 mutated inputs per engine.

The inputs are the engine-written golden values (``tests/vectors/godot*/golden.jsonl``), each
truncated, bit-flipped, given another header, length or count, spliced with another, or given a
random word (``tests/support/mutations.py``), with a fresh seed every run. The engine decodes
each one (Godot 4: ``decode_var_size``/``decode_var``; Godot 3, which reports no size to
scripts: ``StreamPeer.get_var`` and the shortest prefix that still decodes, measured the same
way on our side). Both must reject, or both accept with the same size and value; and what we
accept we must write back (``dumps``), as the engine writes it back when we agree on the value.

Where they differ on purpose, the difference is a *class* in
``tests/vectors/differential/classes.json``, which says why, and a normaliser here that turns
our value into the engine's (or a rule for a verdict). Every disagreement must fall in a
class, agreement must stay at or above 99%, and each class's committed examples are fed to the
engine in the same run and must still show that class. The seed is printed; rerun one with
GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

import gdvariant as gd
from tests.support.differential import (
    CLASSES,
    NORMALISERS,
    VALUE_RULES,
    VERDICT_RULES,
    through_doubles,
)
from tests.support.engines import SEED, Engine, engine_decode
from tests.support.godot_describe import (
    canon,
    deep_recursion,
    expected,
    surrogates_as_spaces,
)
from tests.support.mutations import mutate
from tests.support.vectors import golden

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.usefixtures("impl")]  # every core
COUNT = 10_000
ORACLES = {"4.6": "godot4_oracle.gd", "3.6": "godot3_oracle.gd"}


# ---------------------------------------------------------------- comparing


def _ours(data: bytes, version: str) -> tuple[bool, int, Any, str]:
    try:
        value, used = gd.decode(data, version=version)
    except gd.DecodeError as exc:
        return False, 0, None, exc.reason
    return True, used, value, ""


def _shortest_prefix(data: bytes, version: str) -> int:
    """Measured as the Godot 3 oracle measures it (see godot3_oracle.gd _shortest_prefix)."""
    lo, hi = 0, len(data)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _ours(data[:mid], version)[0]:
            hi = mid
        else:
            lo = mid
    return hi


def classify(version: str, data: bytes, got: dict[str, Any]) -> str | None:
    """``None`` when we agree with the engine, else the disagreement's class (or "unknown:...")."""
    ok, used, value, reason = _ours(data, version)
    if ok != got["ok"]:
        for name, rule in VERDICT_RULES[version].items():
            if rule(got["ok"], ok, reason):
                return name
        return f"unknown: we {'accept' if ok else 'reject: ' + reason}"
    if not ok:
        return None
    size = used if version.startswith("4") else _shortest_prefix(data, version)
    if size != got["size"]:
        return f"unknown: size {size} against the engine's {got['size']}"
    try:  # what we read, we write back: as the engine does, when we agree on the value
        again = gd.dumps(value, version=version)
    except gd.EncodeError as exc:
        return f"unknown: read but not written back: {exc}"
    if again == bytes.fromhex(got.get("bytes", "")):
        return None
    with deep_recursion():
        theirs = canon(expected(got["value"], objects=False))
        ours = through_doubles(value)
        if version == "3.6":  # as its description shows a String (String::utf8)
            ours = surrogates_as_spaces(ours)
        if canon(ours) == theirs:
            return None
        needed = []
        for name, normalise in NORMALISERS[version].items():
            changed = normalise(ours)
            if canon(changed) != canon(ours):
                ours = changed
                needed.append(name)
                if canon(ours) == theirs:
                    return "+".join(needed)
    for name, holds in VALUE_RULES[version].items():
        if holds(value):
            return name
    return f"unknown: value {value!r:.120}"


def _pool(version: str) -> list[bytes]:
    blobs = [bytes.fromhex(record["bytes"]) for record in golden(version)]
    return [b for b in blobs if len(b) < 60_000]  # the Godot 3 oracle's PacketPeer limit


@pytest.mark.parametrize("version", ["4.6", "3.6"])
def test_the_engine_and_we_agree_on_mutated_input(
    version: str, request: pytest.FixtureRequest
) -> None:
    engine: Engine = request.getfixturevalue("godot4" if version == "4.6" else "godot36")
    print(f"GDVARIANT_SEED={SEED}")
    inputs = mutate(random.Random(SEED), _pool(version), COUNT)
    assert len(inputs) == COUNT
    examples = [
        (name, bytes.fromhex(h)) for name, c in CLASSES[version].items() for h in c["examples"]
    ]
    blobs = [data for _, data in inputs] + [data for _, data in examples]
    results = engine_decode(engine, ORACLES[version], blobs, allow=False)

    for (name, data), got in zip(examples, results[COUNT:], strict=True):
        assert classify(version, data, got) == name, f"example of {name}: {data.hex()}"

    classes: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    unknown = []
    for (kind, data), got in zip(inputs, results[:COUNT], strict=True):
        found = classify(version, data, got)
        if found is None:
            continue
        classes[found] += 1
        by_kind[kind] += 1
        if found.startswith("unknown") or any(
            part not in CLASSES[version] for part in found.split("+")
        ):
            unknown.append((found, data.hex()))
    agreement = 1 - sum(classes.values()) / COUNT
    print(
        f"Godot {version}: agreement {agreement:.2%}; classes {dict(classes)}; by mutation "
        f"{dict(by_kind)}"
    )
    assert not unknown, f"seed {SEED}: unexplained disagreements {unknown[:5]}"
    assert agreement >= 0.99, f"seed {SEED}: agreement {agreement:.2%}, {dict(classes)}"
