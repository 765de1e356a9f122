"""World.at: the world as of an earlier tick, as its clients decoded it (lag compensation).

Hand-worked cases, the window's edges, despawns and reused ids, then random worlds checked
against a brute-force record of every tick's quantized state and against a client that got
every packet."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from gdvariant import Quaternion, Vector2
from gdvariant.replication import (
    Angle,
    Bool,
    Coord,
    EntityState,
    Interest,
    NetClass,
    Prop,
    Quat,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    Str,
    UInt,
    VarInt,
    Vec2,
    World,
)
from gdvariant.replication._history import entries
from gdvariant.replication._interpolation import blend

pytestmark = pytest.mark.usefixtures("assembler")  # every test on each packet assembler

HISTORY = 32


class Player(NetClass):
    pos = Prop(Vec2(Coord()))  # 1/32 steps
    yaw = Prop(Angle(8))  # tau/256 steps
    hp = Prop(UInt(8), default=100)


class Crate(NetClass):
    label = Prop(Str())
    at = Prop(Vec2(Coord()))


SCHEMA = Schema.build([Player, Crate])


def test_each_kept_tick_gives_the_values_clients_decoded_then() -> None:
    w = World(SCHEMA, rewind=8)
    p = w.spawn(Player, pos=Vector2(1.01, 2.0))  # 1.01 * 32 = 32.32: 1.0 on the wire
    assert w.commit(HISTORY) == 1
    p.pos, p.yaw, p.hp = Vector2(3.0, 2.0), 3.0, 90  # 3 / (tau/256) = 122.2: 122 steps
    w.commit(HISTORY)
    p.pos = Vector2(5.0, 2.0)
    w.commit(HISTORY)
    assert dict(w.at(0)) == {}
    assert w.at(1)[0] == EntityState("Player", {"pos": Vector2(1.0, 2.0), "yaw": 0.0, "hp": 100})
    yaw = 122 * math.tau / 256
    assert w.at(2)[0].values == {"pos": Vector2(3.0, 2.0), "yaw": yaw, "hp": 90}
    assert w.at(3)[0].values == {"pos": Vector2(5.0, 2.0), "yaw": yaw, "hp": 90}


def test_a_fractional_tick_interpolates_as_the_client() -> None:
    w = World(SCHEMA, rewind=8)
    p = w.spawn(Player, pos=Vector2(1.0, 2.0), yaw=3.0)
    w.commit(HISTORY)
    p.pos, p.yaw, p.hp = Vector2(3.0, 6.0), -3.0, 50
    w.commit(HISTORY)
    quarter = w.at(1.25)[0].values
    assert quarter["pos"] == Vector2(1.5, 3.0)
    # 122 steps to -122 steps: the short way is 12 steps through pi, not 244 through 0
    assert quarter["yaw"] == pytest.approx(125 * math.tau / 256)
    assert quarter["hp"] == 100  # stepwise: the earlier value until tick 2
    assert w.at(1.0)[0] == w.at(1)[0]
    assert w.at(2.0)[0].values["hp"] == 50


def test_writes_not_yet_committed_are_not_seen() -> None:
    w = World(SCHEMA, rewind=4)
    p = w.spawn(Player, pos=Vector2(1.0, 1.0))
    w.commit(HISTORY)
    p.pos, p.hp = Vector2(9.0, 9.0), 1
    w.spawn(Player)  # spawned in the open tick: not there yet
    assert dict(w.at(1)) == {0: w.at(1)[0]}
    assert w.at(1)[0].values["pos"] == Vector2(1.0, 1.0)
    assert w.at(1)[0].values["hp"] == 100


def test_the_window_is_the_current_tick_and_rewind_before_it() -> None:
    w = World(SCHEMA, rewind=3)
    p = w.spawn(Player)
    for tick in range(1, 11):
        p.hp = tick
        w.commit(HISTORY)
    assert [w.at(t)[0].values["hp"] for t in (7, 8, 9, 10)] == [7, 8, 9, 10]
    assert w.at(7.5)[0].values["hp"] == 7
    for outside in (6, 6.99, 10.01, 11, -1):
        with pytest.raises(ValueError, match=r"outside the kept window 7\.\.10"):
            w.at(outside)


def test_without_rewind_only_the_current_tick() -> None:
    w = World(SCHEMA)
    assert w.rewind == 0
    p = w.spawn(Player, hp=5)
    w.commit(HISTORY)
    p.hp = 6
    w.commit(HISTORY)
    assert w.at(2)[0].values["hp"] == 6
    with pytest.raises(ValueError, match="keeps the current tick and the 0 before it"):
        w.at(1)


@pytest.mark.parametrize(
    ("tick", "error"),
    [("3", TypeError), (True, TypeError), (None, TypeError), (math.nan, ValueError),
     (math.inf, ValueError)],
)  # fmt: skip
def test_a_tick_that_is_not_a_number_is_refused(tick: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="tick"):
        World(SCHEMA, rewind=4).at(tick)


@pytest.mark.parametrize(
    ("rewind", "error"), [(-1, ValueError), (2.5, TypeError), (True, TypeError)]
)
def test_a_bad_rewind_is_refused(rewind: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="rewind"):
        World(SCHEMA, rewind=rewind)


def test_a_view_read_after_its_tick_left_the_window_is_refused() -> None:
    w = World(SCHEMA, rewind=2)
    p = w.spawn(Player, hp=1)
    w.commit(HISTORY)
    view = w.at(1)
    for hp in (2, 3):
        p.hp = hp
        w.commit(HISTORY)
        assert view[0].values["hp"] == 1  # still in the window: still right
    p.hp = 4
    w.commit(HISTORY)
    with pytest.raises(ValueError, match="outside the kept window"):
        view[0]


def test_despawned_entities_stay_in_the_ticks_they_lived_in() -> None:
    w = World(SCHEMA, rewind=8)
    a = w.spawn(Player, hp=1)
    w.commit(HISTORY)  # 1: a
    a.hp = 2
    w.commit(HISTORY)  # 2: a, hp 2
    a.hp = 3  # written, then despawned in the same tick: never committed
    w.despawn(a)
    w.commit(HISTORY)  # 3: nothing
    assert w.at(2)[0].values["hp"] == 2
    assert w.at(1)[0].values["hp"] == 1
    assert dict(w.at(3)) == {}
    assert 0 not in w.at(3)
    assert w.at(2.5)[0].values["hp"] == 2  # present until the later tick, as on a client
    ghost = w.spawn(Player)
    w.despawn(ghost)  # spawned and despawned inside one tick: no tick ever held it
    w.commit(HISTORY)
    assert [dict(w.at(t)) for t in (3, 4)] == [{}, {}]


def test_a_reused_id_is_two_entities() -> None:
    w = World(SCHEMA, rewind=8)
    a = w.spawn(Player, pos=Vector2(0.0, 0.0), hp=7)
    w.commit(HISTORY)  # 1: id 0 is a
    w.despawn(a)
    b = w.spawn(Crate, label="box", at=Vector2(10.0, 0.0))
    assert b.net_id == 0
    w.commit(HISTORY)  # 2: id 0 is b
    assert w.at(1)[0].class_name == "Player"
    assert w.at(2)[0] == EntityState("Crate", {"label": "box", "at": Vector2(10.0, 0.0)})
    # between them nothing is blended: the earlier entity until the later tick
    assert w.at(1.5)[0] == w.at(1)[0]
    w.despawn(b)
    c = w.spawn(Player, hp=9)
    w.commit(HISTORY)  # 3: id 0 is c
    assert [w.at(t)[0].class_name for t in (1, 2, 3)] == ["Player", "Crate", "Player"]
    assert [w.at(t)[0].values.get("hp") for t in (1, 2, 3)] == [7, None, 9]
    assert c.net_id == 0


def test_despawned_entities_are_forgotten_past_the_window() -> None:
    w = World(SCHEMA, rewind=2)
    a = w.spawn(Player)
    w.commit(HISTORY)  # 1
    w.despawn(a)
    w.commit(HISTORY)  # 2: a gone from here
    assert w._rewind.by_id
    w.commit(HISTORY)  # 3: the window 1..3 still holds a at 1
    assert 0 in w.at(1)
    w.commit(HISTORY)  # 4: the window is 2..4, a is forgotten
    assert not w._rewind.by_id and not w._rewind.gone


def test_histories_are_kept_for_rewind_even_when_the_encoder_keeps_fewer() -> None:
    w = World(SCHEMA, rewind=6)
    p = w.spawn(Player)
    for hp in range(1, 9):
        p.hp = hp
        w.commit(2)  # an encoder's history of 2 ticks
    assert [w.at(t)[0].values["hp"] for t in range(2, 9)] == list(range(2, 9))
    assert [c[0] for c in entries(p)] == [3, 4, 5, 6, 7, 8]  # after the window's first tick


# ---- random worlds -------------------------------------------------------------------------


class Mixed(NetClass):
    pos = Prop(Vec2(Coord(10, 3)))
    turn = Prop(Angle(6))
    rot = Prop(Quat(8))
    name = Prop(Str(16))
    score = Prop(VarInt())
    flag = Prop(Bool())


MIXED = Schema.build([Mixed, Crate])


def _write(ent: Any, rng: random.Random) -> None:
    if isinstance(ent, Crate):
        if rng.random() < 0.5:
            ent.label = rng.choice(["", "a", "ab\u00e9", "x" * 12, "\u20ac\u20ac"])
        ent.at = Vector2(rng.uniform(-50, 50), rng.uniform(-50, 50))
        return
    which = rng.randrange(6)
    if which == 0:
        ent.pos = Vector2(rng.uniform(-100, 100), rng.uniform(-100, 100))
    elif which == 1:
        ent.turn = rng.uniform(-7, 7)
    elif which == 2:
        comps = [rng.uniform(-1, 1) for _ in range(4)]
        ent.rot = Quaternion(*comps) if any(comps) else Quaternion(0, 0, 0, 1)
    elif which == 3:
        ent.name = rng.choice(["", "z", "zz", "long name here"])
    elif which == 4:
        ent.score = rng.randrange(-(1 << 40), 1 << 40)
    else:
        ent.flag = not ent.flag


def _random_run(seed: int, rewind: int, history: int) -> None:
    """Ticks of spawns, despawns (ids reused) and writes; after each commit every kept tick
    and a fraction of every kept pair of ticks are checked against the brute-force record."""
    rng = random.Random(seed)
    w = World(MIXED, rewind=rewind)
    #: tick -> {id: (spawn tick, class layout, EntityState)}, read right after each commit
    brute: dict[int, dict[int, tuple[int, Any, EntityState]]] = {0: {}}
    for _ in range(40):
        for _ in range(rng.randrange(3)):
            cls = Mixed if rng.random() < 0.7 else Crate
            _write(w.spawn(cls), rng)
        live = list(w.entities.values())
        for ent in rng.sample(live, min(len(live), rng.randrange(4))):
            _write(ent, rng)
        if live and rng.random() < 0.3:
            w.despawn(rng.choice(live))
        tick = w.commit(history)
        brute[tick] = {
            i: (e._net_spawn, e._net_layout, EntityState(e._net_layout.name, w.quantized(e)))
            for i, e in w.entities.items()
        }
        if rng.random() < 0.3:
            _write(rng.choice(list(w.entities.values()) or [w.spawn(Crate)]), rng)  # open tick
        low = max(0, tick - rewind)
        for t in range(low, tick + 1):
            assert dict(w.at(t)) == {i: s for i, (_, _, s) in brute[t].items()}, (seed, t)
        for t in range(low, tick):
            f = (t + rng.choice([0.25, 0.5, rng.random()])) - t  # the fraction t + f holds
            assert dict(w.at(t + f)) == _blend(brute[t], brute[t + 1], f), (seed, t, f)


def _blend(
    a: dict[int, tuple[int, Any, EntityState]], b: dict[int, tuple[int, Any, EntityState]], f: float
) -> dict[int, EntityState]:
    """The brute-force fractional tick: each entity of ``a`` blended with itself in ``b``
    (the same spawn), property by property, by its codec's rule."""
    out = {}
    for i, (spawn, lay, state) in a.items():
        later = b.get(i)
        if later is None or later[0] != spawn:
            out[i] = state
            continue
        values = {
            p.path: _step_or(blend(p.codec), state.values[p.path], later[2].values[p.path], f)
            for p in lay.props
        }
        out[i] = EntityState(state.class_name, values)
    return out


