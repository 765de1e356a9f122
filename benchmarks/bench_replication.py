"""Replication benchmark (issue 13 item 7, Python side).

A world of 1,000 entities of 30 flat properties; each tick 5% of all properties (1,500,
uniformly at random) get new values; 64 clients whose acks lag 0-8 ticks (random per client
and tick). Reported per tick:

* server time: the 1,500 property writes (each encodes its value once), then ``snapshot()`` and
  all 64 ``packet_for()`` calls; the goal is <= 10 ms for the packets;
* bytes per client: our packet against the same changes sent the way Godot's
  MultiplayerSynchronizer sends a delta (spec replication.md §4): per entity a u32 net id, a
  u64 changed-mask and a u32 size, then each changed value in Godot's compressed Variant form
  (bool 1 byte, int 2/3/5/9 bytes by magnitude, anything else ``var_to_bytes``), plus the
  command byte; goal <= 1/4. "Same changes" means the properties changed since the client's
  ack, the content our packet carries; a write of the value a property already had (half the
  bool writes) is no change, for Godot's change detection as for ours. Godot's own model
  sends only the last tick's changes over a reliable channel; that figure is printed too,
  for reference.

Two models of how a property changes, both with the same 5% of properties changing per tick:

* ``noise``: a new value drawn uniformly from the property's whole range, independent of
  the old one (the worst case for value deltas, which then only cost their 2-bit escape);
* ``motion``: a step from where the value is, as in a game: positions move a few units,
  velocities and angles turn a little, health, ammo, kills, ping and speed go up or down by a
  little, booleans flip; categorical values (team, weapon, stance, target, name) are drawn
  anew as in ``noise``. This is the case value deltas (wire doc §5.1) exist for.

Each runs with value deltas off and on (``SnapshotEncoder(value_deltas=...)``). Run:
``python -m benchmarks.bench_replication [--ticks N] [--values noise|motion|both]
[--value-deltas on|off|both]``.
"""

from __future__ import annotations

import argparse
import enum
import random
import statistics
import time
from typing import Any

import gdvariant
from gdvariant.replication import (
    Angle,
    Array,
    Bool,
    Coord,
    EntityRef,
    Enum,
    Half,
    NetClass,
    Normal,
    Prop,
    Quant,
    Schema,
    SnapshotEncoder,
    Str,
    UInt,
    VarInt,
    Vec3,
    World,
    assembler,
)

ENTITIES = 1000
CLIENTS = 64
CHANGE_FRACTION = 0.05
MAX_LAG = 8


class Weapon(enum.IntEnum):
    FISTS = 0
    PISTOL = 1
    RIFLE = 2
    ROCKET = 3
    GRENADE = 4


class Stance(enum.IntEnum):
    IDLE = 0
    RUN = 1
    JUMP = 2
    DEAD = 3


class Soldier(NetClass):
    """30 flat properties, a typical shooter player/NPC mix."""

    origin = Prop(Vec3(Coord(14, 5)), hot=True)
    velocity = Prop(Vec3(Quant(-2048.0, 2048.0, 16)), hot=True)
    angles = Vec3(Angle(13))
    aim = Normal(11)
    health = Prop(UInt(8), hot=True)
    armor = UInt(8)
    stamina = Quant(0.0, 1.0, 8)
    team = UInt(3)
    score = VarInt()
    weapon = Enum(Weapon)
    stance = Enum(Stance)
    target = EntityRef(12)
    name = Str(32)
    on_ground = Bool()
    crouched = Bool()
    sprinting = Bool()
    reloading = Bool()
    visible = Bool()
    ammo = Array(UInt(9), size=8, per_element=True)
    kills = UInt(10)
    deaths = UInt(10)
    ping = UInt(10)
    speed = Half()


def random_value(path: str, rng: random.Random) -> Any:
    """A new value for one flat property."""
    name = path.split("[")[0]
    r = rng.random
    table: dict[str, Any] = {
        "origin": lambda: (r() * 8000 - 4000, r() * 8000 - 4000, r() * 500),
        "velocity": lambda: (r() * 600 - 300, r() * 600 - 300, r() * 100 - 50),
        "angles": lambda: (r() * 6.2 - 3.1, r() * 6.2 - 3.1, 0.0),
        "aim": lambda: (r() - 0.5, r() - 0.5, r() - 0.5 + 1e-3),
        "health": lambda: rng.randrange(256),
        "armor": lambda: rng.randrange(256),
        "stamina": r,
        "team": lambda: rng.randrange(8),
        "score": lambda: rng.randrange(-100, 5000),
        "weapon": lambda: rng.choice(list(Weapon)),
        "stance": lambda: rng.choice(list(Stance)),
        "target": lambda: rng.randrange(ENTITIES),
        "name": lambda: "".join(rng.choice("abcdefghij") for _ in range(rng.randrange(4, 12))),
        "ammo": lambda: rng.randrange(512),
        "kills": lambda: rng.randrange(1024),
        "deaths": lambda: rng.randrange(1024),
        "ping": lambda: rng.randrange(1024),
        "speed": lambda: r() * 400,
    }
    if name in table:
        return table[name]()
    return rng.random() < 0.5


