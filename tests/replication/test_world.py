"""World: dirty tracking, histories, ids, despawns; and the documented example runs."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from gdvariant import EncodeError
from gdvariant.replication import (
    Array,
    Bool,
    Coord,
    Embed,
    NetClass,
    Prop,
    Quant,
    Schema,
    UInt,
    Vec3,
    World,
)
from gdvariant.replication._history import entries

pytestmark = pytest.mark.usefixtures("assembler")  # every test on each packet assembler


class Inner(NetClass, abstract=True):
    q = Quant(0.0, 1.0, 4)


class Thing(NetClass):
    a = UInt(5)
    b = Prop(Bool(), default=True)
    inner = Embed(Inner)


def world() -> World:
    return World(Schema.build([Thing]))


def test_writes_mark_dirty_only_when_the_bits_change() -> None:
    w = world()
    t = w.spawn(Thing, a=3)
    assert w.commit(8) == 1
    # a is index 0 (it was 0 before); b stays at its default
    assert [change[:3] for change in entries(t)] == [(1, 0b001, (0,))]
    assert w.nondefault(t) == 0b001
    t.a = 3  # same bits
    t.inner.q = 0.01  # quantizes to 0.0, the default
    assert w.dirty == []
    t.inner.q = 0.5
    t.b = False
    assert w.dirty == [t]
    w.commit(8)
    # the bits before in the order of the mask's bits (index 1, then 2), not of the writes
    q_before = w.schema.layout(Thing).base_bits[2]
    assert [change[:3] for change in entries(t)] == [
        (1, 0b001, (0,)),
        (2, 0b110, (1, q_before)),
    ]
    assert w.nondefault(t) == 0b111
    t.b = True
    w.commit(8)
    assert w.nondefault(t) == 0b101  # back at its default


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's dict layout")
def test_the_entities_of_a_class_share_their_attribute_names() -> None:
    """A spawned entity's attributes are set one by one in one order, so CPython keeps their
    names once per class (a split dict, smaller than a copy of it holding names and values):
    the compiled walk's lookups of an entity's ``_net_`` attributes then read one shared table
    of names instead of one table per entity (about 4% of the interest benchmark's tick)."""
    w = world()
    a, b = w.spawn(Thing, a=3), w.spawn(Thing)
    w.commit(8)
    b.a = 2
    w.commit(8)
    for ent in (a, b):
        assert sys.getsizeof(vars(ent)) < sys.getsizeof(dict(vars(ent)))


def test_history_is_trimmed_to_the_ring() -> None:
    w = world()
    t = w.spawn(Thing)
    for i in range(10):
        t.a = i % 2 + 1
        w.commit(3)
    assert [change[0] for change in entries(t)] == [8, 9, 10]
    assert [change[2] for change in entries(t)] == [(1,), (2,), (1,)]


def test_ids_are_reused_lowest_first_and_deletes_remembered() -> None:
    w = world()
    things = [w.spawn(Thing) for _ in range(3)]
    w.commit(4)
    w.despawn(things[1])
    w.despawn(things[0])
    assert w.deleted == {1: [(1, 2)], 0: [(1, 2)]}
    assert w.spawn(Thing).net_id == 0
    assert w.spawn(Thing).net_id == 1
    assert w.spawn(Thing).net_id == 3
    # Deleted at tick 2: a client may hold them while its base can be 1, i.e. until
    # tick 2 + 4 = 6 makes every usable base (>= tick - history) at least 2.
    for _ in range(4):
        w.commit(4)
    assert w.tick == 5
    assert 0 in w.deleted
    w.commit(4)
    assert w.deleted == {}
    with pytest.raises(KeyError):
        w.despawn(things[0])


def test_an_entity_despawned_before_any_commit_leaves_no_trace() -> None:
    w = world()
    t = w.spawn(Thing, a=1)
    w.despawn(t)
    w.commit(4)
    assert w.deleted == {}
    assert w.entities == {}
    t.a = 2  # no longer tracked, no error
    assert w.dirty == []


def test_a_detached_entity_is_checked_but_never_tracked() -> None:
    """``World.detached``: values checked as ``spawn`` checks them, later writes too, and
    nothing of it kept by the world (ids free, no dirty mark, no delete record)."""
    w = world()
    t = w.detached(Thing, a=3, inner={"q": 0.5})
    assert (t.a, t.b, t.inner.q) == (3, True, 0.5)
    t.a = 4
    t.inner.q = 0.25
    assert (t.a, t.inner.q) == (4, 0.25)
    with pytest.raises(EncodeError, match="property a"):
        t.a = 99
    with pytest.raises(EncodeError):
        w.detached(Thing, a=99)
    w.commit(4)
    assert (w.entities, w.dirty, w.deleted) == ({}, [], {})
    assert w.spawn(Thing).net_id == t.net_id  # its id went back to the free list


def test_quantized_view() -> None:
    w = world()
    t = w.spawn(Thing, a=4, inner={"q": 0.52})
    assert w.quantized(t) == {"a": 4, "b": True, "inner.q": 8 / 15}


class Hero(NetClass):
    health = UInt(8)
    spot = Vec3(Coord())
    ammo = Array(UInt(4), size=2, per_element=True)
    inner = Embed(Inner)
    target: Any = None  # kept on the server only: declared, so it may be set
    speed = 3.0  # a plain class attribute an instance may override


def test_unknown_names_are_refused_with_the_closest_one() -> None:
    w = World(Schema.build([Hero]))
    with pytest.raises(TypeError, match=r"Hero has no .*'helth' \(did you mean 'health'\?\)"):
        w.spawn(Hero, helth=50)
    with pytest.raises(TypeError, match=r"Hero has no networked property 'inner\.w'"):
        w.spawn(Hero, inner={"w": 0.5})
    assert w.entities == {} and w.dirty == []
    hero = w.spawn(Hero, health=50, target="ann", speed=4.0)
    assert hero.net_id == 0  # the refused spawns took no id
    with pytest.raises(AttributeError, match=r"Hero has no .*'helth' \(did you mean 'health'\?\)"):
        hero.helth = 60
    with pytest.raises(AttributeError, match=r"Hero has no networked property 'inner\.w'"):
        hero.inner.w = 0.5
    with pytest.raises(AttributeError, match="net_id"):
        hero.net_id = 7
    assert "helth" not in vars(hero) and hero.health == 50
    hero.target, hero.speed, hero.ammo[1] = "bob", 5.0, 3
    hero.inner.q = 1.0
    assert (hero.target, hero.speed, list(hero.ammo), hero.inner.q) == ("bob", 5.0, [0, 3], 1.0)


def test_an_out_of_range_write_names_entity_class_and_property() -> None:
    w = World(Schema.build([Hero]))
    hero = w.spawn(Hero)
    w.spawn(Hero)
    third = w.spawn(Hero)
    for target, name, value, path in [
        (third, "spot", (0.0, 1e9, 0.0), "spot"),
        (third, "health", 256, "health"),
        (third.inner, "q", 1.5, "inner.q"),
    ]:
        with pytest.raises(EncodeError, match=rf"^entity 2 \(Hero\) property {path}: "):
            setattr(target, name, value)
    assert w.quantized(third) == w.quantized(hero)  # nothing was written
    with pytest.raises(EncodeError, match=r"^entity 3 \(Hero\) property spot: .*range"):
        w.spawn(Hero, spot=(-1e9, 0.0, 0.0))
    assert sorted(w.entities) == [0, 1, 2]
    assert w.spawn(Hero).net_id == 3  # the failed spawn gave its id back
