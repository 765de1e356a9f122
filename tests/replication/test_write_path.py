"""The compiled NetClass write path (``_cwrite``) does what the pure ``__setattr__`` does.

Two copies of the same random world, one written through each path, take the same random
writes: plain properties of every codec (the compiled path encodes float vectors, floats,
ints, bools, Quants, Coords and Angles itself, everything else through the codec), embedded
tables, per-element arrays, ``net_owner``/``net_team``, unknown and reserved names, values each
codec refuses, despawned and unspawned entities, classes with their own ``_net_write`` or
``__setattr__``, and entities whose state was tampered with. After every write both give the
same result (the same error, message included) and the same state: ``_net_vals`` holding the
very objects written, bits, widths, dirty marks, the world's dirty list. Then: the live path
and how it is chosen, what multiplayer's synced classes see, reference leaks, and the
quantized codecs' bits against ``codec.encode`` at their edges.
"""

from __future__ import annotations

import gc
import math
import random
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest

from gdvariant import EncodeError, Vector2, Vector3, Vector4, replication
from gdvariant._compiled import PURE_FORCED
from gdvariant.replication import (
    Angle,
    Bool,
    Codec,
    Coord,
    Float32,
    Float64,
    Half,
    Int,
    NetClass,
    Normal,
    Prop,
    Quant,
    Schema,
    UInt,
    Vec2,
    Vec3,
    Vec4,
    World,
    _write_path,
)
from tests.support.cores import compiled_required
from tests.support.hostile_values import EDGES, hostile_value
from tests.support.replication_worlds import Big, Cargo, Crate, Forty, Mob, random_value


class Ship(NetClass):
    """One property of each kind the compiled path encodes itself, at its edges."""

    pos = Prop(Vec2(Float32()), hot=True)
    far = Vec3(Float64())
    tint = Vec4(Half())
    mass = Float32()
    exact = Float64()
    small = Half()
    hp = Int(64)
    zig = Int(64, zigzag=True)
    tiny = Int(2, zigzag=True)
    id = UInt(64)
    low = UInt(63)
    bit = UInt(1)
    on = Bool()
    speed = Quant(0.0, 10.0, 8, clamp=True)
    depth = Quant(-2.5, 7.0, 32)
    where = Vec2(Coord(10, 4, clamp=True))
    reach = Vec3(Coord(24, 8))  # up to 3 x 35 bits: past a machine word
    lean = Coord(3, 0)
    drift = Vec4(Quant(-8.0, 8.0, 5))
    turn = Angle(8)
    bearing = Vec2(Angle(32, degrees=True))
    wide = Vec2(Quant(-1e39, 1e39, 16))  # past float32: the codec checks each component
    facing = Normal(9)
    crew: int  # kept on the server only


class Logged(Ship):
    """A class with its own _net_write: every write goes through it."""

    def _net_write(self, path: str, value: Any) -> None:
        vars(self).setdefault("log", []).append(path)
        super()._net_write(path, value)


