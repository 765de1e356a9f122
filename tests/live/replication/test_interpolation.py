"""The generated GDScript decoder's interpolation in Godot 4.6 (marked ``engine``), through
``interpolate.gd`` beside this file: it must give the values our ``SnapshotDecoder`` gives.

A seeded world of every codec (``gdscript_schema``, plus a class of angle vectors and raw
floats that go infinite or NaN now and then) runs 80 ticks with value deltas; entities
enter, change and leave, and some packets arrive swapped with the one before them (a late
packet's tick goes into the middle of the ring). After each packet the engine reports
``interpolated(t)`` at several render ticks: fractional ones between, before and after the
kept ticks, and the kept ticks themselves; and ``apply_to_nodes(nodes, t)`` at the last.

Stepwise values (ints, bools, strings, enums, Variants...) and the entity and class sets
must be equal exactly. Blended floats must be equal to within :data:`TOLERANCE`; both sides
compute the same expressions in the same order (GDScript floats are float64 as Python's;
Vector2/3/4 arithmetic is float32 in Godot, which our decoder emulates by rounding after
each operation; quaternions and normals are blended in float64 and rounded once), so the
test also counts how many blended values are bit-identical and requires all of them.
The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import math
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

import gdvariant
from gdvariant.replication import (
    Angle,
    EntityState,
    Float32,
    Float64,
    NetClass,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    UInt,
    Vec2,
    Vec3,
    World,
    gdscript,
    godot_state,
)
from gdvariant.replication._interpolation import render_pair
from gdvariant.replication.gdscript._record_reads import DENSE_IDS
from gdvariant.replication.gdscript._state_view import node_property
from tests.support.engines import SEED, Engine
from tests.support.replication_driver import Script
from tests.support.replication_worlds import GDSCRIPT_CLASSES, set_path

pytestmark = [pytest.mark.engine, pytest.mark.slow]
SCRIPTS = Path(__file__).parent
TICKS = 80
HISTORY = 8
TIMEOUT = 120
#: Blended floats may differ by this much relative to their magnitude (or absolutely, near
#: zero). 0 would do today (the test requires bit-identical values too); the margin states
#: what a game may rely on if an engine build contracted a multiply-add (one float32 ulp,
#: 2**-23 relative, on vectors).
TOLERANCE = 2.0**-22


class Turret(NetClass):
    """Angle vectors (radians and degrees) and raw floats that go infinite or NaN."""

    aim = Vec2(Angle(10))
    sweep = Vec3(Angle(7, degrees=True))
    heat = Float32()
    drift = Vec3(Float32())
    load = Float64()
    ammo = UInt(6)


def interpolation_schema() -> Schema:
    return Schema.build([*GDSCRIPT_CLASSES, Turret])


def _turret_step(world: World, turrets: list[Any], rng: random.Random) -> None:
    """Turrets enter and leave, turn by any amount (across ±180°) and heat up; now and then
    a raw float is infinite or NaN."""
    if len(turrets) < 4 or rng.random() < 0.2:
        turrets.append(world.spawn(Turret, net_owner=0))
    if rng.random() < 0.15:
        world.despawn(turrets.pop(rng.randrange(len(turrets))))
    odd = [math.inf, -math.inf, math.nan, 0.0, -0.0]
    for t in turrets:
        t.aim = (rng.uniform(-7, 7), t.aim[1] + rng.uniform(-0.5, 0.5))
        t.sweep = tuple(rng.uniform(-400, 400) for _ in range(3))
        t.heat = rng.choice(odd) if rng.random() < 0.15 else rng.uniform(-1e4, 1e4)
        drift = [rng.uniform(-100, 100) for _ in range(3)]
        if rng.random() < 0.15:
            drift[rng.randrange(3)] = rng.choice(odd)
        t.drift = tuple(drift)
        t.load = rng.choice(odd) if rng.random() < 0.15 else rng.uniform(-1e300, 1e300)
        if rng.random() < 0.3:
            set_path(t, "ammo", rng.randrange(64))


def session(rng: random.Random, first_id: int) -> tuple[list[bytes], list[list[float]]]:
    """Packets for one client (some pairs swapped in delivery) and the render ticks to
    report after each. Entity ids start at ``first_id``."""
    schema = interpolation_schema()
    world = World(schema)
    world._next = first_id
    server = SnapshotEncoder(world, history=HISTORY, stamp=True, value_deltas=True)
    server.add_client(0)
    script = Script(world, rng, size=10)
    turrets: list[Any] = []
    packets: list[bytes] = []
    for _ in range(TICKS):
        script.step()
        _turret_step(world, turrets, rng)
        tick = server.snapshot()
        packets.append(server.packet_for(0))
        server.ack(0, max(tick - rng.randrange(2, 5), 0))
    for k in range(3, len(packets) - 1, 9):
        packets[k], packets[k + 1] = packets[k + 1], packets[k]
    renders = []
    for k in range(len(packets)):
        newest = k + 1  # about: swaps move it by one
        times = [newest - rng.uniform(0, 5) for _ in range(5)]
        times += [float(newest - rng.randrange(4)), newest + 0.5, -1.0, newest - 1.5]
        renders.append(times)
    return packets, renders


def close(got: Any, want: Any, counts: list[int]) -> bool:
    """Equal, floats within TOLERANCE (any two NaNs equal); counts [floats other than NaN
    compared, of which bit-identical]."""
    if isinstance(want, float) and isinstance(got, float):
        if math.isnan(want) or math.isnan(got):
            return math.isnan(want) and math.isnan(got)
        counts[0] += 1
        if got == want and math.copysign(1, got) == math.copysign(1, want):
            counts[1] += 1
            return True
        return abs(got - want) <= TOLERANCE * max(abs(want), 1e-30)
    if isinstance(want, dict) and isinstance(got, dict):
        return list(got) == list(want) and all(close(got[k], want[k], counts) for k in want)
    if isinstance(want, list | tuple) and isinstance(got, list | tuple):
        if type(want) is not type(got) and not (
            isinstance(want, list | tuple) and type(got) in (list, tuple)
        ):
            return False
        return len(got) == len(want) and all(
            close(g, w, counts) for g, w in zip(got, want, strict=True)
        )
    return bool(type(got) is type(want) and got == want)


def node_view(schema: Schema, state: list[dict[int, Any]]) -> dict[int, dict[str, Any]]:
    """What apply_to_nodes must have set: each entity's values by node property name."""
    values, classes = state
    out = {}
    for net_id, props in values.items():
        names = [node_property(p.path) for p in schema.classes[classes[net_id]].props]
        out[net_id] = dict(zip(names, props.values(), strict=True))
    return out


