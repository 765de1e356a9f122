"""Interest management benchmark (issue 25 items 1 and 7).

A world of 10,000 entities (position ``Vec2(Coord(10, 4))``, velocity, health, heading)
moving in 2D over a square of 640 units a side; 256 clients, each following one entity with
a radius of 50 units, so that each sees about 180 entities (``--area cells`` uses a block of
3 x 3 cells of 30 units instead, about 200; ``--area none`` sends every entity to every client,
as without an interest, for comparison). Every tick every entity takes a step (its position
and heading change, its health now and then), or a random ``--moving`` fraction of them; acks
lag 0-8 ticks per client. Reported:

* server time per tick: the property writes, then ``snapshot()`` (which updates the
  interest: grid, views) and all 256 ``packet_for()`` calls, split into the two;
* bytes per client per tick and per second at ``--rate`` ticks a second;
* the interest's work per tick (relevance tests and cell operations) and the entities each
  client sees;
* the longest tick (writes, snapshot and packets, wall) and the cyclic collector's full
  collections (generation 2) during the measured ticks, with the longest: the medians
  leave them out, while a game server's tick must meet its deadline every time;
* with ``--mtu`` and/or ``--budget`` (bytes a second per client, at ``--rate``): the largest
  packet, and the longest a changed, relevant entity waited (ticks), over the whole run,
  warm-up included (docs/replication-budget.md).

The ticks measured come after ``--warmup`` ticks, by default the encoder's history (32 ticks)
and two more: every entity's history is then full, as on a server that has run a while, and
the world's commit reuses the entries it drops. The first 32 ticks cost more (no entry is
dropped, every commit makes new ones) and are not what a server spends its life in.

``--fishnet`` runs FishNet's published setup instead: 100 clients, each moving one object
continuously, 10 ticks a second, every client seeing every object; FishNet reports about
5.5 KB/s per client.

``--digest`` prints a digest of every packet of the run (warm-up included, by tick and client), to
check that a change to the encoder leaves the bytes as they were: the same arguments give the
same digest on every tree that encodes alike.

``--against BUILD`` measures this tree's compiled assembler against another build of it (a
checkout of another commit, built): a world each, of one seed, served in turn every tick in
one process, with the order swapped each tick. It prints each part's medians and the median
of the ticks' differences, and checks that both made the same packets. On a shared machine
whose speed drifts by more than a change's gain within minutes, whole runs one after the
other cannot resolve a few percent; neighbouring ticks can.

Run: ``python -m benchmarks.bench_replication_interest [--ticks N] [--area radius|cells]
[--mtu BYTES] [--budget BYTES_PER_S] [--fishnet] [--digest] [--against BUILD]``.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib.machinery
import math
import os
import random
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gdvariant._compiled import load_build
from gdvariant.replication import (
    Angle,
    Coord,
    Interest,
    NetClass,
    Prop,
    Quant,
    Schema,
    SnapshotEncoder,
    UInt,
    Vec2,
    Vec3,
    World,
    _assembler,
    assembler,
)

ENTITIES = 10_000
CLIENTS = 256
SIDE = 640.0
RADIUS = 50.0
CELL = 50.0  # for a radius; a block of 3 x 3 cells of BLOCK_CELL has the circle's area
BLOCK_CELL = 30.0
MAX_LAG = 8
#: the encoder's history (ticks of entries kept); the default warm-up fills it
HISTORY = 32


class Unit(NetClass):
    pos = Prop(Vec2(Coord(10, 4, clamp=True)), hot=True)
    vel = Vec2(Quant(-8.0, 8.0, 8, clamp=True))
    heading = Angle(8)
    hp = UInt(7)


@dataclass(frozen=True)
class Setup:
    """What a run of the interest benchmark measures (the command line's arguments)."""

    ticks: int
    warmup: int
    seed: int
    area: str
    rate: int
    cell: float | None
    moving: float
    limits: dict[str, float]

    @property
    def grid(self) -> float:
        """The grid's cell size: the one given, else the area's default."""
        if self.cell is not None:
            return self.cell
        return CELL if self.area == "radius" else BLOCK_CELL

    @property
    def skip(self) -> int:
        """The ticks before measuring: the warm-up, and at least the acks' lag and two."""
        return max(self.warmup, MAX_LAG + 2)


@dataclass
class Scene:
    """A world of moving units, its interest and its encoder with every client added."""

    rng: random.Random
    world: World
    interest: Interest | None
    encoder: SnapshotEncoder
    units: list[Unit]
    moving: float


def scene(setup: Setup) -> Scene:
    """The benchmark's world, seeded: two scenes of one setup make the same packets."""
    rng = random.Random(setup.seed)
    area = setup.area
    world = World(Schema.build([Unit]))
    interest = None if area == "none" else Interest(world, cell=setup.grid, positions={Unit: "pos"})
    limits = limited(setup.limits, setup.rate)
    encoder = SnapshotEncoder(world, history=HISTORY, interest=interest, **limits)
    units = []
    for _ in range(ENTITIES):
        angle = rng.uniform(-math.pi, math.pi)
        units.append(
            world.spawn(
                Unit,
                pos=(rng.uniform(0, SIDE), rng.uniform(0, SIDE)),
                vel=(2 * math.cos(angle), 2 * math.sin(angle)),
                heading=angle,
                hp=100,
            )
        )
    for cid in range(CLIENTS):
        encoder.add_client(cid)
        if interest is None:
            continue
        if area == "radius":
            interest.set_area(cid, radius=RADIUS)
        else:
            interest.set_area(cid, cells=1)
        interest.follow(cid, units[cid * (ENTITIES // CLIENTS)])
        interest.add_always(units[cid * (ENTITIES // CLIENTS)], cid)
    return Scene(rng, world, interest, encoder, units, setup.moving)


def move(scene: Scene) -> None:
    """The game's tick: every unit (or a ``moving`` fraction) takes a step."""
    rng = scene.rng
    for unit in scene.units:
        if scene.moving < 1 and rng.random() >= scene.moving:
            continue
        x, y = unit.pos
        vx, vy = unit.vel
        if not (0 <= x + vx <= SIDE and 0 <= y + vy <= SIDE):
            vx, vy = -vx, -vy
            unit.vel = (vx, vy)
            unit.heading = math.atan2(vy, vx)
        unit.pos = (x + vx, y + vy)
        if rng.random() < 0.02:
            unit.hp = rng.randrange(128)


def snapshot(encoder: SnapshotEncoder) -> None:
    """The tick's snapshot, then each client's ack, lagging 0-``MAX_LAG`` ticks."""
    tick = encoder.snapshot()
    for cid in range(CLIENTS):
        encoder.ack(cid, max(tick - 1 - cid % (MAX_LAG + 1), 0))


def run(setup: Setup, digest: Digest | None = None) -> None:
    made = scene(setup)
    interest, encoder = made.interest, made.encoder
    ticks, warmup, area, rate = setup.ticks, setup.skip, setup.area, setup.rate
    write_ms: list[float] = []
    snap_ms: list[float] = []
    packet_ms: list[float] = []
    cpu_ms: list[float] = []
    sizes: list[int] = []
    seen: list[int] = []
    tests: list[int] = []
    cells: list[int] = []
    whole_ms: list[float] = []
    full = FullCollections()
    for step in range(warmup + ticks):
        if step == warmup:
            gc.callbacks.append(full)
        start = time.perf_counter()
        move(made)
        mid = time.perf_counter()
        work = dict(interest.work) if interest else {"tests": 0, "cells": 0}
        cpu = time.process_time()
        snapshot(encoder)
        mid2 = time.perf_counter()
        packets = encoder.packets()
        end = time.perf_counter()
        cpu = time.process_time() - cpu
        if digest:
            digest.add(packets)
        if step < warmup:
            continue
        write_ms.append((mid - start) * 1e3)
        whole_ms.append((end - start) * 1e3)
        snap_ms.append((mid2 - mid) * 1e3)
        packet_ms.append((end - mid2) * 1e3)
        cpu_ms.append(cpu * 1e3)
        sizes.extend(len(p) for p in packets.values())
        if interest is None:
            seen.append(ENTITIES)
            continue
        seen.extend(len(interest.views[c].relevant) for c in range(0, CLIENTS, 16))
        tests.append(interest.work["tests"] - work["tests"])
        cells.append(interest.work["cells"] - work["cells"])
    gc.callbacks.remove(full)
    if digest:
        digest.report(area)
    per_tick = statistics.mean(sizes)
    where = f"{area} area, cells of {setup.grid:g}" if interest else "no interest"
    print(
        f"world: {ENTITIES} entities ({setup.moving:.0%} moving a tick) in 2D, {CLIENTS} "
        f"clients ({where}), ack lag "
        f"0-{MAX_LAG}, {ticks} ticks measured after {warmup}, "
        f"{assembler()} assembler, load {load()}"
    )
    print(f"  entities seen per client: mean {statistics.mean(seen):.0f}")
    print(f"  server, property writes: median {statistics.median(write_ms):.1f} ms/tick")
    total = [s + p for s, p in zip(snap_ms, packet_ms, strict=True)]
    print(
        f"  server, snapshot (interest update) + {CLIENTS} packets: median "
        f"{statistics.median(total):.1f} ms/tick (snapshot {statistics.median(snap_ms):.1f}, "
        f"packets {statistics.median(packet_ms):.1f}), wall; "
        f"{statistics.median(cpu_ms):.1f} ms CPU"
    )
    if tests:
        print(
            f"  interest work per tick: median {statistics.median(tests):.0f} tests, "
            f"{statistics.median(cells):.0f} cell operations"
        )
    print(
        f"  bytes per client: {per_tick:.0f} per tick, {per_tick * rate / 1024:.1f} KiB/s "
        f"at {rate} ticks/s"
    )
    print(
        f"  longest tick (writes + snapshot + packets, wall): {max(whole_ms):.1f} ms; "
        f"full collections: {len(full.ms)} in {ticks} ticks"
        + (f", longest {max(full.ms):.1f} ms" if full.ms else "")
    )
    waits(encoder, sizes, rate)


def against(other: Path, setup: Setup) -> None:
    """This tree's assembler against another build of it (``other``), in one process: a scene
    each, of one seed, served in turn every tick (the order swapped each tick), each part timed
    by the thread's CPU time. On a shared machine whose speed drifts by more than a change's
    gain from one minute to the next, only neighbouring ticks resolve it. The two must make the
    same packets: a change that alters the bytes is not a change of speed alone."""
    if assembler() != _assembler.COMPILED:
        raise SystemExit(f"--against compares compiled builds: {_assembler.compiled_error()}")
    # both loaded afresh, this tree's too: in a test of one build against itself, the module
    # that import loaded ran 3-7% slower in a part than a copy of its own file (2026-12-02)
    here, there = (
        load_build("gdvariant.replication._cassemble", path)
        for path in (build_file(Path(_assembler.live().__file__ or "")), build_file(other))
    )
    builds: list[Callable[[], AbstractContextManager[None]]] = [
        lambda: _assembler.use_build(here),
        lambda: _assembler.use_build(there),
    ]
    scenes = []
    for enter in builds:
        with enter():
            scenes.append(scene(setup))
    times: list[dict[str, list[float]]] = [{"snapshot": [], "packets": []} for _ in builds]
    differ, skip = None, setup.skip
    for step in range(skip + setup.ticks):
        made: list[dict[Any, bytes]] = [{}, {}]
        for k in (0, 1) if step % 2 == 0 else (1, 0):
            with builds[k]():
                move(scenes[k])
                start = time.thread_time()
                snapshot(scenes[k].encoder)
                mid = time.thread_time()
                made[k] = scenes[k].encoder.packets()
                end = time.thread_time()
            times[k]["snapshot"].append((mid - start) * 1e3)
            times[k]["packets"].append((end - mid) * 1e3)
        if differ is None and made[0] != made[1]:
            differ = step
    print(
        f"A/B in one process: this tree's {assembler()} assembler against {other}, "
        f"{setup.area} area, {setup.ticks} ticks after {skip}, each tick both in turn, "
        f"load {load()}"
    )
    for part in ("snapshot", "packets"):
        mine, theirs = (t[part][skip:] for t in times)
        diffs = [b - a for a, b in zip(mine, theirs, strict=True)]
        print(
            f"  {part}: this tree {statistics.median(mine):.2f} ms, the other "
            f"{statistics.median(theirs):.2f} ms (medians of thread CPU); the other minus this, "
            f"median of the ticks {statistics.median(diffs):+.2f} ms, lower in "
            f"{sum(d < 0 for d in diffs)} of {len(diffs)}"
        )
    print(
        "  packets: the same bytes at every tick"
        if differ is None
        else f"  packets: NOT the same bytes, first at tick {differ + 1}"
    )


def build_file(path: Path) -> Path:
    """The compiled assembler ``path`` names: the file itself, or the one in a folder (the
    package's folder, a checkout built in place, or where ``pip install --target`` put it)."""
    if path.is_file():
        return path
    for folder in (path, *(path / top / "gdvariant" / "replication" for top in ("src", "."))):
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if (folder / f"_cassemble{suffix}").is_file():
                return folder / f"_cassemble{suffix}"
    raise SystemExit(f"no compiled assembler (_cassemble) in {path}: build that tree first")


class Digest:
    """A digest of every packet a run made, tick by tick, in client order."""

    def __init__(self) -> None:
        self._hash = hashlib.blake2b(digest_size=8)

    def add(self, packets: dict[Any, bytes]) -> None:
        for cid in sorted(packets):
            self._hash.update(f"{cid}:{len(packets[cid])}:".encode())
            self._hash.update(packets[cid])

    def report(self, what: str) -> None:
        print(f"  packets digest ({what}): {self._hash.hexdigest()}")


class FullCollections:
    """A ``gc.callbacks`` hook timing the cyclic collector's full collections."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.ms.append((time.perf_counter() - self._start) * 1e3)


def limited(limits: dict[str, float], rate: float) -> dict[str, Any]:
    """The encoder's ``mtu``/``budget`` arguments from the command line's."""
    out: dict[str, Any] = {}
    if limits["mtu"]:
        out["mtu"] = int(limits["mtu"])
    if limits["budget"]:
        out.update(budget=limits["budget"], tick_rate=rate)
    return out


def waits(encoder: SnapshotEncoder, sizes: list[int], rate: float) -> None:
    """The largest packet and the longest wait of a record, sent or still waiting (left
    out of the newest packet)."""
    if encoder.limits is None:
        print(f"  no mtu or budget: largest packet {max(sizes)} bytes")
        return
    tick = encoder.world.tick
    waiting = [
        tick - since
        for client in encoder.clients.values()
        for _, since in client.behind.get(tick, {}).values()
    ]
    longest = max([encoder.longest_wait, *waiting])
    print(
        f"  mtu {encoder.limits.mtu}, budget "
        f"{f'{encoder.limits.share * rate:.0f} B/s' if encoder.limits.share else 'none'}: "
        f"largest packet {max(sizes)} bytes; longest wait of a changed relevant entity "
        f"{longest} ticks ({longest / rate * 1e3:.0f} ms), sent ones {encoder.longest_wait}"
    )


class Mover(NetClass):
    pos = Prop(Vec3(Coord(10, 4, clamp=True)), hot=True)
    yaw = Angle(10)


def fishnet(
    ticks: int, warmup: int, seed: int, limits: dict[str, float], digest: Digest | None = None
) -> None:
    """FishNet's setup: 100 clients, one object each moving all the time, 10 ticks a second,
    every client sees all 100; acks lag 0-2 ticks (a round trip under 300 ms)."""
    rng = random.Random(seed)
    clients, rate = 100, 10
    world = World(Schema.build([Mover]))
    encoder = SnapshotEncoder(world, history=HISTORY, **limited(limits, rate))
    movers = [
        world.spawn(Mover, pos=(rng.uniform(-50, 50), 0.0, rng.uniform(-50, 50)))
        for _ in range(clients)
    ]
    for cid in range(clients):
        encoder.add_client(cid)
    sizes: list[int] = []
    cpu_ms: list[float] = []
    for step in range(warmup + ticks):
        for k, mover in enumerate(movers):  # a circle of radius 5 each, 8 s a turn
            angle = (step / 80 + k / clients) * math.tau
            x, _, z = mover.pos
            mover.pos = (
                x + 5 * math.tau / 80 * -math.sin(angle),
                0.0,
                z + 5 * math.tau / 80 * math.cos(angle),
            )
            mover.yaw = angle
        cpu = time.process_time()
        tick = encoder.snapshot()
        for cid in range(clients):
            encoder.ack(cid, max(tick - 1 - cid % 3, 0))
        packets = encoder.packets()
        cpu = time.process_time() - cpu
        if digest:
            digest.add(packets)
        if step >= warmup:
            sizes.extend(len(p) for p in packets.values())
            cpu_ms.append(cpu * 1e3)
    if digest:
        digest.report("fishnet")
    per_tick = statistics.mean(sizes)
    print(
        f"FishNet's setup: {clients} clients, one moving object each, {rate} ticks/s, every "
        f"client sees all; ack lag 0-2; {ticks} ticks measured after {warmup}, "
        f"{assembler()} assembler, "
        f"load {load()}"
    )
    print(
        f"  bytes per client: {per_tick:.0f} per tick, {per_tick * rate:.0f} B/s "
        f"({per_tick * rate / 5500:.2f} of FishNet's 5.5 KB/s); server CPU "
        f"{statistics.median(cpu_ms):.2f} ms/tick (median)"
    )
    waits(encoder, sizes, rate)


def load() -> str:
    """The 1-minute load average (the machine is shared)."""
    return f"{os.getloadavg()[0]:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--ticks", type=int, default=20)
    parser.add_argument(
        "--warmup",
        type=int,
        default=HISTORY + 2,
        help=f"ticks before measuring (default {HISTORY + 2}: every history full, as on a server "
        "that has run a while)",
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--area", choices=("radius", "cells", "none", "both"), default="both")
    parser.add_argument("--rate", type=int, default=20)
    parser.add_argument("--cell", type=float, default=None, help="the grid's cell size")
    parser.add_argument("--moving", type=float, default=1.0, help="fraction moving a tick")
    parser.add_argument("--mtu", type=int, default=0, help="largest packet, bytes")
    parser.add_argument("--budget", type=float, default=0, help="bytes/s per client")
    parser.add_argument("--fishnet", action="store_true", help="FishNet's setup instead")
    parser.add_argument("--digest", action="store_true", help="print a digest of the packets")
    parser.add_argument(
        "--against",
        type=Path,
        metavar="BUILD",
        help="another build of the compiled assembler (its file, or a checkout holding it), "
        "run beside this tree's in one process, tick by tick (an A/B on a noisy machine)",
    )
    args = parser.parse_args()
    limits = {"mtu": args.mtu, "budget": args.budget}
    if args.fishnet:
        fishnet(args.ticks, args.warmup, args.seed, limits, Digest() if args.digest else None)
        return
    for area in ("radius", "cells") if args.area == "both" else (args.area,):
        setup = Setup(
            args.ticks, args.warmup, args.seed, area, args.rate, args.cell, args.moving, limits
        )
        if args.against:
            against(args.against, setup)
        else:
            run(setup, Digest() if args.digest else None)


if __name__ == "__main__":
    main()
