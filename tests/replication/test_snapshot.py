"""Snapshots and deltas: packets by hand, random worlds with loss and lagging acks, and
malformed packets that must fail cleanly."""

from __future__ import annotations

import random
from typing import Any

import pytest

import gdvariant
from gdvariant import DecodeError, GodotError
from gdvariant.replication import (
    AckError,
    Array,
    Bool,
    Embed,
    Enum,
    NetClass,
    Prop,
    Quant,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    Str,
    UInt,
    Vec3,
    World,
)
from tests.support.replication_worlds import Mob, Mood, set_path

pytestmark = pytest.mark.usefixtures("assembler")  # every test on each packet assembler


class P(NetClass):
    x = UInt(4)
    y = Bool()


DELTAS = 4  # flag bit 2: shared update records carry value deltas (wire doc §5.1)


def header(flags: int, tick: int, base: int, shared: int, private: int = 0) -> bytes:
    return (
        bytes([2, flags])  # version 2 (wire doc §2)
        + tick.to_bytes(4, "little")
        + base.to_bytes(4, "little")
        + shared.to_bytes(4, "little")
        + private.to_bytes(4, "little")
    )


def stamped(schema: Schema, flags: int, tick: int, base: int, shared: int) -> bytes:
    """The header of an encoder's default packet: flag bit 0 and the fingerprint follow."""
    return header(flags | 1, tick, base, shared) + schema.fingerprint


def test_packets_by_hand() -> None:
    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world)
    enc.add_client("c")
    ent = world.spawn(P, x=5, y=True)
    assert enc.snapshot() == 1
    # Enter record: op 01, gap bit 0, (no class id: one class), selector 0 (mask: a gap list
    # would cost 1 + 2 * 2 = 5 bits, not under N = 2), mask 11, x = 0101, y = 1.
    # Bits from 0: 1 0 0 0 1 1 1 0 | 1 0 1 -> 0x71 0x05.
    first = enc.packet_for("c")
    assert first == stamped(schema, 2 | DELTAS, 1, 0, 1) + bytes([0x71, 0x05])
    dec = SnapshotDecoder(schema)
    assert dec.apply(first) == 1
    assert dec.state[0].values == {"x": 5, "y": True}
    enc.ack("c", dec.ack)

    ent.y = False
    enc.snapshot()
    # Update record: op 00, gap 0, selector 0, mask 10 (index 1), y = 0 -> bit 5 only.
    second = enc.packet_for("c")
    assert second == stamped(schema, DELTAS, 2, 1, 1) + bytes([0x20])
    dec.apply(second)
    assert dec.state[0].values == {"x": 5, "y": False}
    enc.ack("c", 2)

    world.despawn(ent)
    enc.snapshot()
    # Delete record: op 10, gap 0.
    assert enc.packet_for("c") == stamped(schema, DELTAS, 3, 2, 1) + bytes([0x02])
    dec.apply(enc.packet_for("c"))
    assert dec.state == {}


def test_explain_packet() -> None:
    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world)
    enc.add_client("c")
    ent = world.spawn(P, x=5, y=True)
    enc.snapshot()
    dec = SnapshotDecoder(schema)
    full = enc.packet_for("c")
    # The record of test_packets_by_hand: x is 4 bits, y 1 bit.
    assert dec.explain(full).splitlines() == [
        "tick 1, full update, fingerprint stamp, value deltas: 1 shared + 0 private records, "
        "28 bytes",
        "  byte 26 (shared): enter entity 0 (P)",
        "    [0] x = 5 (4 bits)",
        "    [1] y = True (1 bits)",
    ]
    assert dec.states == {}  # explaining stores nothing
    dec.apply(full)
    enc.ack("c", 1)
    world.despawn(ent)
    enc.snapshot()
    assert dec.explain(enc.packet_for("c")).splitlines() == [
        "tick 2, delta from tick 1, fingerprint stamp, value deltas: 1 shared + 0 private "
        "records, 27 bytes",
        "  byte 26: delete entity 0",
    ]


