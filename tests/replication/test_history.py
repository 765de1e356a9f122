"""An entity's history held by its world's table (``_history.py``, ``_table.h``): the compiled
commit moves each history it can hold into a C ring (``_net_hist`` None), every reader gets
the entries the pure commit would have made, and whatever the ring cannot hold, or a
despawn, or the pure commit gives the history back to a list."""

from __future__ import annotations

import gc
import random
import tracemalloc
import weakref
from typing import Any

import pytest

from gdvariant.replication import World, _assembler, _pyassemble
from gdvariant.replication._history import changed_since, entries, owned
from tests.support.assemblers import compiled
from tests.support.replication_worlds import ASSEMBLER_SCHEMA, Big, Crate, Forty, Mob


def table_world() -> World:
    """A world whose histories the compiled commit keeps in a table, whichever assembler is
    live (under ``GDVARIANT_PURE_PYTHON`` a world gets none by itself)."""
    world = World(ASSEMBLER_SCHEMA)
    world.history_table = compiled().Table()
    return world


def commit_one(module: Any, world: World, ent: Any, tick: int, oldest: int, before: Any) -> None:
    """Commit one write of ``ent`` at ``tick`` (``before``: its bits before, by index)."""
    ent._net_dirty = sum(1 << i for i in before)
    ent._net_before = dict(before)
    module.commit(world, [ent], tick, oldest)


@pytest.mark.parametrize("seed", range(4))
def test_the_ring_holds_what_the_pure_commit_writes(seed: int) -> None:
    """Random commits of every class (masks past 64 bits included) into a ring and into a
    list give the same entries, the oldest dropped alike, and the same properties changed
    since a tick; the ring's copy is made per call."""
    fast = compiled()
    world, ref = table_world(), World(ASSEMBLER_SCHEMA)
    classes = [Crate, Forty, Big]
    rng = random.Random(seed)
    pairs = [(world.spawn(cls), ref.spawn(cls)) for cls in classes for _ in range(3)]
    for tick in range(1, 40):
        for ent, twin in rng.sample(pairs, 5):
            count = len(ent._net_layout.props)
            before = {i: rng.getrandbits(rng.choice([1, 20, 63])) for i in
                      rng.sample(range(count), rng.randrange(1, min(count, 9)))}  # fmt: skip
            oldest = tick - rng.choice([2, 8, 40])
            commit_one(fast, world, ent, tick, oldest, before)
            commit_one(_pyassemble, ref, twin, tick, oldest, before)
        for ent, twin in pairs:
            assert entries(ent) == entries(twin)
            after = tick - rng.randrange(6)
            assert changed_since(ent, after) == changed_since(twin, after)
    held = [ent for ent, _ in pairs if ent._net_hist is None]
    assert len(held) == len(pairs)
    copy = entries(held[0])
    copy.clear()
    assert entries(held[0]) and held[0]._net_hist is None


def test_bits_the_ring_cannot_hold_give_the_history_back_to_a_list() -> None:
    """Bits before past 63 bits (a string's, say) or not an int: the history becomes a list
    with the same entries, for good, and later commits write it as the pure commit does."""
    fast = compiled()
    world, ref = table_world(), World(ASSEMBLER_SCHEMA)
    ent, twin = world.spawn(Crate), ref.spawn(Crate)
    writes = [{0: 1}, {0: 2}, {1: 1 << 70}, {0: 3}, {0: 4}]
    for tick, before in enumerate(writes, 1):
        commit_one(fast, world, ent, tick, tick - 3, before)
        commit_one(_pyassemble, ref, twin, tick, tick - 3, before)
        assert entries(ent) == entries(twin)
        assert (ent._net_hist is None) == (tick < 3)
    other = world.spawn(Crate)
    odd: list[dict[int, Any]] = [{0: 1}, {1: "abc"}]
    for tick, before in enumerate(odd, 6):
        commit_one(fast, world, other, tick, 0, before)
    assert entries(other) == [(6, 1, (1,), None), (7, 2, ("abc",), None)]
    assert isinstance(other._net_hist, list)


