"""World: dirty tracking, histories, ids, despawns; and the documented example runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from assemblers import ASSEMBLERS, live

from gdvariant.replication import Bool, Embed, NetClass, Prop, Quant, Schema, UInt, World


@pytest.fixture(autouse=True, params=ASSEMBLERS)
def assembler(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test here runs on each assembler (pure and compiled), which also commits ticks."""
    with live(request.param):
        yield request.param


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
    assert [change[:3] for change in t._net_hist] == [(1, 0b001, {0: 0})]
    assert w.nondefault(t) == 0b001
    t.a = 3  # same bits
    t.inner.q = 0.01  # quantizes to 0.0, the default
    assert w.dirty == []
    t.inner.q = 0.5
    t.b = False
    assert w.dirty == [t]
    w.commit(8)
    q_before = w.schema.layout(Thing).base_bits[2]
    assert [change[:3] for change in t._net_hist] == [
        (1, 0b001, {0: 0}),
        (2, 0b110, {1: 1, 2: q_before}),
    ]
    assert w.nondefault(t) == 0b111
    t.b = True
    w.commit(8)
    assert w.nondefault(t) == 0b101  # back at its default


def test_history_is_trimmed_to_the_ring() -> None:
    w = world()
    t = w.spawn(Thing)
    for i in range(10):
        t.a = i % 2 + 1
        w.commit(3)
    assert [change[0] for change in t._net_hist] == [8, 9, 10]
    assert [change[2] for change in t._net_hist] == [{0: 1}, {0: 2}, {0: 1}]


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


def test_quantized_view() -> None:
    w = world()
    t = w.spawn(Thing, a=4, inner={"q": 0.52})
    assert w.quantized(t) == {"a": 4, "b": True, "inner.q": 8 / 15}