def _clamp(x: float, low: float, high: float) -> float:
    return min(max(x, low), high)


def moved_value(path: str, current: Any, rng: random.Random) -> Any:
    """A new value for one flat property, a step from ``current`` (the ``motion`` model)."""
    name = path.split("[")[0]
    u = rng.uniform
    if name == "origin":
        x, y, z = current
        return (
            _clamp(x + u(-8, 8), -4000, 4000),
            _clamp(y + u(-8, 8), -4000, 4000),
            _clamp(z + u(-4, 4), 0, 500),
        )
    if name == "velocity":
        return tuple(_clamp(c + u(-30, 30), -300, 300) for c in current)
    if name == "angles":
        return (current[0] + u(-0.2, 0.2), current[1] + u(-0.2, 0.2), 0.0)
    if name == "aim":
        return tuple(c + u(-0.1, 0.1) for c in current)
    if name in ("health", "armor"):
        return int(_clamp(current + rng.randrange(-20, 21), 0, 255))
    if name == "stamina":
        return _clamp(current + u(-0.05, 0.05), 0.0, 1.0)
    if name == "score":
        return current + rng.randrange(0, 50)
    if name == "ammo":
        return current - 1 if current else 511
    if name in ("kills", "deaths"):
        return (current + 1) % 1024
    if name == "ping":
        return int(_clamp(current + rng.randrange(-10, 11), 0, 1023))
    if name == "speed":
        return _clamp(current + u(-20, 20), 0.0, 400.0)
    if isinstance(current, bool):
        return not current
    return random_value(path, rng)


def set_path(ent: Any, path: str, value: Any) -> None:
    """Write one flat property by path (``ammo[3]`` or ``health``)."""
    if "[" in path:
        name, rest = path.split("[")
        getattr(ent, name)[int(rest[:-1])] = value
    else:
        setattr(ent, path, value)


def godot_value(value: Any) -> Any:
    """The value as a Godot property would hold it."""
    if isinstance(value, enum.Enum):
        return int(value.value)
    if isinstance(value, tuple) and len(value) == 3:
        return gdvariant.Vector3(*value)
    return value


def godot_size(value: Any) -> int:
    """Bytes of ``encode_and_compress_variant`` for one value (spec §4)."""
    v = godot_value(value)
    if isinstance(v, bool):
        return 1
    if isinstance(v, int):
        for width in (1, 2, 4):
            if -(1 << (8 * width - 1)) <= v < 1 << (8 * width - 1):
                return 1 + width
        return 9
    return len(gdvariant.dumps(v))


def godot_delta(ents: list[Any], changes: dict[int, list[int]]) -> int:
    """Bytes of Godot's delta packet carrying ``changes`` (entity -> flat indices): the
    command byte, then per entity a u32 net id, a u64 mask, a u32 size and the values."""
    return 1 + sum(
        16 + sum(godot_size(ents[e]._net_vals[i]) for i in idx) for e, idx in changes.items()
    )


def changed_since(last_change: dict[tuple[int, int], int], base: int) -> dict[int, list[int]]:
    """Entity -> the flat indices changed after tick ``base``."""
    since: dict[int, list[int]] = {}
    for (e, i), t in last_change.items():
        if t > base:
            since.setdefault(e, []).append(i)
    return since


