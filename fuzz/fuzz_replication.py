"""Coverage-guided fuzzing of the replication packet decoder (atheris). Run by hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python fuzz/fuzz_replication.py fuzz/corpus-replication -max_total_time=600

Every input is a packet for the schema with every codec of tests/replication_world.py,
applied after a valid full update (so deltas from its tick have a base). Only
:class:`gdvariant.DecodeError` may escape, and a failed packet must leave the decoder's states
exactly as they were. ``--seed-corpus DIR`` writes valid packets to start from; ``--replay
DIR`` runs a corpus once without atheris.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import harness

import gdvariant as gd
from gdvariant.replication import Schema, SnapshotDecoder, SnapshotEncoder, World

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from replication_world import Crate, Mob, random_value, set_path

SCHEMA = Schema.build([Mob, Crate])


def packets(seed: int) -> tuple[bytes, list[bytes]]:
    """A full update and a few deltas from it, from a small random world."""
    rng = random.Random(seed)
    world = World(SCHEMA)
    encoder = SnapshotEncoder(world)
    encoder.add_client(0)
    ents = [world.spawn(rng.choice([Mob, Crate]), net_owner=rng.choice([0, 1])) for _ in range(4)]
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


if __name__ == "__main__":
    harness.main(test_one_input, seed_corpus)