def test_whole_values_without_value_deltas() -> None:
    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world, value_deltas=False)
    enc.add_client("c")
    ent = world.spawn(P, x=5)
    enc.snapshot()
    dec = SnapshotDecoder(schema)
    dec.apply(enc.packet_for("c"))
    enc.ack("c", 1)
    ent.x = 6
    enc.snapshot()
    # No flag bit 2; update record: op 00, gap 0, selector 0, mask 01, x = 0110 (whole).
    packet = enc.packet_for("c")
    assert packet == stamped(schema, 0, 2, 1, 1) + bytes([0x90, 0x01])
    dec.apply(packet)
    assert dec.state[0].values == {"x": 6, "y": False}


def test_entity_id_gaps_by_hand() -> None:
    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world)
    enc.add_client(0)
    ents = [world.spawn(P) for _ in range(20)]
    enc.snapshot()
    enc.packet_for(0)
    enc.ack(0, 1)
    ents[19].x = 1
    enc.snapshot()
    # Update of entity 19 after id -1: gap 19 -> code 1, size class 1 (8 bits), 19.
    # Bits: op 00, 1, 10 (class 1... LSB first: 1 then 0), 19 in 8 bits, selector 0,
    # mask 01, then x as a value delta (wire doc §5.1): 0 -> 1 is d = 1; the ordinal has
    # W = 4 bits, so the tiers are 1, 2, 3 bits (offsets 1, 2, 4) and d = 1 is past the
    # first's -1..0: 1, 0, then z = 1 + 2 = 3 in 2 bits.
    acc, n = 0, 0
    steps = [(0, 2), (1, 1), (1, 2), (19, 8), (0, 1), (0b01, 2), (1, 1), (0, 1), (3, 2)]
    for value, width in steps:
        acc |= value << n
        n += width
    assert enc.packet_for(0) == stamped(schema, DELTAS, 2, 1, 1) + acc.to_bytes(3, "little")


class Wide(NetClass):
    a = UInt(3)
    rest = Prop(Quant(0.0, 1.0, 4))
    more = Str(4)
    extra = UInt(40)


def test_gap_list_when_cheaper() -> None:
    class Many(NetClass):
        v = Array(UInt(2), size=40, per_element=True)

    schema = Schema.build([Many])
    world = World(schema)
    enc = SnapshotEncoder(world)
    enc.add_client(0)
    ent = world.spawn(Many)
    enc.snapshot()
    enc.packet_for(0)
    enc.ack(0, 1)
    ent.v[37] = 3
    enc.snapshot()
    # op 00, gap 0, selector 1, entry 1 + gap 37 in 6 bits, closing 0, value 11.
    acc, n = 0, 0
    for value, width in [(0, 2), (0, 1), (1, 1), (1, 1), (37, 6), (0, 1), (3, 2)]:
        acc |= value << n
        n += width
    assert enc.packet_for(0) == stamped(schema, DELTAS, 2, 1, 1) + acc.to_bytes(2, "little")
    dec = SnapshotDecoder(schema)
    enc.clients[0].acked = 0
    dec.apply(enc.packet_for(0))
    assert dec.state[0].values["v[37]"] == 3


class Body(NetClass):
    origin = Prop(Vec3(Quant(-100.0, 100.0, 12, clamp=True)), hot=True)  # 120 clamps to 100
    hp = UInt(7)
    tag = Str(6)


class Secret(NetClass, abstract=True):
    gold = UInt(10)
    plan = Str(4)


class Hero(Body):
    mine = Embed(Secret, audience="owner")
    squad = Embed(Secret, audience="team")
    vip = Embed(Secret, audience="vip")


def random_value(path: str, rng: random.Random) -> Any:
    if path == "origin":
        return (rng.uniform(-120, 120), rng.uniform(-100, 100), rng.uniform(-1, 1))
    if path.endswith(("tag", "plan")):
        return "".join(rng.choice("xyz") for _ in range(rng.randrange(4)))
    if path.endswith("gold"):
        return rng.randrange(1024)
    return rng.randrange(128)


