"""Live tests against the real Godot 4.6 engine, with fresh random values each run.

- The engine decodes bytes we wrote and describes what it got: it must be what we meant, and
  the engine's own re-encoding must equal our bytes.
- The engine writes fresh random values: we decode them to what it describes and re-encode
  them to its exact bytes.
- The engine and we give the same verdict (accept with the same size, or reject) on bad input.
- Doubles read by this single-precision build: we hold the float32s it holds and write them
  back as it does.

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
from tests.support.godot_describe import canon, check_engine_record, expected
from tests.support.paths import VECTORS
from tests.support.random_values import mutated_encodings, nested_arrays, random_value

pytestmark = [pytest.mark.engine, pytest.mark.slow, pytest.mark.usefixtures("impl")]  # every core
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
    spec = json.loads((VECTORS / "spec/godot4-derived-vectors.json").read_text())
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


_FLAG_64 = 1 << 16
T = gd.VariantType
_REAL_MATH = {T.VECTOR2: 2, T.RECT2: 4, T.VECTOR3: 3, T.TRANSFORM2D: 6, T.VECTOR4: 4}
_REAL_MATH |= {T.PLANE: 4, T.QUATERNION: 4, T.AABB: 6, T.BASIS: 9, T.TRANSFORM3D: 12}
_REAL_MATH |= {T.PROJECTION: 16}
_PACKED_REALS = {T.PACKED_VECTOR2_ARRAY: 2, T.PACKED_VECTOR3_ARRAY: 3, T.PACKED_VECTOR4_ARRAY: 4}


def _reals_read_by_a_single_build() -> list[bytes]:
    """Doubles a single-precision build must round as it reads them (``_engines.reals``): every real
    math type and packed vector flagged, with values past float32's range, between its floats,
    at its edges and below its subnormals; in containers and as Dictionary keys too."""
    doubles = [1e300, -1e300, 0.1, 3.4028235677973366e38, 3.4028235e38, 1e-50, -1e-50, 2.5]
    nan = struct.pack("<Q", 0x7FF8000000000123)
    blobs = []
    for vtype, n in _REAL_MATH.items():
        values = [doubles[(i + vtype) % len(doubles)] for i in range(n)]
        blobs.append(struct.pack(f"<I{n}d", vtype | _FLAG_64, *values))
        blobs.append(
            struct.pack("<I", vtype | _FLAG_64) + nan + struct.pack(f"<{n - 1}d", *values[1:])
        )
    for vtype, width in _PACKED_REALS.items():
        values = [doubles[i % len(doubles)] for i in range(2 * width)]
        blobs.append(struct.pack(f"<II{2 * width}d", vtype | _FLAG_64, 2, *values))
    vector3 = struct.pack("<I3d", T.VECTOR3 | _FLAG_64, 1e300, 0.1, -1e-50)
    blobs.append(struct.pack("<III", T.ARRAY | 1 << 16, T.VECTOR3, 1) + vector3)  # Array[Vector3]
    blobs.append(struct.pack("<III", T.ARRAY | 1 << 16, T.VECTOR3I, 1) + vector3)  # converted
    keys = [struct.pack("<I2d", T.VECTOR2 | _FLAG_64, 0.1, x) for x in (1e300, 2.0)]
    blobs.append(struct.pack("<II", T.DICTIONARY, 2) + b"".join(k + vector3 for k in keys))
    return blobs


def test_we_hold_the_reals_the_engine_holds_and_write_them_back_as_it_does(
    godot4: Engine,
) -> None:
    # The standard (single-precision) build rounds a flagged double to its float32 real_t as
    # it reads it (1e300 is inf) and writes it back as 32 bits: so do we.
    blobs = _reals_read_by_a_single_build()
    for data, got in zip(blobs, _engine_decode(godot4, blobs, allow=False), strict=True):
        assert got["ok"], data.hex()
        value = gd.loads(data)
        assert canon(value) == canon(expected(got["value"], objects=False)), data.hex()
        assert gd.dumps(value).hex() == got["bytes"], data.hex()
