"""Packets within an MTU under a bandwidth budget (``SnapshotEncoder(mtu=..., budget=...)``):
random worlds with packet and ack loss whose packets cannot carry everything, each client's
decoded state checked at every applied tick against the server's (every entity is either as
the client held it at the packet's base, or exactly as the server has it now: a record
brings an entity wholly up to date or is not sent); no packet over the MTU in big worlds;
how long a changed entity may wait; bad arguments."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gdvariant.replication import (
    Coord,
    Embed,
    EntityState,
    Interest,
    NetClass,
    Prop,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    Str,
    UInt,
    Vec2,
    World,
    _assembler,
)
from gdvariant.replication._budget import FIRST_BATCH, choose
from tests.support.assemblers import live

ON_EACH_ASSEMBLER = pytest.mark.usefixtures("assembler")
HEADER = 26  # 18 bytes and the fingerprint stamp


class Mover(NetClass):
    pos = Prop(Vec2(Coord(8, 3, clamp=True)), hot=True)
    hp = UInt(7)
    name = Str(24)


class Tally(NetClass):
    score = UInt(16)


class Purse(NetClass, abstract=True):
    gold = UInt(8)


class Owned(NetClass):
    hp = UInt(7)
    mine = Embed(Purse, audience="owner")


def check_step(
    before: dict[int, EntityState], after: dict[int, EntityState], now: dict[int, EntityState]
) -> None:
    """Each entity the client holds after a packet is as it held it at the packet's base, or
    as the server has it now; an entity gone from the server is kept or deleted, never
    changed."""
    for net_id in before.keys() | after.keys():
        got = after.get(net_id)
        assert got == before.get(net_id) or got == now.get(net_id), net_id


def play(seed: int, *, interest: bool, budget: bool) -> list[dict[Any, bytes]]:
    """A random world of 120 ticks, then 60 calm ticks without loss; four clients whose
    packets are capped at 300 bytes (and, with ``budget``, 3,000 bytes a second at 20 ticks
    a second); every applied packet checked; returns the packets, tick by tick."""
    rng = random.Random(seed)
    schema = Schema.build([Mover, Tally])
    world = World(schema)
    grid = Interest(world, cell=10.0, positions={Mover: "pos"}) if interest else None
    limits: dict[str, Any] = {"mtu": 300}
    if budget:
        limits.update(budget=3000, tick_rate=20)
    enc = SnapshotEncoder(world, history=6, interest=grid, value_deltas=seed % 2 == 0, **limits)
    movers = [world.spawn(Mover, pos=(rng.uniform(-50, 50), 0.0)) for _ in range(80)]
    tallies = [world.spawn(Tally) for _ in range(3)]
    clients = ["a", "b", "c", "d"]
    decoders = {cid: SnapshotDecoder(schema, history=6) for cid in clients}
    pending: dict[Any, list[int]] = {cid: [] for cid in clients}
    for cid in clients:
        enc.add_client(cid)
        if grid is not None:
            grid.set_area(cid, radius=rng.uniform(15, 40))
            grid.set_centre(cid, (rng.uniform(-40, 40), rng.uniform(-40, 40)))
    applied: list[dict[Any, bytes]] = []
    for step in range(180):
        calm = step >= 120
        if not calm:
            for ent in movers:
                if rng.random() < 0.5:
                    x, y = ent.pos
                    ent.pos = (x + rng.uniform(-3, 3), y + rng.uniform(-3, 3))
                if rng.random() < 0.05:
                    ent.hp = rng.randrange(128)
                if rng.random() < 0.01:
                    ent.name = "x" * rng.randrange(25)
            for ent in tallies:
                ent.score = rng.randrange(1 << 16)
            for _ in range(rng.randrange(3)):
                if rng.random() < 0.5:
                    movers.append(world.spawn(Mover, pos=(rng.uniform(-50, 50), 0.0)))
                elif movers:
                    world.despawn(movers.pop(rng.randrange(len(movers))))
            if grid is not None:
                for cid in clients:
                    if rng.random() < 0.5:
                        x, y = grid.views[cid].centre or (0.0, 0.0)
                        grid.set_centre(cid, (x + rng.uniform(-4, 4), y + rng.uniform(-4, 4)))
        tick = enc.snapshot()
        packets = enc.packets()
        applied.append({})
        for cid, dec in decoders.items():
            assert len(packets[cid]) <= 300
            # flag bit 3, partial: exactly when entities were left out
            assert bool(packets[cid][1] & 8) == (tick in enc.clients[cid].behind)
            if calm or rng.random() < 0.8:
                before = dec.states.get(int.from_bytes(packets[cid][6:10], "little"), {})
                dec.apply(packets[cid])
                check_step(before, dec.state, enc.expected_state(cid))
                pending[cid].append(dec.ack)
                applied[-1][cid] = packets[cid]
            while pending[cid] and (calm or rng.random() < 0.5):
                acked = pending[cid].pop(0)
                if calm or rng.random() < 0.9:
                    enc.ack(cid, acked)
    for cid, dec in decoders.items():  # all sent in the calm
        assert dec.state == enc.expected_state(cid), cid
    assert enc.longest_wait > 0  # the packets really were too small
    return applied


@ON_EACH_ASSEMBLER
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("interest", "budget"), [(False, False), (False, True), (True, True)])
def test_random_worlds_decode_what_was_sent(seed: int, interest: bool, budget: bool) -> None:
    assert sum(len(p) for p in play(seed, interest=interest, budget=budget)) > 500


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("interest", [False, True])
def test_both_assemblers_make_the_same_limited_packets(seed: int, interest: bool) -> None:
    with live(_assembler.PYTHON):
        pure = play(seed, interest=interest, budget=True)
    with live(_assembler.COMPILED):
        assert play(seed, interest=interest, budget=True) == pure


@settings(max_examples=15, deadline=None)
@given(
    count=st.integers(1, 1000),
    mtu=st.integers(HEADER + 100, 1500),
    names=st.integers(0, 24),
    seed=st.integers(0, 2**16),
)
def test_no_packet_is_over_the_mtu(count: int, mtu: int, names: int, seed: int) -> None:
    """Big worlds, full updates and moving entities: every packet within the MTU, and the
    client holds the whole world once the world stops."""
    rng = random.Random(seed)
    schema = Schema.build([Mover, Tally])
    world = World(schema)
    enc = SnapshotEncoder(world, history=4, mtu=mtu)
    ents = [
        world.spawn(Mover, pos=(rng.uniform(-99, 99), rng.uniform(-99, 99)), name="n" * names)
        for _ in range(count)
    ]
    enc.add_client(0)
    dec = SnapshotDecoder(schema, history=4)
    for step in range(50 + 3 * count * 40 // (mtu - HEADER)):  # records of at most 40 bytes
        if step < 5:
            for ent in ents:
                ent.pos = (rng.uniform(-99, 99), rng.uniform(-99, 99))
        enc.snapshot()
        packet = enc.packet_for(0)
        assert len(packet) <= mtu
        if step % 3 or step >= 5:  # some lost
            dec.apply(packet)
            enc.ack(0, dec.ack)
        if dec.state == enc.expected_state(0):
            break
    assert dec.state == enc.expected_state(0)


@ON_EACH_ASSEMBLER
@pytest.mark.parametrize(
    "limits",
    [{"mtu": HEADER + 120}, {"mtu": 400, "budget": (HEADER + 120) * 20, "tick_rate": 20}],
)
def test_no_changed_entity_waits_longer_than_the_bound(limits: dict[str, Any]) -> None:
    """M = 200 entities, each changing every tick (a hot position and its health), no loss,
    and packets of 120 bytes of records: an MTU of 146 bytes, or a budget of 146 bytes a
    tick (2,920 bytes a second at 20 ticks a second) with an MTU of 400 (the bucket never
    holds less than a tick's share after its refill, so each packet has room for 120 bytes
    of records or more). A record is at most 7 bytes here, so a packet carries k >= 13 of
    them; importances differ by R <= 2 (hot or not). Each entity sent ahead of a waiting
    one needs to rebuild its priority to the waiting one's divided by R before it passes it
    again, so an entity waits at most N = ceil((M - 1)(R + 1) / k) + 1 = 47 ticks. Measured
    from the decoded state: an entity waits while the client holds other than the server's
    value."""
    schema = Schema.build([Mover])
    world = World(schema)
    enc = SnapshotEncoder(world, history=64, **limits)
    rng = random.Random(5)
    ents = [world.spawn(Mover, pos=(rng.uniform(-9, 9), rng.uniform(-9, 9))) for _ in range(200)]
    enc.add_client(0)
    dec = SnapshotDecoder(schema, history=64)
    waited = dict.fromkeys(range(200), 0)
    worst = 0
    for step in range(300):
        for ent in ents:
            ent.hp = step % 128
            if ent.net_id % 2:
                x, y = ent.pos
                ent.pos = (x + 0.125, y)
        enc.snapshot()
        dec.apply(enc.packet_for(0))
        enc.ack(0, dec.ack)
        now = enc.expected_state(0)
        for net_id in waited:
            behind = dec.state.get(net_id) != now[net_id]
            waited[net_id] = waited[net_id] + 1 if behind else 0
            worst = max(worst, waited[net_id])
    bound = math.ceil(199 * 3 / 13) + 1
    assert 0 < worst <= bound
    assert enc.longest_wait <= bound


def test_a_budget_spreads_the_bytes_over_the_ticks() -> None:
    """1,000 bytes a second at 10 ticks a second: whatever the world, the bytes sent over
    any run of ticks stay within the bucket (one MTU) plus 100 bytes a tick."""
    schema = Schema.build([Mover])
    world = World(schema)
    enc = SnapshotEncoder(world, mtu=400, budget=1000, tick_rate=10)
    rng = random.Random(2)
    ents = [world.spawn(Mover, pos=(rng.uniform(-9, 9), 0.0)) for _ in range(300)]
    enc.add_client(0)
    dec = SnapshotDecoder(schema)
    sizes = []
    for step in range(100):
        for ent in ents:
            ent.hp = step % 128
        enc.snapshot()
        packet = enc.packet_for(0)
        assert enc.packet_for(0) is packet  # asked twice: the same packet, paid once
        sizes.append(len(packet))
        dec.apply(packet)
        enc.ack(0, dec.ack)
    for start in range(100):
        for end in range(start + 1, 101):
            assert sum(sizes[start:end]) <= 400 + 100 * (end - start)
    assert max(sizes) > 100  # the bucket filled up between big packets


def test_a_record_bigger_than_the_mtu_is_a_clear_error() -> None:
    schema = Schema.build([Mover])
    world = World(schema)
    enc = SnapshotEncoder(world, mtu=HEADER + 20)
    world.spawn(Mover, name="y" * 24)
    enc.add_client(0)
    enc.snapshot()
    with pytest.raises(ValueError, match="raise the mtu"):
        enc.packet_for(0)


def test_weight_and_distance_send_the_important_first() -> None:
    """One tick, room for a few records: the entities the weight favours go first; with an
    interest, the nearest."""
    schema = Schema.build([Mover])
    world = World(schema)
    enc = SnapshotEncoder(world, mtu=HEADER + 40, weight=lambda e, c: 5.0 if e.hp == 9 else 1.0)
    spawned = [world.spawn(Mover, hp=9 if i % 10 == 0 else 1) for i in range(100)]
    favoured = {ent.net_id for ent in spawned if ent.hp == 9}
    enc.add_client(0)
    enc.snapshot()
    dec = SnapshotDecoder(schema)
    dec.apply(enc.packet_for(0))
    assert favoured <= dec.state.keys() and len(dec.state) < 100

    world = World(schema)
    grid = Interest(world, cell=5.0, positions={Mover: "pos"})
    enc = SnapshotEncoder(world, mtu=HEADER + 40, interest=grid)
    for x in range(40):
        world.spawn(Mover, pos=(float(x), 0.0))
    enc.add_client(0)
    grid.set_area(0, radius=100.0)
    grid.set_centre(0, (39.0, 0.0))
    enc.snapshot()
    dec = SnapshotDecoder(schema)
    dec.apply(enc.packet_for(0))
    xs = sorted(state.values["pos"][0] for state in dec.state.values())
    assert xs and xs == [float(x) for x in range(40 - len(xs), 40)]


def test_bad_arguments() -> None:
    world = World(Schema.build([Mover]))
    cases: list[tuple[dict[str, Any], str]] = [
        ({"mtu": HEADER}, "over the 26-byte header"),
        ({"mtu": 70_000}, "at most 65507"),
        ({"mtu": 1200.5}, "whole number"),
        ({"budget": 5000}, "needs the tick_rate"),
        ({"budget": 200, "tick_rate": 10}, "not more than the 26-byte header"),
        ({"budget": -1, "tick_rate": 10}, "positive"),
        ({"budget": 5000, "tick_rate": float("nan")}, "positive"),
        ({"tick_rate": 10}, "go with a budget"),
        ({"weight": lambda e, c: 1.0}, "go with a budget"),
    ]
    for kwargs, match in cases:
        with pytest.raises(ValueError, match=match):
            SnapshotEncoder(world, **kwargs)
    with pytest.raises(ValueError, match="restricted"):
        SnapshotEncoder(World(Schema.build([Owned])), mtu=1200)
    enc = SnapshotEncoder(world, mtu=HEADER + 40, weight=lambda e, c: -1.0)
    world.spawn(Mover, hp=3, name="z" * 24)
    world.spawn(Mover, hp=4, name="z" * 24)
    enc.add_client(0)
    enc.snapshot()
    with pytest.raises(ValueError, match="not positive"):
        enc.packet_for(0)


def test_a_packet_before_the_first_snapshot_is_a_packet() -> None:
    """Tick 0 is a tick like any other (no packet of an earlier tick is handed back)."""
    world = World(Schema.build([Mover]))
    enc = SnapshotEncoder(world, mtu=100)
    enc.add_client(0)
    world.spawn(Mover, hp=3)
    dec = SnapshotDecoder(world.schema)
    dec.apply(enc.packet_for(0))
    assert dec.state == enc.expected_state(0)


@pytest.mark.parametrize("seed", range(20))
def test_choose_sizes_in_batches_down_the_order(seed: int) -> None:
    """``choose`` asks the sizes of the records in contiguous batches down the order, never
    past the batch holding the first record that did not fit, and takes every record with a
    size (in order) until then; the section it returns is the assembled one of those ids."""
    rng = random.Random(seed)
    order = rng.sample(range(1, 5000), rng.randrange(0, 400))
    alone = {net_id: rng.choice([0, 1, 2, 3, 5, 9]) for net_id in order}
    asked: list[list[int]] = []

    def sizes(chunk: list[int]) -> list[int]:
        asked.append(chunk)
        return [alone[net_id] for net_id in chunk]

    def assemble(ids: list[int]) -> tuple[int, bytes]:
        assert ids == sorted(ids)
        return len(ids), bytes(max(1, alone[i] - 1) for i in ids)  # a gap shrinks a record

    room = rng.randrange(0, 600)
    section, chosen, rest = choose(order, sizes, assemble, room, 9)
    flat = [net_id for chunk in asked for net_id in chunk]
    assert flat == order[: len(flat)]
    reached = len(order) - len(rest)
    assert rest == order[reached:]
    assert chosen == [i for i in order[:reached] if alone[i]]
    assert section == (assemble(sorted(chosen)) if chosen else (0, b""))
    assert len(section[1]) <= room
    if rest:
        assert len(section[1]) + alone[rest[0]] > room
        assert len(flat) - reached <= FIRST_BATCH << (len(asked) - 1)