@pytest.mark.parametrize(
    ("mask", "before", "error"),
    [
        (0b1, {}, RuntimeError),
        (0b1, {0: 1, 1: 2}, RuntimeError),
        (0b11, {0: 1, 5: 2}, KeyError),
    ],
)
def test_a_bad_commit_of_a_held_history_is_the_pure_ones_error(
    mask: int, before: dict[int, int], error: type[Exception]
) -> None:
    """Bits before that do not match the changed mask: the pure commit's error, and the
    history as it was (a list from then on)."""
    fast = compiled()
    world = table_world()
    ent = world.spawn(Crate)
    commit_one(fast, world, ent, 1, 0, {0: 9})
    assert ent._net_hist is None
    kept = entries(ent)
    ent._net_dirty, ent._net_before = mask, before
    with pytest.raises(error):
        fast.commit(world, [ent], 2, 0)
    assert entries(ent) == kept == [(1, 1, (9,), None)]


def test_a_bad_commit_into_a_full_ring_leaves_its_oldest_entry() -> None:
    """A ring holding as many entries as its history spans, whose next entry would go where
    the oldest is dropped from: bits before it cannot hold give back every entry as it was."""
    fast = compiled()
    world, ref = table_world(), World(ASSEMBLER_SCHEMA)
    ent, twin = world.spawn(Crate), ref.spawn(Crate)
    for tick in range(1, 40):
        commit_one(fast, world, ent, tick, tick - 8, {0: tick})
        commit_one(_pyassemble, ref, twin, tick, tick - 8, {0: tick})
    for module, e, w in ((fast, ent, world), (_pyassemble, twin, ref)):
        commit_one(module, w, e, 40, 32, {0: 1, 1: 1 << 70})
    assert isinstance(ent._net_hist, list) and entries(ent) == entries(twin)
    assert [change[0] for change in entries(ent)] == list(range(33, 41))


def test_a_ring_holds_no_more_than_its_history_spans() -> None:
    """A history of the last 32 ticks takes a ring of 32 entries, not the next power of two
    past them (64): the memory of a world of many entities."""
    fast = compiled()
    world = table_world()
    ents = [world.spawn(Crate) for _ in range(300)]
    for tick in range(1, 20):
        for ent in ents:
            commit_one(fast, world, ent, tick, tick - 32, {0: tick})
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for tick in range(20, 80):
            for ent in ents:
                commit_one(fast, world, ent, tick, tick - 32, {0: tick})
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    entry = 8 * (2 + len(ents[0]._net_layout.props))  # its tick, its mask, the bits before
    assert all(e._net_hist is None for e in ents)
    assert grown < len(ents) * 32 * entry, grown  # less than one more ring of 32 entries each


def test_a_despawn_gives_the_history_back_and_frees_the_id() -> None:
    """A despawned entity keeps its history as a list (the rewind's record reads it); a new
    entity given its id in the same tick starts a ring of its own."""
    fast = compiled()
    world = table_world()
    ent = world.spawn(Crate)
    world.commit(8)
    ent.weight = 3
    with _assembler.use(_assembler.COMPILED):
        world.commit(8)
    assert ent._net_hist is None
    held = entries(ent)
    world.despawn(ent)
    assert ent._net_hist == held and len(held) == 1
    assert world.history_table.entries(ent.net_id) is None
    new = world.spawn(Crate)
    assert new.net_id == ent.net_id
    new.weight = 5
    fast.commit(world, [new], 3, 0)
    assert entries(new) == [(3, 1, (0,), None)] and ent._net_hist == held