@pytest.mark.parametrize("seed", range(8))
def test_random_world_with_loss_and_lagging_acks(seed: int) -> None:
    rng = random.Random(seed)
    schema = Schema.build([Body, Hero])
    world = World(schema)
    enc = SnapshotEncoder(
        world,
        history=6,
        audiences={"vip": lambda e, c: c.client_id == "boss"},
        stamp=seed % 2 == 0,
        value_deltas=seed % 4 < 2,
    )
    clients = {"boss": 1, "ann": 1, "bob": 2}
    decoders = {cid: SnapshotDecoder(schema, history=6) for cid in clients}
    for cid, team in clients.items():
        enc.add_client(cid, team=team)
    pending: dict[str, list[int]] = {cid: [] for cid in clients}
    live: list[Any] = []
    checked = 0
    for _ in range(120):
        for _ in range(rng.randrange(3)):
            if rng.random() < 0.5 or not live:
                cls = rng.choice([Body, Hero])
                kwargs = {"net_owner": rng.choice(list(clients)), "net_team": rng.choice([1, 2])}
                live.append(world.spawn(cls, **kwargs, hp=rng.randrange(128)))
            else:
                world.despawn(live.pop(rng.randrange(len(live))))
        # Entities and clients change audiences: the sections they leave are forgotten.
        for ent in live:
            if rng.random() < 0.05:
                ent.net_owner = rng.choice([*clients, None])
            if rng.random() < 0.03:
                ent.net_team = rng.choice([1, 2])
        if rng.random() < 0.05:
            enc.clients[rng.choice(list(clients))].team = rng.choice([1, 2])
        for ent in live:
            for p in schema.flat(type(ent)):
                if rng.random() < 0.1:
                    set_path(ent, p.path, random_value(p.path.split(".")[-1], rng))
        tick = enc.snapshot()
        packets = enc.packets()
        for cid, dec in decoders.items():
            if rng.random() < 0.8:  # 20% loss
                dec.apply(packets[cid])
                pending[cid].append(dec.ack)
            # acks arrive late (0-3 ticks) and some are lost
            while pending[cid] and rng.random() < 0.6:
                acked = pending[cid].pop(0)
                if rng.random() < 0.9:
                    enc.ack(cid, acked)
            if dec.tick == tick:
                assert dec.state == enc.expected_state(cid)
                checked += 1
    assert checked > 150


def test_owner_team_and_custom_audiences_are_culled() -> None:
    schema = Schema.build([Hero])
    world = World(schema)
    enc = SnapshotEncoder(world, audiences={"vip": lambda e, c: c.client_id == "boss"})
    for cid, team in [("boss", 1), ("ann", 1), ("bob", 2)]:
        enc.add_client(cid, team=team)
    hero = world.spawn(Hero, net_owner="ann", net_team=1)
    hero.mine.gold = 1
    hero.squad.gold = 2
    hero.vip.gold = 3
    enc.snapshot()
    seen = {}
    for cid in ("boss", "ann", "bob"):
        dec = SnapshotDecoder(schema)
        dec.apply(enc.packet_for(cid))
        v = dec.state[0].values
        seen[cid] = (v["mine.gold"], v["squad.gold"], v["vip.gold"])
    assert seen == {"boss": (0, 2, 3), "ann": (1, 2, 0), "bob": (0, 0, 0)}


def _run_tick(enc: SnapshotEncoder, decoders: dict[Any, SnapshotDecoder]) -> None:
    """Close a tick; every client applies its packet and acks it."""
    enc.snapshot()
    for cid, packet in enc.packets().items():
        decoders[cid].apply(packet)
        enc.ack(cid, decoders[cid].ack)


def test_an_owner_change_moves_the_owner_section() -> None:
    """The new owner gets the owner-only values, the old one has them reset to their
    baselines, and later owner-only changes go to the new owner only."""
    schema = Schema.build([Hero])
    world = World(schema)
    enc = SnapshotEncoder(world, audiences={"vip": lambda e, c: False})
    decoders = {cid: SnapshotDecoder(schema) for cid in ("ann", "bob", "cy")}
    for cid in decoders:
        enc.add_client(cid, team=1)
    hero = world.spawn(Hero, net_owner="ann", net_team=1)
    hero.mine.gold, hero.mine.plan = 5, "go"
    _run_tick(enc, decoders)

    def mine(cid: str) -> tuple[int, str]:
        values = decoders[cid].state[hero.net_id].values
        return values["mine.gold"], values["mine.plan"]

    assert [mine(cid) for cid in decoders] == [(5, "go"), (0, ""), (0, "")]
    hero.net_owner = "bob"
    _run_tick(enc, decoders)
    assert [mine(cid) for cid in decoders] == [(0, ""), (5, "go"), (0, "")]
    hero.mine.gold = 6
    _run_tick(enc, decoders)
    assert [mine(cid) for cid in decoders] == [(0, ""), (6, "go"), (0, "")]
    hero.net_owner = None
    _run_tick(enc, decoders)
    assert [mine(cid) for cid in decoders] == [(0, ""), (0, ""), (0, "")]
    for cid, dec in decoders.items():
        assert dec.state == enc.expected_state(cid)