class Guarded(Ship):
    """A class with its own __setattr__ that hands networked writes on."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "crew" and value == 13:
            raise ValueError("unlucky crew")
        super().__setattr__(name, value)


CLASSES: list[type[NetClass]] = [Ship, Logged, Guarded, Mob, Crate, Big, Forty, Cargo]
SCHEMA = Schema.build(CLASSES)


def compiled() -> None:
    """Skip (or fail, when it is required) if the compiled write path is not built."""
    if _write_path.COMPILED not in _write_path.implementations():
        why = _write_path.compiled_error() or "compiled write path not built"
        if compiled_required():
            pytest.fail(f"GDVARIANT_REQUIRE_COMPILED is set but {why}")
        pytest.skip(why)


# ------------------------------------------------------------------ values, names and writes


def a_value(codec: Any, rng: random.Random) -> Any:
    """A value for ``codec``: mostly one it takes (vectors as their type, so the compiled
    path packs them), often one at or past its edges or of the wrong type."""
    if rng.random() < 0.45:
        return hostile_value(codec, rng)
    value = random_value(codec, rng)
    if isinstance(codec, Vec2 | Vec3 | Vec4) and rng.random() < 0.8:
        return codec.make(*value)
    return value


def a_write(ent: Any, rng: random.Random) -> tuple[str, Any, Any]:
    """``(target, name, value)``: what to write on ``ent`` (target "" is the entity itself,
    else the name of its embedded table, or "[]" for a per-element array's element)."""
    lay = ent._net_layout
    prop = rng.choice(lay.props)
    value = a_value(prop.codec, rng)
    kind = rng.randrange(20)
    if kind == 0:
        return "", rng.choice(["net_owner", "net_team"]), rng.choice([None, 1, 2, 1.0])
    if kind == 1:
        return "", rng.choice(["nope", "net_id", "_net_extra", "crew", "pos ", 3]), value
    if kind == 2:  # another property's value
        return "", rng.choice(lay.props).path.split(".")[0].split("[")[0], value
    if kind == 3 and prop.index:  # the value it holds: no change
        return "", prop.path, ent._net_vals[prop.index]
    if "." in prop.path:
        table, name = prop.path.split(".")
        return table, name, value
    if "[" in prop.path:
        return "[]", prop.path, value
    return "", prop.path, value


def apply(ent: Any, write: tuple[str, str, Any]) -> Any:
    """Make ``write`` on ``ent``: None, or the error it raised as ``(type, message,
    cause, context suppressed)``."""
    target, name, value = write
    try:
        if target == "[]":
            array, index = name[:-1].split("[")
            getattr(ent, array)[int(index)] = value
        elif target:
            setattr(getattr(ent, target), name, value)
        else:
            setattr(ent, name, value)
    except Exception as exc:
        return (type(exc), str(exc), type(exc.__cause__), exc.__suppress_context__)
    return None


def state(world: World, ents: list[Any]) -> list[Any]:
    """Everything a write may change, comparable across two worlds that share the written
    objects (so ``_net_vals`` is compared by identity)."""
    where = {id(e): k for k, e in enumerate(ents)}
    out: list[Any] = [[where.get(id(e), -1) for e in world.dirty]]
    for ent in ents:
        d = vars(ent)
        plain = {k: v for k, v in d.items() if k not in ("_net_root", "_net_world")}
        plain["_net_vals"] = [id(v) for v in d.get("_net_vals", ())]
        plain["_net_layout"] = id(d.get("_net_layout"))
        plain["_net_index"] = id(d.get("_net_index"))
        plain["_net_cache"] = None
        plain["net_owner"], plain["net_team"] = id(d.get("net_owner")), id(d.get("net_team"))
        alive = d.get("_net_world") is world
        out.append((sorted(d), plain, alive, d.get("_net_root") is ent))
    return out


@contextmanager
def path(name: str) -> Iterator[None]:
    with _write_path.use(name):
        yield


class Twin:
    """One world written through one write path."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.world = World(SCHEMA)
        self.ents: list[Any] = []

    def spawn(self, cls: type[NetClass], values: dict[str, Any]) -> Any:
        with path(self.name):
            try:
                self.ents.append(self.world.spawn(cls, **values))
            except Exception as exc:
                return (type(exc), str(exc))
        return None

    def despawn(self, k: int) -> Any:
        self.world.despawn(self.ents[k])
        return None

    def commit(self) -> Any:
        try:
            self.world.commit(4)
        except Exception as exc:
            return (type(exc), str(exc))
        return None

    def write(self, k: int, write: tuple[str, str, Any]) -> Any:
        with path(self.name):
            return apply(self.ents[k], write)


def tamper(ents: list[Any], k: int, rng: random.Random) -> None:
    """Break entity ``k``'s state as a careless caller might, the same way in every twin."""
    d = vars(ents[k])
    choice = rng.randrange(6)
    if choice == 0:
        d["_net_vals"] = tuple(d.get("_net_vals", ()))
    elif choice == 1:
        d.pop("_net_world", None)
    elif choice == 2:
        d["_net_dirty"] = 1 << 200 | d.get("_net_dirty", 0)
    elif choice == 3:
        d.pop("_net_before", None)
        d["_net_dirty"] = 1 << 7
    elif choice == 4:
        d["_net_prefix"] = "x."
    else:
        d.pop("_net_bits", None)


# ---------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("seed", range(40))
def test_random_writes_leave_the_same_state(seed: int) -> None:
    compiled()
    rng = random.Random(seed)
    twins = [Twin(_write_path.PYTHON), Twin(_write_path.COMPILED)]
    for step in range(260):
        roll = rng.random()
        live = [k for k, e in enumerate(twins[0].ents) if vars(e).get("_net_world")]
        if roll < 0.04 or not twins[0].ents:
            cls = rng.choice(CLASSES)
            lay = SCHEMA.layout(cls)
            chosen = rng.sample(lay.props, min(3, lay.count))
            values = {p.path: a_value(p.codec, rng) for p in chosen if "." not in p.path}
            values = {k: v for k, v in values.items() if "[" not in k}
            results = [t.spawn(cls, values) for t in twins]
        elif roll < 0.06 and live:
            k = rng.choice(live)
            results = [t.despawn(k) for t in twins]
        elif roll < 0.08:
            results = [t.commit() for t in twins]
        elif roll < 0.09:
            k = rng.randrange(len(twins[0].ents))
            state_rng = rng.getstate()
            for t in twins:
                rng.setstate(state_rng)
                tamper(t.ents, k, rng)
            results = [None, None]
        else:
            k = rng.randrange(len(twins[0].ents))
            write = a_write(twins[0].ents[k], rng)
            results = [t.write(k, write) for t in twins]
        assert results[0] == results[1], f"seed {seed}, step {step}"
        assert state(twins[0].world, twins[0].ents) == state(twins[1].world, twins[1].ents), (
            f"seed {seed}, step {step}"
        )


def test_every_value_each_kind_takes_and_refuses_gives_the_same_state() -> None:
    """40,000 writes of hostile values, each property in turn, on one entity per path."""
    compiled()
    rng = random.Random(7)
    twins = [Twin(_write_path.PYTHON), Twin(_write_path.COMPILED)]
    for t in twins:
        t.spawn(Ship, {})
    props = SCHEMA.layout(Ship).props
    for n in range(40_000):
        prop = props[n % len(props)]
        write = ("", prop.path, a_value(prop.codec, rng))
        assert twins[0].write(0, write) == twins[1].write(0, write), write
        if n % 7 == 0:
            assert state(twins[0].world, twins[0].ents) == state(twins[1].world, twins[1].ents)
        if n % 500 == 0:
            for t in twins:
                t.world.commit(4)


def test_errors_name_entity_class_and_property_on_both_paths() -> None:
    compiled()
    for name in (_write_path.PYTHON, _write_path.COMPILED):
        with path(name):
            world = World(SCHEMA)
            ship = world.spawn(Ship)
            with pytest.raises(EncodeError, match=r"^entity 0 \(Ship\) property pos: .*range"):
                ship.pos = Vector2(1e39, 0.0)
            with pytest.raises(EncodeError, match=r"^entity 0 \(Ship\) property hp: .*fit"):
                ship.hp = 1 << 63
            with pytest.raises(EncodeError, match=r"^entity 0 \(Ship\) property on: "):
                ship.on = "yes"
            with pytest.raises(AttributeError, match="did you mean 'pos'"):
                ship.poss = Vector2()
            with pytest.raises(AttributeError, match="was not spawned"):
                Ship().pos = Vector2()
            ship.speed = 99.0  # clamp=True: clamped, as asked
            assert ship._net_vals[ship._net_index["speed"]] == 99.0
            assert world.quantized(ship)["speed"] == 10.0
            assert ship._net_vals[ship._net_index["pos"]] == Vector2()


def test_a_write_keeps_the_object_written_and_marks_it_once() -> None:
    """``_net_vals`` holds the very object written (multiplayer reads it directly, and
    tells a change by identity); a changed value marks the property dirty with the bits it
    had, an unchanged one does not."""
    compiled()
    for name in (_write_path.PYTHON, _write_path.COMPILED):
        with path(name):
            world = World(SCHEMA)
            ship = world.spawn(Ship)
            at = ship._net_index["pos"]
            v = Vector2(1.5, -2.0)
            ship.pos = v
            assert ship._net_vals[at] is v
            assert ship._net_bits[at] == 0xC0000000_3FC00000
            assert world.dirty == [ship] and ship._net_dirty == 1 << at
            assert ship._net_before == {at: 0}
            same = Vector2(1.5, -2.0)
            ship.pos = same
            assert ship._net_vals[at] is same and ship._net_dirty == 1 << at
            world.commit(4)
            ship.pos = Vector2(-0.0, -2.0)  # -0.0 has bits of its own
            assert ship._net_dirty == 1 << at and ship._net_before == {at: 0xC0000000_3FC00000}
            ship.far = Vector3(0.5, 0.0, 1e-320)
            assert ship._net_widths[ship._net_index["far"]] == 192
            ship.tint = Vector4(65504.0, -0.0, 1.0, 2.0)
            assert ship._net_bits[ship._net_index["tint"]] == 0x4000_3C00_8000_7BFF


def test_the_live_write_path_is_public() -> None:
    """``replication.write_path()`` says which write path is live: the compiled one where it
    is built (and required), unless ``GDVARIANT_PURE_PYTHON`` makes the pure one live;
    ``use`` swaps them for a block."""
    assert replication.write_path() == _write_path.write_path()
    if PURE_FORCED:
        assert _write_path.write_path() == _write_path.PYTHON
    elif compiled_required():
        assert _write_path.write_path() == _write_path.COMPILED
    found = _write_path.implementations()
    with _write_path.use(_write_path.PYTHON):
        assert _write_path.write_path() == _write_path.PYTHON
        assert vars(NetClass)["__setattr__"] is found[_write_path.PYTHON]
    if _write_path.COMPILED in found:
        with _write_path.use(_write_path.COMPILED):
            assert _write_path.write_path() == _write_path.COMPILED
    with pytest.raises(LookupError):
        _write_path.use("fortran").__enter__()


def test_the_plan_covers_plain_names_of_classes_without_their_own_write() -> None:
    ship = _write_path.plan(SCHEMA.layout(Ship))
    assert ship[0] is Ship and ship[1] is SCHEMA.layout(Ship).index
    assert set(ship[2]) == set(Ship.net_plain)
    kinds = {p.path: plan[0] for p, plan in zip(SCHEMA.layout(Ship).props, ship[3], strict=True)}
    assert kinds["pos"] == kinds["far"] == kinds["tint"] == _write_path.W_VEC
    assert kinds["mass"] == kinds["small"] == _write_path.W_FLOAT
    assert kinds["hp"] == _write_path.W_INT and kinds["id"] == _write_path.W_UINT
    assert kinds["on"] == _write_path.W_BOOL and kinds["facing"] == _write_path.W_WHOLE
    for name in ("speed", "depth", "lean", "turn"):
        assert kinds[name] == _write_path.W_QUANT, name
    for name in ("where", "reach", "drift", "bearing"):
        assert kinds[name] == _write_path.W_QVEC, name
    assert kinds["wide"] == _write_path.W_WHOLE
    assert _write_path.plan(SCHEMA.layout(Logged))[2] == {}
    assert set(_write_path.plan(SCHEMA.layout(Mob))[2]) == Mob.net_plain


def test_a_bad_plan_is_refused() -> None:
    """A plan the compiled write cannot use is an error, not a crash."""
    compiled()
    module = _write_path._WRITER.available()
    assert module is not None
    pure = _write_path.implementations()[_write_path.PYTHON]
    bad_index: Any = (Ship, {}, {"pos": 5}, ((0, Float32(), 1, "f", 0, 32, 0, None),))
    bad_kind: Any = (Ship, {}, {}, ((9, Float32(), 1, "f", 0, 32, 0, None),))
    bad_code: Any = (Ship, {}, {}, ((1, Float32(), 2, "q", 0, 32, 0, Vector2),))
    try:
        for plan in (bad_index, bad_kind, bad_code, (1, 2), "plan"):
            module.configure(pure, lambda _layout, plan=plan: plan, EncodeError)
            ent: Any = Ship.__new__(Ship)
            layout = type("Layout", (), {})()
            state = {"_net_root": ent, "_net_prefix": "", "_net_layout": layout}
            vars(ent).update(state)
            with path(_write_path.COMPILED), pytest.raises((ValueError, TypeError)):
                ent.pos = Vector2()
    finally:
        module.configure(pure, _write_path.plan, EncodeError)


def test_multiplayer_synced_entities_read_what_was_written() -> None:
    """A synced class's entities (``SyncedClass.new_state``) are World entities: their
    values, as ``SyncedClass.values`` reads them, are the objects written."""
    compiled()
    from gdvariant.multiplayer import synced_class

    synced = synced_class(Ship)
    for name in (_write_path.PYTHON, _write_path.COMPILED):
        with path(name):
            ent = synced.new_state({"pos": Vector2(1.0, 2.0), "hp": 5})
            v = Vector2(3.0, 4.0)
            ent.pos = v
            ent.hp += 1
            values = synced.values(ent)
            assert values[".:pos"] is v and values[".:hp"] == 6


def refcounts_around(run: Callable[[], None], watched: list[Any]) -> tuple[list[int], list[int]]:
    """The reference counts of ``watched`` after a first ``run()`` and after a thousand more.
    Collected first: what earlier tests left in cycles (a class's instances) is not counted."""
    run()
    gc.collect()
    before = [sys.getrefcount(x) for x in watched]
    for _ in range(1000):
        run()
    return before, [sys.getrefcount(x) for x in watched]


def _traced_growth(run: Callable[[], None], rounds: int) -> int:
    tracemalloc.start()
    try:
        for _ in range(2):
            run()
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(rounds):
            run()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_the_compiled_write_leaks_nothing() -> None:
    """Memory stays flat while the same writes, good and bad, are made again and again: a
    leaked object per write would add hundreds of kilobytes per round."""
    compiled()
    world = World(SCHEMA)
    ship, mob = world.spawn(Ship), world.spawn(Mob)
    rng = random.Random(3)
    writes = [("", p.path, a_value(p.codec, rng)) for p in SCHEMA.layout(Ship).props] * 20
    writes += [a_write(mob, rng) for _ in range(300)]

    def run() -> None:
        with path(_write_path.COMPILED):
            for write in writes:
                apply(mob if write[1] in Mob.net_plain or write[0] else ship, write)
            world.commit(4)

    grew = _traced_growth(run, 20)
    assert grew < 32 << 10, f"{grew:,} bytes more after 20 rounds"


class Sly(Codec):
    """A codec of the user's that misbehaves on cue: it drops the write plan of the layout
    being written (and collects), returns odd results, or raises."""

    name = "Sly"
    width = max_bits = 8

    def default(self) -> int:
        return 0

    def decode(self, reader: Any) -> int:
        return int(reader.read(8))

    def encode(self, value: Any) -> tuple[int, int]:
        if value == "drop":
            vars(SLY.layout(Odd)).pop("_net_write_plan", None)
            gc.collect()
            return 1, 8
        if value == "list":
            return [2, 8]  # type: ignore[return-value]
        if value == "three":
            return (3, 8, 0)  # type: ignore[return-value]
        if value == "type":
            raise TypeError("Sly takes no such thing")
        if value == "refuse":
            raise EncodeError("Sly refuses")
        return int(value), 8


class Odd(NetClass):
    sly = Sly()
    pos = Vec2(Float32())


SLY = Schema.build([Odd])


@pytest.mark.parametrize("value", ["drop", "list", "three", "type", "refuse", 5])
def test_a_codec_that_misbehaves_gives_the_same_result(value: Any) -> None:
    compiled()
    results = []
    for name in (_write_path.PYTHON, _write_path.COMPILED):
        with path(name):
            world = World(SLY)
            ent = world.spawn(Odd)
            result = apply(ent, ("", "sly", value))
            results.append((result, state(world, [ent])))
    assert results[0] == results[1]


def test_something_else_where_the_plan_is_kept_is_left_to_the_pure_path() -> None:
    compiled()
    world = World(SLY)
    ent = world.spawn(Odd)
    vars(SLY.layout(Odd))["_net_write_plan"] = "not a plan"
    try:
        with path(_write_path.COMPILED):
            ent.pos = Vector2(1.0, 2.0)
        assert ent._net_vals[ent._net_index["pos"]] == Vector2(1.0, 2.0)
        assert world.dirty == [ent]
    finally:
        vars(SLY.layout(Odd)).pop("_net_write_plan")


def test_the_compiled_write_keeps_no_reference_it_should_not() -> None:
    """The objects a write touches (the value, the entity, its world and layout, the codec)
    have the same reference counts after a thousand more rounds of writes, good and refused,
    as after the first; None and True, which everything holds, change by less than a
    thousand: a reference taken and not given back would add a thousand or more."""
    compiled()
    world = World(SCHEMA)
    ship = world.spawn(Ship)
    lay = ship._net_layout
    v, big, bad, odd = Vector2(1.0, 2.0), 1 << 70, "bad", tuple.__new__(Vector2, (1, True))
    watched = [v, big, bad, odd, ship, world, lay, lay.codecs[0], Ship]
    shared = [None, True]
    writes: list[tuple[str, Any]] = [
        ("pos", v),
        ("pos", odd),
        ("pos", bad),
        ("hp", big),
        ("hp", 5),
        ("on", True),
        ("speed", 3.0),
        ("crew", bad),
        ("nope", v),
        ("net_owner", bad),
    ]

    def round_of_writes() -> None:
        for name, value in writes:
            with suppress(EncodeError, AttributeError):
                setattr(ship, name, value)
        world.commit(4)

    with path(_write_path.COMPILED):
        round_of_writes()
        gc.collect()  # what earlier tests left in cycles is not counted
        before = [sys.getrefcount(x) for x in watched + shared]
        for _ in range(1000):
            round_of_writes()
        after = [sys.getrefcount(x) for x in watched + shared]
    assert after[: len(watched)] == before[: len(watched)]
    assert all(abs(a - b) < 1000 for a, b in zip(after, before, strict=True))


# ------------------------------------------------------------------ detached entities


def detached_state(ent: Any) -> list[Any]:
    """What a write may change on a detached entity, the values by identity."""
    d = vars(ent)
    plain = {k: v for k, v in d.items() if k not in ("_net_root", "_net_layout", "_net_index")}
    plain["_net_vals"] = [id(v) for v in d["_net_vals"]]
    plain["net_owner"], plain["net_team"] = id(d.get("net_owner")), id(d.get("net_team"))
    for k in ("_net_bits", "_net_widths", "_net_before", "_net_cache", "_net_hist"):
        plain[k] = repr(plain.get(k))
    return [sorted(d), plain, d["_net_root"] is ent]


def reads(ent: Any) -> list[Any]:
    """Every plain property as read from the entity, by identity (or the error)."""
    out: list[Any] = []
    for name in sorted(type(ent).net_plain):
        try:
            out.append(id(getattr(ent, name)))
        except Exception as exc:
            out.append((type(exc), str(exc)))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_a_detached_entity_takes_writes_as_the_pure_path_does(seed: int) -> None:
    """``World.detached`` gives, with the compiled path live, an instance of the class's
    detached class (its plain properties compiled descriptors over the values list), and a
    plain entity with the pure one: the same random writes, good and refused, on every
    class (embedded tables, per-element arrays, own ``_net_write`` and ``__setattr__``
    included) give the same results, messages included, the same state and the same reads."""
    compiled()
    rng = random.Random(seed)
    twins: list[list[Any]] = [[], []]
    names = (_write_path.PYTHON, _write_path.COMPILED)
    worlds = [World(SCHEMA), World(SCHEMA)]
    for step in range(400):
        if step % 40 == 0:
            cls = CLASSES[(step // 40 + seed) % len(CLASSES)]
            values = {"net_owner": 3} if rng.random() < 0.5 else {}
            for name, ents, world in zip(names, twins, worlds, strict=True):
                with path(name):
                    ents.append(world.detached(cls, **values))
        k = rng.randrange(len(twins[0]))
        write = a_write(twins[0][k], rng)
        results = []
        for name, ents in zip(names, twins, strict=True):
            with path(name):
                results.append(apply(ents[k], write))
        assert results[0] == results[1], f"seed {seed}, step {step}, {write}"
        pure, fast = twins[0][k], twins[1][k]
        assert detached_state(pure) == detached_state(fast), f"seed {seed}, step {step}"
        assert reads(pure) == reads(fast)
    for world in worlds:
        assert not world.entities and not world.dirty and not world.deleted


def test_a_detached_class_is_the_class_to_its_users() -> None:
    """The detached class of a plain class is a subclass with its name, table and class
    attributes (a property read on the class is its Prop); classes whose writes are their
    own, and every class under the pure path, are detached as themselves."""
    compiled()
    world = World(SCHEMA)
    with path(_write_path.COMPILED):
        ship = world.detached(Ship, pos=Vector2(1.0, 2.0))
        assert type(ship) is not Ship and isinstance(ship, Ship)
        assert type(ship).__name__ == "Ship" and type(ship).__qualname__ == Ship.__qualname__
        assert type(ship).net_table == Ship.net_table
        assert type(ship).net_class_id == Ship.net_class_id
        assert type(ship).pos is Ship.pos and type(ship).hp is Ship.hp
        assert type(world.detached(Ship)) is type(ship)
        for own in (Logged, Guarded):
            assert type(world.detached(own)) is own
        v = Vector2(3.0, 4.0)
        ship.pos = v
        assert ship.pos is v and ship._net_vals[ship._net_index["pos"]] is v
        with pytest.raises(EncodeError, match=r"^entity \d+ \(Ship\) property hp: .*fit"):
            ship.hp = 1 << 64
        with pytest.raises(AttributeError, match="__delete__"):
            del ship.hp
        ship.crew = 5  # a declared attribute: the pure path keeps it
        assert ship.crew == 5
        # the pure path's other rules, reached from the class's own C setattro, whose
        # generic stores object.__setattr__ would refuse
        ship.net_owner = 7
        assert ship.net_owner == 7
        with pytest.raises(AttributeError, match="net_id is given by the World"):
            ship.net_id = 3
        with pytest.raises(AttributeError, match="no_such_name"):
            ship.no_such_name = 1
        assert "no_such_name" not in vars(ship)
    with path(_write_path.PYTHON):
        assert type(world.detached(Ship)) is Ship


@pytest.mark.parametrize("edge", [*EDGES, float("inf"), float("-inf"), float("nan")])
def test_a_detached_ieee_write_takes_what_the_codec_takes_at_the_edges(edge: float) -> None:
    """A detached entity's compiled float and vector properties test a component's range
    without packing it (the bytes are never kept): at each edge of float32, half and float64,
    in each place of a vector, they take and refuse what the pure path does."""
    compiled()
    world = World(SCHEMA)
    writes: list[tuple[str, Any]] = [("mass", edge), ("small", edge), ("exact", edge)]
    for at in range(4):
        writes.append(("pos", Vector2(*[edge if k == at else 1.0 for k in range(2)])))
        writes.append(("far", Vector3(*[edge if k == at else 1.0 for k in range(3)])))
        writes.append(("tint", Vector4(*[edge if k == at else 1.0 for k in range(4)])))
    for name, value in writes:
        results, held = [], []
        for which in (_write_path.PYTHON, _write_path.COMPILED):
            with path(which):
                ship = world.detached(Ship)
                results.append(apply(ship, ("", name, value)))
                held.append(ship._net_vals[ship._net_index[name]] is value)
        assert results[0] == results[1] and held[0] == held[1], (name, value)


def test_a_detached_write_keeps_no_reference_it_should_not() -> None:
    """As the compiled write: after a thousand more rounds of good and refused writes on a
    detached entity, what they touch has the reference counts it had."""
    compiled()
    world = World(SCHEMA)
    with path(_write_path.COMPILED):
        ship = world.detached(Ship)
    assert type(ship) is not Ship
    v, big, bad = Vector2(1.0, 2.0), 1 << 70, "bad"
    watched = [v, big, bad, ship, type(ship), Ship.pos, ship._net_vals]
    writes: list[tuple[str, Any]] = [
        ("pos", v),
        ("pos", bad),
        ("hp", big),
        ("hp", 5),
        ("speed", 3.0),
        ("speed", bad),
        ("on", True),
        ("crew", bad),
        ("nope", v),
    ]

    def round_of_writes() -> None:
        for name, value in writes:
            with suppress(EncodeError, AttributeError):
                setattr(ship, name, value)
            getattr(ship, name, None)

    before, after = refcounts_around(round_of_writes, watched)
    assert after == before


# ------------------------------------------------------------------ quantized codecs and reads


class Grid(NetClass):
    """Quantized codecs the compiled write encodes itself, at several sizes."""

    unit = Quant(0.0, 1.0, 1)
    coarse = Quant(-3.0, 5.0, 3, clamp=True)
    fine = Quant(-1000.0, 1000.0, 32, clamp=True)
    tiny = Quant(5e-324, 2.2250738585072014e-308, 12)
    whole = Coord(24, 0)
    frac = Coord(1, 8, clamp=True)
    mid = Coord(12, 5)
    small = Angle(2)
    deg = Angle(17, degrees=True)
    full = Angle(32)
    plane = Vec2(Coord(14, 5, clamp=True))
    space = Vec3(Quant(-64.0, 64.0, 11))
    spins = Vec4(Angle(9))
    far = Vec4(Coord(24, 8, clamp=True))  # 140 bits at most: three words


GRID = Schema.build([Grid])


def a_number(codec: Any, rng: random.Random) -> Any:
    """A value around ``codec``'s range: inside, past it, on a step's halfway point, an int,
    an edge, or something it refuses."""
    span = {Quant: lambda c: max(abs(c.low), abs(c.high)), Coord: lambda c: c.magnitude}
    top = span.get(type(codec), lambda c: c.period)(codec)
    roll = rng.random()
    if roll < 0.1:
        return hostile_value(codec, rng)
    if roll < 0.3 and isinstance(codec, Quant):
        return codec.low + (rng.randrange(codec.levels + 1) + 0.5) * codec.step
    if roll < 0.3 and isinstance(codec, Coord):
        return rng.choice([-1, 1]) * (rng.randrange(1 << 12) + 0.5) / codec.scale
    if roll < 0.3 and isinstance(codec, Angle):
        turns = rng.randrange(-3, 4) << codec.bits
        return (turns + rng.randrange(-(1 << codec.bits), 1 << codec.bits) + 0.5) * codec.step
    if roll < 0.4:
        return rng.choice([0.0, -0.0, top, -top, math.nextafter(top, math.inf), 1, -7, 2**53])
    return rng.uniform(-1.3, 1.3) * top * rng.choice([1.0, 1e-3, 1e-6])


def test_quantized_writes_give_the_codecs_bits_and_errors() -> None:
    """30,000 writes of each kind of value around each quantized codec's range (halfway
    points, its edges, ints, -0.0, out of range, refused types; vectors as their type, a
    tuple or a list) leave the bits and widths ``codec.encode`` gives, or its error."""
    compiled()
    rng = random.Random(11)
    world = World(GRID)
    grid = world.spawn(Grid)
    lay = GRID.layout(Grid)
    for n in range(30_000):
        prop = lay.props[n % lay.count]
        codec = prop.codec
        if isinstance(codec, Vec2 | Vec3 | Vec4):
            parts = [a_number(codec.component, rng) for _ in range(codec.count)]
            numbers = all(type(p) is float or (type(p) is int and abs(p) < 2**60) for p in parts)
            kind = rng.randrange(3 if numbers else 2)
            value = tuple(parts) if kind == 0 else parts if kind == 1 else codec.make(*parts)
        else:
            value = a_number(codec, rng)
        try:
            want: Any = codec.encode(value)
        except Exception as exc:
            want = type(exc)
        with path(_write_path.COMPILED):
            got = apply(grid, ("", prop.path, value))
        if got is not None:
            assert got[0] is want, (prop.path, value, got)
            continue
        i = prop.index
        assert (grid._net_bits[i], grid._net_widths[i]) == want, (prop.path, value)
        assert grid._net_vals[i] is value


class Peeked(Ship):
    """A class with its own _net_get: every read goes through it."""

    def _net_get(self, name: str) -> Any:
        vars(self).setdefault("peeks", []).append(name)
        return super()._net_get(name)


READS = Schema.build([Ship, Peeked, Mob, Big, Cargo])


def a_read(ent: Any) -> list[Any]:
    """Every name a game may read on ``ent``: ``("ok", the object)`` or the error raised."""
    out: list[Any] = []
    names = [p.path.split(".")[0].split("[")[0] for p in READS.layout(type(ent)).props]
    for name in [*dict.fromkeys(names), "nope", "net_id", "net_owner", "crew"]:
        try:
            value = getattr(ent, name)
        except Exception as exc:
            out.append((type(exc), str(exc)))
            continue
        plain = not isinstance(value, NetClass) and type(value).__name__ != "_ElementView"
        out.append(("ok", id(value) if plain else type(value)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_reads_give_what_the_pure_read_gives(seed: int) -> None:
    """Spawned entities of plain classes, of one with its own ``_net_get``, embedded tables'
    views, despawned and never spawned entities, and state a careless caller broke: each
    read, through either path, gives the same object or the same error."""
    compiled()
    rng = random.Random(seed)
    world = World(READS)
    classes = [Ship, Peeked, Mob, Big, Cargo]
    ents: list[Any] = [world.spawn(cls) for cls in classes for _ in range(2)]
    ents += [Ship(), Peeked()]
    for step in range(300):
        k = rng.randrange(len(ents))
        ent = ents[k]
        roll = rng.random()
        if roll < 0.03:
            tamper(ents, k, rng)
        elif roll < 0.05 and vars(ent).get("_net_world") is world:
            world.despawn(ent)
        elif vars(ent).get("_net_world") is world:
            with path(_write_path.COMPILED):
                apply(ent, a_write(ent, rng))
        results = []
        for name in (_write_path.PYTHON, _write_path.COMPILED):
            with path(name):
                results.append(a_read(ent))
                if "mount" in vars(type(ent)):
                    results.append(a_read(ent.mount))
        assert results[0] == results[len(results) // 2], f"seed {seed}, step {step}"
    assert vars(ents[2])["peeks"]  # Peeked's own _net_get saw the compiled path's reads
    with path(_write_path.COMPILED):
        assert Ship.pos is vars(Ship)["pos"]


def test_the_compiled_read_keeps_no_reference_it_should_not() -> None:
    """A thousand more rounds of reads, found and refused, leave what they touch with the
    reference counts it had."""
    compiled()
    world = World(SCHEMA)
    ship, loose = world.spawn(Ship), Ship()
    v = Vector2(1.0, 2.0)
    ship.pos = v
    watched = [v, ship, loose, Ship.pos, ship._net_vals, ship._net_index]

    def round_of_reads() -> None:
        with path(_write_path.COMPILED):
            for ent in (ship, loose):
                for name in ("pos", "hp", "where", "nope"):
                    getattr(ent, name, None)

    before, after = refcounts_around(round_of_reads, watched)
    assert after == before


def a_quantized_codec(rng: random.Random) -> Any:
    """A Quant, Coord or Angle of random size, alone or as a vector's components."""
    kind = rng.randrange(3)
    if kind == 0:
        scale = rng.randrange(-300, 300)
        low = rng.uniform(-1, 1) * 10.0**scale
        high = low + rng.uniform(0.1, 2) * 10.0 ** (scale + rng.randrange(-4, 5))
        component: Any = Quant(low, high, rng.randrange(1, 33), clamp=rng.random() < 0.5)
    elif kind == 1:
        component = Coord(rng.randrange(1, 25), rng.randrange(0, 9), clamp=rng.random() < 0.5)
    else:
        component = Angle(rng.randrange(2, 33), degrees=rng.random() < 0.5)
    vector = rng.choice([None, Vec2, Vec3, Vec4])
    return component if vector is None else vector(component)


@pytest.mark.parametrize("seed", range(4))
def test_quantized_codecs_of_any_size_encode_as_the_codec_does(seed: int) -> None:
    """Random sizes and ranges of each quantized codec (a Quant's from 1e-300 to 1e300 wide),
    each written 60 values around its range through the compiled path: the codec's bits and
    width, or its error."""
    compiled()
    rng = random.Random(seed)
    for n in range(40):
        try:
            codec = a_quantized_codec(rng)
            cls: Any = type(f"Sized{seed}x{n}", (NetClass,), {"v": codec, "__module__": __name__})
            ent = World(Schema.build([cls])).spawn(cls)
        except (ValueError, OverflowError):
            continue  # a range no float64 grid holds: refused where it is made
        part = codec.component if isinstance(codec, Vec2 | Vec3 | Vec4) else codec
        for _ in range(60):
            if part is codec:
                value: Any = a_number(codec, rng)
            else:
                value = tuple(a_number(part, rng) for _ in range(codec.count))
            try:
                want: Any = codec.encode(value)
            except Exception as exc:
                want = type(exc)
            with path(_write_path.COMPILED):
                got = apply(ent, ("", "v", value))
            i = ent._net_index["v"]
            assert got[0] is want if got else (ent._net_bits[i], ent._net_widths[i]) == want, (
                codec,
                value,
            )


def test_a_read_called_by_hand_takes_what_the_pure_one_takes() -> None:
    """``Prop.__get__`` called as a function, with ``objtype`` by keyword or too many
    arguments, answers as the pure one does on both paths."""
    compiled()
    world = World(SCHEMA)
    ship = world.spawn(Ship)
    v = Vector2(1.0, 2.0)
    ship.pos = v
    prop = vars(Ship)["pos"]
    calls: list[Callable[[], Any]] = [
        lambda: Prop.__get__(prop, ship),
        lambda: Prop.__get__(prop, ship, Ship),
        lambda: Prop.__get__(prop, ship, objtype=Ship),
        lambda: Prop.__get__(prop, obj=ship),
        lambda: Prop.__get__(prop, None, Ship),
        lambda: Prop.__get__(prop, ship, Ship, 3),  # type: ignore[call-arg]
    ]
    for call in calls:
        results = []
        for name in (_write_path.PYTHON, _write_path.COMPILED):
            with path(name):
                try:
                    results.append(("ok", call()))
                except TypeError:
                    results.append(("TypeError", None))
        assert results[0][0] == results[1][0] and results[0][1] is results[1][1], results