def test_the_pure_commit_takes_the_history_back() -> None:
    """The pure commit writes a list: it takes a held history back first (``owned``), and the
    compiled commit after it holds it again, the entries those of the pure commit alone."""
    fast = compiled()
    world, ref = table_world(), World(ASSEMBLER_SCHEMA)
    ent, twin = world.spawn(Crate), ref.spawn(Crate)
    for tick in range(1, 9):
        module = fast if tick % 3 else _pyassemble
        commit_one(module, world, ent, tick, tick - 4, {0: tick})
        commit_one(_pyassemble, ref, twin, tick, tick - 4, {0: tick})
        assert (ent._net_hist is None) == (module is fast)
        assert entries(ent) == entries(twin)
    hist = owned(ent)
    assert ent._net_hist is hist and world.history_table.entries(ent.net_id) is None


def test_the_history_cannot_change_while_packets_are_made() -> None:
    """A callback that runs while the compiled assembler reads the rings (a budget's weight)
    cannot commit or despawn: the rings stay where the walk reads them."""
    fast = compiled()
    world = table_world()
    ents = [world.spawn(Mob) for _ in range(3)]
    for ent in ents:
        ent.hp = 4
    fast.commit(world, list(world.dirty), 1, 0)
    world.dirty.clear()
    ids = [e.net_id for e in ents]
    entities = {e.net_id: e for e in ents}
    hot = {ents[0]._net_layout: 1}

    def weigh(ent: Any) -> float:
        ent.hp = 5
        fast.commit(world, [ent], 2, 0)
        return 1.0

    args: tuple[Any, ...] = (2, 0, ids, entities, {}, {}, {}, hot, None, weigh, None)
    with pytest.raises(RuntimeError, match="changed while its packets were made"):
        fast.rank(*args)
    assert fast.rank(*args[:9], None, None) == ids


def test_a_commit_started_from_inside_a_commit_is_an_error() -> None:
    """Python code the compiled commit runs (here a dirty mask's ``__index__``) cannot commit
    the world again: the rings being written would move under the commit (the table grown
    for enough new entities). That commit is a clear error, and the outer one goes on."""
    fast = compiled()
    world = table_world()
    ent = world.spawn(Mob)
    commit_one(fast, world, ent, 1, 0, {0: 1})
    crowd = [world.spawn(Mob) for _ in range(300)]  # past the table's first 64 slots
    refused: list[str] = []

    class Mask:
        def __index__(self) -> int:
            try:
                for other in crowd:
                    commit_one(fast, world, other, 2, 0, {0: 1})
            except RuntimeError as exc:
                refused.append(str(exc))
            return 1

    ent._net_dirty = Mask()
    ent._net_before = {0: 2}
    fast.commit(world, [ent], 2, 0)
    assert refused == ["a world's history changed while its packets were made or its commit ran"]
    assert all(other._net_hist == [] for other in crowd)
    assert [entry[:3] for entry in entries(ent)] == [(1, 1, (1,)), (2, 1, (2,))]


def test_a_world_and_its_table_are_collected() -> None:
    """The table holds its entities, which hold their world, which holds the table: the
    collector frees all of them."""
    fast = compiled()
    world = table_world()
    ent = world.spawn(Crate)
    commit_one(fast, world, ent, 1, 0, {0: 1})
    assert ent._net_hist is None
    gone = weakref.ref(ent)
    del world, ent
    gc.collect()
    assert gone() is None


def test_an_id_past_the_tables_slots_keeps_a_list() -> None:
    """A world's ids are dense; one past 4M (a world of millions) keeps its history in a list
    instead of growing the table's slots, and commits and reads as any list."""
    fast = compiled()
    world, ref = table_world(), World(ASSEMBLER_SCHEMA)
    world._next = ref._next = 1 << 22
    ent, twin = world.spawn(Crate), ref.spawn(Crate)
    for tick in range(1, 4):
        commit_one(fast, world, ent, tick, 0, {0: tick})
        commit_one(_pyassemble, ref, twin, tick, 0, {0: tick})
    assert isinstance(ent._net_hist, list) and entries(ent) == entries(twin)
