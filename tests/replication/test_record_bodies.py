"""The record bodies a history ring keeps for its entity (``_table.h``'s ``Bodies``): the
compiled walk codes each body (an update's, by the tick of the oldest entry after the base or
by its mask; an enter's) once for the ring and copies it behind every client's head, instead
of keeping records in the entity's ``_net_cache``. A body must never outlive what it was made
from: every section below is the pure assembler's, for bases whose keys come again after a
change (a fixed base keeps the oldest entry after it, so its key, while the values move on)."""

from __future__ import annotations

from typing import Any

import pytest

from gdvariant.replication import World, _assembler, _pyassemble
from tests.support.assemblers import compiled, live
from tests.support.replication_worlds import ASSEMBLER_SCHEMA, Big, Crate, Mob

#: the sections' base lists: a client's own (one base, kept while ticks pass), and a tick's
#: shared sections (several bases, the newest first)
ORDERS = ["one", "several"]


def table_world() -> tuple[World, list[Any]]:
    """A world with a history table, whichever assembler is live, and three entities of a
    class of one mask word, one of a smaller one and one of more than 64 properties."""
    world = World(ASSEMBLER_SCHEMA)
    world.history_table = compiled().Table()
    ents = [world.spawn(Mob), world.spawn(Crate), world.spawn(Mob), world.spawn(Big)]
    with live(_assembler.COMPILED):
        world.commit(32)
        world.commit(32)  # tick 2: the fixed base
    return world, ents


def move(ents: list[Any], tick: int) -> None:
    """A write to every entity: values a ring holds (ints of at most 63 bits)."""
    for ent in ents:
        if isinstance(ent, Mob):
            ent.hp = tick % 100
        elif isinstance(ent, Crate):
            ent.weight = tick % 30
        else:
            ent.plain = tick * 7


def commit(world: World, name: str = _assembler.COMPILED) -> None:
    with live(name):
        world.commit(32)


def check(world: World, deltas: bool, orders: str, entering: set[int] | None = None) -> None:
    """The compiled sections of every live and deleted id are the pure ones, for the bases of
    ``orders`` (the first base fixed at tick 2), and the compiled walk left nothing in the
    record cache of an entity whose history a ring holds (its bodies are the ring's)."""
    fast = compiled()
    plans, bits = _assembler.plans(ASSEMBLER_SCHEMA), ASSEMBLER_SCHEMA.class_bits
    order = [2] if orders == "one" else sorted({world.tick - 1, 2, 0}, reverse=True)
    ids = sorted(world.entities.keys() | world.deleted.keys())
    args = (deltas, world.tick, order, order[-1] or -1, ids, world.entities, world.deleted)
    # (whole values of a mask past one word are still kept in the record cache)
    held = [e for e in world.entities.values() if e._net_hist is None]
    held = [e for e in held if deltas or len(e._net_bits) <= 64]
    kept = [set(e._net_cache) for e in held]  # (the pure one's, of an earlier call)
    got = fast.assemble(*args, plans, bits, entering, None)
    assert [set(e._net_cache) for e in held] == kept
    expected = _pyassemble.assemble(*args, plans, bits, entering, None)
    assert got == expected, f"tick {world.tick}, bases {order}"
    assert sum(count for count, _ in got) >= len(world.entities)


@pytest.mark.parametrize("orders", ORDERS)
@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_a_body_made_before_a_change_is_not_sent_after_it(deltas: bool, orders: str) -> None:
    """Each tick every entity changes the same property (the same mask, the same oldest entry
    after the fixed base: the same key) to a new value: the sections, enters included, are
    made from the new values, the ring's bodies of the tick before gone with its entry."""
    world, ents = table_world()
    for tick in range(3, 10):
        move(ents, tick)
        commit(world)
        assert all(e._net_hist is None for e in ents)
        check(world, deltas, orders)
        check(world, deltas, orders, {ents[0].net_id, ents[3].net_id})
        check(world, deltas, orders)  # the bodies found again


@pytest.mark.parametrize("orders", ORDERS)
@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_a_pure_commit_between_leaves_no_body_behind(deltas: bool, orders: str) -> None:
    """Every third tick the pure commit takes the histories back into lists (the walk then
    reads the record caches), and the compiled commit after it holds them in new rings."""
    world, ents = table_world()
    for tick in range(3, 12):
        move(ents, tick)
        commit(world, _assembler.PYTHON if tick % 3 == 0 else _assembler.COMPILED)
        assert all((e._net_hist is None) == (tick % 3 != 0) for e in ents)
        check(world, deltas, orders)
        check(world, deltas, orders, {ents[1].net_id})


@pytest.mark.parametrize("orders", ORDERS)
@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_an_id_despawned_and_spawned_again_in_one_tick_gets_its_own_bodies(
    deltas: bool, orders: str
) -> None:
    """An entity despawned after its bodies were made, and a new one given its id in the same
    tick, with other values: the new one's records are its own, from its own ring."""
    world, ents = table_world()
    for tick in range(3, 5):
        move(ents, tick)
        commit(world)
        check(world, deltas, orders)
    old = ents[0]
    world.despawn(old)
    new = world.spawn(Mob, hp=77)
    assert new.net_id == old.net_id and isinstance(old._net_hist, list)
    ents[0] = new
    for tick in range(5, 9):
        move(ents[1:], tick)
        new.hp = 50 + tick
        commit(world)
        assert new._net_hist is None
        check(world, deltas, orders)
        check(world, deltas, orders, {new.net_id})


@pytest.mark.parametrize("orders", ORDERS)
@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_a_history_given_back_to_a_list_is_walked_from_the_list(deltas: bool, orders: str) -> None:
    """A write the ring cannot hold (a string's bits before, past 63 bits) gives the history
    back to a list for good: the bodies its ring kept are not read again."""
    world, ents = table_world()
    for tick in range(3, 12):
        move(ents, tick)
        if tick in (6, 7):  # the second write's bits before are the first's string
            ents[0].label = "abcdefghi" if tick == 6 else "zyxwvutsr"
        commit(world)
        assert (ents[0]._net_hist is None) == (tick < 7)
        check(world, deltas, orders)
        check(world, deltas, orders, {ents[0].net_id})