def test_a_team_change_of_entity_or_client_moves_the_team_section() -> None:
    schema = Schema.build([Hero])
    world = World(schema)
    enc = SnapshotEncoder(world, audiences={"vip": lambda e, c: False})
    decoders = {cid: SnapshotDecoder(schema) for cid in ("ann", "bob")}
    enc.add_client("ann", team=1)
    enc.add_client("bob", team=2)
    hero = world.spawn(Hero, net_team=1)
    hero.squad.gold = 9
    _run_tick(enc, decoders)

    def squad() -> list[int]:
        return [dec.state[0].values["squad.gold"] for dec in decoders.values()]

    assert squad() == [9, 0]
    hero.net_team = 2
    _run_tick(enc, decoders)
    assert squad() == [0, 9]
    enc.clients["ann"].team = 2
    _run_tick(enc, decoders)
    assert squad() == [9, 9]
    enc.clients["bob"].team = 3
    _run_tick(enc, decoders)
    assert squad() == [9, 0]


def test_a_move_is_resent_until_acknowledged() -> None:
    """A client that lost the packet of the move still forgets the section it left when a
    later packet arrives (its base is older than the move)."""
    schema = Schema.build([Hero])
    world = World(schema)
    enc = SnapshotEncoder(world, audiences={"vip": lambda e, c: False})
    ann = SnapshotDecoder(schema)
    enc.add_client("ann")
    hero = world.spawn(Hero, net_owner="ann")
    hero.mine.gold = 5
    _run_tick(enc, {"ann": ann})
    hero.net_owner = "bob"
    enc.snapshot()
    enc.packet_for("ann")  # lost
    enc.snapshot()
    ann.apply(enc.packet_for("ann"))
    assert ann.state[0].values["mine.gold"] == 0
    assert ann.state == enc.expected_state("ann")


def test_acks_a_client_cannot_have_sent() -> None:
    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world, history=4)
    for cid in ("ann", "bob", "dan"):
        enc.add_client(cid)
    world.spawn(P)
    enc.snapshot()
    enc.packets()  # tick 1 goes to all three
    enc.snapshot()  # tick 2: no packet made
    enc.add_client("cy")
    enc.ack("ann", 1)
    enc.ack("ann", 0)  # holds nothing: ignored
    enc.ack("ann", 1)  # again: ignored
    assert enc.clients["ann"].acked == 1
    with pytest.raises(AckError, match="'eve', which was never added") as info:
        enc.ack("eve", 1)
    assert (info.value.client_id, info.value.tick) == ("eve", 1)
    for cid, tick in [("ann", 2), ("ann", 9), ("cy", 1), ("ann", -1)]:
        with pytest.raises(AckError, match=f"client '{cid}' acked tick {tick}, whose packet"):
            enc.ack(cid, tick)
    assert enc.clients["ann"].acked == 1 and enc.clients["cy"].acked == 0
    enc.remove_client("bob")
    enc.ack("bob", 1)  # a late ack after remove_client: ignored
    enc.add_client("bob")
    enc.ack("bob", 1)  # a late ack of its previous connection: ignored
    enc.add_client("ann")  # added again: starts over, as bob did
    enc.ack("ann", 1)
    assert enc.clients["bob"].acked == enc.clients["ann"].acked == 0
    enc.remove_client("dan")
    for _ in range(6):
        enc.snapshot()
        enc.packets()
    enc.ack("ann", 1)  # older than the history ring: ignored
    assert enc.base_for(enc.clients["ann"]) == 0
    with pytest.raises(AckError, match="never added"):
        enc.ack("dan", 1)  # removed 6 ticks ago, more than the history: unknown again


