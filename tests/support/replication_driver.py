"""What drives the shared worlds (``tests.support.replication_worlds``) tick by tick.

:class:`Driver` is one copy of a random world of :data:`ASSEMBLER_CLASSES` (tests and
fuzzing): the same seed gives the same spawns, despawns, id jumps, audience moves, writes and
acks, so two copies can be run on different assemblers and their packets compared byte for
byte. :class:`Script` drives a world of :data:`GDSCRIPT_CLASSES` for the generated GDScript
decoder: entities that enter, change (often by small steps, for the value deltas) and leave,
ids reused.
"""

from __future__ import annotations

import random
from typing import Any

from gdvariant.replication import (
    Int,
    SnapshotDecoder,
    SnapshotEncoder,
    UInt,
    VarInt,
    World,
    _assembler,
)
from tests.support.replication_worlds import (
    ASSEMBLER_CLASSES,
    ASSEMBLER_SCHEMA,
    GDSCRIPT_CLASSES,
    edge_value,
    nudge,
    random_value,
    set_path,
    within,
)


def spies(entity: Any, client: Any) -> bool:
    """The custom audience: some clients see the even entities' ``spy`` table."""
    return bool(client.client_id % 3 == 0 and entity.net_id % 2 == 0)


def new_value(prop: Any, current: Any, rng: random.Random) -> Any:
    """Half the time a step from the current value (small deltas), else anything."""
    codec = prop.codec
    if rng.random() < 0.5:
        if isinstance(current, bool) or current is None:
            pass
        elif isinstance(codec, UInt) and isinstance(current, int):
            return min(max(current + rng.randrange(-3, 4), 0), (1 << codec.bits) - 1)
        elif isinstance(codec, Int) and isinstance(current, int):
            low = -(1 << (codec.bits - 1))
            return min(max(current + rng.randrange(-3, 4), low), -low - 1)
        elif isinstance(codec, VarInt) and isinstance(current, int):
            return current + rng.randrange(-500, 500)
        elif isinstance(current, float):
            return within(codec, current + rng.uniform(-0.3, 0.3))
        elif isinstance(current, tuple) and current and isinstance(current[0], float):
            part = getattr(codec, "component", codec)
            return tuple(within(part, c + rng.uniform(-0.3, 0.3)) for c in current)
    return random_value(codec, rng)


class Driver:
    """One copy of a random world, its encoder and its clients' decoders."""

    def __init__(self, seed: int, deltas: bool, history: int) -> None:
        self.rng = random.Random(seed)
        self.world = World(ASSEMBLER_SCHEMA)
        self.encoder = SnapshotEncoder(
            self.world, history=history, audiences={"spies": spies}, value_deltas=deltas
        )
        self.decoders: dict[int, SnapshotDecoder] = {}
        for cid in range(7):
            self.encoder.add_client(cid, team=cid % 2)
            self.decoders[cid] = SnapshotDecoder(ASSEMBLER_SCHEMA, history=history)

    def spawn(self) -> None:
        """A random entity of a random class, some properties set."""
        rng = self.rng
        cls = rng.choice(ASSEMBLER_CLASSES)
        ent = self.world.spawn(cls, net_owner=rng.randrange(8), net_team=rng.randrange(3))
        for prop in ASSEMBLER_SCHEMA.flat(cls):
            if rng.random() < 0.6:
                set_path(ent, prop.path, random_value(prop.codec, rng))

    def step(self) -> None:
        """Spawns, despawns, id jumps, audience moves and property writes for one tick."""
        rng, world = self.rng, self.world
        for _ in range(rng.choice([0, 0, 1, 3])):
            self.spawn()
        if rng.random() < 0.05:
            self.encoder.clients[rng.randrange(7)].team = rng.randrange(3)
        live = sorted(world.entities)
        for net_id in rng.sample(live, min(len(live), rng.choice([0, 0, 1, 2]))):
            world.despawn(world.entities[net_id])
        if rng.random() < 0.08:
            # the next new id jumps: gaps that need 8, 16 or 32 bits
            world._next += rng.choice([20, 300, 70_000, 5_000_000])
        for ent in list(world.entities.values()):
            if rng.random() < 0.03:  # moves between audiences: resets for who left them
                ent.net_owner = rng.randrange(8)
            if rng.random() < 0.02:
                ent.net_team = rng.randrange(3)
            if rng.random() < 0.6:
                props = ASSEMBLER_SCHEMA.flat(type(ent))
                for prop in rng.sample(props, min(len(props), rng.choice([1, 2, 5, 12]))):
                    current = ent._net_vals[prop.index]
                    set_path(ent, prop.path, new_value(prop, current, rng))

    def packets(self, name: str) -> dict[int, bytes]:
        """Close the tick, ack at random (lagging), and every client's packet, made by the
        assembler ``name`` (which also commits the tick)."""
        with _assembler.use(name):
            tick = self.encoder.snapshot()
            for cid in self.encoder.clients:
                if self.rng.random() < 0.8:
                    # acks lag 0-9 ticks: with a short history some fall out of the ring
                    self.encoder.ack(cid, max(tick - 1 - self.rng.randrange(10), 0))
            return self.encoder.packets()

    def check_decoded(self, packets: dict[int, bytes]) -> None:
        """Each client's decoder applies its packet and holds what the server expects."""
        for cid, packet in packets.items():
            decoder = self.decoders[cid]
            base = int.from_bytes(packet[6:10], "little")
            if base and base not in decoder.states:
                continue  # this client's decoder missed the base (it only saw some ticks)
            decoder.apply(packet)
            assert decoder.state == self.encoder.expected_state(cid)


class Script:
    """Drives a World: each tick some entities enter (of a random class, owned by client 0
    or 1), some leave, and some properties of the others change."""

    def __init__(self, world: World, rng: random.Random, size: int = 24) -> None:
        self.world, self.rng, self.size = world, rng, size
        self.live: list[Any] = []

    def step(self) -> None:
        rng, world = self.rng, self.world
        for _ in range(rng.randrange(4)):
            if self.live and (len(self.live) >= self.size or rng.random() < 0.45):
                world.despawn(self.live.pop(rng.randrange(len(self.live))))
            else:
                cls = rng.choice(GDSCRIPT_CLASSES)
                self.live.append(world.spawn(cls, net_owner=rng.randrange(2)))
        for ent in self.live:
            for prop in world.schema.flat(type(ent)):
                if rng.random() < 0.08:
                    value = edge_value(prop.codec, rng)
                    if rng.random() < 0.5:  # a step from where it is: the value deltas
                        value = nudge(prop.codec, ent._net_vals[prop.index], rng)
                    set_path(ent, prop.path, value)
