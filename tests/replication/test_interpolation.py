"""Snapshot interpolation (``_interpolation`` and ``SnapshotDecoder.interpolated``): blends
by hand-computed values, the render-time edges, entities entering and leaving, late packets,
and properties over random worlds."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gdvariant import Quaternion, Vector2, Vector3
from gdvariant.replication import (
    Angle,
    Bool,
    Coord,
    Float32,
    Interest,
    NetClass,
    Normal,
    Quant,
    Quat,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    Str,
    UInt,
    Vec2,
    Vec3,
    World,
)
from gdvariant.replication._interpolation import (
    ANGLE,
    ANGLE_VECTOR,
    LINEAR,
    NORMAL,
    QUAT,
    STEP,
    VECTOR,
    blend,
    kind,
    render_pair,
)
from tests.support.replication_driver import Script
from tests.support.replication_worlds import gdscript_schema

SQRT_HALF_F32 = 11863283 / 2**24  # the float32 nearest 1/sqrt(2)


def blended(codec: Any, a: Any, b: Any, w: float) -> Any:
    fn = blend(codec)
    assert fn is not None
    return fn(a, b, w)


# -- one value ------------------------------------------------------------------------------


def test_the_kind_of_each_codec() -> None:
    assert [
        kind(c)
        for c in (
            Quant(0.0, 1.0, 8),
            Coord(),
            Float32(),
            Vec3(Coord()),
            Angle(8),
            Vec2(Angle(8, degrees=True)),
            Normal(),
            Quat(),
            UInt(4),
            Bool(),
            Str(4),
        )
    ] == [LINEAR, LINEAR, LINEAR, VECTOR, ANGLE, ANGLE_VECTOR, NORMAL, QUAT, STEP, STEP, STEP]
    assert blend(UInt(4)) is None


def test_floats_lerp_in_float64() -> None:
    assert blended(Quant(0.0, 8.0, 8), 1.0, 3.0, 0.25) == 1.5
    assert blended(Coord(), -2.0, 2.0, 0.75) == 1.0
    assert blended(Float32(), 0.0, 1.0, 0.1) == 0.1  # float64: not rounded to float32


def test_a_float_that_is_not_finite_or_equal_is_held() -> None:
    f = Float32()
    assert blended(f, math.inf, 1.0, 0.5) == math.inf
    assert blended(f, 1.0, -math.inf, 0.5) == 1.0
    assert math.isnan(blended(f, math.nan, 1.0, 0.5))
    assert blended(f, 2.0, math.nan, 0.5) == 2.0
    kept = blended(f, -0.0, -0.0, 0.5)
    assert kept == 0.0 and math.copysign(1.0, kept) == -1.0  # -0.0 stays -0.0


def test_vectors_lerp_in_float32_as_godot_does() -> None:
    v = Vec2(Float32())
    assert blended(v, Vector2(0.0, 0.0), Vector2(1.0, -2.0), 0.5) == Vector2(0.5, -1.0)
    # w = 0.1 is rounded to the float32 0.100000001490116..., as Godot's Vector2 * float does
    got = blended(v, Vector2(0.0, 0.0), Vector2(1.0, 0.0), 0.1)
    assert got == Vector2(13421773 / 2**27, 0.0) and type(got) is Vector2
    assert blended(v, Vector2(math.inf, 0.0), Vector2(1.0, 1.0), 0.5) == Vector2(math.inf, 0.0)


def test_angles_take_the_shorter_way_and_wrap() -> None:
    deg = Angle(8, degrees=True)  # steps of 1.40625 degrees; 174.375 is 124 of them
    assert blended(deg, 174.375, -174.375, 0.25) == 177.1875
    assert blended(deg, 174.375, -174.375, 0.5) == -180.0  # 180 wraps to -180
    assert blended(deg, 174.375, -174.375, 0.75) == -177.1875
    assert blended(deg, -174.375, 174.375, 0.25) == -177.1875
    assert blended(deg, 10.0, 20.0, 0.5) == 15.0
    # exactly half a turn apart, the turn is negative
    assert blended(deg, -90.0, 90.0, 0.5) == -180.0
    assert blended(deg, 0.0, -180.0, 0.5) == -90.0
    rad = Angle(10)
    assert blended(rad, 3.0, -3.0, 0.5) == pytest.approx(-math.pi, abs=1e-12)
    got = blended(Vec2(Angle(8, degrees=True)), Vector2(174.375, 0.0), Vector2(-174.375, 90.0), 0.5)
    assert got == Vector2(-180.0, 45.0)


def test_a_normal_is_normalised_and_opposite_ones_hold() -> None:
    got = blended(Normal(), Vector3(1.0, 0.0, 0.0), Vector3(0.0, 1.0, 0.0), 0.5)
    assert got == Vector3(SQRT_HALF_F32, SQRT_HALF_F32, 0.0)
    up, down = Vector3(0.0, 0.0, 1.0), Vector3(0.0, 0.0, -1.0)
    assert blended(Normal(), up, down, 0.5) == up


def test_quaternions_nlerp_the_shorter_way_with_a_negative_dot() -> None:
    identity = Quaternion(0.0, 0.0, 0.0, 1.0)
    # 90 degrees about z, with both signs flipped: the same rotation, a dot product of -0.707
    turned = Quaternion(0.0, 0.0, -SQRT_HALF_F32, -SQRT_HALF_F32)
    got = blended(Quat(), identity, turned, 0.5)
    # half-way is 45 degrees about z (nlerp's midpoint is slerp's): sin and cos of 22.5
    want = (0.0, 0.0, math.sin(math.pi / 8), math.cos(math.pi / 8))
    assert type(got) is Quaternion
    assert tuple(got) == pytest.approx(want, abs=2e-7)
    assert blended(Quat(), identity, Quaternion(0.0, 0.0, 0.0, -1.0), 0.3) == identity


def test_render_pair() -> None:
    ticks = [4, 5, 7]
    assert render_pair(ticks, 1.0) == (0, 0, 0.0)
    assert render_pair(ticks, 4.0) == (0, 0, 0.0)
    assert render_pair(ticks, 4.25) == (0, 1, 0.25)
    assert render_pair(ticks, 5.0) == (1, 1, 0.0)
    assert render_pair(ticks, 6.5) == (1, 2, 0.75)
    assert render_pair(ticks, 7.0) == (2, 2, 0.0)
    assert render_pair(ticks, 9.5) == (2, 2, 0.0)
    assert render_pair([3], 2.0) == render_pair([3], 8.0) == (0, 0, 0.0)


# -- the decoder ----------------------------------------------------------------------------


class Walker(NetClass):
    x = Coord(10, 4)
    facing = Angle(8, degrees=True)
    hp = UInt(7)
    up = Bool()


SCHEMA = Schema.build([Walker])


def run(ticks: list[dict[str, Any]], buffer: int = 4) -> tuple[SnapshotDecoder, list[bytes]]:
    """A world that sets, per tick, ``{name: values or None (gone)}`` on walkers by name;
    full packets (no acks), applied in order by a decoder that keeps ``buffer`` ticks."""
    world = World(SCHEMA)
    server = SnapshotEncoder(world)
    server.add_client(0)
    decoder = SnapshotDecoder(SCHEMA, interpolation_buffer=buffer)
    walkers: dict[str, Any] = {}
    packets = []
    for changes in ticks:
        for name, values in changes.items():
            if values is None:
                world.despawn(walkers.pop(name))
                continue
            ent = walkers.get(name) or walkers.setdefault(name, world.spawn(Walker))
            for key, value in values.items():
                setattr(ent, key, value)
        server.snapshot()
        packets.append(server.packet_for(0))
    for packet in packets:
        decoder.apply(packet)
    return decoder, packets


def xs(state: dict[int, Any]) -> dict[int, Any]:
    return {i: e.values["x"] for i, e in sorted(state.items())}


def test_render_times_between_before_and_after_the_kept_ticks() -> None:
    decoder, _ = run([{"a": {"x": 0.0}}, {"a": {"x": 10.0}}, {"a": {"x": 20.0}}])
    assert decoder.buffered_ticks == [1, 2, 3]
    assert xs(decoder.interpolated(0.5)) == {0: 0.0}  # before the oldest: the oldest
    assert xs(decoder.interpolated(1)) == {0: 0.0}
    assert xs(decoder.interpolated(1.5)) == {0: 5.0}
    assert xs(decoder.interpolated(2.25)) == {0: 12.5}
    assert decoder.interpolated(2.0) == decoder.states[2]  # a kept tick: its state exactly
    assert xs(decoder.interpolated(3.0)) == {0: 20.0}
    assert xs(decoder.interpolated(7.5)) == {0: 20.0}  # held, not extrapolated
    assert xs(decoder.interpolated(math.inf)) == {0: 20.0}
    assert xs(decoder.interpolated(-math.inf)) == {0: 0.0}


def test_stepwise_values_keep_the_older_tick_until_the_newer() -> None:
    decoder, _ = run([{"a": {"hp": 5, "up": False}}, {"a": {"hp": 9, "up": True}}])
    assert decoder.interpolated(1.99).get(0).values["hp"] == 5  # type: ignore[union-attr]
    assert decoder.interpolated(1.99)[0].values["up"] is False
    assert decoder.interpolated(2.0)[0].values["hp"] == 9


def test_an_angle_across_the_wrap_in_the_decoder() -> None:
    decoder, _ = run([{"a": {"facing": 174.375}}, {"a": {"facing": -174.375}}])
    assert decoder.interpolated(1.25)[0].values["facing"] == 177.1875
    assert decoder.interpolated(1.75)[0].values["facing"] == -177.1875


def test_entities_enter_at_their_first_state_and_leave_at_once() -> None:
    decoder, _ = run(
        [
            {"a": {"x": 0.0}, "c": {"x": 100.0}},
            {"a": {"x": 4.0}, "b": {"x": 50.0}, "c": {"x": 200.0}},
            {"a": {"x": 8.0}, "b": {"x": 60.0}, "c": None},
        ]
    )
    a, c, b = 0, 1, 2
    assert xs(decoder.interpolated(1.5)) == {a: 2.0, c: 150.0}  # b not yet: no blend from nothing
    assert xs(decoder.interpolated(1.9999)) == {a: 3.9996, c: 199.99}
    assert xs(decoder.interpolated(2.0)) == {a: 4.0, b: 50.0, c: 200.0}  # b at its first state
    # c leaves at tick 3: until then it holds its tick-2 state (no blend towards nothing)
    assert xs(decoder.interpolated(2.5)) == {a: 6.0, b: 55.0, c: 200.0}
    assert xs(decoder.interpolated(3.0)) == {a: 8.0, b: 60.0}


class Unit(NetClass):
    pos = Vec2(Coord(10, 4))


def test_entities_entering_and_leaving_relevance() -> None:
    """With an Interest, an entity walking into a client's area enters at its first state,
    and one walking out is held at its last state until the tick it left at: no blend from
    or to where the client never saw it."""
    world = World(Schema.build([Unit]))
    interest = Interest(world, cell=32.0, positions={Unit: "pos"})
    server = SnapshotEncoder(world, interest=interest)
    server.add_client("ann")
    interest.set_area("ann", radius=100.0)
    interest.set_centre("ann", (0.0, 0.0))
    comer = world.spawn(Unit, pos=(300.0, 0.0))
    goer = world.spawn(Unit, pos=(0.0, 50.0))
    client = SnapshotDecoder(world.schema)
    path = [((300.0, 0.0), (0.0, 50.0)), ((90.0, 0.0), (0.0, 90.0)), ((80.0, 0.0), (0.0, 300.0))]
    for come, go in path:
        comer.pos, goer.pos = come, go
        server.snapshot()
        client.apply(server.packet_for("ann"))
        server.ack("ann", client.ack)
    assert client.buffered_ticks == [1, 2, 3]

    def seen(t: float) -> dict[int, Any]:
        return {i: tuple(e.values["pos"]) for i, e in client.interpolated(t).items()}

    c, g = comer.net_id, goer.net_id
    assert seen(1.5) == {g: (0.0, 70.0)}  # the comer is not there yet
    assert seen(2.0) == {c: (90.0, 0.0), g: (0.0, 90.0)}  # it enters where it entered
    assert seen(2.5) == {c: (85.0, 0.0), g: (0.0, 90.0)}  # the goer is held, not blended out
    assert seen(3.0) == {c: (80.0, 0.0)}


def test_the_ring_keeps_the_newest_ticks_and_places_a_late_one() -> None:
    _, packets = run([{"a": {"x": 0.0}}, {"a": {"x": 10.0}}, {"a": {"x": 20.0}}])
    late = SnapshotDecoder(SCHEMA, interpolation_buffer=3)
    for k in (0, 2, 1):
        late.apply(packets[k])
    assert late.buffered_ticks == [1, 2, 3]
    assert xs(late.interpolated(1.5)) == {0: 5.0}
    short = SnapshotDecoder(SCHEMA, interpolation_buffer=2)
    for k in (0, 2):
        short.apply(packets[k])
    assert short.buffered_ticks == [1, 3]
    assert xs(short.interpolated(2.0)) == {0: 10.0}  # blended across the missing tick
    short.apply(packets[1])
    assert short.buffered_ticks == [2, 3]
    short.apply(packets[0])  # older than every kept tick: in and out again
    assert short.buffered_ticks == [2, 3]
    one = SnapshotDecoder(SCHEMA, interpolation_buffer=1)
    for packet in packets:
        one.apply(packet)
    assert one.buffered_ticks == [3] and xs(one.interpolated(2.5)) == {0: 20.0}


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="interpolation_buffer"):
        SnapshotDecoder(SCHEMA, interpolation_buffer=0)
    with pytest.raises(ValueError, match="interpolation_buffer"):
        SnapshotDecoder(SCHEMA, interpolation_buffer=2.5)  # type: ignore[arg-type]
    decoder = SnapshotDecoder(SCHEMA)
    assert decoder.interpolated(3.5) == {}  # before the first packet
    with pytest.raises(ValueError, match="NaN"):
        decoder.interpolated(math.nan)
    with pytest.raises(TypeError, match="render_tick"):
        decoder.interpolated("1.5")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="render_tick"):
        decoder.interpolated(True)


# -- random worlds --------------------------------------------------------------------------


def _near_between(x: float, y: float, c: float) -> bool:
    """``c`` within [x, y] (either order), give or take a float32 rounding."""
    slack = 2.0**-23 * max(abs(x), abs(y))
    return min(x, y) - slack <= c <= max(x, y) + slack


def _between(codec: Any, a: Any, b: Any, v: Any) -> bool:
    """Whether ``v`` lies on the way from ``a`` to ``b`` (as its kind blends); ``a`` itself
    where it is held (stepwise, equal ends, ends not finite)."""
    k = kind(codec)
    if k == STEP or a == b:
        return v is a
    if k in (LINEAR, VECTOR):
        ends = [a, b] if k == LINEAR else [*a, *b]
        if not all(math.isfinite(c) for c in ends):
            return v is a
        pairs = [(a, b, v)] if k == LINEAR else list(zip(a, b, v, strict=True))
        return all(_near_between(x, y, c) for x, y, c in pairs)
    if k in (ANGLE, ANGLE_VECTOR):
        comp = codec if k == ANGLE else codec.component
        pairs = [(a, b, v)] if k == ANGLE else list(zip(a, b, v, strict=True))
        return all(
            comp.distance(x, c) + comp.distance(c, y) <= comp.distance(x, y) + 1e-4
            for x, y, c in pairs
        )
    return abs(math.sqrt(sum(c * c for c in v)) - 1.0) < 1e-6  # NORMAL, QUAT: unit length


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), buffer=st.integers(1, 5))
def test_random_worlds(seed: int, buffer: int) -> None:
    """Over a random world of every codec (value deltas, lagging acks, some packets late):
    at a kept tick the state of that tick; outside the kept ticks the nearest end; between
    two, the older tick's entities, each value on the way to the newer one's (stepwise ones
    unchanged)."""
    rng = random.Random(seed)
    schema = gdscript_schema()
    world = World(schema)
    server = SnapshotEncoder(world, history=8, value_deltas=True)
    server.add_client(0)
    script = Script(world, rng, size=8)
    decoder = SnapshotDecoder(schema, history=8, interpolation_buffer=buffer)
    packets = []
    for _ in range(24):
        script.step()
        tick = server.snapshot()
        packets.append(server.packet_for(0))
        server.ack(0, max(tick - rng.randrange(2, 5), 0))
    for k in range(1, len(packets) - 1, 5):
        packets[k], packets[k + 1] = packets[k + 1], packets[k]
    for packet in packets:
        decoder.apply(packet)
        ticks = decoder.buffered_ticks
        assert len(ticks) == min(buffer, len(ticks)) and ticks == sorted(ticks)
        assert ticks[-1] == decoder.tick
        for t in ticks:
            assert decoder.interpolated(t) == decoder.states[t]
        assert decoder.interpolated(ticks[0] - rng.random() - 0.01) == decoder.states[ticks[0]]
        assert decoder.interpolated(ticks[-1] + rng.random()) == decoder.state
        for older, newer in itertools.pairwise(ticks):
            between = older + rng.uniform(0.01, 0.99) * (newer - older)
            got = decoder.interpolated(between)
            before, after = decoder.states[older], decoder.states[newer]
            assert got.keys() == before.keys()
            for net_id, ent in got.items():
                was = before[net_id]
                assert ent.class_name == was.class_name
                nxt = after.get(net_id)
                for p in schema.layout(ent.class_name).props:
                    v, a = ent.values[p.path], was.values[p.path]
                    if nxt is None or nxt.class_name != was.class_name:
                        assert v is a
                    else:
                        assert _between(p.codec, a, nxt.values[p.path], v), (p.path, a, v)