@pytest.mark.parametrize("seed", range(8))
def test_random_worlds_match_a_record_of_every_tick(seed: int) -> None:
    _random_run(seed, rewind=(3, 8, 16)[seed % 3], history=(2, 32)[seed % 2])


def test_a_client_that_got_every_packet_holds_what_at_gives() -> None:
    rng = random.Random(5)
    w = World(MIXED, rewind=10)
    enc = SnapshotEncoder(w, history=4)
    enc.add_client(1)
    client = SnapshotDecoder(MIXED, history=64)
    for _ in range(30):
        for _ in range(rng.randrange(3)):
            _write(w.spawn(Mixed if rng.random() < 0.7 else Crate), rng)
        live = list(w.entities.values())
        for ent in rng.sample(live, min(len(live), 3)):
            _write(ent, rng)
        if live and rng.random() < 0.3:
            w.despawn(rng.choice(live))
        enc.snapshot()
        client.apply(enc.packet_for(1))
        enc.ack(1, client.ack)
    for t in range(w.tick - 10, w.tick + 1):
        assert dict(w.at(t)) == client.states[t]


def test_a_fractional_tick_is_what_the_clients_decoder_interpolates() -> None:
    """The server's rewind and a client that got every packet, asked for the same render
    time between two ticks, give the same values: one rule for both."""
    rng = random.Random(6)
    w = World(MIXED, rewind=10)
    enc = SnapshotEncoder(w, history=4)
    enc.add_client(1)
    client = SnapshotDecoder(MIXED, history=64, interpolation_buffer=2)
    for _ in range(30):
        for _ in range(rng.randrange(3)):
            _write(w.spawn(Mixed), rng)
        live = list(w.entities.values())
        for ent in rng.sample(live, min(len(live), 4)):
            _write(ent, rng)
        enc.snapshot()
        client.apply(enc.packet_for(1))
        enc.ack(1, client.ack)
        if w.tick > 2:
            for f in (0.25, 0.5, 0.875):
                render = w.tick - 1 + f
                assert dict(w.at(render)) == client.interpolated(render), (w.tick, f)