def run(
    ticks: int,
    warmup: int,
    seed: int,
    values: str = "noise",
    deltas: bool = True,
    rewind: int = 0,
) -> None:
    rng = random.Random(seed)
    schema = Schema.build([Soldier])
    lay = schema.layout(Soldier)
    paths = [p.path for p in lay.props]
    assert len(paths) == 30, len(paths)
    world = World(schema, rewind=rewind)
    encoder = SnapshotEncoder(world, history=32, value_deltas=deltas)
    ents = []
    for _ in range(ENTITIES):
        ent = world.spawn(Soldier)
        for path in paths:
            set_path(ent, path, random_value(path, rng))
        ents.append(ent)
    for cid in range(CLIENTS):
        encoder.add_client(cid)
    per_tick_changes = int(ENTITIES * len(paths) * CHANGE_FRACTION)
    # (tick, entity id, flat index) -> value, for Godot's sizes of the same changes
    last_change: dict[tuple[int, int], int] = {}
    write_ms: list[float] = []
    packet_ms: list[float] = []
    packet_cpu_ms: list[float] = []
    ours: list[int] = []
    godot_same: list[int] = []
    godot_tick: list[int] = []
    by_lag: dict[int, list[int]] = {}
    godot_by_lag: dict[int, list[int]] = {}
    warmup = max(warmup, MAX_LAG + 2)  # every client then has a delta base, none a full update
    for step in range(warmup + ticks):
        picks = [
            (rng.randrange(ENTITIES), rng.randrange(len(paths))) for _ in range(per_tick_changes)
        ]
        if values == "motion":
            new = [moved_value(paths[i], ents[e]._net_vals[i], rng) for e, i in picks]
        else:
            new = [random_value(paths[i], rng) for _, i in picks]
        before = {(e, i): ents[e]._net_vals[i] for e, i in picks}
        start = time.perf_counter()
        for (e, i), value in zip(picks, new, strict=True):
            set_path(ents[e], paths[i], value)
        mid = time.perf_counter()
        cpu = time.process_time()
        tick = encoder.snapshot()
        for cid in range(CLIENTS):
            encoder.ack(cid, max(tick - 1 - cid % (MAX_LAG + 1), 0))
        mid2 = time.perf_counter()
        packets = encoder.packets()
        end = time.perf_counter()
        cpu = time.process_time() - cpu
        # Godot's synchronizer compares each watched value with its last copy: a write of
        # the value already there (a bool set to what it was) is no change for it either.
        changed = [key for key, old in before.items() if ents[key[0]]._net_vals[key[1]] != old]
        for key in changed:
            last_change[key] = tick
        if step < warmup:
            continue
        write_ms.append((mid - start) * 1e3)
        packet_ms.append((mid2 - mid + end - mid2) * 1e3)
        packet_cpu_ms.append(cpu * 1e3)
        this_tick: dict[int, list[int]] = {}
        for e, i in changed:
            this_tick.setdefault(e, []).append(i)
        godot_tick.append(godot_delta(ents, this_tick))
        for cid in range(MAX_LAG + 1):  # client i lags i ticks: one of each
            base = encoder.base_for(encoder.clients[cid])
            ours.append(len(packets[cid]))
            by_lag.setdefault(cid, []).append(len(packets[cid]))
            godot_same.append(godot_delta(ents, changed_since(last_change, base)))
            godot_by_lag.setdefault(cid, []).append(godot_same[-1])
    print(
        f"world: {ENTITIES} entities x {len(paths)} props, {per_tick_changes} changes/tick "
        f"({values} values), {CLIENTS} clients, ack lag 0-{MAX_LAG}, {ticks} ticks measured, "
        f"value deltas {'on' if deltas else 'off'}, {assembler()} assembler, rewind {rewind}"
    )
    print(
        f"server, property writes (encode once): median {statistics.median(write_ms):.2f} ms/tick"
    )
    print(
        f"server, snapshot + {CLIENTS} packets: median {statistics.median(packet_ms):.2f} ms/tick "
        f"wall, {statistics.median(packet_cpu_ms):.2f} ms CPU (best {min(packet_cpu_ms):.2f}); "
        "goal <= 10 ms"
    )
    o, g, gt = statistics.mean(ours), statistics.mean(godot_same), statistics.mean(godot_tick)
    print(
        f"bytes per client per tick: ours {o:.0f}, Godot delta of the same changes {g:.0f} "
        f"(ratio {o / g:.3f}, goal <= 0.25)"
    )
    print(f"  for reference, Godot's reliable delta of this tick's changes only: {gt:.0f} bytes")
    per_lag = ", ".join(
        f"{lag}: {statistics.mean(by_lag[lag]) / statistics.mean(godot_by_lag[lag]):.2f}"
        for lag in sorted(by_lag)
    )
    print(f"  ratio by ack lag: {per_lag}")
    if rewind:
        rewind_reads(world, min(rewind, 8))


def rewind_reads(world: World, back: int) -> None:
    """The cost of ``world.at``, ``back`` ticks ago and half a tick later (interpolated): one
    whole entity, every entity, and one property (``value``) of every entity."""
    ids = list(world.entities)
    for tick in (world.tick - back, world.tick - back + 0.5):
        start = time.perf_counter()
        for net_id in ids[:100]:
            world.at(tick)[net_id]
        one = (time.perf_counter() - start) / 100 * 1e6
        start = time.perf_counter()
        whole = dict(world.at(tick))
        every = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        view = world.at(tick)
        for net_id in ids:
            view.value(net_id, "origin")
        values = (time.perf_counter() - start) * 1e3
        print(
            f"world.at({tick}): one entity {one:.0f} us; all {len(whole)} entities "
            f"{every:.1f} ms; the origin of all {values:.1f} ms"
        )


def command_line(doc: str | None, ticks: int) -> argparse.Namespace:
    """``--ticks``, ``--warmup``, ``--seed`` and ``--values`` of the replication benchmarks."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--ticks", type=int, default=ticks)
    parser.add_argument("--warmup", type=int, default=12)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--values", choices=("noise", "motion", "both"), default="both")
    parser.add_argument("--value-deltas", choices=("on", "off", "both"), default="both")
    parser.add_argument("--rewind", type=int, default=0, help="World(rewind=N): ticks kept")
    return parser.parse_args()


def main() -> None:
    args = command_line(__doc__, 60)
    for values in ("noise", "motion") if args.values == "both" else (args.values,):
        for deltas in ("off", "on") if args.value_deltas == "both" else (args.value_deltas,):
            run(args.ticks, args.warmup, args.seed, values, deltas == "on", args.rewind)


if __name__ == "__main__":
    main()