def test_the_ticks_sent_keep_to_the_history_ring() -> None:
    """A client's ``sent`` holds the ticks of the history ring whose packet was made for it,
    whether the world advanced one tick a snapshot, several (a commit of its own between two),
    or the history changed: after each snapshot, no tick older than the ring's oldest."""
    world = World(Schema.build([P]))
    enc = SnapshotEncoder(world, history=3)
    enc.add_client("ann")
    world.spawn(P)
    made: set[int] = set()
    for step in range(14):
        if step in (4, 9):
            world.commit(enc.history)  # ticks the encoder did not close
        if step == 7:
            enc.history = 6
        if step == 11:
            enc.history = 2
        tick = enc.snapshot()
        made = {t for t in made if t >= tick - enc.history}
        assert enc.clients["ann"].sent == made, step
        if step % 3:
            enc.packets()
            made.add(tick)
    assert made


def test_missing_audience_predicate() -> None:
    world = World(Schema.build([Hero]))
    with pytest.raises(ValueError, match="vip"):
        SnapshotEncoder(world)


def test_old_ack_gets_a_full_update_and_same_acks_share_packets() -> None:
    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world, history=3)
    for cid in range(3):
        enc.add_client(cid)
    ent = world.spawn(P)
    enc.snapshot()
    enc.packets()
    enc.snapshot()
    enc.ack(0, 1)
    enc.ack(1, 1)
    ent.x = 3
    enc.snapshot()
    packets = enc.packets()
    assert packets[0] == packets[1]
    assert packets[0][1] == 1 | DELTAS  # a delta (stamped)
    assert packets[2][1] == 1 | 2 | DELTAS  # full
    for _ in range(3):
        enc.snapshot()
    assert enc.base_for(enc.clients[0]) == 0  # ack 1 fell out of a 3-tick history
    enc.remove_client(2)
    assert set(enc.packets()) == {0, 1}


def test_id_reuse_in_one_tick_is_an_enter() -> None:
    schema = Schema.build([P, Body])
    world = World(schema)
    enc = SnapshotEncoder(world)
    enc.add_client(0)
    dec = SnapshotDecoder(schema)
    old = world.spawn(P, x=9)
    enc.snapshot()
    dec.apply(enc.packet_for(0))
    enc.ack(0, 1)
    world.despawn(old)
    new = world.spawn(Body, hp=5)
    assert new.net_id == old.net_id
    enc.snapshot()
    dec.apply(enc.packet_for(0))
    assert dec.state == enc.expected_state(0)
    assert dec.state[0].class_name == "Body"


def test_decoder_built_from_the_description() -> None:
    schema = Schema.build([Body, Hero])
    world = World(schema)
    enc = SnapshotEncoder(world, audiences={"vip": lambda e, c: True}, stamp=True)
    enc.add_client(0)
    world.spawn(Hero, net_owner=0, hp=3, tag="ab", origin=(1.0, 2.0, 3.0))
    enc.snapshot()
    received = gdvariant.loads(gdvariant.dumps(schema.description))
    remote = Schema.from_description(received)
    assert remote.fingerprint == schema.fingerprint
    dec = SnapshotDecoder(remote)
    dec.apply(enc.packet_for(0))
    assert dec.state == enc.expected_state(0)


def small_world() -> tuple[Schema, bytes, bytes]:
    """A schema, a full packet, and a delta packet from tick 1 to 2."""
    schema = Schema.build([Body, Hero])
    world = World(schema)
    enc = SnapshotEncoder(world, audiences={"vip": lambda e, c: True})
    enc.add_client(0, team=1)
    a = world.spawn(Hero, net_owner=0, net_team=1, hp=3, tag="abc", origin=(5.0, 6.0, 7.0))
    world.spawn(Body, hp=4, tag="zz")
    a.mine.plan = "go"
    enc.snapshot()
    full = enc.packet_for(0)
    enc.ack(0, 1)
    a.hp = 100
    a.squad.gold = 7
    enc.snapshot()
    return schema, full, enc.packet_for(0)


