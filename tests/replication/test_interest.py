"""Interest management: random worlds of moving entities and clients with packet and ack
loss, each client's decoded world checked at every applied tick against the entities in its
area found by brute force; the work a tick costs counted; bad arguments."""

from __future__ import annotations

import copy
import gc
import math
import random
import types
from typing import Any, cast

import pytest

from gdvariant.replication import (
    Coord,
    Embed,
    EntityState,
    Interest,
    NetClass,
    Prop,
    Quant,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    UInt,
    Vec2,
    Vec3,
    World,
    _assembler,
)
from gdvariant.replication._budget import near_factor
from tests.support.assemblers import live

#: a test with it runs on each packet assembler in turn
ON_EACH_ASSEMBLER = pytest.mark.usefixtures("assembler")

CELL = 10.0
SIZE = 100.0


class Purse(NetClass, abstract=True):
    gold = UInt(8)


class Walker(NetClass):
    pos = Prop(Vec2(Coord(8, 3, clamp=True)), hot=True)
    hp = UInt(7)
    kind = UInt(2)
    mine = Embed(Purse, audience="owner")


class Drone(NetClass):
    pos = Prop(Vec3(Quant(-128.0, 128.0, 14, clamp=True)), hot=True)
    hp = UInt(7)
    kind = UInt(2)
    mine = Embed(Purse, audience="owner")


class Score(NetClass):
    hp = UInt(7)
    kind = UInt(2)


class Runner(NetClass):
    """A walker with nothing restricted (what a budget supports)."""

    pos = Prop(Vec2(Coord(8, 3, clamp=True)), hot=True)
    hp = UInt(7)


def shunned(ent: Any, client: Any) -> bool:
    """The test's game rule: a client never sees entities of kind 3 owned by someone else."""
    return not (ent.kind == 3 and ent.net_owner not in (None, client.client_id))


def brute_force(
    world: World, interest: Interest, areas: dict[Any, tuple[Any, ...]], rule: bool
) -> dict[Any, dict[int, EntityState]]:
    """Each client's expected world, from every entity and every client (no grid)."""
    out: dict[Any, dict[int, EntityState]] = {}
    for cid, (centre, radius, cells, own, flag) in areas.items():
        client = interest.views[cid].client
        state = {}
        for net_id, ent in sorted(world.entities.items()):
            if ent is own or ent is flag:
                seen = True
            else:
                if isinstance(ent, Score):
                    inside = True
                elif centre is None:
                    inside = False
                elif radius is not None:
                    inside = math.dist(tuple(ent.pos), centre) <= radius
                else:
                    inside = all(
                        abs(math.floor(a / CELL) - math.floor(b / CELL)) <= cells
                        for a, b in zip(tuple(ent.pos), centre, strict=True)
                    )
                seen = inside and (not rule or shunned(ent, client))
            if seen:
                values = world.quantized(ent)
                if "mine.gold" in values and ent.net_owner != cid:
                    values["mine.gold"] = 0
                state[net_id] = EntityState(ent._net_layout.name, values)
        out[cid] = state
    return out


def random_point(rng: random.Random, dims: int) -> tuple[float, ...]:
    return tuple(rng.uniform(-SIZE / 2, SIZE / 2) for _ in range(dims))


@ON_EACH_ASSEMBLER
@pytest.mark.parametrize("seed", range(6))
def test_random_worlds_see_exactly_their_areas(seed: int) -> None:
    assert sum(len(packets) for packets in play(seed)) > 400


@pytest.mark.parametrize("seed", range(4))
def test_both_assemblers_make_the_same_packets(seed: int) -> None:
    """The differential test with an interest: the same world on the pure and the compiled
    assembler gives every client the same bytes at every tick, and leaves the interest in
    the same state (work counted, relevance logs, what each view sees and who sees each
    entity, orders included)."""
    pure_states: list[Any] = []
    with live(_assembler.PYTHON):
        pure = play(seed, pure_states)
    states: list[Any] = []
    with live(_assembler.COMPILED):
        assert play(seed, states) == pure
    assert states == pure_states


