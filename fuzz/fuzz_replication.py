"""Coverage-guided fuzzing of the replication packet decoder (atheris). Run by hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python -m fuzz.fuzz_replication fuzz/corpus-replication -max_total_time=600

Every input is a packet for the schema with every codec of tests/support/replication_worlds.py,
applied after a valid full update (so deltas from its tick have a base). Only
:class:`gdvariant.DecodeError` may escape, and a failed packet must leave the decoder's states
exactly as they were. ``--seed-corpus DIR`` writes valid packets to start from; ``--replay
DIR`` runs a corpus once without atheris.

``--assemblers RUNS [SEED]`` (no atheris) runs the compiled packet assembler
(``gdvariant.replication._cassemble``) against the pure one instead: RUNS random worlds of
tests/support/replication_driver.py, 40 ticks each, both value modes, every packet compared byte for
byte. Built with sanitizers (``tools/build-asan.sh``), that is its sanitizer run.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import gdvariant as gd
from fuzz import harness
from gdvariant.replication import Schema, SnapshotDecoder, SnapshotEncoder, World
from tests.support.replication_worlds import EVERY_CODEC, random_value, set_path

SCHEMA = Schema.build(EVERY_CODEC)


def packets(seed: int) -> tuple[bytes, list[bytes]]:
    """A full update and a few deltas from it, from a small random world."""
    rng = random.Random(seed)
    world = World(SCHEMA)
    encoder = SnapshotEncoder(world)
    encoder.add_client(0)
    ents = [world.spawn(rng.choice(EVERY_CODEC), net_owner=rng.choice([0, 1])) for _ in range(4)]
    for ent in ents:
        for prop in SCHEMA.flat(type(ent)):
            set_path(ent, prop.path, random_value(prop.codec, rng))
    encoder.snapshot()
    full = encoder.packet_for(0)
    encoder.ack(0, 1)
    deltas = []
    for _ in range(3):
        ent = rng.choice(ents)
        for prop in rng.sample(SCHEMA.flat(type(ent)), 2):
            set_path(ent, prop.path, random_value(prop.codec, rng))
        encoder.snapshot()
        deltas.append(encoder.packet_for(0))
    return full, deltas


FULL, _ = packets(0)


def test_one_input(data: bytes) -> None:
    decoder = SnapshotDecoder(SCHEMA)
    decoder.apply(FULL)
    before = ({t: dict(s) for t, s in decoder.states.items()}, decoder.tick)
    try:
        decoder.apply(data)
    except gd.DecodeError:
        after: Any = ({t: dict(s) for t, s in decoder.states.items()}, decoder.tick)
        if after != before:
            raise AssertionError("a failed packet changed the decoder's states") from None


def seed_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    count = 0
    for seed in range(4):
        full, deltas = packets(seed)
        for packet in [full, *deltas]:
            (folder / f"packet-{count}").write_bytes(packet)
            count += 1
    print(f"wrote {count} seed packets to {folder}")


def assembler_runs(runs: int, seed: int) -> None:
    """The ``--assemblers`` mode: compiled against pure packets over ``runs`` random worlds."""
    from gdvariant.replication import _assembler
    from tests.support.replication_driver import Driver

    if _assembler.COMPILED not in _assembler.implementations():
        sys.exit(f"no compiled assembler: {_assembler.compiled_error()}")
    for run in range(runs):
        world_seed = seed * 1_000_003 + run
        deltas = run % 2 == 0
        history = (4, 8, 32)[run % 3]
        pure, fast = Driver(world_seed, deltas, history), Driver(world_seed, deltas, history)
        for tick in range(40):
            pure.step()
            fast.step()
            if pure.packets(_assembler.PYTHON) != fast.packets(_assembler.COMPILED):
                raise AssertionError(f"world seed {world_seed}, tick {tick}: packets differ")
    print(f"done: {runs:,} random worlds, compiled and pure packets equal", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--assemblers"]:
        assembler_runs(int(sys.argv[2]), int(sys.argv[3]) if sys.argv[3:] else 0)
    else:
        harness.main(test_one_input, seed_corpus)
