"""Live tests against the real Godot 3.6.2 and 3.2.3 engines, with fresh random values.

- The engine decodes bytes we wrote: it must get what we meant, and its own re-encoding must
  equal our bytes (apart from the NodePath padding Godot 3 leaves unwritten).
- The engine writes fresh random values: we decode them to what it describes and re-encode
  them to its bytes.
- The engine and we accept and reject the same bad inputs, and agree on what was accepted.
  Godot 3 gives scripts no consumed size, so only the verdict and the value are compared.
- A Godot 3.6 save converted by us to Godot 4 reads back in Godot 4.6 as the same data.
- Strings holding UTF-16 surrogates are written back as each engine writes them.

The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import json
import random
import struct
from typing import Any

import pytest

import gdvariant as gd
from tests.support.engines import SEED, Engine, engine_decode, run_oracle
from tests.support.godot_describe import (
    as_engine_holds,
    canon,
    check_engine_record,
    deep_recursion,
    expected,
    same_but_padding,
    surrogates_as_spaces,
)
from tests.support.random_values import mutated_encodings, nested_arrays, random_value

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.usefixtures("impl")]  # every core
COUNT = 400
ORACLE = "godot3_oracle.gd"


def _generate(engine: Engine, count: int) -> list[dict[str, Any]]:
    args = ["generate", str(SEED), str(count), "{inside}/out.jsonl"]
    records = run_oracle(engine, ORACLE, args, memo=True)
    return [r for r in records if "bytes" in r]


def test_engine_decodes_what_we_write(godot3: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    version = godot3.name
    rng = random.Random(SEED)
    values = [random_value(rng, version=version) for _ in range(COUNT)]
    blobs = [gd.dumps(v, version=version) for v in values]
    results = engine_decode(godot3, ORACLE, blobs, allow=False)
    for i, (value, blob, got) in enumerate(zip(values, blobs, results, strict=True)):
        context = f"value #{i} (seed {SEED}, Godot {version}): {value!r}"
        assert got["ok"], f"the engine rejected {context}"
        read = expected(got["value"], objects=False)
        assert canon(read) == canon(as_engine_holds(value, godot3=True)), context
        # The engine re-encodes what it read to the bytes we write for that value.
        ours, theirs = gd.dumps(read, version=version), bytes.fromhex(got["bytes"])
        assert ours == theirs or same_but_padding(ours, theirs), context
        assert ours == blob or read != value, context


def test_we_read_and_rewrite_what_the_engine_writes(godot3: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    version = godot3.name
    records = _generate(godot3, COUNT)
    assert len(records) >= COUNT
    for record in records:
        check_engine_record(record, version)


def _hostile_inputs(rng: random.Random, version: str) -> list[bytes]:
    """Truncations, bit flips and absurd counts of real values, and the depth limit."""
    blobs = mutated_encodings(rng, version)
    # The innermost at depth 1024, then 1025: 3.6 refuses the second, 3.2 has no limit.
    blobs += [nested_arrays(1025, version), nested_arrays(1026, version)]
    return [b for b in blobs if len(b) >= 4]


def _ours(data: bytes, version: str) -> tuple[bool, Any, str]:
    """Our verdict, value and reason for refusing."""
    try:
        # The engine's own depth limit (none before 3.3.5), not our default of 1024.
        limits = gd.Limits(max_depth=gd.get_profile(version).max_depth)
        return True, gd.decode(data, version=version, limits=limits)[0], ""
    except gd.DecodeError as exc:
        return False, None, exc.reason


def test_same_verdict_as_the_engine_on_bad_input(godot3: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    version = godot3.name
    blobs = _hostile_inputs(random.Random(SEED), version)
    results = engine_decode(godot3, ORACLE, blobs, allow=False)
    disagreements: list[tuple[str, object, object]] = []
    for data, got in zip(blobs, results, strict=True):
        ok, value, reason = _ours(data, version)
        if got["ok"] and not ok and reason.startswith("invalid UTF-8"):
            # Godot 3 reads what UTF-8 forbids: the differential class
            # godot3_accepts_invalid_utf8 (tests/vectors/differential/classes.json) says why.
            continue
        if ok != got["ok"]:
            disagreements.append((data.hex(), ok, got["ok"]))
            continue
        if not ok:
            continue
        with deep_recursion():  # canon() of values nested 1024 deep
            if version == "3.6":
                value = surrogates_as_spaces(value)  # as 3.6 describes a String (to_utf8)
            ours = canon(as_engine_holds(value, godot3=True))
            same = ours == canon(expected(got["value"], objects=False))
        if not same:
            disagreements.append((data.hex(), repr(value)[:80], got["value"]))
    assert not disagreements, f"seed {SEED}: {disagreements[:5]}"


def test_godot3_save_converted_to_godot4_reads_the_same_in_godot46(
    godot36: Engine, godot4: Engine
) -> None:
    """Quat, Transform, PoolRealArray... become Quaternion, Transform3D, PackedFloat32Array."""
    print(f"GDVARIANT_SEED={SEED}")
    # Objects are left out: Godot 3 classes (Reference...) do not exist in Godot 4.
    records = [r for r in _generate(godot36, COUNT) if '"Object"' not in json.dumps(r["value"])]
    converted = [gd.dumps(gd.loads(bytes.fromhex(r["bytes"]), version="3.6")) for r in records]
    results = engine_decode(godot4, "godot4_oracle.gd", converted, allow=False)
    for record, data, got in zip(records, converted, results, strict=True):
        context = f"{record['i']} {record['name']} (seed {SEED})"
        assert got["ok"], f"Godot 4.6 rejected {context}"
        assert got["size"] == len(data), context
        # Godot 4 compares container keys by value, Godot 3 by identity: two {} keys merge.
        godot3_view = canon(as_engine_holds(expected(record["value"], objects=False)))
        assert canon(expected(got["value"], objects=False)) == godot3_view, context


def _string(raw: bytes) -> bytes:
    return struct.pack("<I", len(raw)) + raw + b"\0" * (-len(raw) & 3)


#: UTF-16 surrogates as Godot 3 reads them (3-byte UTF-8): lone, paired, paired out of order.
_SURROGATES = [
    b"\xed\xa0\x80",
    b"a\xed\xa0\xbd\xed\xb8\x80b",
    b"\xed\xbf\xbfx\xed\xb0\x80",
    b"\xed\xa0\xbd\xed\xa0\xbd\xed\xb8\x80",
    b"\xed\xb8\x80\xed\xa0\xbd",
]


def test_strings_holding_surrogates_are_written_back_as_the_engine_writes_them(
    godot3: Engine,
) -> None:
    # Godot 3 holds the surrogates it reads; 3.2.3 writes them back as they came, 3.6.2 writes
    # a pair as its one character and any other surrogate as a space. So do we, in a String, a
    # NodePath, a PackedStringArray and a Dictionary key.
    version = godot3.name
    blobs = []
    for raw in _SURROGATES:
        blobs.append(struct.pack("<I", 4) + _string(raw))
        blobs.append(struct.pack("<4I", 15, 0x80000001, 0, 0) + _string(raw))
        blobs.append(struct.pack("<3I", 23, 1, len(raw) + 1) + _string(raw + b"\0")[4:])
        blobs.append(struct.pack("<3I", 18, 1, 4) + _string(raw) + struct.pack("<II", 2, 1))
    for data, got in zip(blobs, engine_decode(godot3, ORACLE, blobs, allow=False), strict=True):
        assert got["ok"], data.hex()
        value = gd.loads(data, version=version)
        ours, theirs = gd.dumps(value, version=version), bytes.fromhex(got["bytes"])
        assert ours == theirs or same_but_padding(ours, theirs), data.hex()
        if version == "3.6":  # its description is its String::utf8, as it writes it
            value = surrogates_as_spaces(value)
        assert canon(value) == canon(expected(got["value"], objects=False)), data.hex()
