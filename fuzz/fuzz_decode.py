"""Coverage-guided fuzzing of the decoder and the stream decoder (atheris). Run by hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python -m fuzz.fuzz_decode fuzz/corpus -atheris_runs=10000000   # or -max_total_time=

The first input byte picks the engine profile (every release, and double builds), the
second the target: ``decode`` or ``StreamDecoder`` fed in chunks whose sizes come from the
input. Any exception other than :class:`gdvariant.DecodeError` is a crash, and so is a
decoded value the encoder does not write back for the same release (or writes back as
something the engine's own write and read would not make of it: ``harness.written_back``).
A crash becomes a test in ``tests/binary/test_fuzz_regressions.py``. The seed corpus is written from
the engine-made golden vectors and ``tests/support/random_wire.py`` by ``python -m fuzz.fuzz_decode
--seed-corpus fuzz/corpus``. Line coverage of what a corpus reaches: ``coverage run
--source=gdvariant -m fuzz.fuzz_decode --replay fuzz/corpus`` then ``coverage report``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import atheris

from fuzz import harness
from tests.support.paths import VECTORS

with atheris.instrument_imports():
    import gdvariant as gd

RELEASES = sorted({p.name for p in gd.PROFILES.values()})  # aliases name one of these
PROFILES = [gd.get_profile(name) for name in RELEASES]
PROFILES += [gd.get_profile(name, double=True) for name in RELEASES if name.startswith("4.")]
FRAMINGS = [gd.Framing.STREAM_PEER, gd.Framing.PACKET_PEER_STREAM]
WIRE_SEEDS = 40  # per profile, from tests/support/random_wire.py


def check_decode(profile: gd.Profile, data: bytes) -> None:
    try:
        value, used = gd.decode(data, version=profile, allow_objects=True)
    except gd.DecodeError:
        return
    if not 0 < used <= len(data) + 4:  # gdvariant._binary.decoder.decode_value says why
        raise AssertionError(f"decode used {used} of {len(data)} bytes")
    harness.written_back(value, profile, True)


def check_stream(profile: gd.Profile, control: int, data: bytes) -> None:
    decoder = gd.StreamDecoder(version=profile, framing=FRAMINGS[control & 1])
    step = 1 + (control >> 1)
    try:
        for start in range(0, len(data), step):
            decoder.feed(data[start : start + step])
            while decoder.pending():
                decoder.next_value()
        decoder.feed_eof()
    except gd.DecodeError:
        return


def test_one_input(raw: bytes) -> None:
    if len(raw) < 2:
        return
    profile = PROFILES[raw[0] % len(PROFILES)]
    data = raw[2:]
    if raw[1] < 160:
        check_decode(profile, data)
    else:
        check_stream(profile, raw[1] - 160, data)


def seed_corpus(folder: Path) -> None:
    """One file per engine-made golden vector, as bytes for its profile and for a stream."""
    root = VECTORS
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for release in ("4.6", "3.6", "3.2"):
        index = next(i for i, p in enumerate(PROFILES) if p.name == release)
        lines = (root / f"godot{release}" / "golden.jsonl").read_text().splitlines()[1:]
        for line in lines:
            blob = bytes.fromhex(json.loads(line)["bytes"])
            (folder / f"{release}-{count}").write_bytes(bytes([index, 0]) + blob)
            framed = len(blob).to_bytes(4, "little") + blob
            (folder / f"{release}-{count}-stream").write_bytes(bytes([index, 161]) + framed)
            count += 1
    # Typed containers holding elements of other types (converted or dropped by the engine).
    index = next(i for i, p in enumerate(PROFILES) if p.name == "4.6")
    typed = json.loads((root / "godot4.6" / "typed_containers.json").read_text())["cases"]
    for case in typed[::7]:
        blob = bytes.fromhex(case["in"])
        (folder / f"typed-{count}").write_bytes(bytes([index, int(case["allow_objects"])]) + blob)
        count += 1
    # Bytes written field by field for every profile: flagged doubles for single builds,
    # surrogates, BOMs, typed containers of other types, Godot 2's legacy types...
    from tests.support.random_wire import random_wire

    rng = random.Random(0)
    for index, profile in enumerate(PROFILES):
        for _ in range(WIRE_SEEDS):
            (folder / f"wire-{count}").write_bytes(bytes([index, 0]) + random_wire(rng, profile))
            count += 1
    print(f"wrote seed inputs for {count} values to {folder}")


if __name__ == "__main__":
    harness.main(test_one_input, seed_corpus)