def _blended_values(ours: SnapshotDecoder, t: float, got: dict[int, EntityState]) -> int:
    """How many values of ``got`` (ours at render tick ``t``) differ from the older kept
    tick's: that the test compares blends, not just held values."""
    ticks = ours.buffered_ticks
    i, j, _ = render_pair(ticks, t)
    if i == j:
        return 0
    older = ours.interpolated(ticks[i])
    return sum(
        1
        for net_id, ent in got.items()
        for path, value in ent.values.items()
        if value != older[net_id].values[path]
    )


@pytest.mark.parametrize(("buffer", "first_id"), [(1, 0), (3, 0), (4, DENSE_IDS - 6)])
def test_interpolated_values_match_ours(godot4: Engine, buffer: int, first_id: int) -> None:
    """With ids on both sides of ``DENSE_IDS`` too (read from the columns below it, from
    the Dictionary of sparse entities above)."""
    print(f"GDVARIANT_SEED={SEED}")
    schema = interpolation_schema()
    packets, renders = session(random.Random(SEED + buffer), first_id)
    with godot4.workdir() as (here, inside):
        (here / "decoder.gd").write_text(gdscript.generate(schema))
        for name in ("interpolate.gd", "state.gd"):
            shutil.copy(SCRIPTS / name, here)
        (here / "in.bin").write_bytes(gdvariant.dumps([packets, renders, buffer]))
        proc = godot4.run(
            "interpolate.gd",
            [f"{inside}/decoder.gd", f"{inside}/in.bin", f"{inside}/out.bin"],
            cwd=(here, inside),
            timeout=TIMEOUT,
        )
        assert "SCRIPT ERROR" not in proc.stderr, proc.stderr[-3000:]
        results = gdvariant.loads((here / "out.bin").read_bytes())
    ours = SnapshotDecoder(schema, history=HISTORY, interpolation_buffer=buffer)
    assert len(results) == len(packets), results[-1]
    counts = [0, 0]
    moved = 0
    for packet, times, (ticks, states, seen) in zip(packets, renders, results, strict=True):
        ours.apply(packet)
        assert list(ticks) == ours.buffered_ticks
        for t, got in zip(times, states, strict=True):
            mine = ours.interpolated(t)
            want = godot_state(schema, mine)
            moved += _blended_values(ours, t, mine)
            assert close(gdvariant.loads(got), want, counts), f"render tick {t}, kept {ticks}"
        want_nodes = node_view(schema, godot_state(schema, ours.interpolated(times[-1])))
        assert close(gdvariant.loads(seen), want_nodes, counts), f"nodes at {times[-1]}"
    print(f"floats compared: {counts[0]}, bit-identical: {counts[1]}, blended: {moved}")
    assert counts[0] > 1000
    assert moved > 100 or buffer == 1
    assert counts[1] == counts[0]