def test_packets_are_the_same_with_rewind_on() -> None:
    """Keeping histories longer for rewind changes no byte the encoder sends."""
    out = []
    for rewind in (0, 12):
        rng = random.Random(9)
        w = World(MIXED, rewind=rewind)
        enc = SnapshotEncoder(w, history=3)
        for cid in range(3):
            enc.add_client(cid)
        packets = []
        for _ in range(30):
            for _ in range(rng.randrange(3)):
                _write(w.spawn(Mixed), rng)
            live = list(w.entities.values())
            for ent in rng.sample(live, min(len(live), 3)):
                _write(ent, rng)
            if live and rng.random() < 0.2:
                w.despawn(rng.choice(live))
            enc.snapshot()
            for cid in range(3):
                packets.append(enc.packet_for(cid))
                if rng.random() < 0.6:
                    enc.ack(cid, max(1, w.tick - rng.randrange(3)))
        out.append(packets)
    assert out[0] == out[1]


def test_one_value_is_the_same_as_in_the_whole_state() -> None:
    rng = random.Random(3)
    w = World(MIXED, rewind=6)
    for _ in range(12):
        for _ in range(2):
            _write(w.spawn(Mixed), rng)
        for ent in rng.sample(list(w.entities.values()), 2):
            _write(ent, rng)
        w.commit(HISTORY)
    for tick in (w.tick - 6, w.tick - 2.75, w.tick):
        whole = {i: s.values for i, s in w.at(tick).items()}
        view = w.at(tick)  # a fresh view: value() decodes, not the cached state
        for net_id, values in whole.items():
            for path, value in values.items():
                assert view.value(net_id, path) == value
    with pytest.raises(KeyError, match="Mixed has no networked property 'nope'"):
        w.at(w.tick).value(0, "nope")
    with pytest.raises(KeyError):
        w.at(w.tick).value(999, "pos")


