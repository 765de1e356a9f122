"""Live tests against the real Godot 4.6 engine, with fresh random values each run.

- The engine decodes bytes we wrote and describes what it got: it must be what we meant, and
  the engine's own re-encoding must equal our bytes.
- The engine writes fresh random values: we decode them to what it describes and re-encode
  them to its exact bytes.
- The engine and we give the same verdict (accept with the same size, or reject) on bad input.

The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from engines import SEED, Engine, engine_decode, run_oracle
from godot_describe import canon, check_engine_record, expected
from random_values import mutated_encodings, nested_arrays, random_value

import gdvariant as gd

pytestmark = [pytest.mark.engine, pytest.mark.usefixtures("impl")]  # every core
COUNT = 400


def _oracle(engine: Engine, args: list[str], inputs: dict[str, str]) -> list[dict[str, Any]]:
    return run_oracle(engine, "godot4_oracle.gd", args, inputs, memo=True)


def _engine_decode(engine: Engine, blobs: list[bytes], allow: bool) -> list[dict[str, Any]]:
    return engine_decode(engine, "godot4_oracle.gd", blobs, allow)


def test_engine_decodes_what_we_write(godot4: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    rng = random.Random(SEED)
    values = [random_value(rng) for _ in range(COUNT)]
    blobs = [gd.dumps(v) for v in values]
    results = _engine_decode(godot4, blobs, allow=False)
    for i, (value, blob, got) in enumerate(zip(values, blobs, results, strict=True)):
        context = f"value #{i} (seed {SEED}): {value!r}"
        assert got["ok"], f"the engine rejected {context}"
        assert got["size"] == len(blob), context
        assert canon(expected(got["value"], objects=False)) == canon(value), context
        assert got["bytes"] == blob.hex(), f"the engine re-encodes differently: {context}"


def test_we_read_and_rewrite_what_the_engine_writes(godot4: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    records = _oracle(godot4, ["generate", str(SEED), str(COUNT), "{inside}/out.jsonl"], {})
    records = [r for r in records if "bytes" in r]
    assert len(records) >= COUNT
    for record in records:
        check_engine_record(record, "4")


def _hostile_inputs(rng: random.Random) -> list[bytes]:
    """Spec vectors, truncations and bit flips of real values: inputs with known verdicts."""
    spec = json.loads(
        (Path(__file__).parent / "vectors/spec/godot4-derived-vectors.json").read_text()
    )
    blobs = [bytes.fromhex(v["hex"]) for v in spec["vectors"] if v["kind"] == "decode"]
    blobs += mutated_encodings(rng)
    blobs += [nested_arrays(1025), nested_arrays(1026)]  # depth 1024 passes, 1025 fails
    return [b for b in blobs if b]


def _ours(data: bytes) -> tuple[bool, int, Any]:
    try:
        value, used = gd.decode(data)
    except gd.DecodeError:
        return False, 0, None
    return True, used, value


def test_same_verdict_as_the_engine_on_bad_input(godot4: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    blobs = _hostile_inputs(random.Random(SEED))
    results = _engine_decode(godot4, blobs, allow=False)
    disagreements = []
    for data, got in zip(blobs, results, strict=True):
        ok, used, _ = _ours(data)
        if (ok, used) != (got["ok"], got.get("size", 0)):
            disagreements.append((data.hex(), (ok, used), (got["ok"], got.get("size"))))
    assert not disagreements, f"seed {SEED}: {disagreements[:5]}"