def test_every_truncation_is_a_decode_error_and_changes_nothing() -> None:
    schema, full, delta = small_world()
    for packet, base in ((full, None), (delta, full)):
        for cut in range(len(packet)):
            dec = SnapshotDecoder(schema)
            if base is not None:
                dec.apply(base)
            before = (dict(dec.states), dec.tick)
            with pytest.raises(DecodeError):
                dec.apply(packet[:cut])
            assert (dec.states, dec.tick) == before


def test_truncation_names_entity_and_property() -> None:
    schema, full, _ = small_world()
    dec = SnapshotDecoder(schema)
    with pytest.raises(DecodeError, match=r"entity 0 \(Hero\) property (origin|hp|tag)") as info:
        dec.apply(full[:29])  # 3 bytes past the header and its fingerprint stamp
    assert info.value.code == GodotError.ERR_FILE_EOF
    assert info.value.path.startswith("entity[0].")


def test_corrupt_packets_fail_cleanly() -> None:
    schema, full, delta = small_world()
    rng = random.Random(5)
    outcomes = set()
    for _ in range(400):
        packet = bytearray(rng.choice([full, delta]))
        for _ in range(rng.randrange(1, 4)):
            packet[rng.randrange(26, len(packet))] ^= 1 << rng.randrange(8)
        dec = SnapshotDecoder(schema)
        dec.apply(full)
        before = dict(dec.states)
        try:
            dec.apply(bytes(packet))
            outcomes.add("ok")
        except DecodeError:
            outcomes.add("error")
            assert dec.states == before
    assert outcomes == {"ok", "error"}


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        (lambda p: bytes([1]) + p[1:], "version 1"),  # format 1's packets are not read
        (lambda p: p[:1] + bytes([0x80]) + p[2:], "unknown packet flags"),
        (lambda p: p[:1] + bytes([0]) + p[2:], "disagree"),
        (lambda p: p + b"\x00", "trailing"),
        (lambda p: p[:5], "shorter than"),
    ],
)
def test_bad_headers(patch: Any, message: str) -> None:
    schema, full, _ = small_world()
    with pytest.raises(DecodeError, match=message):
        SnapshotDecoder(schema).apply(patch(full))


def test_more_records_announced_than_present() -> None:
    dec = SnapshotDecoder(Schema.build([P]))
    with pytest.raises(DecodeError, match="truncated before a record"):
        dec.apply(header(2, 1, 0, 2) + bytes([0x71, 0x05]))


def test_delta_from_an_unknown_base() -> None:
    schema, _, delta = small_world()
    with pytest.raises(DecodeError, match="lacks") as info:
        SnapshotDecoder(schema).apply(delta)
    assert info.value.code == GodotError.ERR_UNAVAILABLE


def test_packets_are_stamped_by_default() -> None:
    """A client built from a drifted schema (here y became a UInt(1), which reads the same
    bits as another value) refuses the packet instead of decoding it."""

    class Drifted(NetClass, table="P"):
        x = UInt(4)
        y = UInt(1)

    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world)
    enc.add_client(0)
    world.spawn(P, x=5, y=True)
    enc.snapshot()
    packet = enc.packet_for(0)
    assert packet[1] & 1 and packet[18:26] == schema.fingerprint
    SnapshotDecoder(schema).apply(packet)
    with pytest.raises(DecodeError, match="fingerprint") as info:
        SnapshotDecoder(Schema.build([Drifted])).apply(packet)
    assert info.value.code == GodotError.ERR_INVALID_DATA
    unstamped = SnapshotEncoder(World(schema), stamp=False)
    unstamped.add_client(0)
    unstamped.snapshot()
    assert not unstamped.packet_for(0)[1] & 1


def test_fingerprint_stamp_mismatch() -> None:
    schema = Schema.build([P])
    world = World(schema)
    enc = SnapshotEncoder(world, stamp=True)
    enc.add_client(0)
    world.spawn(P)
    enc.snapshot()
    other = Schema.build([Body])
    with pytest.raises(DecodeError, match="fingerprint"):
        SnapshotDecoder(other).apply(enc.packet_for(0))


