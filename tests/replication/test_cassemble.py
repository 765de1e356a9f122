"""The compiled packet assembler (``_cassemble``) makes the pure-Python one's (``_pyassemble``)
bytes, from the same arguments.

Two copies of the same random world (``replication_driver.Driver``: spawns, despawns, id
reuse, id gaps of every gap-code size, four classes, restricted audiences, classes of more
than 32 and 64 properties, vectors over 64 bits, every delta-capable codec) run one on each
assembler; every tick, every client's packet must be byte-identical, and decode to the
server's ``expected_state``. Acks lag past a short history ring (full updates). Both
``value_deltas`` modes. Then each function called directly with the same arguments,
``encode_record`` alone, errors, and reference leaks.
"""

from __future__ import annotations

import gc
import inspect
import math
import random
import sys
import tracemalloc
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

from gdvariant import replication
from gdvariant._compiled import PURE_FORCED, load_build
from gdvariant.replication import (
    Schema,
    SnapshotEncoder,
    World,
    _assembler,
    _pyassemble,
)
from gdvariant.replication._history import entries
from gdvariant.replication._packet_format import OP_DELETE, OP_ENTER, OP_UPDATE, encode_record
from tests.support.assemblers import compiled, live
from tests.support.cores import compiled_required
from tests.support.replication_driver import Driver, spies
from tests.support.replication_worlds import (
    ASSEMBLER_SCHEMA,
    Big,
    Crate,
    Forty,
    Mob,
    random_value,
    set_path,
)


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
@pytest.mark.parametrize("seed", range(12))
def test_random_worlds_give_the_same_bytes(seed: int, deltas: bool) -> None:
    compiled()
    history = 4 if seed % 2 else 32
    pure, fast = Driver(seed, deltas, history), Driver(seed, deltas, history)
    for _ in range(4):
        pure.spawn()
        fast.spawn()
    for tick in range(30):
        pure.step()
        fast.step()
        expected = pure.packets(_assembler.PYTHON)
        got = fast.packets(_assembler.COMPILED)
        assert got == expected, f"seed {seed}, tick {tick}"
        if tick % 3 == 0:
            fast.check_decoded(got)


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_switching_assemblers_between_ticks(deltas: bool) -> None:
    """The two share each entity's record cache (and the history): alternating them on one
    world gives what the pure one alone gives."""
    compiled()
    pure, mixed = Driver(99, deltas, 6), Driver(99, deltas, 6)
    for tick in range(30):
        pure.step()
        mixed.step()
        expected = pure.packets(_assembler.PYTHON)
        name = _assembler.COMPILED if tick % 3 else _assembler.PYTHON
        assert mixed.packets(name) == expected, f"tick {tick}"


def test_a_gap_over_32_bits_is_the_same_error() -> None:
    compiled()
    messages = []
    for name in (_assembler.PYTHON, _assembler.COMPILED):
        world = World(ASSEMBLER_SCHEMA)
        encoder = SnapshotEncoder(world, audiences={"spies": spies})
        encoder.add_client(0)
        world.spawn(Crate)
        world._next = 1 << 33
        world.spawn(Crate)
        encoder.snapshot()
        with _assembler.use(name), pytest.raises(ValueError) as info:
            encoder.packets()
        messages.append(str(info.value))
    assert messages[0] == messages[1] == f"entity id gap {(1 << 33) - 1} is over 32 bits"


def random_record(rng: random.Random) -> tuple[Any, ...]:
    lay = rng.choice(ASSEMBLER_SCHEMA.classes)
    op = rng.choice([OP_UPDATE, OP_ENTER, OP_DELETE])
    gap = rng.choice([0, 1, 15, 16, 255, 256, 65_535, 65_536, (1 << 32) - 1])
    if op == OP_DELETE:
        return (None, ASSEMBLER_SCHEMA.class_bits, op, gap, 0, [], [])
    mask = rng.getrandbits(lay.count) & rng.choice([-1, rng.getrandbits(lay.count)])
    frags = [p.codec.encode(random_value(p.codec, rng)) for p in lay.props]
    bits, widths = [f[0] for f in frags], [f[1] for f in frags]
    return (lay, ASSEMBLER_SCHEMA.class_bits, op, gap, mask, bits, widths)


def test_encode_record_matches_the_pure_one() -> None:
    fast = compiled()
    rng = random.Random(5)
    for _ in range(400):
        args = random_record(rng)
        assert fast.encode_record(*args) == encode_record(*args), args[:5]


# ints about CPython's digit boundaries (30-bit digits: the compiled assembler reads an int of
# up to two in line, a wider one by a conversion call), each as wide as a field holds it
BOUNDARY_INTS = [0, 1, 2**30 - 1, 2**30, 2**31 - 1, 2**59, 2**60 - 1, 2**60, 2**62 + 5]
BOUNDARY_INTS += [2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**90 + 3]


def test_encode_record_reads_ints_about_digit_boundaries_as_the_pure_one() -> None:
    """Whole values, masks and id gaps of one, two and more digits give the pure bytes."""
    fast = compiled()
    rng = random.Random(11)
    for lay in ASSEMBLER_SCHEMA.classes:
        for _ in range(20):
            values = [rng.choice(BOUNDARY_INTS) for _ in lay.props]
            widths = [max(v.bit_length(), 1) + rng.randrange(3) for v in values]
            mask = rng.choice([(1 << lay.count) - 1, rng.getrandbits(lay.count)])
            gap = rng.choice([0, 2**30 - 1, 2**30, (1 << 32) - 1])
            for op in (OP_UPDATE, OP_ENTER):
                args = (lay, ASSEMBLER_SCHEMA.class_bits, op, gap, mask, values, widths)
                assert fast.encode_record(*args) == encode_record(*args), (lay.name, values)


def test_every_assembler_is_listed_and_can_be_made_live() -> None:
    found = _assembler.implementations()
    assert found[_assembler.PYTHON] is _pyassemble
    with live(_assembler.PYTHON):
        assert _assembler.live() is _pyassemble
        assert _assembler.IMPLEMENTATION == _assembler.PYTHON
    with live(_assembler.COMPILED):
        assert _assembler.live() is found[_assembler.COMPILED]
        assert _assembler.IMPLEMENTATION == _assembler.COMPILED
    with pytest.raises(LookupError):
        _assembler.use("fortran").__enter__()


def test_another_build_is_loaded_beside_the_live_one_and_made_live_in_a_block() -> None:
    """``load_build`` loads a second copy of a compiled assembler's file (a benchmark's
    other build) with types of its own; inside ``use_build`` it is live, so a world made
    there keeps that build's history table, and outside the live one is back."""
    module = compiled()
    name = "gdvariant.replication._cassemble"
    imported = sys.modules.get(name)
    other = load_build(name, module.__file__ or "")
    assert other is not module and other.Table is not module.Table
    assert sys.modules.get(name) is imported  # what import gives is not the copy
    with _assembler.use_build(other):
        assert _assembler.live() is other
        assert type(_assembler.history_table()) is other.Table
    assert _assembler.live() is _assembler.implementations()[_assembler.IMPLEMENTATION]
    with pytest.raises(ImportError, match="not a compiled module"):
        load_build("gdvariant.replication._cassemble", __file__)


def test_the_live_assembler_is_public() -> None:
    """``replication.IMPLEMENTATION`` says which assembler is live, as
    ``gdvariant.IMPLEMENTATION`` does for the codec core: the compiled one where it is built
    (and required), unless ``GDVARIANT_PURE_PYTHON`` makes the pure one live, as CI's
    pure-Python run does with the compiled modules still required."""
    assert replication.IMPLEMENTATION in (_assembler.PYTHON, _assembler.COMPILED)
    assert replication.assembler() == replication.IMPLEMENTATION
    if PURE_FORCED:
        assert replication.IMPLEMENTATION == _assembler.PYTHON
    elif compiled_required():
        assert replication.IMPLEMENTATION == _assembler.COMPILED


@pytest.mark.parametrize(
    "name",
    [
        "assemble",
        "assemble_clients",
        "encode_record",
        "commit",
        "aim",
        "retest",
        "rank",
        "fit",
        "moves",
        "relevance",
    ],
)
def test_both_assemblers_take_the_same_arguments(name: str) -> None:
    """The pure assembler's functions have the compiled module's parameters, by name and in
    order (the compiled ones state theirs on the first line of their docstrings)."""
    fast = compiled()
    doc = getattr(fast, name).__doc__
    stated = doc[doc.index("(") + 1 : doc.index(")")].replace(" ", "").split(",")
    assert list(inspect.signature(getattr(_pyassemble, name)).parameters) == stated


def assemble_args(driver: Driver, deltas: bool) -> tuple[Any, ...]:
    """The arguments of an ``assemble`` call for ``driver``'s current tick and bases."""
    encoder, world = driver.encoder, driver.world
    order = sorted({encoder.base_for(c) for c in encoder.clients.values()}, reverse=True)
    oldest = order[-1] if order[-1] else -1
    ids = sorted(world.entities.keys() | world.deleted.keys())
    plans = _assembler.plans(ASSEMBLER_SCHEMA)
    entities, deleted, class_bits = world.entities, world.deleted, ASSEMBLER_SCHEMA.class_bits
    return (deltas, world.tick, order, oldest, ids, entities, deleted, plans, class_bits)


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_both_assemble_functions_give_the_same_sections(deltas: bool) -> None:
    """Called directly with one argument tuple, each record built anew (an empty record
    cache) or from the cache the other one filled: the same sections."""
    fast = compiled()
    driver = Driver(21, deltas, 8)
    for _ in range(6):
        driver.spawn()
    for tick in range(12):
        driver.step()
        driver.packets(_assembler.PYTHON)
        args = (*assemble_args(driver, deltas), None, None)
        for ent in driver.world.entities.values():
            ent._net_cache.clear()
        pure = _pyassemble.assemble(*args)
        assert fast.assemble(*args) == pure, f"tick {tick}"
        for ent in driver.world.entities.values():
            ent._net_cache.clear()
        assert fast.assemble(*args) == pure == _pyassemble.assemble(*args), f"tick {tick}"