def test_the_entity_a_hit_at_an_old_tick_lands_on() -> None:
    w = World(SCHEMA, rewind=8)
    a = w.spawn(Player)
    w.commit(HISTORY)  # 1: id 0 is a
    assert w.at(1).entity(0) is a
    w.despawn(a)
    b = w.spawn(Player)
    w.commit(HISTORY)  # 2: id 0 is b
    assert w.at(1).entity(0) is None  # a is gone; b must not take its hit
    assert w.at(2).entity(0) is b
    assert w.at(1.5).entity(0) is None
    with pytest.raises(KeyError):
        w.at(0).entity(0)


def test_a_client_with_an_interest_holds_its_part_of_what_at_gives() -> None:
    rng = random.Random(11)
    w = World(SCHEMA, rewind=12)
    interest = Interest(w, cell=16.0, positions={Player: "pos", Crate: "at"})
    enc = SnapshotEncoder(w, history=4, interest=interest)
    enc.add_client("ann")
    me = w.spawn(Player, pos=Vector2(0.0, 0.0))
    interest.set_area("ann", radius=40.0)
    interest.follow("ann", me)
    others = [w.spawn(Player, pos=Vector2(rng.uniform(-80, 80), 0.0)) for _ in range(8)]
    client = SnapshotDecoder(SCHEMA, history=64)
    for step in range(16):
        me.pos = Vector2(step * 4.0, 0.0)
        for other in rng.sample(others, 3):
            other.pos = Vector2(rng.uniform(-80, 80), rng.uniform(-8, 8))
        enc.snapshot()
        client.apply(enc.packet_for("ann"))
        enc.ack("ann", client.ack)
    seen_some = False
    for t in range(w.tick - 12, w.tick + 1):
        held = client.states[t]
        assert held == {i: w.at(t)[i] for i in held}
        seen_some |= 0 < len(held) < len(w.at(t))
    assert seen_some  # the interest did hide part of the world


def _step_or(fn: Any, a: Any, b: Any, f: float) -> Any:
    return a if fn is None else fn(a, b, f)