def test_records_that_contradict_the_state() -> None:
    schema = Schema.build([P])
    dec = SnapshotDecoder(schema)
    dec.apply(header(2, 1, 0, 0))
    for record, message in [
        (bytes([0x00, 0x00]), "update of entity 0, which this client lacks"),
        (bytes([0x02]), "delete of entity 0"),
        (bytes([0x03]), "record op 3"),
    ]:
        with pytest.raises(DecodeError, match=message):
            dec.apply(header(0, 2, 1, 1) + record)
    with pytest.raises(DecodeError, match="not allowed here"):
        dec.apply(header(0, 2, 1, 0, 1) + bytes([0x01, 0x00]))


def test_unknown_class_id() -> None:
    three = Schema.build([P, Body, Hero])  # class ids in 2 bits; 3 is unused
    dec = SnapshotDecoder(three)
    # op 01, gap 0, class id 11 (3) -> bits 1 0 0 1 1 -> 0x19
    with pytest.raises(DecodeError, match="unknown class id 3"):
        dec.apply(header(2, 1, 0, 1) + bytes([0x19, 0, 0]))


def test_index_past_the_class_in_a_gap_list() -> None:
    schema = Schema.build([P])
    dec = SnapshotDecoder(schema)
    # enter, gap 0, selector 1, entry 1 + gap 1 (index 1), entry 1 + gap 1 (index 3 >= 2)
    acc, n = 0, 0
    for value, width in [(1, 2), (0, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (0, 1)]:
        acc |= value << n
        n += width
    with pytest.raises(DecodeError, match="index 3 is past"):
        dec.apply(header(2, 1, 0, 1) + acc.to_bytes(2, "little"))


def test_every_codec_through_a_packet() -> None:
    schema = Schema.build([Mob])
    world = World(schema)
    enc = SnapshotEncoder(world)
    enc.add_client(0)
    dec = SnapshotDecoder(schema)
    ent = world.spawn(Mob, net_owner=0)  # client 0 also gets the owner's table
    values: dict[str, Any] = {
        "origin": (1.5, -2000.3, 7.0),
        "hp": 100,
        "flag": True,
        "small": -20,
        "zig": -200,
        "count": 2**40,
        "delta": -(2**50),
        "ratio": 0.3,
        "turn": -2.0,
        "yaw": 270.0,
        "facing": (0.2, -0.5, 0.8),
        "spin": (0.1, 0.2, 0.3, 0.9),
        "speed": 12.3,
        "mass": 0.1,
        "exact": 1e300,
        "flat": (1.5, 7.9),
        "color": (0.1, 0.2, 0.3, 1.0),
        "label": "héllo",
        "blob": b"\x00\xff",
        "mood": Mood.SAD,
        "target": 7,
        "extra": {"k": [1, 2.5]},
        "path": (1, 7, 3, 0),
        "trail": ((1.0, 2.0), (9.9, 0.1)),
        "slots": [1, 7, 3],
        "big": 2**39 + 5,
        "wide": -(2**38),
        "mine.gold": 1000,
        "mine.note": "ok",
    }
    for path, value in values.items():
        set_path(ent, path, value)
    enc.snapshot()
    dec.apply(enc.packet_for(0))
    assert dec.state == enc.expected_state(0)
    got = dec.state[0].values
    lay = schema.layout(Mob)
    assert {p.path.split("[")[0] for p in lay.props} == set(values)  # every property set
    for p in lay.props:
        name = p.path.split("[")[0]
        sent = values[name][int(p.path[-2])] if "[" in p.path else values[name]
        assert p.codec.distance(sent, got[p.path]) <= p.codec.error_bound(sent), p.path
    enc.ack(0, 1)
    ent.extra = None
    ent.slots[1] = 0
    enc.snapshot()
    dec.apply(enc.packet_for(0))
    assert dec.state == enc.expected_state(0)


def test_a_bad_value_inside_a_packet_names_the_property() -> None:
    class Tiny(NetClass):
        mood = Enum(Mood)

    dec = SnapshotDecoder(Schema.build([Tiny]))
    # enter, gap 0, selector 0, mask 1, mood position 3 (of 3 members): bits 1 0 0 0 1 1 1
    with pytest.raises(DecodeError, match=r"entity 0 \(Tiny\) property mood") as info:
        dec.apply(header(2, 1, 0, 1) + bytes([0b1110001]))
    assert info.value.path == "entity[0].mood"
    assert dec.states == {}