def _traced_growth(run: Any, rounds: int) -> int:
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
@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_the_compiled_assembler_leaks_nothing(deltas: bool) -> None:
    """Memory stays flat while the same tick's sections are assembled again and again (with
    and without ids entering, and bad input failing), commits, grid moves and views' aims
    repeated: a leaked object per record or entity would add kilobytes per round."""
    fast = compiled()
    driver = Driver(3, deltas, 32)
    for _ in range(8):
        driver.spawn()
    for _ in range(5):
        driver.step()
        driver.packets(_assembler.COMPILED)
    args = assemble_args(driver, deltas)
    deltas, tick, order, oldest, ids, _, _, plans, _ = args
    world = driver.world
    rng = random.Random(1)
    records = [random_record(rng) for _ in range(50)]
    scratch = World(ASSEMBLER_SCHEMA)
    dirty = [scratch.spawn(Crate) for _ in range(100)]
    wide = scratch.spawn(Big)

    long_world, long_entities, long_ids, long_live = long_walk(1)
    missing = dict(long_entities)
    del missing[long_live[100]]  # an id neither live nor deleted deep in the walk

    def long_walks() -> None:  # the look-ahead's slots, kept and let go, failing or not
        for order in ([long_world.tick - 1], [long_world.tick - 1, 3, 0]):
            for entities in (long_entities, missing):
                call = (deltas, long_world.tick, order, order[-1] or -1, long_ids, entities)
                try:
                    fast.assemble(*call, long_world.deleted, plans, 2, set(long_live[::7]), None)
                except KeyError:
                    assert entities is missing

    def run() -> None:
        long_walks()
        for ent in dirty:  # a commit of one change each, from an empty history
            ent._net_hist, ent._net_dirty, ent._net_before = [], 1, {0: 0}
        fast.commit(scratch, dirty, 5, 4)
        wide._net_hist, wide._net_dirty, wide._net_before = [], 1 << 65 | 1, {0: 0, 65: 1}
        for at, mask in ((6, 0b1), (7, 0b11)):  # dropped entries rewritten in place
            for ent in dirty:  # bits before of as many items, then of more
                ent._net_dirty = mask
                ent._net_before = {i: at for i in range(mask.bit_length())}
            fast.commit(scratch, dirty, at, at - 1)
        fast.commit(scratch, [wide], 5, 4)  # a mask past 64 bits
        wide._net_dirty, wide._net_before = 1 << 65 | 1, {0: 0, 64: 1}
        with pytest.raises(KeyError):
            fast.commit(scratch, [wide], 5, 4)
        for ent in world.entities.values():
            ent._net_cache.clear()  # build every record again
        fast.assemble(*args, None, None)
        for base in order:  # one base a call: the record bodies, made then found
            for ent in world.entities.values():
                ent._net_cache.clear()
            for _ in range(2):
                fast.assemble(deltas, tick, [base], base or -1, ids, *args[5:], None, None)
                one = (deltas, tick, [base], base or -1, ids, *args[5:])
                fast.assemble(*one, set(ids[::2]), {i: base - 1 for i in ids[1::2]})
        fast.moves(*moves_args(random.Random(2), 2, True, 7.5))
        aim_ticks(fast, 1, 2, True)
        aim_ticks(fast, 1, 2, False)
        aim_big_ids(fast, 2**70)
        with pytest.raises(KeyError):
            fast.aim(*_aim_args(pos={}))
        with pytest.raises(TypeError):
            fast.aim(*_aim_args(memo={(0, 0): None}))
        retest_ticks(fast, 1, 2, False)
        retest_ticks(fast, 1, 3, True)
        with pytest.raises(KeyError):
            fast.retest(*_retest_args(cell_of={}))
        with pytest.raises(KeyError):
            fast.retest(*_retest_args(touched={}))
        with pytest.raises(TypeError):
            fast.aim(*_aim_args(view=({}, [], {}, [], _Viewer(1))))
        with pytest.raises(AttributeError):
            fast.aim(*_aim_args(client=object()))
        with pytest.raises(AttributeError):
            fast.retest(*_retest_args(client=object()))
        for relevance in relevance_args(random.Random(3)):
            fast.relevance(*relevance)
        with pytest.raises(ValueError):
            fast.relevance({}, [], [1], [], 1, [])
        for record in records:
            fast.encode_record(*record)
        with pytest.raises(KeyError):
            fast.assemble(deltas, tick, order, oldest, [*ids, 10**9], {}, {}, plans, 2, None, None)
        with pytest.raises(ValueError):
            fast.assemble(deltas, tick, order, oldest, ids, world.entities, {}, (), 2, None, None)

    grew = _traced_growth(run, 20)
    assert grew < 32 << 10, f"{grew:,} bytes more after 20 rounds"


