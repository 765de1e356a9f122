"""Coverage-guided fuzzing of the replication packet decoder (atheris). Run by hand.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python fuzz/fuzz_replication.py fuzz/corpus-replication -max_total_time=600

Every input is a packet for a schema with every codec, applied after a valid full update
(so deltas from its tick have a base). Only :class:`gdvariant.DecodeError` may escape, and a
failed packet must leave the decoder's states exactly as they were. ``--seed-corpus DIR``
writes valid packets to start from; ``--replay DIR`` runs a corpus once without atheris.
"""

from __future__ import annotations

import enum
import random
import sys
from pathlib import Path
from typing import Any

try:
    import atheris
except ImportError:  # --seed-corpus and --replay work without it
    atheris = None

import gdvariant as gd
from gdvariant.replication import (
    Angle,
    Array,
    Bool,
    Bytes,
    Coord,
    Embed,
    EntityRef,
    Enum,
    Float64,
    Half,
    Int,
    NetClass,
    Normal,
    Quant,
    Quat,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    Str,
    UInt,
    Variant,
    VarInt,
    Vec3,
    World,
)


class Mood(enum.Enum):
    CALM = 0
    ANGRY = 1
    SAD = 2


class Secret(NetClass, abstract=True):
    gold = UInt(10)
    note = Str(5)


class Thing(NetClass):
    flag = Bool()
    small = Int(6, zigzag=True)
    big = VarInt()
    ratio = Quant(-1.0, 1.0, 10)
    pos = Vec3(Coord(10, 3))
    turn = Angle(9)
    facing = Normal(7)
    spin = Quat(7)
    speed = Half()
    exact = Float64()
    label = Str(9)
    blob = Bytes(4)
    mood = Enum(Mood)
    target = EntityRef(8)
    extra = Variant(64)
    path = Array(UInt(3), max_len=5)
    slots = Array(UInt(4), size=3, per_element=True)
    mine = Embed(Secret, audience="owner")


class Other(NetClass):
    x = UInt(3)


SCHEMA = Schema.build([Thing, Other])


def packets(seed: int) -> tuple[bytes, list[bytes]]:
    """A full update and a few deltas from it, from a small random world."""
    rng = random.Random(seed)
    world = World(SCHEMA)
    encoder = SnapshotEncoder(world)
    encoder.add_client(0)
    things = [world.spawn(Thing, net_owner=rng.choice([0, 1])) for _ in range(3)]
    world.spawn(Other, x=5)
    for t in things:
        t.label = "hé"
        t.extra = {"a": [1, 2.5]}
        t.mine.gold = rng.randrange(1024)
    encoder.snapshot()
    full = encoder.packet_for(0)
    encoder.ack(0, 1)
    deltas = []
    for _ in range(3):
        t = rng.choice(things)
        t.pos = (rng.uniform(-500, 500), 0.0, 1.0)
        t.mood = rng.choice(list(Mood))
        t.slots[rng.randrange(3)] = rng.randrange(16)
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


def replay(folder: Path) -> None:
    files = sorted(folder.iterdir())
    for path in files:
        test_one_input(path.read_bytes())
    print(f"replayed {len(files)} inputs from {folder}: no crash")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--seed-corpus"]:
        seed_corpus(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["--replay"]:
        replay(Path(sys.argv[2]))
    elif atheris is None:
        sys.exit("atheris is not installed: pip install -e '.[fuzz]'")
    else:
        atheris.Setup(sys.argv, test_one_input)
        atheris.Fuzz()