def interest_state(interest: Interest) -> Any:
    """What an interest holds after an update, orders included (entities by id)."""
    views = {
        cid: (
            view.log_ticks,
            [list(changes.items()) for changes in view.log],
            [(i, ent.net_id) for i, ent in view.relevant.items()],
            view.order,
            view.watched,
        )
        for cid, view in interest.views.items()
    }
    seen = [(i, sorted(s)) for i, s in interest._seen_by.items()]
    return dict(interest.work), copy.deepcopy(views), seen


@pytest.mark.parametrize("seed", range(4))
def test_both_sides_of_the_retest_make_the_same_packets(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The entities touched since the last update are tested against the views not tested
    whole from whichever side walks less: the touched entities' watchers, or the views' cells
    and what they see. Each side alone (both checked against brute force by ``play``) gives
    the same packets."""
    sides = {"views": Interest._retest_from_views, "entities": Interest._retest_from_entities}
    calls: dict[str, int] = {}
    packets = {}
    for side, method in sides.items():

        def forced(
            self: Interest, pending: list[Any], method: Any = method, side: str = side
        ) -> None:
            calls[side] = calls.get(side, 0) + 1
            method(self, pending)

        monkeypatch.setattr(Interest, "_retest_from_views", forced)
        monkeypatch.setattr(Interest, "_retest_from_entities", forced)
        packets[side] = play(seed)
    assert packets["views"] == packets["entities"]
    assert calls["views"] > 20 and calls["entities"] > 20


def play(seed: int, states: list[Any] | None = None) -> list[dict[Any, bytes]]:
    """A random world of 150 ticks with four clients, checked at every applied packet
    against brute force; returns the packets applied, tick by tick (and puts the interest's
    state after each update in ``states``)."""
    rng = random.Random(seed)
    dims = 2 if seed % 2 == 0 else 3
    mover = Walker if dims == 2 else Drone
    rule = seed % 3 != 2
    schema = Schema.build([mover, Score])
    world = World(schema)
    interest = Interest(
        world, cell=CELL, positions={mover: "pos"}, predicate=shunned if rule else None
    )
    enc = SnapshotEncoder(world, history=6, interest=interest, value_deltas=seed % 4 < 2)
    live: list[Any] = []

    def spawn() -> Any:
        cls = mover if rng.random() < 0.9 else Score
        owner = rng.choice([None, "a", "b", "c", "d"])
        ent = world.spawn(cls, net_owner=owner, kind=rng.randrange(4))
        if cls is not Score:
            ent.pos = random_point(rng, dims)
        live.append(ent)
        return ent

    for _ in range(60):
        spawn()
    flag = spawn() if live[-1].__class__ is mover else live[0]
    interest.add_always(flag)
    clients = ["a", "b", "c", "d"]
    areas: dict[Any, tuple[Any, ...]] = {}
    decoders = {}
    pending: dict[Any, list[int]] = {}
    for k, cid in enumerate(clients):
        enc.add_client(cid)
        decoders[cid] = SnapshotDecoder(schema, history=6)
        pending[cid] = []
        own = world.spawn(mover, net_owner=cid, pos=random_point(rng, dims))
        live.append(own)
        radius = rng.uniform(10, 35) if k % 2 == 0 else None
        cells = None if radius is not None else rng.randrange(3)
        interest.set_area(cid, radius=radius, cells=cells)
        if k < 2:
            interest.follow(cid, own)
            interest.add_always(own, cid)
            areas[cid] = (None, radius, cells, own, flag)
        else:
            areas[cid] = (random_point(rng, dims), radius, cells, None, flag)
            interest.set_centre(cid, areas[cid][0])
    applied: list[dict[Any, bytes]] = []
    for _ in range(150):
        for ent in live:
            if isinstance(ent, mover) and rng.random() < 0.5:
                step = [rng.uniform(-3, 3) for _ in range(dims)]
                ent.pos = tuple(
                    min(max(a + d, -SIZE / 2), SIZE / 2)
                    for a, d in zip(tuple(ent.pos), step, strict=True)
                )
            if rng.random() < 0.05:
                ent.hp = rng.randrange(128)
            if rng.random() < 0.03:
                ent.kind = rng.randrange(4)
            if isinstance(ent, mover) and rng.random() < 0.03:
                ent.mine.gold = rng.randrange(256)
        for _ in range(rng.randrange(3)):
            keep = {areas[c][3] for c in clients} | {flag}
            if rng.random() < 0.5:
                spawn()
            else:
                ent = rng.choice(live)
                if ent not in keep:
                    live.remove(ent)
                    world.despawn(ent)
        for cid in clients[2:]:
            centre, radius, cells, own, _ = areas[cid]
            if rng.random() < 0.7:  # the client walks
                centre = tuple(a + rng.uniform(-4, 4) for a in centre)
                interest.set_centre(cid, centre)
            if rng.random() < 0.03:
                radius = rng.uniform(5, 40) if radius is not None else None
                cells = rng.randrange(3) if cells is not None else None
                interest.set_area(cid, radius=radius, cells=cells)
            areas[cid] = (centre, radius, cells, own, flag)
        if rng.random() < 0.05:
            interest.refresh()
        tick = enc.snapshot()
        for view in interest.views.values():  # kept as ids enter and leave
            assert view.order == sorted(view.relevant)
        if states is not None:
            states.append(interest_state(interest))
        packets = enc.packets()
        followed = {
            cid: (tuple(areas[cid][3].pos), *areas[cid][1:]) if areas[cid][3] else areas[cid]
            for cid in clients
        }
        expected = brute_force(world, interest, followed, rule)
        applied.append({})
        for cid, dec in decoders.items():
            if rng.random() < 0.8:  # 20% of the packets lost
                dec.apply(packets[cid])
                pending[cid].append(dec.ack)
                assert dec.tick == tick
                assert dec.state == expected[cid], f"client {cid} at tick {tick}"
                assert interest.relevant(cid) == set(expected[cid])
                applied[-1][cid] = packets[cid]
            while pending[cid] and rng.random() < 0.5:  # acks late, 10% lost
                acked = pending[cid].pop(0)
                if rng.random() < 0.9:
                    enc.ack(cid, acked)
    return applied


@ON_EACH_ASSEMBLER
def test_enter_leave_and_reenter_by_hand() -> None:
    schema = Schema.build([Walker])
    world = World(schema)
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest, stamp=False)
    enc.add_client("a")
    interest.set_area("a", radius=5.0)
    interest.set_centre("a", (0.0, 0.0))
    near = world.spawn(Walker, pos=(1.0, 1.0), hp=9)
    far = world.spawn(Walker, pos=(50.0, 0.0), hp=7)
    dec = SnapshotDecoder(schema)
    enc.snapshot()
    dec.apply(enc.packet_for("a"))
    enc.ack("a", dec.ack)
    assert set(dec.state) == {near.net_id}
    far.pos = (3.0, 0.0)  # walks in: an enter with its whole state
    near.pos = (40.0, 0.0)  # walks out: a delete
    enc.snapshot()
    packet = enc.packet_for("a")
    assert "enter entity 1" in dec.explain(packet)
    assert "delete entity 0" in dec.explain(packet)
    dec.apply(packet)
    assert dec.state[far.net_id].values["hp"] == 7
    assert set(dec.state) == {far.net_id}
    # lost: the next packet, still from the old ack, carries the same enter and delete
    far.hp = 8
    enc.snapshot()
    dec2 = SnapshotDecoder(schema)
    dec2.states = {1: dec.states[1]}
    dec2.tick = 1
    dec2.apply(enc.packet_for("a"))
    assert set(dec2.state) == {far.net_id}
    assert dec2.state[far.net_id].values["hp"] == 8


@ON_EACH_ASSEMBLER
def test_held_since_is_what_the_encoder_reads() -> None:
    """``held_since`` gives what the live assembler's ``relevance`` gives the encoder for a
    base: each id whose relevance changed after it, with whether it was relevant then; none
    with no base (0: a full update, whatever the log holds)."""
    world = World(Schema.build([Walker]))
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    enc.add_client("a")
    interest.set_area("a", radius=5.0)
    interest.set_centre("a", (0.0, 0.0))
    near = world.spawn(Walker, pos=(1.0, 1.0))
    far = world.spawn(Walker, pos=(50.0, 0.0))
    enc.snapshot()  # tick 1: near enters
    far.pos, near.pos = (3.0, 0.0), (40.0, 0.0)
    enc.snapshot()  # tick 2: far enters, near leaves
    assert interest.held_since("a", 1) == {far.net_id: False, near.net_id: True}
    assert interest.held_since("a", 2) == {}
    assert interest.held_since("a", 0) == {}
    view = interest.views["a"]
    for base in range(4):
        got = _assembler.live().relevance(
            view.relevant, view.order, view.log_ticks, view.log, base, None
        )
        assert interest.held_since("a", base) == got[4]
    with pytest.raises(KeyError, match="not a client"):
        interest.held_since("b", 1)


def _record(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, seen: list[Any], key: Any
) -> None:
    """Put ``key(argument)`` of each call of ``owner.name`` (its first argument) in
    ``seen``."""
    method = getattr(owner, name)

    def spy(arg: Any, *more: Any) -> Any:
        seen.append(key(arg))
        return method(arg, *more)

    monkeypatch.setattr(owner, name, spy)


@pytest.mark.parametrize("limits", [{}, {"mtu": 300}], ids=["whole", "mtu"])
def test_clients_are_served_in_the_order_of_their_areas(
    monkeypatch: pytest.MonkeyPatch, limits: dict[str, Any]
) -> None:
    """The interest's update and ``packets()`` take the clients with a centre row by row of
    their centres' cells, each row the other way from the last, those without a centre last:
    neighbours see mostly the same entities, whose memory one leaves in the cache for the
    next (without limits their sections are made in one call, in that order). The packets
    come back in the clients' order, the bytes ``packet_for`` makes for each client alone
    (within an MTU too)."""
    centres = {
        "a": (35.0, 1.0),
        "b": (5.0, 2.0),
        "c": (25.0, 12.0),
        "d": None,
        "e": (-5.0, 15.0),
        "f": (15.0, 3.0),
    }
    # cells of 10: row 0 holds b, f, a (x cells 0, 1, 3), row 1 c and e (2, -1) walked back
    nearby = ["b", "f", "a", "c", "e", "d"]
    made = []
    for by_hand in (False, True):
        world = World(Schema.build([Runner]))
        interest = Interest(world, cell=CELL, positions={Runner: "pos"})
        enc = SnapshotEncoder(world, interest=interest, stamp=False, **limits)
        for cid, centre in centres.items():
            enc.add_client(cid)
            interest.set_area(cid, radius=8.0)
            if centre is not None:
                interest.set_centre(cid, centre)
        for k in range(40):
            world.spawn(Runner, pos=(k - 10.0, k % 20 * 1.0), hp=k)
        assert interest.nearby_order(centres) == nearby
        aimed: list[Any] = []
        _record(monkeypatch, interest, "_aim", aimed, lambda view: view.client.client_id)
        enc.snapshot()
        assert aimed == nearby
        if by_hand:
            made.append({cid: enc.packet_for(cid) for cid in centres})
            continue
        served: list[Any] = []
        _record(monkeypatch, enc, "_begin", served, lambda client: client.client_id)
        made.append(enc.packets())
        assert served == nearby
        assert list(made[0]) == list(centres)
    assert made[0] == made[1]
    assert len(set(made[0].values())) > 3  # the areas see different entities


@ON_EACH_ASSEMBLER
def test_an_area_that_keeps_its_cells_makes_no_new_set_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A view whose centre moves while its area covers the same cells keeps its set of
    watched cells, and no other is made (a new one per moving client and tick was a tenth
    of the benchmark's update); one whose area reaches other cells watches those."""
    world = World(Schema.build([Runner]))
    interest = Interest(world, cell=CELL, positions={Runner: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    enc.add_client("a")
    interest.set_area("a", radius=4.0)
    interest.set_centre("a", (15.0, 15.0))  # the box 11-19 on both axes: cell (1, 1)
    near = world.spawn(Runner, pos=(17.0, 15.0))
    enc.snapshot()
    view = interest.views["a"]
    watched = view.watched
    assert watched == {(), (1, 1)}
    made: list[Any] = []
    _record(monkeypatch, interest, "_area", made, lambda box: box)
    interest.set_centre("a", (14.0, 15.5))  # the box 10-18 by 11.5-19.5: still (1, 1)
    enc.snapshot()
    assert made == [] and view.watched is watched
    assert interest.relevant("a") == {near.net_id}
    interest.set_centre("a", (25.0, 15.0))  # 21-29 by 11-19: cell (2, 1)
    enc.snapshot()
    assert made == [((2, 1), (2, 1))] and view.watched == {(), (2, 1)}
    assert interest.relevant("a") == set()


@ON_EACH_ASSEMBLER
def test_work_grows_with_what_moved_not_with_entities_times_clients() -> None:
    """10,000 entities and 50 stationary clients; then a tick in which 10 entities move:
    the grid and the relevance tests touch only those 10 and the clients near them."""
    rng = random.Random(7)
    schema = Schema.build([Walker])
    world = World(schema)
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    ents = [
        world.spawn(Walker, pos=(rng.uniform(-200, 200), rng.uniform(-200, 200)))
        for _ in range(10_000)
    ]
    for k in range(50):
        enc.add_client(k)
        interest.set_area(k, radius=30.0 if k % 2 else None, cells=None if k % 2 else 2)
        interest.set_centre(k, (rng.uniform(-200, 200), rng.uniform(-200, 200)))
    enc.snapshot()
    enc.packets()
    seen = sum(len(interest.relevant(k)) for k in range(50))
    assert seen > 1000  # each client sees some 150-180 entities
    enc.snapshot()  # a tick where nothing moved: no work at all
    enc.packets()
    before = dict(interest.work)
    enc.snapshot()
    assert interest.work == before
    seen_ids = sorted(set().union(*(interest.relevant(k) for k in range(50))))
    moved = [world.entities[i] for i in rng.sample(seen_ids, 5)] + rng.sample(ents, 5)
    for ent in moved:
        ent.pos = (ent.pos[0] + 15.0, ent.pos[1])
    enc.snapshot()
    enc.packets()
    tests = interest.work["tests"] - before["tests"]
    cells = interest.work["cells"] - before["cells"]
    assert 5 <= tests <= 10 * 10  # each moved entity against the few clients near it
    assert cells <= 10
    # one client moves: it is tested against the entities of its own cells only (its
    # radius's bounding box of 7 x 7 cells holds some 300 of the 10,000)
    before = dict(interest.work)
    interest.set_centre(1, (0.0, 0.0))
    enc.snapshot()
    assert interest.work["tests"] - before["tests"] < 600


@ON_EACH_ASSEMBLER
def test_a_block_of_cells_tests_only_the_cells_gained_and_lost() -> None:
    schema = Schema.build([Walker])
    world = World(schema)
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    for x in range(-50, 50, 2):
        for y in range(-50, 50, 2):
            world.spawn(Walker, pos=(x + 0.5, y + 0.5))
    enc.add_client("a")
    interest.set_area("a", cells=1)
    interest.set_centre("a", (5.0, 5.0))
    enc.snapshot()
    assert len(interest.relevant("a")) == 9 * 25
    before = interest.work["tests"]
    interest.set_centre("a", (15.0, 5.0))  # one cell east: a column of 3 cells in, 3 out
    enc.snapshot()
    assert len(interest.relevant("a")) == 9 * 25
    assert interest.work["tests"] - before <= 9 * 25 + 3 * 25


def test_bad_arguments() -> None:
    schema = Schema.build([Walker, Drone, Score])
    world = World(schema)
    with pytest.raises(ValueError, match="cell must be"):
        Interest(world, cell=0, positions={})
    with pytest.raises(ValueError, match="no networked property"):
        Interest(world, cell=1, positions={Walker: "where"})
    with pytest.raises(ValueError, match="not a Vec2 or Vec3"):
        Interest(world, cell=1, positions={Walker: "hp"})
    with pytest.raises(ValueError, match="mix 2D and 3D"):
        Interest(world, cell=1, positions={Walker: "pos", Drone: "pos"})
    interest = Interest(world, cell=1, positions={Walker: "pos"})
    with pytest.raises(ValueError, match="already feeds"):
        Interest(world, cell=1, positions={Walker: "pos"})
    with pytest.raises(ValueError, match="another world"):
        SnapshotEncoder(World(schema), interest=interest)
    enc = SnapshotEncoder(world, interest=interest)
    with pytest.raises(KeyError, match="not a client"):
        interest.set_centre("x", (0, 0))
    enc.add_client("x")
    with pytest.raises(ValueError, match="not both or neither"):
        interest.set_area("x")
    with pytest.raises(ValueError, match="radius must be"):
        interest.set_area("x", radius=math.nan)
    with pytest.raises(ValueError, match="cells must be"):
        interest.set_area("x", cells=-1)
    with pytest.raises(ValueError, match="over the limit of 65,536"):
        interest.set_area("x", radius=1e9)  # cells of 1 unit: its box would span 2e9 a side
    with pytest.raises(ValueError, match="over the limit"):
        interest.set_area("x", cells=128)
    interest.set_area("x", cells=127)
    with pytest.raises(ValueError, match="a position is 2 numbers"):
        interest.set_centre("x", cast(Any, "ab"))
    with pytest.raises(ValueError, match="2 coordinates"):
        interest.set_centre("x", (0, 0, 0))
    score = world.spawn(Score)
    with pytest.raises(ValueError, match="no position"):
        interest.follow("x", score)
    world.despawn(score)
    with pytest.raises(ValueError, match="not in this interest's world"):
        interest.add_always(score)
    gone = world.spawn(Walker)
    world.despawn(gone)
    with pytest.raises(ValueError, match="not in this interest's world"):
        interest.follow("x", gone)


@ON_EACH_ASSEMBLER
def test_a_followed_entity_that_despawns_leaves_no_area() -> None:
    schema = Schema.build([Walker])
    world = World(schema)
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    enc.add_client("a")
    interest.set_area("a", radius=20.0)
    pawn = world.spawn(Walker, pos=(0.0, 0.0))
    other = world.spawn(Walker, pos=(5.0, 0.0))
    interest.follow("a", pawn)
    dec = SnapshotDecoder(schema)
    enc.snapshot()
    dec.apply(enc.packet_for("a"))
    enc.ack("a", dec.ack)
    assert set(dec.state) == {pawn.net_id, other.net_id}
    world.despawn(pawn)
    enc.snapshot()
    dec.apply(enc.packet_for("a"))
    assert dec.state == {} and interest.relevant("a") == set()


@ON_EACH_ASSEMBLER
def test_refresh_tests_the_predicate_again_after_a_change_it_cannot_see() -> None:
    schema = Schema.build([Walker])
    world = World(schema)
    interest = Interest(
        world,
        cell=CELL,
        positions={Walker: "pos"},
        predicate=lambda e, c: e.kind == c.team,  # the game's rule reads the client's team
    )
    enc = SnapshotEncoder(world, interest=interest)
    enc.add_client("a", team=1)
    interest.set_area("a", radius=50.0)
    interest.set_centre("a", (0.0, 0.0))
    red = world.spawn(Walker, pos=(1.0, 0.0), kind=1)
    blue = world.spawn(Walker, pos=(2.0, 0.0), kind=2)
    dec = SnapshotDecoder(schema)
    enc.snapshot()
    dec.apply(enc.packet_for("a"))
    enc.ack("a", dec.ack)
    assert set(dec.state) == {red.net_id}
    enc.clients["a"].team = 2  # nothing the interest sees: the views stay as they were
    enc.snapshot()
    dec.apply(enc.packet_for("a"))
    enc.ack("a", dec.ack)
    assert set(dec.state) == {red.net_id}
    interest.refresh("a")
    enc.snapshot()
    dec.apply(enc.packet_for("a"))
    assert set(dec.state) == {blue.net_id}


@ON_EACH_ASSEMBLER
def test_a_client_added_again_starts_from_a_full_update_of_its_area() -> None:
    schema = Schema.build([Walker])
    world = World(schema)
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    near = world.spawn(Walker, pos=(1.0, 0.0))
    world.spawn(Walker, pos=(90.0, 0.0))
    enc.add_client("a")
    interest.set_area("a", cells=0)
    interest.set_centre("a", (0.0, 0.0))
    enc.snapshot()
    enc.ack("a", SnapshotDecoder(schema).apply(enc.packet_for("a")))
    enc.remove_client("a")
    enc.add_client("a")
    with pytest.raises(KeyError):
        interest.relevant("b")
    assert interest.relevant("a") == set()  # a new view: no area yet
    interest.set_area("a", cells=0)
    interest.set_centre("a", (0.0, 0.0))
    enc.snapshot()
    dec = SnapshotDecoder(schema)
    packet = enc.packet_for("a")
    assert packet[1] & 2  # full
    dec.apply(packet)
    assert set(dec.state) == {near.net_id}


def test_nearness_is_the_budgets_distance_factor() -> None:
    """``nearness(client)`` gives what the budget's ranking weighs an entity by
    (``near_factor``): 1 at the centre, 1/2 one cell away, 1/(1 + n) n cells away; 1 for an
    entity without a position or a client without a centre."""
    world = World(Schema.build([Walker, Score]))
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    enc.add_client("a")
    interest.set_area("a", radius=50.0)
    here = world.spawn(Walker, pos=(3.0, 4.0))
    cell_away = world.spawn(Walker, pos=(3.0, 4.0 + CELL))
    far = world.spawn(Walker, pos=(3.0 - 3 * CELL, 4.0))
    nowhere = world.spawn(Score)
    enc.snapshot()
    assert near_factor(interest.nearness("a"), here.net_id) == 1.0  # no centre yet
    interest.set_centre("a", (3.0, 4.0))
    enc.snapshot()
    near = interest.nearness("a")
    assert near_factor(near, here.net_id) == 1.0
    assert near_factor(near, cell_away.net_id) == 0.5
    assert near_factor(near, far.net_id) == 0.25
    assert near_factor(near, nowhere.net_id) == 1.0


def test_a_radius_test_is_the_sum_of_squares_in_order() -> None:
    """A moved entity's test against a radius: within it exactly when the squares of the
    coordinate differences, added in order as ``sum()`` adds them, are not over the radius
    squared, whatever the position's type (tuple, list, ints, or a point past the coding's
    range), on the circle and a bit inside or outside it."""
    world = World(Schema.build([Walker, Score]))
    interest = Interest(world, cell=CELL, positions={Walker: "pos"})
    enc = SnapshotEncoder(world, interest=interest)
    enc.add_client("a")
    interest.set_area("a", radius=7.3)
    interest.set_centre("a", (0.1, -0.7))
    ent = world.spawn(Walker, pos=(0.0, 0.0))
    enc.snapshot()
    view = interest.views["a"]
    rng = random.Random(3)
    seen = set()
    for _ in range(3000):
        angle = rng.uniform(0, math.tau)
        reach = 7.3 * rng.choice([1.0, 1 - 1e-16, 1 + 1e-16, rng.uniform(0.5, 1.5)])
        point: Any = [0.1 + reach * math.cos(angle), -0.7 + reach * math.sin(angle)]
        pick = rng.random()
        if pick < 0.1:
            point = [round(x) for x in point]
        elif pick < 0.15:
            point[rng.randrange(2)] = rng.choice([math.inf, -math.inf, 1e300])
        point = tuple(point) if rng.random() < 0.5 else point
        interest._pos[ent.net_id] = point
        apart = sum((a - b) * (a - b) for a, b in zip(point, (0.1, -0.7), strict=True))
        assert interest._test(view, ent) == (not apart > 7.3 * 7.3), point
        seen.add(interest._test(view, ent))
    assert seen == {True, False}


def test_cells_and_blocks_of_cells_in_two_and_three_dimensions() -> None:
    """A position's cell is each coordinate divided by the cell size, rounded down, and 0
    for a coordinate that is not finite, for tuples and lists alike; a block's cells are
    every cell between its corners with the bucket of no position first, x outermost. The
    order of that set decides the order its cells are read in, so the two-dimensional
    shortcut must make the same set in the same order as the general loop."""
    for dims, kind in ((2, Walker), (3, Drone)):
        world = World(Schema.build([kind]))
        interest = Interest(world, cell=CELL, positions={kind: "pos"})
        rng = random.Random(dims)
        for _ in range(500):
            point: list[float] = [rng.uniform(-100, 100) for _ in range(dims)]
            if rng.random() < 0.2:
                point[rng.randrange(dims)] = rng.choice([math.inf, -math.inf, math.nan])
            if rng.random() < 0.2:
                point[0] = rng.randrange(-5, 5) * CELL  # on a cell's edge
            want = tuple(math.floor(x / CELL) if math.isfinite(x) else 0 for x in point)
            assert interest._cell(point) == interest._cell(tuple(point)) == want, point
        lo = tuple(rng.randrange(-3, 3) for _ in range(dims))
        hi = tuple(c + rng.randrange(0, 3) for c in lo)
        block: list[tuple[int, ...]] = [()]
        for a, b in zip(lo, hi, strict=True):
            block = [(*c, k) for c in block for k in range(a, b + 1)]
        cells = interest._area((lo, hi))
        assert list(cells) == list({(), *block})
        assert len(cells) == 1 + math.prod(b - a + 1 for a, b in zip(lo, hi, strict=True))
        assert interest._area(None) == {()}


def _tracked_from(root: Any) -> dict[int, Any]:
    """Every object the cyclic collector tracks that ``root`` reaches (not walking into
    classes, modules and functions, which every world shares), by id."""
    seen: dict[int, Any] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type | types.ModuleType | types.FunctionType):
            continue
        seen[id(obj)] = obj
        stack.extend(gc.get_referents(obj))
    return {key: obj for key, obj in seen.items() if gc.is_tracked(obj)}


def test_a_tick_leaves_the_collector_almost_nothing_new() -> None:
    """With the compiled assembler, a tick in which 300 entities move in view of 8 clients
    adds few objects the cyclic collector tracks to what the encoder holds: not one
    history entry per moved entity, nor a relevance log pair or a set of sent ticks per
    client. Each one that outlives its tick goes to the collector's oldest generation, and
    their number is what brings its full collections (about 60 ms each in the 10,000-entity
    benchmark, every five to ten ticks, docs/replication-interest.md)."""
    rng = random.Random(5)
    with live(_assembler.COMPILED):
        world = World(Schema.build([Walker]))
        interest = Interest(world, cell=CELL, positions={Walker: "pos"})
        enc = SnapshotEncoder(world, history=8, interest=interest)
        ents = [
            world.spawn(Walker, pos=(rng.uniform(0, SIZE), rng.uniform(0, SIZE)))
            for _ in range(300)
        ]
        for k in range(8):
            enc.add_client(k)
            interest.set_area(k, radius=25.0)
            interest.follow(k, ents[k])

        def tick() -> None:
            for ent in ents:
                x, y = ent.pos
                ent.pos = ((x + rng.uniform(-2, 4)) % SIZE, (y + rng.uniform(-2, 4)) % SIZE)
            now = enc.snapshot()
            for k in range(8):
                enc.ack(k, max(now - 1 - k % 3, 0))
            enc.packets()

        for _ in range(12):
            tick()
        gc.collect()
        before = _tracked_from(enc)
        tick()
        gc.collect()  # untracks the tuples of floats the game wrote
        new = [obj for key, obj in _tracked_from(enc).items() if key not in before]
    kinds = sorted(type(obj).__name__ for obj in new)
    assert len(new) < 300 // 6, kinds  # each view's cells and the like; 340 before