def test_a_clients_update_is_coded_into_its_section_for_every_id_gap() -> None:
    """With value deltas, the records of one entity for one base differ between clients only
    by the id gap before it: the compiled assembler codes the change list and values (Big's
    wider than 64 bits) behind each gap straight into the section, giving the pure one's
    bytes for gaps of every gap-code size, and keeps nothing in the entity's record cache (a
    body kept there was made for one record a tick in the interest benchmark)."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    world._next = 5_000_000  # gaps up to 32 bits below the entities
    ents = [world.spawn(Big), world.spawn(Mob), world.spawn(Forty)]
    world.commit(8)
    rng = random.Random(5)
    for ent in ents:
        for prop in rng.sample(ASSEMBLER_SCHEMA.flat(type(ent)), 6):
            set_path(ent, prop.path, random_value(prop.codec, rng))
    world.commit(8)
    plans = _assembler.plans(ASSEMBLER_SCHEMA)
    gone = [(0, 1 << 62)]  # a despawned id every base still holds: its delete sets the gap
    for ent in ents:
        before = [None, *range(ent.net_id - 20, ent.net_id), 4_000_000, 100, 3]
        for prev in before:
            ids = [ent.net_id] if prev is None else [prev, ent.net_id]
            deleted = {} if prev is None else {prev: gone}
            args = (True, world.tick, [1], 1, ids, world.entities, deleted, plans)
            got = fast.assemble(*args, ASSEMBLER_SCHEMA.class_bits, None, None)
            kept = dict(ent._net_cache)
            expected = _pyassemble.assemble(*args, ASSEMBLER_SCHEMA.class_bits, None, None)
            assert got == expected, f"entity {ent.net_id} after {prev}"
            assert got[0][0] == len(ids)  # the update (and the delete) were written
            ent._net_cache = kept  # the compiled one's own entries only
        assert not ent._net_cache, sorted(map(str, ent._net_cache))


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_entering_ids_get_the_enter_record_on_both_assemblers(deltas: bool) -> None:
    """The ids in ``entering`` (entities that came into a client's view, spawned long before)
    get an enter record for every base, after any id gap: the record format's own enter of
    the properties off their class baselines (``World.nondefault``), on both assemblers;
    the compiled one codes its body once and puts it behind each gap."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    world._next = 5_000_000
    ents = [world.spawn(Big), world.spawn(Mob), world.spawn(Forty), world.spawn(Crate)]
    world.commit(8)
    rng = random.Random(9)
    for ent in ents[:3]:
        for prop in rng.sample(ASSEMBLER_SCHEMA.flat(type(ent)), 6):
            set_path(ent, prop.path, random_value(prop.codec, rng))
    world.commit(8)
    world.commit(8)
    plans = _assembler.plans(ASSEMBLER_SCHEMA)
    gone = [(0, 1 << 62)]
    bits = ASSEMBLER_SCHEMA.class_bits
    for ent in ents:
        mask = world.nondefault(ent) & ent._net_layout.public_mask
        for prev in [None, 4_999_999, 4_999_983, 4_000_000, 3]:  # no entity holds these
            ids = [ent.net_id] if prev is None else [prev, ent.net_id]
            deleted = {} if prev is None else {prev: gone}
            for order in ([2], [2, 1, 0]):  # bases before the tick (0: a full update)
                oldest = order[-1] or -1
                args = (deltas, world.tick, order, oldest, ids, world.entities, deleted, plans)
                got = fast.assemble(*args, bits, {ent.net_id}, None)
                expected = _pyassemble.assemble(*args, bits, {ent.net_id}, None)
                assert got == expected, f"entity {ent.net_id} after {prev}, bases {order}"
                for base, (count, section) in zip(order, got, strict=True):
                    assert count == (len(ids) if base else 1)  # a full update has no deletes
                    gap = ent.net_id - prev - 1 if base and prev is not None else ent.net_id
                    enter = encode_record(
                        ent._net_layout, bits, OP_ENTER, gap, mask, ent._net_bits, ent._net_widths
                    )
                    assert section.endswith(enter)
                none = (None, None)
                assert fast.assemble(*args, bits, *none) == _pyassemble.assemble(*args, bits, *none)
    with pytest.raises(TypeError):
        fast.assemble(deltas, world.tick, [2], 2, [], world.entities, {}, plans, bits, [1], None)


class _IdSet(set[Any]):
    """A set subclass: the compiled walk keeps asking the set itself."""


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_entering_as_any_set_names_the_ids_the_pure_one_finds(deltas: bool) -> None:
    """The compiled walk looks ``entering`` up as a sorted array of its ids when all are
    plain ints; any other set (a float equal to an id, an int past 64 bits, a subclass, a
    frozenset, an empty one) gives what the pure one's ``in`` gives, over a walk longer than
    the look-ahead with ids entering among others."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    rng = random.Random(25)
    ents = [world.spawn(rng.choice([Big, Mob, Forty, Crate])) for _ in range(60)]
    for _ in range(4):
        for ent in rng.sample(ents, 20):
            prop = rng.choice(ASSEMBLER_SCHEMA.flat(type(ent)))
            set_path(ent, prop.path, random_value(prop.codec, rng))
        world.commit(8)
    ids = sorted(ent.net_id for ent in ents)
    picked = set(rng.sample(ids, 17))
    first = ids[0]
    plans = _assembler.plans(ASSEMBLER_SCHEMA)
    cases: list[Any] = [
        picked,
        frozenset(picked),
        _IdSet(picked),
        set(),
        {float(first), *list(picked)[:3]},
        {2**70, *picked},
        {-5, *picked, 10**6},
        set(ids),
    ]
    deleted: dict[int, Any] = {}
    args = (deltas, world.tick, [world.tick - 2], world.tick - 2, ids, world.entities, deleted)
    for entering in cases:
        got = fast.assemble(*args, plans, ASSEMBLER_SCHEMA.class_bits, entering, None)
        expected = _pyassemble.assemble(*args, plans, ASSEMBLER_SCHEMA.class_bits, entering, None)
        assert got == expected, sorted(entering, key=str)[:5]


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_runs_of_one_mask_in_a_history_give_the_pure_ones_sections(deltas: bool) -> None:
    """The compiled walk of one base notes the baselines of only the oldest entry of each run
    of entries with the very same mask object (the newer ones' notes it would overwrite):
    histories of runs of one property, of two, and of masks past the small ints, give the
    pure one's sections from every base."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    rng = random.Random(31)
    ents = [world.spawn(cls) for cls in (Big, Mob, Forty, Crate) for _ in range(3)]
    world.commit(16)
    props = {}
    for ent in ents:
        flat = ASSEMBLER_SCHEMA.flat(type(ent))
        props[ent.net_id] = rng.sample(flat, min(3, len(flat)))
    for tick in range(14):
        for ent in ents:
            mine, run = props[ent.net_id], tick // 3
            chosen = [mine[run % len(mine)]] + ([mine[(run + 1) % len(mine)]] if tick % 5 else [])
            for prop in chosen:
                set_path(ent, prop.path, random_value(prop.codec, rng))
        world.commit(16)
    ids = sorted(ent.net_id for ent in ents)
    plans = _assembler.plans(ASSEMBLER_SCHEMA)
    deleted: dict[int, Any] = {}
    for base in range(1, world.tick + 1):
        args = (deltas, world.tick, [base], base, ids, world.entities, deleted, plans)
        got = fast.assemble(*args, ASSEMBLER_SCHEMA.class_bits, None, None)
        assert got == _pyassemble.assemble(*args, ASSEMBLER_SCHEMA.class_bits, None, None), base


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_an_id_held_as_of_an_older_tick_gets_the_record_of_that_base(deltas: bool) -> None:
    """In a section of one base, an id in ``held`` (a client holds it as of an older tick,
    a packet having left it out) gets the record a section of that older base gives it, on
    both assemblers; a whole section with some ids held is the same on both."""
    fast = compiled()
    driver = Driver(17, deltas, 8)
    for _ in range(6):
        driver.spawn()
    plans = _assembler.plans(ASSEMBLER_SCHEMA)
    bits = ASSEMBLER_SCHEMA.class_bits
    rng = random.Random(4)
    checked = 0
    for _ in range(14):
        driver.step()
        driver.packets(_assembler.PYTHON)
        world = driver.world
        tick, base = world.tick, world.tick - 1
        for ent in world.entities.values():
            for old in range(max(1, tick - 7), base):
                if ent._net_spawn > old:
                    continue
                ids = [ent.net_id]
                alone: tuple[Any, ...] = (
                    deltas,
                    tick,
                    [old],
                    old,
                    ids,
                    world.entities,
                    {},
                    plans,
                    bits,
                    None,
                    None,
                )
                held: tuple[Any, ...] = (
                    deltas,
                    tick,
                    [base],
                    base,
                    ids,
                    world.entities,
                    {},
                    plans,
                    bits,
                    None,
                )
                for module in (fast, _pyassemble):
                    assert module.assemble(*held, {ent.net_id: old}) == module.assemble(*alone)
                checked += 1
        ids = sorted(world.entities)
        olds = range(max(1, tick - 7), base)
        since = {i: rng.choice(olds) for i in ids if olds and rng.random() < 0.5}
        args: tuple[Any, ...] = (
            deltas,
            tick,
            [base],
            base,
            ids,
            world.entities,
            {},
            plans,
            bits,
            None,
            since,
        )
        assert fast.assemble(*args) == _pyassemble.assemble(*args)
    assert checked > 100
    for module in (fast, _pyassemble):
        with pytest.raises(ValueError, match="one base"):
            module.assemble(deltas, tick, [base, 1], 1, [], {}, {}, plans, bits, None, {1: 1})


class _Widths:
    """An entity's stand-in whose ``_net_widths`` is not in its ``__dict__`` (its class gives
    it): both assemblers find it by getattr."""

    def __init__(self, ent: Any) -> None:
        vars(self).update({k: v for k, v in vars(ent).items() if k != "_net_widths"})
        self.of = ent

    @property
    def _net_widths(self) -> Any:
        return self.of._net_widths


class _Reordered:
    """An entity's stand-in whose ``__dict__`` holds its names in reverse order, as strings
    equal to the interned names but not the same objects (the compiled walk's look-ahead
    finds an attribute where the last entity had it only if its key is the name itself)."""

    def __init__(self, ent: Any) -> None:
        for name, value in reversed(vars(ent).items()):
            vars(self)["".join(list(name))] = value


class _Slotted:
    """An entity's stand-in with no ``__dict__`` (slots), spawned this tick: both
    assemblers find its attributes by getattr."""

    __slots__ = (
        "_net_bits",
        "_net_cache",
        "_net_hist",
        "_net_layout",
        "_net_spawn",
        "_net_widths",
        "net_id",
    )

    def __init__(self, ent: Any, tick: int) -> None:
        self.net_id, self._net_spawn, self._net_layout = ent.net_id, tick, ent._net_layout
        self._net_bits, self._net_widths = ent._net_bits, ent._net_widths
        self._net_hist: list[Any] = []
        self._net_cache: dict[Any, bytes] = {}


def long_walk(seed: int) -> tuple[World, dict[int, Any], list[int], list[int]]:
    """A world of 150 entities (the compiled walk looks 32 ids ahead), most changed over six
    ticks, ten despawned; its entities with a dozen stand-ins (``_Widths``, ``_Reordered``,
    or ``_Slotted``); every id to visit, and the live ones."""
    rng = random.Random(seed)
    world = World(ASSEMBLER_SCHEMA)
    ents = [world.spawn(rng.choice([Crate, Mob, Forty, Big])) for _ in range(150)]
    world.commit(8)
    for _ in range(6):
        for ent in rng.sample(ents, 90):
            flat = ASSEMBLER_SCHEMA.flat(type(ent))
            for prop in rng.sample(flat, min(3, len(flat))):
                set_path(ent, prop.path, random_value(prop.codec, rng))
        world.commit(8)
    for ent in rng.sample(ents, 10):
        world.despawn(ent)
    world.commit(8)
    entities = dict(world.entities)
    for net_id in rng.sample(sorted(entities), 12):
        ent = entities[net_id]
        stand = rng.choice([_Widths, _Reordered, _Slotted])
        entities[net_id] = _Slotted(ent, world.tick) if stand is _Slotted else stand(ent)
    live_ids = sorted(entities)
    return world, entities, sorted(entities.keys() | world.deleted.keys()), live_ids


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
@pytest.mark.parametrize("seed", range(3))
def test_a_walk_longer_than_its_look_ahead_is_the_pure_ones(seed: int, deltas: bool) -> None:
    """Sections over 150 ids, of one base (a client's, with ids entering and held as of older
    ticks) and of several, where the compiled walk takes each entity's attributes as its
    look-ahead found them: the pure one's bytes, with stand-ins whose attributes are not all
    in their ``__dict__`` among them; an id neither live nor deleted deep in the walk is a
    KeyError on both."""
    fast = compiled()
    world, entities, ids, live_ids = long_walk(seed)
    rng = random.Random(seed)
    plans, bits, tick = _assembler.plans(ASSEMBLER_SCHEMA), ASSEMBLER_SCHEMA.class_bits, world.tick
    for base in range(2, tick):
        entering = set(rng.sample(live_ids, 20))
        held = {i: rng.randrange(1, base) for i in rng.sample(live_ids, 20)}
        for order, extra in (
            ([base], (entering, held)),
            ([base], (None, None)),
            ([tick - 1, base, 0], (entering, None)),
        ):
            args = (deltas, tick, order, order[-1] or -1, ids, entities, world.deleted, plans, bits)
            expected = _pyassemble.assemble(*args, *extra)
            assert fast.assemble(*args, *extra) == expected, f"base {base}, bases {order}"
    missing = dict(entities)
    del missing[live_ids[100]]
    for order in ([tick - 1], [tick - 1, 3, 0]):
        args = (deltas, tick, order, order[-1] or -1, ids, missing, world.deleted, plans, bits)
        for module in (_pyassemble, fast):
            with pytest.raises(KeyError):
                module.assemble(*args, None, None)


GONE = [(0, 1 << 62)]  # the despawn spans of an id leaving a view: every base held it


def client_jobs(
    rng: random.Random, world: World, entities: dict[int, Any], live_ids: list[int], n: int
) -> list[Any]:
    """``n`` clients' jobs of one tick (``assemble_clients``': the arguments of each one's
    ``relevance``): each sees a random half of the live entities (so most are seen by
    several), some through a stand-in where others see the entity itself, or as another
    entity, with a base of its own and a log of its view's changes since, by which some ids
    enter its view and others (live or despawned) leave it."""
    jobs = []
    ticks = list(range(1, world.tick + 1))
    for _ in range(n):
        seen = sorted(rng.sample(live_ids, len(live_ids) // 2))
        view = {i: world.entities.get(i, entities[i]) for i in seen}
        for i in rng.sample(seen, 4):
            view[i] = entities[i]  # a stand-in (or the entity) as long_walk made it
        if rng.random() < 0.5:  # ids seen as other entities: what one client found of an
            mine = [i for i in seen if i in world.entities]  # id is not another's
            for i, j in zip(mine[::7], mine[3::7], strict=False):
                view[i], view[j] = world.entities[j], world.entities[i]
        log: list[dict[int, bool]] = [{} for _ in ticks]
        unseen = sorted((world.entities.keys() | world.deleted.keys()) - view.keys())
        for i in rng.sample(seen, rng.choice([0, 5])):
            log[rng.randrange(len(ticks))][i] = False  # entered at that tick
        for i in rng.sample(unseen, 4):
            log[rng.randrange(len(ticks))][i] = True  # left
        base = rng.choice([0, *ticks[:-1]])
        jobs.append((view, sorted(view), ticks, log, base, GONE))
    return jobs


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
@pytest.mark.parametrize("seed", range(3))
def test_all_clients_in_one_call_are_each_clients_section(seed: int, deltas: bool) -> None:
    """``assemble_clients`` (every client's own section of a tick in one call, the compiled one
    keeping what it found of an entity for the next client that sees it) gives, on both
    assemblers, what ``relevance`` then ``assemble`` give each client alone (as the encoder's
    ``packet_for``): with entities seen by several clients, one id seen as the entity by some
    and as a stand-in or another entity by others, and clients whose bases, entering and
    leaving ids differ."""
    fast = compiled()
    world, entities, _, live_ids = long_walk(seed)
    rng = random.Random(seed)
    plans, bits, tick = _assembler.plans(ASSEMBLER_SCHEMA), ASSEMBLER_SCHEMA.class_bits, world.tick
    jobs = client_jobs(rng, world, entities, live_ids, 12)
    alone = []
    for job in jobs:
        _, ids, entering, leaving, _ = _pyassemble.relevance(*job)
        base = job[4]
        args = (deltas, tick, [base], base or -1, ids, job[0], leaving, plans, bits)
        alone.append(_pyassemble.assemble(*args, entering or None, None)[0])
    assert alone == _pyassemble.assemble_clients(deltas, tick, jobs, plans, bits)
    assert fast.assemble_clients(deltas, tick, jobs, plans, bits) == alone
    assert sum(count for count, _ in alone) > 12 * 40
    one = {live_ids[0]: world.entities[live_ids[0]]}
    for module in (_pyassemble, fast):
        # an id in the view's order but not among its entities: neither live nor deleted
        bad = [*jobs[:3], (one, [10**6], [], [], 0, GONE)]
        with pytest.raises(KeyError):
            module.assemble_clients(deltas, tick, bad, plans, bits)
        with pytest.raises(TypeError):
            module.assemble_clients(deltas, tick, [jobs[0][:5]], plans, bits)
        with pytest.raises(ValueError):  # relevance's own error: a tick without its changes
            module.assemble_clients(deltas, tick, [(*jobs[0][:2], [1], [], 1, GONE)], plans, bits)


class _Changes(dict[int, bool]):
    """A change set of a view's log that is a mapping but not a plain dict."""


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_all_clients_in_one_call_decide_an_id_by_its_oldest_change(deltas: bool) -> None:
    """``assemble_clients`` finds each client's entering and leaving ids as ``relevance``
    does when its log names an id at several ticks (the oldest change after the base says
    whether the client held it: an id that entered, left and entered again since the base
    enters; one that left, came back and left again leaves; one held at the base that left
    and came back is an update), when two clients' logs name the same ids (each decided on
    its own), when a leaving id is past every relevant one, and when a change set is
    another mapping than a dict."""
    fast = compiled()
    world, entities, _, live_ids = long_walk(5)
    rng = random.Random(5)
    plans, bits, tick = _assembler.plans(ASSEMBLER_SCHEMA), ASSEMBLER_SCHEMA.class_bits, world.tick
    ticks = list(range(1, tick + 1))
    jobs = []
    for k in range(6):
        seen = sorted(rng.sample(live_ids, len(live_ids) // 2))
        view = {i: world.entities.get(i, entities[i]) for i in seen}
        unseen = sorted((world.entities.keys() | world.deleted.keys()) - view.keys())
        log: list[dict[int, bool]] = [{} for _ in ticks]
        for i in seen[:6]:  # held, left, came back / entered, left, entered again
            log[1][i], log[2][i] = bool(i % 2), not i % 2
            if not i % 2:
                log[3][i] = False
        for i in unseen[:6]:  # held, left, came back, left again / entered, left
            log[1][i], log[2][i] = bool(i % 2), not i % 2
            if i % 2:
                log[3][i] = True
        log[2][10**7 + k] = True  # an id past every relevant one, leaving
        if k == 5:
            log = [_Changes(changes) for changes in log]
        jobs.append((view, seen, ticks, log, 1, GONE))
    expected = _pyassemble.assemble_clients(deltas, tick, jobs, plans, bits)
    assert fast.assemble_clients(deltas, tick, jobs, plans, bits) == expected
    for job in jobs:  # the oldest change decided: the even ids seen enter, the odd ones leave
        _, _, entering, leaving, _ = _pyassemble.relevance(*job)
        assert entering == {i for i in job[1][:6] if not i % 2}
        assert set(leaving) == {i for i in job[3][1] if i % 2 and i not in job[0]} | {
            i for i in job[3][2] if i >= 10**7
        }


def _rebind(ent: Any, rng: random.Random) -> None:
    """Give ``ent`` new objects for what the compiled walk reads (its history, bits, widths,
    record cache and spawn tick), with other values: what a cache of them kept from an
    earlier call would no longer match."""
    d = vars(ent)
    flat = ASSEMBLER_SCHEMA.flat(type(ent))
    for prop in rng.sample(flat, min(2, len(flat))):
        set_path(ent, prop.path, random_value(prop.codec, rng))
    d["_net_bits"], d["_net_widths"] = list(d["_net_bits"]), list(d["_net_widths"])
    d["_net_hist"] = [(t, m, before, None) for t, m, before, _ in entries(ent)[1:]]
    d["_net_cache"] = {}
    d["_net_spawn"] = d["_net_spawn"] + 0 if rng.random() < 0.5 else 1


def _full_views(entities: dict[int, Any], tick: int, jobs: list[Any]) -> list[Any]:
    """Jobs of clients that see every entity, with the bases of ``jobs``."""
    ticks = list(range(1, tick + 1))
    return [
        (entities, sorted(entities), ticks, [{} for _ in ticks], job[4] % tick, GONE)
        for job in jobs
    ]


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_nothing_found_in_one_call_serves_the_next(deltas: bool) -> None:
    """Between two ``assemble_clients`` calls of one tick (or two ticks) an entity's attributes
    may be rebound, an entity despawned and its id given to a new one, or the world be
    another, of another schema, with the same ids: the compiled call after the change gives
    the pure one's sections for the world as it is then, not from what the call before found
    (it keeps nothing from one call to the next)."""
    fast = compiled()
    world, entities, _, live_ids = long_walk(4)
    rng = random.Random(4)
    plans, bits = _assembler.plans(ASSEMBLER_SCHEMA), ASSEMBLER_SCHEMA.class_bits

    def same(jobs: list[Any], tick: int, plans: Any = plans, bits: int = bits) -> None:
        expected = _pyassemble.assemble_clients(deltas, tick, jobs, plans, bits)
        assert fast.assemble_clients(deltas, tick, jobs, plans, bits) == expected

    jobs = client_jobs(rng, world, entities, live_ids, 6)
    same(jobs, world.tick)
    for net_id in rng.sample(live_ids, 40):  # rebound, then the same jobs again
        if net_id in world.entities:
            _rebind(world.entities[net_id], rng)
    same(jobs, world.tick)
    walked = set(world.entities)
    for net_id in rng.sample(sorted(world.entities), 10):  # despawned, the id reused
        world.despawn(world.entities[net_id])
    reused = [world.spawn(rng.choice([Crate, Mob, Forty, Big])) for _ in range(10)]
    assert {e.net_id for e in reused} & walked
    world.commit(8)
    same(_full_views(dict(world.entities), world.tick, jobs), world.tick)
    other = World(Schema.build([Crate, Mob]))  # another schema, the same ids
    for _ in range(len(live_ids)):
        other.spawn(rng.choice([Crate, Mob]))
    other.commit(8)
    for ent in other.entities.values():
        flat = other.schema.flat(type(ent))
        set_path(ent, flat[0].path, random_value(flat[0].codec, rng))
    other.commit(8)
    plans2 = _assembler.plans(other.schema)
    same(_full_views(other.entities, other.tick, jobs), other.tick, plans2, other.schema.class_bits)
    same(_full_views(dict(world.entities), world.tick, jobs), world.tick)


WORLD = object()  # the world of the things the views see


class _Thing:
    """An entity as ``aim`` sees it: a value of the grid's buckets, passed to the rule (and
    its world, which ``retest`` reads)."""

    def __init__(self, net_id: int, world: Any = WORLD) -> None:
        self.net_id = net_id
        self._net_world = world


class _Viewer:
    """A client as ``aim`` reads it: its id, and the rule's second argument."""

    def __init__(self, client_id: int) -> None:
        self.client_id = client_id


def _cell_at(point: Any, size: float) -> tuple[int, ...]:
    """The cell of ``point``, as ``Interest`` places it (not finite: the cell of 0)."""
    return tuple(math.floor(x / size) if math.isfinite(x) else 0 for x in point)


def _grid_of(rng: random.Random, things: dict[int, Any], dims: int, size: float) -> Any:
    """Random positions for ``things`` (a tenth without one; some on a cell's edge, some ints
    among floats, a few not finite, tuples and lists), and the grid of cells holding them."""
    pos: dict[int, Any] = {}
    grid: dict[tuple[int, ...], dict[int, Any]] = {(): {}}
    for net_id, thing in things.items():
        if rng.random() < 0.1:
            grid[()][net_id] = thing
            continue
        point: list[Any] = [rng.uniform(-30, 30) for _ in range(dims)]
        pick = rng.random()
        if pick < 0.1:
            point[0] = rng.randrange(-3, 3) * size  # on a cell's edge
        elif pick < 0.15:
            point[-1] = round(point[-1])
        elif pick < 0.18:
            point[0] = rng.choice([math.inf, -math.inf, math.nan])
        pos[net_id] = tuple(point) if pick < 0.7 else point
        grid.setdefault(_cell_at(point, size), {})[net_id] = thing
    return pos, grid


def _watched(centre: Any, radius: float | None, cells: int, size: float) -> set[Any]:
    """The cells an area covers, as ``Interest`` makes them, and one more that may be empty."""
    if centre is None:
        return {()}
    reach = radius if radius is not None else (cells + 0.5) * size
    spans = [
        range(math.floor((c - reach) / size), math.floor((c + reach) / size) + 1) for c in centre
    ]
    found: list[tuple[int, ...]] = [()]
    for span in spans:
        found = [(*c, k) for c in found for k in span]
    return {(), *found, tuple(99 for _ in centre)}


class _Views:
    """Three views of a random world of things, as ``Interest`` keeps them: each one's
    relevant things and their ids in order, the viewers of each id, the always relevant ids
    (some despawned) and each view's own."""

    def __init__(self, rng: random.Random) -> None:
        self.things = {i: _Thing(i) for i in rng.sample(range(600), 150)}
        self.viewers = [_Viewer(k) for k in range(3)]
        self.relevant: list[dict[int, Any]] = [{} for _ in self.viewers]
        self.orders: list[list[int]] = [[] for _ in self.viewers]
        self.seen_by: dict[int, set[Any]] = {}
        self.always = set(rng.sample(sorted(self.things), 3)) | {9999}
        self.own = [{rng.choice(sorted(self.things))} for _ in self.viewers]

    def churn(self, rng: random.Random) -> None:
        """Some things spawn and despawn; what despawned leaves the views, as
        ``Interest._unplace`` takes it out."""
        things = self.things
        for _ in range(rng.randrange(8)):
            if rng.random() < 0.5:
                net_id = rng.randrange(600)
                things[net_id] = _Thing(net_id)
            elif things:
                del things[rng.choice(sorted(things))]
        for k, relevant in enumerate(self.relevant):
            for net_id in [i for i in relevant if i not in things]:
                del relevant[net_id]
                self.orders[k].remove(net_id)
                self.seen_by[net_id].discard(k)
                if not self.seen_by[net_id]:
                    del self.seen_by[net_id]

    def record(self, k: int, changes: dict[int, bool]) -> tuple[Any, ...]:
        """View ``k``'s record, as the assemblers take it, with the tick's ``changes``."""
        return self.relevant[k], self.orders[k], changes, self.seen_by, self.viewers[k]

    def state(self, tests: int, k: int, changes: dict[int, bool]) -> tuple[Any, ...]:
        """What a call of ``aim`` or ``retest`` for view ``k`` left, orders
        included (and checked to be the relevant ids ascending)."""
        assert self.orders[k] == sorted(self.relevant[k])
        return (
            tests,
            [(i, thing.net_id) for i, thing in self.relevant[k].items()],
            list(self.orders[k]),
            list(changes.items()),
            [(i, sorted(s)) for i, s in self.seen_by.items()],
        )


def aim_ticks(module: Any, seed: int, dims: int, ruled: bool) -> list[Any]:
    """Ten ticks of three views of a random world through ``module.aim``: the entities move,
    spawn and despawn, the views' centres walk (or have none), with a radius or a block of
    cells, always relevant ids (some despawned), and a rule (every call recorded). Returns,
    after each call, its result and the views' state, orders included."""
    rng = random.Random(seed)
    size = rng.choice([5.0, 7.5, 10.0])
    views = _Views(rng)
    centres: list[Any] = [tuple(rng.uniform(-20, 20) for _ in range(dims)) for _ in range(3)]
    calls: list[tuple[int, int]] = []

    def rule(thing: _Thing, viewer: _Viewer) -> bool:
        calls.append((thing.net_id, viewer.client_id))
        return (thing.net_id + viewer.client_id) % 3 != 0

    out: list[Any] = []
    for _ in range(10):
        views.churn(rng)
        pos, grid = _grid_of(rng, views.things, dims, size)
        memo: dict[Any, Any] = {}
        for k in range(3):
            if rng.random() < 0.1:
                centres[k] = None
            elif centres[k] is None or rng.random() < 0.8:
                centres[k] = tuple(rng.uniform(-25, 25) for _ in range(dims))
            radius = rng.choice([None, 0.0, 6.0, 12.5, 20.0])
            watched = _watched(centres[k], radius, rng.randrange(3), size)
            changes: dict[int, bool] = {7: True} if rng.random() < 0.2 else {}
            tests = module.aim(
                views.record(k, changes),
                watched,
                grid,
                pos,
                centres[k],
                radius,
                size,
                views.always,
                views.own[k],
                views.things,
                rule if ruled else None,
                memo,
            )
            out.append((*views.state(tests, k, changes), list(calls)))
            calls.clear()
    return out


@pytest.mark.parametrize("ruled", [False, True], ids=["all", "rule"])
@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_aim_records_what_the_pure_one_records(seed: int, dims: int, ruled: bool) -> None:
    """The differential test of ``aim`` on random worlds over ten ticks: the same entities
    tested, the same relevant entities, changes and viewers, in the same orders, and the
    rule called on the same entities in the same order."""
    fast = compiled()
    want = aim_ticks(_pyassemble, seed, dims, ruled)
    assert aim_ticks(fast, seed, dims, ruled) == want
    assert sum(len(tick[2]) for tick in want) > 30  # entities entered and left


@pytest.mark.parametrize("dims", [2, 3])
def test_aim_sweeps_a_radius_as_the_pure_one(dims: int) -> None:
    """The sweep of a radius's partly covered cells rounds as the pure one: positions on the
    circle exactly, not finite (in the cell of 0), ints among floats, tuples and lists, over
    radii of 0 to infinity and a centre given as a list: the same entities relevant, in the
    same order."""
    fast = compiled()
    rng = random.Random(dims)
    size = 10.0
    centre = tuple(rng.uniform(-5, 5) for _ in range(dims))
    things: dict[int, Any] = {}
    pos: dict[int, Any] = {}
    grid: dict[tuple[int, ...], dict[int, Any]] = {(): {}}
    for net_id in range(400):
        point: list[Any] = [c + rng.uniform(-15, 15) for c in centre]
        pick = rng.random()
        if pick < 0.1:
            point = [centre[0] + 10.0, *centre[1:]]  # exactly on the circle of 10
        elif pick < 0.15:
            point[0] = rng.choice([math.inf, -math.inf, math.nan])
        elif pick < 0.2:
            point[-1] = round(point[-1])
        pos[net_id] = tuple(point) if pick < 0.6 else point
        things[net_id] = grid.setdefault(_cell_at(point, size), {})[net_id] = _Thing(net_id)
    seen = []
    for radius in (0.0, 3.0, 10.0, 15.0, math.inf):
        got: list[Any] = []
        for module, at in [(_pyassemble, centre), (fast, list(centre))]:
            view: tuple[Any, ...] = ({}, [], {}, {}, _Viewer(1))
            area = ({(), *grid}, grid, pos, at, radius, size)
            tests = module.aim(view, *area, set(), set(), things, None, {})
            got.append((tests, list(view[0]), list(view[2].items())))
        assert got[0] == got[1], radius
        seen.append(len(got[0][1]))
    assert seen == sorted(seen) and 0 < seen[2] < seen[-1] == len(things)


@pytest.mark.parametrize("odd", [None, "list", "int", "missing", "short"])
def test_aim_reads_cells_of_any_size_as_the_pure_one(odd: str | None) -> None:
    """The compiled aim reads a cell's ids and positions a window of entities at a time:
    cells of 0 to 50 entities (windows full, part full, and more than two of them), of plain
    positions (tuples of floats) or with one odd one in the first, a middle or the last
    window (a list, an int coordinate, a missing position, one coordinate too few), seen by
    a view that already holds some of them: the same as the pure one, error included."""
    fast = compiled()
    rng = random.Random(odd)
    for n in (0, 1, 15, 16, 17, 31, 32, 33, 50):
        for at in {0, n // 2, n - 1} if odd and n else {None}:
            things = {k * 7 + 1000: _Thing(k * 7 + 1000) for k in range(n)}
            pos: dict[int, Any] = {i: (rng.uniform(0, 10), rng.uniform(0, 10)) for i in things}
            if at is not None:
                i = k = list(things)[at]
                if odd == "list":
                    pos[i] = list(pos[i])
                elif odd == "int":
                    pos[i] = (3, pos[i][1])
                elif odd == "missing":
                    del pos[k]
                else:
                    pos[i] = pos[i][:1]
            grid = {(): {}, (0, 0): dict(things)}
            got: list[Any] = []
            for module in (_pyassemble, fast):
                held = sorted(things)[::3]
                relevant = {i: things[i] for i in held}
                view: tuple[Any, ...] = (
                    relevant,
                    list(held),
                    {},
                    {i: {1} for i in held},
                    _Viewer(1),
                )
                area = ({(), (0, 0)}, grid, pos, (5.0, 5.0), 4.0, 10.0)
                try:
                    tests = module.aim(view, *area, set(), set(), things, None, {})
                except (KeyError, ValueError, TypeError) as exc:
                    # a position of too few coordinates never reaches the grid (Interest
                    # checks each against its dims); there the messages differ: the pure
                    # one's is Python's unpacking error
                    got.append((type(exc), odd == "short" or str(exc)))
                    continue
                got.append((tests, list(relevant), view[1], list(view[2].items())))
            assert got[0] == got[1], (n, at)


def aim_big_ids(module: Any, shift: int) -> list[Any]:
    """Two aims of a view over one cell whose ids are ints of 64 bits and others (``shift``
    and past it): the first with only its relevant ids past 64 bits, the second with some
    found ones past it too (and an always relevant id found twice). Returns each call's
    result and what it left."""
    things = {i: _Thing(i) for i in (1, 2, 3, -1, shift + 2, shift + 4)}
    grid = {(): {}, (0, 0): {i: things[i] for i in (3, -1, 1)}}
    pos = {i: (1.0, 1.0) for i in things}
    out: list[Any] = []
    for relevant, more in [({1: things[1], shift + 2: things[shift + 2]}, 2), ({2: things[2]}, 4)]:
        grid[(0, 0)][shift + more] = things[shift + more]
        changes: dict[int, bool] = {}
        view = (relevant, sorted(relevant), changes, {i: {1} for i in relevant}, _Viewer(1))
        area = ({(), (0, 0)}, grid, pos, (0.0, 0.0), 5.0, 10.0)
        tests = module.aim(view, *area, {3}, set(), things, None, {})
        out.append((tests, list(relevant), view[1], list(changes.items()), view[3]))
    return out


@pytest.mark.parametrize("shift", [2**63, 2**70, -(2**63) - 1, 2**62])
def test_aim_of_ids_past_64_bits_records_what_the_pure_one_records(shift: int) -> None:
    """Ids that are no C number (the compiled ``aim`` then takes a dict of all found, as a
    rule does), relevant or found, among ids that are: the same as the pure one."""
    fast = compiled()
    want = aim_big_ids(_pyassemble, shift)
    assert aim_big_ids(fast, shift) == want
    assert [len(call[3]) for call in want] == [2, 6]


def _view_args(rest: dict[str, Any], changed: dict[str, Any]) -> list[Any]:
    """A call's arguments: the record of an empty view of client 1, then ``rest``, with some
    of either ``changed`` (``view``: the whole record)."""
    record: dict[str, Any] = {
        "relevant": {},
        "order": [],
        "changes": {},
        "seen_by": {},
        "client": _Viewer(1),
    }
    for name, value in changed.items():
        target = record if name in record else rest
        assert name in target or name == "view", name
        target[name] = value
    return [rest.pop("view", tuple(record.values())), *rest.values()]


def _aim_args(**changed: Any) -> list[Any]:
    """The arguments of an ``aim`` call of one view over one cell, with some of them
    ``changed``."""
    thing = _Thing(7)
    rest = {
        "watched": {(), (0, 0)},
        "grid": {(): {}, (0, 0): {7: thing}},
        "pos": {7: (1.0, 2.0)},
        "centre": (0.0, 0.0),
        "radius": 3.0,
        "size": 10.0,
        "always": set(),
        "own": set(),
        "entities": {7: thing},
        "rule": None,
        "memo": {},
    }
    return _view_args(rest, changed)


def _retest_args(**changed: Any) -> list[Any]:
    """The arguments of a ``retest`` call of one view watching one cell, whose entity there
    was touched, with some of them ``changed``."""
    thing = _Thing(7)
    rest = {
        "watched": {(), (0, 0)},
        "grid": {(): {}, (0, 0): {7: thing}},
        "touched": {7: thing},
        "rank": {7: 0},
        "pos": {7: (1.0, 2.0)},
        "cell_of": {7: (0, 0)},
        "always": set(),
        "own": set(),
        "world": WORLD,
        "centre": None,
        "radius": None,
        "memo": {},
    }
    return _view_args(rest, changed)


Cases = list[tuple[dict[str, Any], type[Exception] | tuple[type[Exception], ...]]]


def _raise_recording_nothing(call: Any, make: Any, cases: Cases) -> None:
    """Each case's arguments (``make(**changed)``) make ``call`` raise its error, with no
    change recorded in the view."""
    for changed, error in cases:
        args = make(**changed)
        with pytest.raises(error):
            call(*args)
        assert args[0][2] == {}, changed


@pytest.mark.parametrize("name", [_assembler.PYTHON, _assembler.COMPILED])
def test_aim_errors_are_the_pure_ones(name: str) -> None:
    """A missing or bad position (not a sequence, the wrong length, not numbers), a grid
    without the bucket of no position, a cell or centre of the wrong size, viewers missing
    for an id leaving, a rule that raises: the same errors on both, and nothing recorded."""

    def broken(thing: Any, viewer: Any) -> bool:
        raise LookupError("the game's rule failed")

    module = compiled() if name == _assembler.COMPILED else _pyassemble
    cases: Cases = [
        ({"pos": {}}, KeyError),
        ({"pos": {7: (1.0, 2.0, 3.0)}}, ValueError),
        ({"pos": {7: ("a", 1.0)}}, TypeError),
        ({"pos": {7: 5}}, TypeError),
        ({"grid": {(0, 0): {}}}, KeyError),
        ({"watched": {(), (0, 0, 0)}, "grid": {(): {}, (0, 0, 0): {7: 1}}}, ValueError),
        ({"centre": (0.0, 0.0, 0.0, 0.0)}, ValueError),
        ({"rule": broken}, LookupError),
    ]
    _raise_recording_nothing(module.aim, _aim_args, cases)
    args = _aim_args(relevant={8: object()}, order=[8])  # 7 enters, 8 cannot leave
    with pytest.raises(KeyError):
        module.aim(*args)
    assert args[0][2] == {7: False, 8: True}
    assert module.aim(*_aim_args()) == 1


def test_aim_refuses_a_memo_it_did_not_fill() -> None:
    """The compiled ``aim`` keeps what it read of a cell in the memo; a memo holding
    something else for a cell is a TypeError, not a crash (the pure one keeps nothing)."""
    fast = compiled()
    memo: dict[Any, Any] = {}
    fast.aim(*_aim_args(memo=memo))
    assert list(memo) == [(0, 0)]
    for junk in [None, (), ((7,), (None,), b"")]:
        with pytest.raises(TypeError, match="memo"):
            fast.aim(*_aim_args(memo={(0, 0): junk}))
    memo = {}
    _pyassemble.aim(*_aim_args(memo=memo))
    assert memo == {}


def test_aim_refuses_a_cell_changed_since_it_was_read() -> None:
    """What the compiled ``aim`` keeps of a cell names its entities by their places in the
    cell's bucket: one that is another bucket is a TypeError, and a bucket whose entity at a
    place is another one than when it was read (the memo of an update kept past a change of
    the grid) a RuntimeError when that entity enters, not another entity recorded."""
    fast = compiled()
    memo: dict[Any, Any] = {}
    fast.aim(*_aim_args(memo=memo))
    with pytest.raises(TypeError, match="memo"):
        fast.aim(*_aim_args(memo=memo))  # the same cell, another bucket (and entity)
    thing = _Thing(7)
    bucket = {7: thing}
    grid = {(): {}, (0, 0): bucket}
    memo = {}
    fast.aim(*_aim_args(grid=grid, memo=memo, entities={7: thing}))
    del bucket[7]
    bucket[8] = _Thing(8)  # the same size, another entity
    args = _aim_args(grid=grid, memo=memo, pos={8: (1.0, 2.0)})
    with pytest.raises(RuntimeError, match="changed"):
        fast.aim(*args)
    assert args[0][0] == {} and args[0][2] == {}


@pytest.mark.parametrize("name", [_assembler.PYTHON, _assembler.COMPILED])
def test_a_view_that_is_no_record_is_a_type_error(name: str) -> None:
    """``aim`` and ``retest`` take a view's record, ``(relevant, order, changes,
    seen_by, client)``: a record that is not a tuple of five, or holds the wrong kind of
    thing, is a TypeError naming it on both (a client without an id, its AttributeError),
    before anything is tested or recorded."""
    module = compiled() if name == _assembler.COMPILED else _pyassemble
    good: tuple[Any, ...] = ({}, [], {}, {}, _Viewer(1))
    bad: list[tuple[Any, str]] = [
        (None, "tuple"),
        (list(good), "tuple"),
        (good[:4], "tuple"),
        ((*good, None), "tuple"),
        (([], *good[1:]), "relevant"),
        (({}, (), *good[2:]), "order"),
        (({}, [], [], *good[3:]), "changes"),
        (({}, [], {}, set(), good[4]), "viewers"),
    ]
    for view, what in bad:
        with pytest.raises(TypeError, match=what):
            module.aim(*_aim_args(view=view))
    with pytest.raises(AttributeError):
        module.aim(*_aim_args(client=object()))
    for view, what in bad:
        with pytest.raises(TypeError, match=what):
            module.retest(*_retest_args(view=view))
    args = _retest_args(client=object())
    with pytest.raises(AttributeError):
        module.retest(*args)
    assert args[0][:4] == ({}, [], {}, {})


def retest_ticks(module: Any, seed: int, dims: int, ball: bool) -> list[Any]:
    """Ten ticks of three views of a random world through ``module.aim`` then
    ``module.retest``: the entities move, spawn and despawn, each view's area moves (aimed
    at its cells, as ``Interest`` aims a view whose centre moved), then 40
    entities and 3 despawned ones are touched in a random order, with always relevant ids
    (some despawned); with ``ball``, the retest's is a radius's (the cells of its box, its
    centre sometimes None). Returns, after each call, its result and the view's state,
    orders included."""
    rng = random.Random(seed)
    size = rng.choice([5.0, 7.5, 10.0])
    views = _Views(rng)
    out: list[Any] = []
    for _ in range(10):
        views.churn(rng)
        pos, grid = _grid_of(rng, views.things, dims, size)
        cell_of = {i: c for c, bucket in grid.items() if c for i in bucket}
        things, always = views.things, views.always
        for k in range(3):
            centre: Any = tuple(rng.uniform(-25, 25) for _ in range(dims))
            radius = rng.choice([0.0, 6.0, 12.5]) if ball else None
            now = _watched(centre, radius, rng.randrange(3), size)
            if ball and rng.random() < 0.1:
                centre = None
            changes: dict[int, bool] = {7: True} if rng.random() < 0.2 else {}
            record = views.record(k, changes)
            own = views.own[k]
            aimed: tuple[Any, ...] = (centre, radius, size, always, own, things, None, {})
            tests = module.aim(record, now, grid, pos, *aimed)
            out.append(views.state(tests, k, changes))
            # then the entities touched since, some of them despawned (of another world)
            touched = {i: things[i] for i in rng.sample(sorted(things), 40)}
            for net_id in rng.sample(range(600, 700), 3):
                touched[net_id] = _Thing(net_id, None)
            rank = {i: n for n, i in enumerate(touched)}
            memo: dict[Any, Any] | None = {} if k else None  # packed by the compiled one
            area = (pos, cell_of, always, own, WORLD, centre, radius, memo)
            tests = module.retest(record, now, grid, touched, rank, *area)
            out.append(views.state(tests, k, changes))
    return out


@pytest.mark.parametrize("ball", [False, True], ids=["cells", "radius"])
@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_retest_records_what_the_pure_one_records(seed: int, dims: int, ball: bool) -> None:
    """The differential test of ``retest`` (of a block of cells, or a radius), after ``aim``,
    on random worlds over ten ticks: the same entities tested, the same relevant entities,
    changes and viewers, in the same orders."""
    fast = compiled()
    want = retest_ticks(_pyassemble, seed, dims, ball)
    assert retest_ticks(fast, seed, dims, ball) == want
    assert sum(len(tick[3]) for tick in want[::2]) > 30  # entities entered and left
    assert sum(tick[0] for tick in want[1::2]) > 100  # the touched ones tested again


@pytest.mark.parametrize("name", [_assembler.PYTHON, _assembler.COMPILED])
def test_retest_errors_are_the_pure_ones(name: str) -> None:
    """A touched id missing from ``touched``, an entity without a world, a position but no
    cell, a client without an id, a watched, always or cell's bucket that is not a container,
    a rank that is not an int (an error on both): the same errors on both, and nothing
    recorded; viewers missing for an id leaving: the same error after the same records."""
    module = compiled() if name == _assembler.COMPILED else _pyassemble
    cases: Cases = [
        ({"touched": {}}, KeyError),
        ({"touched": {7: object()}}, AttributeError),
        ({"cell_of": {}}, KeyError),
        ({"client": object()}, AttributeError),
        ({"watched": 5}, TypeError),
        ({"always": 5}, TypeError),
        ({"grid": {(): {}, (0, 0): 5}}, TypeError),
        ({"rank": {7: None, 8: 1}, "relevant": {8: _Thing(8)}, "order": [8]}, TypeError),
        ({"radius": "far"}, TypeError),
        ({"radius": 3.0, "centre": (0.0, 0.0, 0.0, 0.0)}, ValueError),
        ({"radius": 3.0, "centre": (0.0, 0.0, 0.0)}, ValueError),  # a point of two
        ({"radius": 3.0, "centre": (0.0, 0.0), "pos": {7: ("a", 1.0)}}, TypeError),
        ({"radius": 3.0, "centre": (0.0, 0.0), "pos": {7: 5}}, TypeError),
    ]
    _raise_recording_nothing(module.retest, _retest_args, cases)
    far = {"pos": {7: (1.0, 2.0), 8: (50.0, 50.0)}, "cell_of": {7: (0, 0), 8: (5, 5)}}
    eight = _Thing(8)
    both = {"touched": {7: _Thing(7), 8: eight}, "rank": {7: 0, 8: 1}}
    args = _retest_args(relevant={8: eight}, order=[8], **far, **both)  # 8 cannot leave
    with pytest.raises(KeyError):
        module.retest(*args)
    assert args[0][2] == {7: False, 8: True}
    args = _retest_args(radius=2.0, centre=(0.0, 0.0))  # (1, 2) is beyond 2: nothing changes
    assert module.retest(*args) == 1
    assert args[0][2] == {}
    args = _retest_args(radius=3.0, centre=(0.0, 0.0), pos={7: (math.nan, 0.0)})
    assert module.retest(*args) == 1  # not finite: not beyond, as Interest._test has it
    assert args[0][2] == {7: False}
    args = _retest_args()
    assert module.retest(*args) == 1
    assert args[0][:4] == ({7: args[3][7]}, [7], {7: False}, {7: {1}})
    args = _retest_args(world=object())  # of another world: not tested
    assert module.retest(*args) == 0
    assert args[0][2] == {}


def test_retest_refuses_a_memo_it_did_not_fill() -> None:
    """The compiled ``retest`` keeps what it read of a cell's touched entities in the memo
    (None for a cell it could not read so, whose ids it then looks up one by one); a memo
    holding something else for a cell is a TypeError, not a crash (the pure one keeps
    nothing)."""
    fast = compiled()
    memo: dict[Any, Any] = {}
    args = _retest_args(memo=memo)
    assert fast.retest(*args) == 1
    assert memo[(0, 0)][:2] == ((7,), (args[3][7],)) and memo[()] == ((), (), b"")
    args = _retest_args(memo=memo)  # the memo read again, by another view
    assert fast.retest(*args) == 1
    assert args[0][2] == {7: False}
    memo = {}
    with pytest.raises(KeyError):  # raised by the look-up one by one, as the pure one
        fast.retest(*_retest_args(touched={}, memo=memo))
    assert memo[(0, 0)] is None
    for junk in [(), ((7,), (None,), b""), 5]:
        with pytest.raises(TypeError, match="memo"):
            fast.retest(*_retest_args(memo={(0, 0): junk}))
    with pytest.raises(TypeError, match="memo"):
        fast.retest(*_retest_args(memo=[]))
    memo = {}
    _pyassemble.retest(*_retest_args(memo=memo))
    assert memo == {}


class _Ranked:
    """An entity as a budget's ranking reads it (a ``__dict__``, as a NetClass instance)."""

    def __init__(self, layout: str, spawn: int, hist: list[Any]) -> None:
        self._net_layout, self._net_spawn, self._net_hist = layout, spawn, hist


def rank_args(rng: random.Random, weighed: bool, near: str) -> tuple[Any, ...]:
    """Random arguments of a budget's ``rank``: live entities changed or not since the base
    or an older held tick, entering, despawns held or not, earlier waits; priorities that
    tie often (few distinct weights and positions), so the id order of ties counts."""
    tick, base = 40, 30
    ids = sorted(rng.sample(range(1, 400), 120))
    entities: dict[int, Any] = {}
    deleted: dict[int, list[tuple[int, int]]] = {}
    prior: dict[int, tuple[int, int]] = {}
    since: dict[int, int] = {}
    entering: set[int] = set()
    pos: dict[int, Any] = {}
    for net_id in ids:
        pick = rng.random()
        if pick < 0.15:
            deleted[net_id] = [(rng.choice([0, 20, 31]), rng.choice([31, 35, 1 << 62]))]
        else:
            last = rng.choice([10, 29, 30, 31, 39, 40])
            hist: list[Any] = (
                []
                if pick < 0.2
                else [(last - 1, 1, {}, None), (last, rng.choice([1, 2, 3]), {}, None)]
            )
            ent = _Ranked(rng.choice(["a", "b"]), rng.choice([0, 25, 30, 31]), hist)
            entities[net_id] = ent
            if pick > 0.9:
                entering.add(net_id)
            if rng.random() < 0.2:
                since[net_id] = rng.choice([20, 29])
        if rng.random() < 0.3:
            prior[net_id] = (rng.choice([-1, 20]), rng.choice([33, 36, 39, 40]))
        if rng.random() < 0.8:
            point: Any = (rng.choice([0.0, 7.5, 30.0, 1e9]), rng.choice([0.0, 4.0, -8.25]))
            pos[net_id] = point if rng.random() < 0.5 else list(point)
    weights = {net_id: rng.choice([0.5, 1.0, 3.0]) for net_id in ids}

    def weigh(ent: Any) -> float:
        assert isinstance(ent, _Ranked)
        return weights[next(i for i, e in entities.items() if e is ent)]

    centre = None if near == "none" else (rng.uniform(-5, 5), 2.0)
    nearness = None if near == "off" else (centre, pos, 10.0)
    hot = {"a": 2, "b": 0}
    return (
        tick,
        base,
        ids,
        entities,
        deleted,
        prior,
        since,
        hot,
        entering,
        weigh if weighed else None,
        nearness,
    )


@pytest.mark.parametrize("near", ["off", "none", "centre"])
@pytest.mark.parametrize("weighed", [False, True], ids=["unweighed", "weighed"])
@pytest.mark.parametrize("seed", range(6))
def test_rank_orders_as_the_pure_one(seed: int, weighed: bool, near: str) -> None:
    """A budget's ranking (which records a packet may carry, most urgent first): the compiled
    one gives the pure one's ids in the pure one's order, ties included."""
    fast = compiled()
    args = rank_args(random.Random(seed), weighed, near)
    expected = _pyassemble.rank(*args)
    assert fast.rank(*args) == expected
    assert 20 < len(expected) < len(args[2])


@pytest.mark.parametrize("name", [_assembler.PYTHON, _assembler.COMPILED])
def test_rank_errors_are_the_pure_ones(name: str) -> None:
    """A despawn without spans, a weight that is not a number and a position that is not
    one raise the same errors on both."""
    module = compiled() if name == _assembler.COMPILED else _pyassemble
    ent = _Ranked("a", 0, [(5, 1, {}, None)])
    args: list[Any] = [9, 1, [3], {}, {}, {}, {}, {"a": 1}, None, None, None]
    with pytest.raises(KeyError):
        module.rank(*args)
    args[3] = {3: ent}
    args[9] = lambda e: "heavy"
    with pytest.raises(TypeError):
        module.rank(*args)
    args[9], args[10] = None, ((0.0, 0.0), {3: ("x", 1.0)}, 1.0)
    with pytest.raises(TypeError):
        module.rank(*args)
    args[10] = ((0.0, 0.0), {3: (3.0, 4.0)}, 1.0)
    assert module.rank(*args) == [3]


def held_bases(
    seed: int, deltas: bool, ticks: int, every: int
) -> Iterator[tuple[random.Random, tuple[Any, ...], int, dict[int, int]]]:
    """For each tick of a driven world and each base its clients hold: a random source,
    ``assemble_args`` of the tick, the base, and every ``every``-th id held as of an older
    tick (one the entity was alive at)."""
    driver = Driver(seed, deltas, 8)
    for _ in range(6):
        driver.spawn()
    rng = random.Random(seed)
    for _ in range(ticks):
        driver.step()
        driver.packets(_assembler.PYTHON)
        args = assemble_args(driver, deltas)
        ids, entities = args[4], args[5]
        for base in args[2]:
            held = {i: rng.randrange(max(1, base - 3), base) for i in ids[::every] if base > 1}
            held = {i: t for i, t in held.items() if i in entities and entities[i]._net_spawn <= t}
            yield rng, args, base, held


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_fit_picks_and_assembles_as_the_pure_one(deltas: bool) -> None:
    """``fit`` (a client's section within a room, down a ranking): the compiled one, which
    sizes each record once and keeps the section's bytes as records go in, gives the pure
    one's section and waiting ids (the pure one assembles again whenever its estimate is
    over), for rooms from nothing to everything, ids entering, held as of an older tick and
    despawned included; given every id first and the ranking to fall back on, or the ranking
    alone; a record over ``most`` is the same ValueError, but not when all fit."""
    fast = compiled()
    waits = set()
    for rng, found, base, held in held_bases(31, deltas, 10, 4):
        _, tick, _, _, ids, entities, deleted, plans, bits = found
        order = rng.sample(ids, len(ids))
        others = [i for i in entities if i not in held]
        entering = set(rng.sample(others, len(others) // 5)) or None if base % 2 else None
        world = (entities, deleted, plans, bits, entering, held or None)
        args: tuple[Any, ...]
        whole = len(_pyassemble.assemble(deltas, tick, [base], base or -1, ids, *world)[0][1])
        for room in (0, 3, whole // 3, whole // 2, whole - 1, whole, whole + 40):
            for first, ranked in (([*order], None), ([*ids], partial(list, order))):
                args = (deltas, tick, base, first, *world, room, 1000, ranked)
                expected = _pyassemble.fit(*args)
                assert fast.fit(*args) == expected
                waits.add(len(expected[1]) / max(1, len(ids)))
        for first, ranked in (([*order], None), ([*ids], partial(list, order))):
            args = (deltas, tick, base, first, *world, whole - 1, 2, ranked)
            with pytest.raises(ValueError, match="raise the mtu") as slow:
                _pyassemble.fit(*args)
            with pytest.raises(ValueError, match="raise the mtu") as quick:
                fast.fit(*args)
            assert str(quick.value) == str(slow.value)
        args = (deltas, tick, base, [*ids], *world, whole, 2, partial(list, order))
        assert (
            fast.fit(*args)
            == _pyassemble.fit(*args)
            == (_pyassemble.assemble(deltas, tick, [base], base or -1, ids, *world)[0], [])
        )
    assert 0.0 in waits and len(waits) > 10


@pytest.mark.parametrize("deltas", [True, False], ids=["deltas", "whole"])
def test_sizes_are_each_records_alone(deltas: bool) -> None:
    """``sizes`` (the pure ``fit``'s bytes of each record alone; the compiled ``fit`` sizes
    them in its own walk) is the length of the section of that id alone, for every base the
    clients hold, ids held as of an older tick included; despawned ids and ids without a
    record too (0)."""
    seen = set()
    for _, found, base, held in held_bases(23, deltas, 12, 5):
        _, tick, _, _, ids, entities, deleted, plans, bits = found
        alone = [
            len(
                _pyassemble.assemble(
                    deltas,
                    tick,
                    [base],
                    base or -1,
                    [i],
                    entities,
                    deleted,
                    plans,
                    bits,
                    None,
                    held or None,
                )[0][1]
            )
            for i in ids
        ]
        args = (deltas, tick, base, ids, entities, deleted, plans, bits, None, held or None)
        assert _pyassemble.sizes(*args) == alone
        seen.update(alone)
    assert 0 in seen and len(seen) > 5


class _Mover:
    """An entity as the interest's grid update reads it (a ``__dict__``, as a NetClass
    instance): its world, layout, dirty mask, id and values."""

    def __init__(self, world: Any, layout: str, dirty: int, net_id: int, point: Any) -> None:
        self._net_world, self._net_layout, self._net_dirty = world, layout, dirty
        self.net_id, self._net_vals = net_id, [0, point, 0]


def _cell_of_point(size: float) -> Any:
    """``Interest._cell``: a point's cell, a coordinate that is not finite in cell 0."""
    return lambda p: tuple(math.floor(x / size) if math.isfinite(x) else 0 for x in p)


def moves_args(rng: random.Random, dims: int, rule: bool, size: float) -> list[Any]:
    """Random arguments of the interest's ``moves``: entities of other worlds, of a layout
    without a position, whose position was not written, or was (floats, ints, lists, points
    off the finite line, the same cell or another, cells left empty), positions past 64 bits of
    dirty mask and negative masks; a grid that already holds some of them."""
    world = object()
    grid: dict[Any, dict[int, Any]] = {(): {}}
    cell_of: dict[int, Any] = {}
    pos: dict[int, Any] = {}
    dirty = []
    for net_id in rng.sample(range(500), 120):
        pick = rng.random()
        point: Any = [rng.uniform(-100, 100) for _ in range(dims)]
        if pick < 0.05:
            point[0] = rng.choice([math.inf, -math.inf, math.nan])
        elif pick < 0.15:
            point = [round(x) for x in point]
        elif pick < 0.2:
            point[-1] = float(round(point[-1] / size) * size)  # on a cell's edge
        if rng.random() < 0.7:
            point = tuple(point)
        index = 1 if rng.random() < 0.8 else 70
        mask = rng.choice([0, 1 << index, (1 << index) | 5, 4, -1, -3])
        layout = "pos" if rng.random() < 0.9 else "none"
        ent = _Mover(world if rng.random() < 0.9 else object(), layout, mask, net_id, point)
        if index == 70:
            ent._net_vals = [0] * 71
            ent._net_vals[70] = point
            ent._net_layout = "far"
        dirty.append(ent)
        if rng.random() < 0.6:  # already placed: in its own cell now, or in another
            at = _cell_of_point(size)(tuple(point))
            if rng.random() < 0.5:
                at = tuple(c + rng.choice([-1, 1]) for c in at)
            if rng.random() < 0.3:
                at = tuple(float(c) for c in at) if rng.random() < 0.5 else at[:-1]
            cell_of[net_id] = at
            grid.setdefault(at, {})[net_id] = ent
            if rng.random() < 0.5:
                grid[at][net_id + 1000] = object()
    where = {"pos": 1, "far": 70}
    cell = _cell_of_point(size)
    return [world, dirty, where, grid, cell_of, pos, {}, size, dims == 2, rule, cell]


def _grid_state(args: list[Any]) -> Any:
    """What ``moves`` changed, orders included (an entity by its id, another object by its
    type: the two runs have objects of their own)."""

    def named(value: Any) -> Any:
        return value.net_id if isinstance(value, _Mover | _SlotMover) else type(value).__name__

    def items(found: dict[Any, Any]) -> list[tuple[Any, Any]]:
        return [(key, named(value)) for key, value in found.items()]

    grid = [(cell, items(bucket)) for cell, bucket in args[3].items()]
    return grid, list(args[4].items()), list(args[5].items()), items(args[6])


@pytest.mark.parametrize("rule", [False, True], ids=["area", "predicate"])
@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_moves_place_as_the_pure_one(seed: int, dims: int, rule: bool) -> None:
    """The interest's update of its grid from the dirty entities: the compiled one leaves the
    grid, the cells, the positions and the entities to test as the pure one does (dict orders
    included) and counts the same changes of cell."""
    fast = compiled()
    for size in (7.5, 30.0, 1.0):
        pure = moves_args(random.Random(seed), dims, rule, size)
        got = moves_args(random.Random(seed), dims, rule, size)
        moved = _pyassemble.moves(*pure)
        assert fast.moves(*got) == moved
        assert _grid_state(got) == _grid_state(pure)
        assert 0 < moved < len(pure[1])


class _SlotMover:
    """A ``_Mover`` without a ``__dict__``: every attribute found by ``getattr``."""

    __slots__ = ("_net_dirty", "_net_layout", "_net_vals", "_net_world", "net_id")

    def __init__(self, mover: _Mover) -> None:
        self._net_world, self._net_layout = mover._net_world, mover._net_layout
        self._net_dirty, self.net_id, self._net_vals = (
            mover._net_dirty,
            mover.net_id,
            mover._net_vals,
        )


class _ClassMask(_Mover):
    """A ``_Mover`` whose dirty mask its class gives (not in its ``__dict__``)."""

    _net_dirty = 2


def _odd_movers(args: list[Any], rng: random.Random) -> list[Any]:
    """``moves_args``'s arguments with some entities made ones without a ``__dict__``, some
    with the dirty mask from their class, and some listed twice, over several windows of what
    the compiled ``moves`` warms ahead (16 entities each)."""
    dirty = []
    for ent in args[1]:
        pick = rng.random()
        if pick < 0.15:
            ent = _SlotMover(ent)
        elif pick < 0.3 and ent._net_layout == "pos":
            del ent._net_dirty
            ent.__class__ = _ClassMask
        dirty.append(ent)
        if rng.random() < 0.1:
            dirty.append(ent)
    return [*args[:1], dirty, *args[2:]]


@pytest.mark.parametrize("dims", [2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_moves_of_entities_found_otherwise_as_the_pure_one(seed: int, dims: int) -> None:
    """What the compiled ``moves`` takes from what it warmed (an entity's mask, values and id
    in its ``__dict__``) and what it looks up itself (an entity without one, a mask its class
    gives, one listed twice) place the grid as the pure one does."""
    fast = compiled()
    pure = _odd_movers(moves_args(random.Random(seed), dims, True, 7.5), random.Random(seed))
    got = _odd_movers(moves_args(random.Random(seed), dims, True, 7.5), random.Random(seed))
    assert len(pure[1]) > 4 * 16
    assert fast.moves(*got) == _pyassemble.moves(*pure)
    assert _grid_state(got) == _grid_state(pure)


@pytest.mark.parametrize("name", [_assembler.PYTHON, _assembler.COMPILED])
def test_moves_errors_are_the_pure_ones(name: str) -> None:
    """A position that is not a point, too short, or whose cell is past any int, and an
    entity without values: the same errors on both."""
    module = compiled() if name == _assembler.COMPILED else _pyassemble
    world = object()
    for point, error in [
        (("a", 1.0), TypeError),
        ((1.0,), IndexError),
        (5, TypeError),
        ((1e308, 0.0), OverflowError),
    ]:
        ent = _Mover(world, "pos", 2, 3, point)
        args = [world, [ent], {"pos": 1}, {}, {}, {}, {}, 1e-10, True, False, _cell_of_point(1e-10)]
        with pytest.raises(error):
            module.moves(*args)
    ent = _Mover(world, "pos", 2, 3, (1.0, 2.0))
    del ent._net_vals
    with pytest.raises(AttributeError):
        module.moves(world, [ent], {"pos": 1}, {}, {}, {}, {}, 1.0, True, False, None)


def test_a_commit_leaves_its_history_entries_out_of_the_collector() -> None:
    """The compiled commit takes each history entry out of the cyclic collector's lists
    when it can be in no cycle: its bits before are ints (a tuple of them). Every full
    collection would otherwise walk every entity's entries; and with it the entity's history,
    bits and widths lists (which hold such entries and ints), whose entries a full
    collection would still read. One whose bits before hold a container stays tracked, with
    its lists, and the collector still sees through them."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    world.history_table = None  # the histories stay lists (test_history.py has the rings)
    plain, odd = world.spawn(Crate), world.spawn(Crate)
    for ent in (plain, odd):
        ent._net_hist, ent._net_dirty = [], 1
    plain._net_before = {0: 12}
    odd._net_before = {0: []}
    assert not gc.is_tracked(plain._net_before) and gc.is_tracked(odd._net_before)
    fast.commit(world, [plain, odd], 5, 4)
    assert plain._net_hist == [(5, 1, (12,), None)]
    assert not gc.is_tracked(plain._net_hist[0]) and not gc.is_tracked(plain._net_hist[0][2])
    assert not any(map(gc.is_tracked, (plain._net_hist, plain._net_bits, plain._net_widths)))
    assert gc.is_tracked(odd._net_hist[0])
    assert all(map(gc.is_tracked, (odd._net_hist, odd._net_bits, odd._net_widths)))


def test_the_pure_commits_entries_leave_the_collector_by_themselves() -> None:
    """The pure commit's entries hold their bits before as a tuple of ints, so the collector
    untracks them at its first pass (an entry holding a dict stayed tracked for good)."""
    world = World(ASSEMBLER_SCHEMA)
    ent = world.spawn(Crate)
    ent._net_hist, ent._net_dirty, ent._net_before = [], 0b11, {1: 7, 0: 12}
    _pyassemble.commit(world, [ent], 5, 4)
    assert ent._net_hist == [(5, 0b11, (12, 7), None)]
    gc.collect()
    gc.collect()
    assert not gc.is_tracked(ent._net_hist[0])


def _commit_one(module: Any, world: World, ent: Any, tick: int, oldest: int, before: Any) -> None:
    """Commit one write of ``ent`` (``before``: its bits before, by index) at ``tick``."""
    ent._net_dirty = sum(1 << i for i in before)
    ent._net_before = dict(before)
    module.commit(world, [ent], tick, oldest)


@pytest.mark.skipif(
    sys.version_info >= (3, 14), reason="from 3.14 tuples cache their hash: no rewrite there"
)
def test_a_commit_rewrites_the_entry_it_drops_in_place() -> None:
    """The compiled commit takes the oldest entry it drops, and its tuple of bits before when
    it has as many items, for the new entry, rewritten in place, when nothing else holds them
    (its two tuples a moved entity and tick otherwise): the same history as the pure
    commit's, still out of the collector. An entry or a tuple of bits before that something
    else holds is left as it was, and a new one made."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    world.history_table = None  # the histories stay lists (test_history.py has the rings)
    ent, ref = world.spawn(Crate), world.spawn(Crate)
    for e in (ent, ref):
        e._net_hist = []
    writes = [{0: 1}, {0: 2}, {0: 3, 1: 4}, {1: 5}, {0: 6}, {0: 7}]
    for tick, before in enumerate(writes[:2], 1):
        _commit_one(fast, world, ent, tick, 0, before)
    oldest_id, flat_id = id(ent._net_hist[0]), id(ent._net_hist[0][2])
    _commit_one(fast, world, ent, 3, 1, writes[2])  # drops tick 1: two items now, not one
    assert id(ent._net_hist[-1]) == oldest_id and id(ent._net_hist[-1][2]) != flat_id
    oldest_id, flat_id = id(ent._net_hist[0]), id(ent._net_hist[0][2])
    _commit_one(fast, world, ent, 4, 2, writes[3])  # drops tick 2: one item, as it had
    assert (id(ent._net_hist[-1]), id(ent._net_hist[-1][2])) == (oldest_id, flat_id)
    held, held_flat = ent._net_hist[0], ent._net_hist[1][2]
    _commit_one(fast, world, ent, 5, 3, writes[4])  # tick 3's entry is held here
    assert ent._net_hist[-1] is not held and held == (3, 0b11, (3, 4), None)
    _commit_one(fast, world, ent, 6, 4, writes[5])  # tick 4's bits before are held
    assert held_flat == (5,) and ent._net_hist[-1][2] is not held_flat
    for tick, before in enumerate(writes, 1):
        _commit_one(_pyassemble, world, ref, tick, tick - 2, before)
    assert ent._net_hist == ref._net_hist == [(5, 1, (6,), None), (6, 1, (7,), None)]
    for change in ent._net_hist:
        assert not gc.is_tracked(change) and not gc.is_tracked(change[2])


def test_a_commit_rewrites_no_entry_of_other_bits() -> None:
    """An entry is rewritten only for bits before that are ints of a mask of 64 bits or
    fewer: bits before holding a container make a new entry, which stays tracked, and a mask
    past 64 bits a new entry too; a bad write fails as before and leaves the history."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    world.history_table = None  # the histories stay lists (test_history.py has the rings)
    crate, big = world.spawn(Crate), world.spawn(Big)
    crate._net_hist, big._net_hist = [], []
    _commit_one(fast, world, crate, 1, 0, {0: 1})
    oldest_id = id(crate._net_hist[0])
    _commit_one(fast, world, crate, 2, 1, {0: []})
    assert crate._net_hist == [(2, 1, ([],), None)] and id(crate._net_hist[0]) != oldest_id
    assert gc.is_tracked(crate._net_hist[0])
    _commit_one(fast, world, big, 1, 0, {0: 1})
    for tick, before in [(2, {0: 2, 64: 3}), (3, {65: 4})]:
        oldest_id = id(big._net_hist[0])
        _commit_one(fast, world, big, tick, tick - 1, before)
        assert id(big._net_hist[0]) != oldest_id
    assert big._net_hist == [(3, 1 << 65, (4,), None)]
    _commit_one(fast, world, big, 4, 3, {1: 5})
    kept = list(big._net_hist)
    big._net_dirty, big._net_before = 0b11, {1: 6}  # the bits before lack index 0
    with pytest.raises(RuntimeError):
        fast.commit(world, [big], 5, 4)
    big._net_dirty, big._net_before = 0b11, {1: 6, 2: 7}
    with pytest.raises(KeyError):
        fast.commit(world, [big], 5, 4)
    assert big._net_hist == kept == [(4, 0b10, (5,), None)]


def test_a_commit_finds_names_held_in_another_order() -> None:
    """The compiled commit looks for an entity's names where the last entity held them, a
    hint only: entities whose dicts hold them in other orders, as equal strings that are not
    the interned names, get the same histories as from the pure commit, in turns."""
    fast = compiled()
    world = World(ASSEMBLER_SCHEMA)
    ents = [world.spawn(Crate) for _ in range(4)]
    refs = [world.spawn(Crate) for _ in range(4)]
    for k, ent in enumerate(ents):
        if k % 2:
            items = list(vars(ent).items())[::-1]
            vars(ent).clear()
            vars(ent).update({"".join(list(name)): value for name, value in items})
    for tick in range(1, 7):
        for k, (ent, ref) in enumerate(zip(ents, refs, strict=True)):
            for e in (ent, ref):
                e.weight = (tick * (k + 1)) % 32
            if tick % 3:
                for e in (ent, ref):
                    e.tag = "abc"[: tick % 4]
        fast.commit(world, [e for e in ents if e._net_dirty], tick, tick - 3)
        _pyassemble.commit(world, [e for e in refs if e._net_dirty], tick, tick - 3)
        for ent, ref in zip(ents, refs, strict=True):
            assert entries(ent) == entries(ref) and ent._net_dirty == ref._net_dirty == 0


@pytest.mark.parametrize("name", [_assembler.PYTHON, _assembler.COMPILED])
def test_a_commit_empties_the_record_cache_of_what_changed(name: str) -> None:
    """Both commits leave a changed entity's record cache empty and an unchanged one's as it
    was: the compiled one clears the dict it has in place (an empty one left alone) instead of
    making a new one, and gives a new dict to an entity whose cache is not a dict."""
    module = compiled() if name == _assembler.COMPILED else _pyassemble
    world = World(ASSEMBLER_SCHEMA)
    world.history_table = None
    full, empty, odd, still = (world.spawn(Crate) for _ in range(4))
    for ent in (full, empty, odd, still):
        ent._net_hist, ent._net_dirty, ent._net_before = [], 1, {0: 3}
    still._net_dirty, still._net_before = 0, {}
    caches = [{("E", 1): b"x", ("U", 2, 1): b"y"}, {}, None, {("E", 0): b"z"}]
    for ent, cache in zip((full, empty, odd, still), caches, strict=True):
        ent._net_cache = cache
    module.commit(world, [full, empty, odd, still], 5, 4)
    assert full._net_cache == empty._net_cache == odd._net_cache == {}
    assert type(odd._net_cache) is dict and still._net_cache == {("E", 0): b"z"}
    if name == _assembler.COMPILED:
        assert full._net_cache is caches[0] and empty._net_cache is caches[1]


@pytest.mark.parametrize("seed", range(4))
def test_commits_keep_the_bits_before_as_the_pure_one(seed: int) -> None:
    """Both commits give every entity the same history, for random writes in random order
    over every class (masks past 64 bits included): each entry's bits before are a tuple with
    one item per set bit of its mask, ascending, which the compiled walk reads by rank."""
    compiled()
    pure, fast = Driver(seed, True, 8), Driver(seed, True, 8)
    wide = 0
    for _ in range(24):  # past the ring of 8: the compiled commit rewrites dropped entries
        pure.step()
        fast.step()
        pure.packets(_assembler.PYTHON)
        fast.packets(_assembler.COMPILED)
        assert pure.world.entities.keys() == fast.world.entities.keys()
        for net_id, ent in pure.world.entities.items():
            hist = [change[:3] for change in entries(ent)]
            assert [change[:3] for change in entries(fast.world.entities[net_id])] == hist
            for _, mask, before in hist:
                assert type(before) is tuple and len(before) == bin(mask).count("1")
                wide += mask >> 64 != 0
    assert wide


@pytest.mark.parametrize("name", [_assembler.PYTHON, _assembler.COMPILED])
def test_commit_errors_are_the_pure_ones(name: str) -> None:
    """Bits before lacking an index of the changed mask are the dict's KeyError, and bits
    before of more indices than it has a RuntimeError, on both (masks past 64 bits too); a
    whole wide mask's bits before are kept in its bits' order."""
    module = compiled() if name == _assembler.COMPILED else _pyassemble
    world = World(ASSEMBLER_SCHEMA)
    crate, big = world.spawn(Crate), world.spawn(Big)
    cases: list[tuple[Any, int, dict[int, int], type[Exception] | None]] = [
        (crate, 0b1, {}, RuntimeError),
        (crate, 0b1, {0: 1, 1: 2}, RuntimeError),
        (crate, 0b11, {0: 1, 5: 2}, KeyError),
        (big, 1 << 65 | 1, {0: 1, 64: 2}, KeyError),
        (big, 1 << 65 | 1, {0: 1}, RuntimeError),
        (big, 1 << 65 | 1 << 3, {65: 5, 3: 4}, None),
    ]
    for ent, mask, before, error in cases:
        ent._net_hist, ent._net_dirty, ent._net_before = [], mask, before
        if error is None:
            module.commit(world, [ent], 5, 4)
            assert entries(ent) == [(5, mask, (4, 5), None)]
            continue
        with pytest.raises(error):
            module.commit(world, [ent], 5, 4)
        assert entries(ent) == []


def relevance_args(rng: random.Random) -> list[tuple[Any, ...]]:
    """Random arguments of ``relevance``: views of up to 60 ids of 0-99 relevant now, logs of
    up to 12 ticks (with gaps) whose changes name ids relevant or not, bases before, inside
    and after the log, and 0."""
    out = []
    for _ in range(40):
        relevant = {i: object() for i in rng.sample(range(100), rng.randrange(60))}
        ticks = sorted(rng.sample(range(1, 30), rng.randrange(13)))
        log = [
            {i: rng.random() < 0.5 for i in rng.sample(range(100), rng.randrange(8))} for _ in ticks
        ]
        for base in (0, 1, rng.randrange(1, 32), 40):
            out.append((relevant, sorted(relevant), ticks, log, base, [(0, 41)]))
    return out


def test_relevance_merges_the_leaving_ids_into_the_order_as_sorting_would() -> None:
    """The visited ids of the compiled ``relevance`` (its leaving ids merged into the
    view's ascending order) are the pure one's sorted list: ids leaving before, between
    and after the relevant ones, runs of them side by side, every id leaving, and ids past
    64 bits (compared as ints, not as machine words)."""
    big = 1 << 70
    cases = [
        ([5, 9], [1, 2, 7, 12, 13]),
        ([], [4, 1, 3]),
        ([3, 4, 5, 6], [1, 2, 8, 9]),
        ([10, 20, 30], [0, 15, 25, 35]),
        ([2, big, big + 4], [big + 2, 1, big + 9, 2**63 - 1, 2**64]),
    ]
    fast = compiled()
    for now, leave in cases:
        relevant = {i: object() for i in now}
        log = [{i: True for i in leave}]
        args = (relevant, sorted(now), [2], log, 1, [(0, 3)])
        want = _pyassemble.relevance(*args)
        got = fast.relevance(*args)
        assert got == want
        assert got[1] == sorted(now + leave)


def test_relevance_says_what_was_held_of_each_id_changed_since_the_base() -> None:
    """The last item of ``relevance``: each id whose relevance changed after the base, with
    whether the client held it at the base (its oldest change after the base says what it
    was before), which a budget's section reads; nothing with no base."""
    log = [{1: True}, {1: False, 2: True}, {3: False, 1: True}]
    for module in (_pyassemble, compiled()):
        found = module.relevance({1: "a", 3: "c"}, [1, 3], [3, 5, 8], log, 4, [])
        assert found[4] == {1: False, 2: True, 3: False}
        assert found[2] == {1, 3} and list(found[3]) == [2]  # 1 and 3 entered, 2 left
        assert module.relevance({1: "a"}, [1], [3, 5, 8], log, 0, [])[4] == {}


def test_relevance_is_the_pure_ones() -> None:
    """The compiled ``relevance`` gives the pure one's ids, visited ids, entering and leaving
    ids (the same ``gone`` object for each) and what was held of each changed id, in the
    same orders; a log whose ticks and change sets differ in length is the same ValueError
    on both."""
    fast = compiled()
    for args in relevance_args(random.Random(8)):
        ids, held, entering, leaving, was = fast.relevance(*args)
        want = _pyassemble.relevance(*args)
        assert (ids, held, entering, leaving, was) == want
        assert list(leaving) == list(want[3]) and list(was) == list(want[4])
        assert all(spans is args[5] for spans in leaving.values())
        assert (held is ids) == (want[1] is want[0])
        assert ids == args[1] and ids is not args[1]  # a copy of the view's order
    for module in (fast, _pyassemble):
        with pytest.raises(ValueError, match="one tick per change set"):
            module.relevance({}, [], [1, 2], [{}], 1, [])
        with pytest.raises(ValueError, match="not the relevant ones"):
            module.relevance({1: "a"}, [], [], [], 1, [])
