"""The compiled network frame (``_csync``) makes the pure-Python one's (``_pysync``) packets,
from the same arguments, and writes the same caches.

Two copies of the same random world (peers joining and leaving, spawns and despawns,
visibility set per peer, public and by filters, values of every Variant type with -0.0, NaN,
infinities, 64-bit ints, unsigned ints past 2**63, enums, states too large to send, values
set again as the same object or as an equal new one) run one on each frame; every frame,
every packet each peer gets must be byte-identical. Then the frames alternated on one world
(they share the records' caches), the frame called directly with bad input (an exception,
never a crash), and reference leaks.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import gc
import inspect
import random
import struct
import sys
import tracemalloc
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from gdvariant import DEFAULT_LIMITS, DecodeError, EncodeError, Vector2, Vector3
from gdvariant._compiled import PURE_FORCED
from gdvariant.multiplayer import (
    SceneMultiplayer,
    SpawnableScene,
    TransferMode,
    _frame,
    _pysync,
    synced_class,
)
from gdvariant.multiplayer.wire import RemoteCall, SyncClock, encode_compressed
from gdvariant.multiplayer.wire._rpc import read_short_call, write_short_call
from gdvariant.replication import (
    Bool,
    Enum,
    Float32,
    Float64,
    Int,
    NetClass,
    Prop,
    Str,
    UInt,
    Variant,
    Vec2,
    Vec3,
)
from tests.support.cores import compiled_required
from tests.support.multiplayer_fake import FakeServer
from tests.support.random_values import random_value


def compiled() -> Any:
    """The compiled frame; skips (or fails, when it is required) if it is not built."""
    module = _frame.implementations().get(_frame.COMPILED)
    if module is None:
        why = _frame.compiled_error() or "compiled network frame not built"
        if compiled_required():
            pytest.fail(f"GDVARIANT_REQUIRE_COMPILED is set but {why}")
        pytest.skip(why)
    return module


@contextmanager
def live(name: str) -> Iterator[None]:
    if name == _frame.COMPILED:
        compiled()
    with _frame.use(name):
        yield


class Mood(enum.Enum):
    CALM = "calm"
    ANGRY = "angry"


class Mover(NetClass):
    position = Prop(Vec2(Float32()), hot=True)
    spin = Prop(Float64(), hot=True)
    hp = Int(32)
    label = Str()


class Thing(NetClass):
    blob = Prop(Variant(4096), hot=True)
    at = Prop(Vec3(Float32()), hot=True)
    big = Prop(UInt(64), hot=True)
    anything = Prop(Variant(4096))
    flag = Bool()
    mood = Prop(Enum(Mood))


class Quiet(NetClass):
    """Watched values only."""

    count = Int(64)
    note = Prop(Variant(4096))


SCENES = [
    SpawnableScene("res://mover.tscn", synced_class(Mover)),
    SpawnableScene("res://thing.tscn", synced_class(Thing)),
    SpawnableScene("res://quiet.tscn", synced_class(Quiet)),
]
SPECIAL = [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1e300, 5e-324, 3.4e38, 3.5e38]


def _value(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(SPECIAL)
    if pick < 0.4:
        return rng.choice([2**63 - 1, -(2**63), 127, -129, 32768, True, False, "", "x" * 2000])
    if pick < 0.5:
        return Vector2(rng.choice(SPECIAL), rng.random())
    return random_value(rng)


def _filter(k: int) -> Callable[[int], bool]:
    return lambda peer: peer % 3 != k


class World:
    """A server on a fake transport whose every step is drawn from ``seed``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.server = FakeServer()
        self.mp = SceneMultiplayer(self.server)
        self.spawner = self.mp.add_spawner("Main/Spawner", "Main/Nodes", SCENES)
        self.peers: list[int] = []
        self.nodes: list[Any] = []
        self.next_peer, self.next_name = 2, 0

    def _set(self, state: Any, name: str, value: Any) -> None:
        with contextlib.suppress(EncodeError, TypeError, ValueError):  # what a codec refuses
            setattr(state, name, value)

    def _spawn(self) -> None:
        rng = self.rng
        kind = rng.randrange(3)
        visible = None if rng.random() < 0.6 else self.peers[: rng.randrange(3)]
        self.next_name += 1
        try:
            node = self.spawner.spawn(kind, f"N{self.next_name}", visible_to=visible)
        except (EncodeError, ValueError):
            return
        self.nodes.append(node)
        if rng.random() < 0.1:
            node.add_visibility_filter(_filter(rng.randrange(3)))

    def _change(self) -> None:
        rng = self.rng
        choice = rng.random()
        if choice < 0.15:
            self.server.join(self.next_peer)
            self.peers.append(self.next_peer)
            self.next_peer += 1
        elif choice < 0.2 and self.peers:
            peer = self.peers.pop(rng.randrange(len(self.peers)))
            self.server.protocol.peer_disconnected(peer)
            assert self.server.listener is not None
            self.server.listener.peer_disconnected(peer)
        elif choice < 0.5:
            self._spawn()
        elif choice < 0.55 and self.nodes:
            self.spawner.despawn(self.nodes.pop(rng.randrange(len(self.nodes))))
        elif choice < 0.7 and self.nodes and self.peers:
            node = rng.choice(self.nodes)
            if node.scene.synced is not None:
                peer = rng.choice([0, *self.peers])
                node.set_visibility_for(peer, rng.random() < 0.5)

    def _write(self, node: Any) -> None:
        rng, state = self.rng, node.state
        if isinstance(state, Mover):
            if rng.random() < 0.7:
                self._set(
                    state, "position", Vector2(rng.uniform(-1e3, 1e3), rng.choice([-0.0, 1.5]))
                )
            if rng.random() < 0.3:
                self._set(state, "spin", rng.choice(SPECIAL))
            if rng.random() < 0.1:
                self._set(state, "hp", rng.randrange(-(2**31), 2**31))
            if rng.random() < 0.05:
                self._set(state, "label", rng.choice(["", "é", "abc", "x" * 300]))
        elif isinstance(state, Thing):
            if rng.random() < 0.3:
                self._set(state, "blob", _value(rng))
            elif rng.random() < 0.2:
                self._set(state, "blob", copy.deepcopy(state.blob))  # equal, another object
            if rng.random() < 0.3:
                self._set(state, "at", Vector3(rng.choice(SPECIAL), rng.random(), 1e39))
            if rng.random() < 0.2:
                self._set(state, "big", rng.choice([0, 2**63, 2**64 - 1, 5]))
            if rng.random() < 0.3:
                self._set(state, "anything", _value(rng))
            if rng.random() < 0.2:
                self._set(state, "flag", rng.random() < 0.5)
            if rng.random() < 0.2:
                self._set(state, "mood", rng.choice(list(Mood)))
        elif isinstance(state, Quiet):
            if rng.random() < 0.1:
                self._set(state, "count", rng.choice([1, 1, True and 1, 2**40]))
            if rng.random() < 0.1:
                self._set(state, "note", _value(rng))

    def step(self) -> None:
        for _ in range(self.rng.randrange(5)):
            self._change()
        for node in self.nodes:
            self._write(node)

    def sync(self, name: str) -> list[tuple[int, bytes]]:
        self.server.encoded.clear()
        with live(name):
            self.mp.sync()
        self.server.take()
        return list(self.server.encoded)


def _kept(world: World) -> list[Any]:
    """What the frames keep of each record from frame to frame: its SYNC entry, the values
    and bytes of its caches (by type and repr: the two worlds' values are equal, not the
    same objects) and the watched bytes each peer was sent."""

    def shown(item: Any) -> Any:
        return item if isinstance(item, bytes) else (type(item).__name__, repr(item))

    return [
        (
            record[_pysync.ID],
            [shown(item) for item in record[_pysync.ENTRY :]],
            record[_pysync.SENT],
        )
        for record in world.mp._replicator._roster.values()
    ]


@pytest.mark.parametrize("seed", range(12))
def test_random_worlds_give_the_same_bytes(seed: int) -> None:
    """Every packet, and what each frame keeps in the records for the next one."""
    compiled()
    pure, fast = World(seed), World(seed)
    for tick in range(40):
        pure.step()
        fast.step()
        assert fast.sync(_frame.COMPILED) == pure.sync(_frame.PYTHON), f"seed {seed}, tick {tick}"
        assert _kept(fast) == _kept(pure), f"seed {seed}, tick {tick}"


def test_switching_frames_between_ticks() -> None:
    """The two share each record's caches: alternating them on one world gives what the pure
    one alone gives."""
    compiled()
    pure, mixed = World(99), World(99)
    for tick in range(40):
        pure.step()
        mixed.step()
        name = _frame.COMPILED if tick % 3 else _frame.PYTHON
        assert mixed.sync(name) == pure.sync(_frame.PYTHON), f"tick {tick}"


def test_the_live_frame_is_the_compiled_one_unless_forced_off() -> None:
    """``_frame.IMPLEMENTATION`` says which frame is live, as ``gdvariant.IMPLEMENTATION`` does
    for the codec core: the compiled one where it is built (and required), unless
    ``GDVARIANT_PURE_PYTHON`` makes the pure one live, as CI's pure-Python run does with the
    compiled modules still required."""
    assert _frame.IMPLEMENTATION in (_frame.PYTHON, _frame.COMPILED)
    assert _frame.live() is _frame.implementations()[_frame.IMPLEMENTATION]
    if PURE_FORCED:
        assert _frame.IMPLEMENTATION == _frame.PYTHON
    elif compiled_required():
        assert _frame.IMPLEMENTATION == _frame.COMPILED


def test_both_frames_take_the_same_arguments() -> None:
    """The pure frame has the compiled one's parameters, by name and in order (the compiled
    one states them on the first line of its docstring)."""
    doc = compiled().frame.__doc__
    stated = doc[doc.index("(") + 1 : doc.index(")")].replace(" ", "").split(",")
    assert list(inspect.signature(_pysync.frame).parameters) == stated


ENCODER = _frame.encoder()


def _both(make: Callable[[], tuple[Any, ...]]) -> list[Any]:
    """``frame(*make())`` on each frame: its result, or its exception's type and text."""
    out = []
    for module in (_pysync, compiled()):
        try:
            out.append(module.frame(*make()))
        except Exception as exc:  # the same exception is the point
            out.append((type(exc), str(exc)))
    return out


class Small(enum.IntEnum):
    ONE = 1


def _record(raw: list[Any], sync: tuple[int, ...] = (0,), watch: tuple[int, ...] = ()) -> list[Any]:
    return _pysync.new_record(3, raw, sync, watch, None, (5,), {})


def _args(*records: list[Any]) -> tuple[Any, ...]:
    return (list(records), {5: 0}, [SyncClock()], ENCODER)


def _bare(*head: Any, caches: int = 1) -> list[Any]:
    """A record spelt out (net id, raw, sync, watch, codecs, holders, sent), settled False,
    no entry, and ``caches`` empty cache items: for input the replicator never makes."""
    return [*head, False, None] + [None] * caches


def test_values_past_the_inline_cases_are_the_same() -> None:
    """An int past 64 bits is the same EncodeError; int subclasses, bools and floats at the
    edges of float32 give the same bytes."""
    for big in (2**64, -(2**63) - 1, 2**100):
        pure, fast = _both(lambda big=big: _args(_record([big])))  # type: ignore[misc]
        assert pure == fast and pure[0] is EncodeError
    cases: list[Any] = [Small.ONE, True, 3.4028234663852886e38, 3.4028235677973366e38, 1e-46]
    cases += [-0.0, Vector2(float("nan"), 0), Vector3(1e39, 0, 0), Vector2(-0.0, 5e-324)]
    for value in cases:
        record = _record([value], (0,), (0,))
        results = _both(lambda record=record: _args(copy.deepcopy(record)))  # type: ignore[misc]
        assert repr(results[0]) == repr(results[1])


def _rewriting(encode: Callable[[Any], bytes], raw: list[Any], at: int) -> Callable[[Any], bytes]:
    """``encode`` that, the first time it is handed a str, puts a new value at ``raw[at]``
    (the value being encoded when ``at`` is 0, which nothing else then holds)."""
    done: list[bool] = []

    def call(value: Any) -> bytes:
        if type(value) is str and not done:
            done.append(True)
            raw[at] = Vector2(7, 7) if at else 2.5
        return encode(value)

    return call


@pytest.mark.parametrize("count", [2, 3, 20])
@pytest.mark.parametrize("at", [0, 1])
def test_an_encoder_that_rewrites_the_values_gives_the_same_bytes_and_caches(
    at: int, count: int
) -> None:
    """A SYNC value handed to a Python encoder that replaces a raw value (the one it encodes,
    or the next): both frames read each value as they encode it and keep what the raw values
    hold after, with a few SYNC values and with more than the compiled frame keeps at hand."""
    results = []
    for module in (_pysync, compiled()):
        raw: list[Any] = ["".join(["a", "b"])] + [Vector2(k, 1) for k in range(1, count)]
        encoder = (_rewriting(ENCODER[0], raw, at), _rewriting(ENCODER[1], raw, at), *ENCODER[2:])
        record = _pysync.new_record(3, raw, tuple(range(count)), (), None, (5,), {})
        clock = SyncClock()
        frames = [module.frame([record], {5: 0}, [clock], encoder) for _ in range(2)]
        results.append((frames, record[_pysync.CACHE :], record[_pysync.ENTRY], raw))
    assert repr(results[0]) == repr(results[1])


class _Rewrites:
    """A value whose release puts a new int at ``raw[1]``: a ``__del__`` that runs while a
    frame stores its cache, when the cache held the last reference to it."""

    def __init__(self, raw: list[Any]) -> None:
        self.raw = raw

    def __del__(self) -> None:
        self.raw[1] = 10**12 + len(self.raw)  # a new int object, held by raw alone


def _as_zero(encode: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """``encode``, with a :class:`_Rewrites` encoded as the string "r"."""
    return lambda value: encode("r" if isinstance(value, _Rewrites) else value)


def test_a_cached_value_whose_release_rewrites_raw_leaves_the_caches_of_the_pure_frame() -> None:
    """The first frame caches a :class:`_Rewrites`; the game then replaces it, so the cache
    holds it alone, and the second frame (plain values only, no encoder called) releases it
    while it stores its cache: the value after it is read again, as the pure frame reads it,
    not kept as it was encoded (that int is gone)."""
    results = []
    for module in (_pysync, compiled()):
        raw: list[Any] = [None, 10**12 + 1]
        raw[0] = _Rewrites(raw)
        encoder = (_as_zero(ENCODER[0]), _as_zero(ENCODER[1]), *ENCODER[2:])
        record = _pysync.new_record(3, raw, (0, 1), (), None, (5,), {})
        clock = SyncClock()
        frames = [module.frame([record], {5: 0}, [clock], encoder)]
        raw[0] = 5
        frames.append(module.frame([record], {5: 0}, [clock], encoder))
        assert raw[1] == 10**12 + 2  # the release ran during the second frame
        results.append((frames, record[_pysync.CACHE :], record[_pysync.ENTRY], raw))
    assert repr(results[0]) == repr(results[1])


class Peer(int):
    """A peer id that is not an exact int."""


def test_holders_of_every_shape_give_the_same_packets() -> None:
    """Whatever the holders' tuple holds (peers without a slot, ids that are not exact ints,
    a bool, a string, many peers, none), the compiled frame's targets, their order and so
    the packets are the pure frame's."""
    peers = list(range(40, 70))
    shapes: list[Any] = [
        tuple(peers),
        tuple(reversed(peers[:7])),
        (41, Peer(42), 43),
        (True, 44),
        (45, "not a peer", 46),
        (),
        (1000, 45),  # one holder without a slot
        (45, 45),
    ]
    slots = {peer: k for k, peer in enumerate(peers)}
    for holders in shapes:
        for slot_map in (slots, type("Slots", (dict,), {})(slots)):

            def make(holders: Any = holders, slot_map: Any = slot_map) -> tuple[Any, ...]:
                record = _pysync.new_record(3, [Vector2(1, 2), 5], (0,), (1,), None, holders, {})
                return ([record], slot_map, [SyncClock() for _ in peers], ENCODER)

            pure, fast = _both(make)
            assert repr(pure) == repr(fast), holders


def test_nodes_in_a_row_with_the_same_holders_give_the_same_packets() -> None:
    """The compiled frame remembers the last peer it looked up (a player's nodes come in a
    row, holding the same int object): runs of nodes held by the same peer object, by an
    equal but distinct int, by a peer without a slot and by a mix still get the pure frame's
    targets and packets."""
    peers = [10**6 + k for k in range(4)]
    slots = {peer: k for k, peer in enumerate(peers)}
    alike = int(str(peers[1]))  # equal to peers[1], another object
    absent = 10**7
    runs: list[Any] = [
        (peers[0],),
        (peers[0],),
        (absent,),
        (absent,),
        (peers[1],),
        (alike,),
        (alike, peers[2]),
        (absent, peers[2]),
        (peers[3], absent),
        (peers[3],),
    ]

    def make() -> tuple[Any, ...]:
        records = [
            _pysync.new_record(net_id, [Vector2(net_id, 1), net_id], (0,), (1,), None, held, {})
            for net_id, held in enumerate(runs, 1)
        ]
        return (records, slots, [SyncClock() for _ in peers], ENCODER)

    pure, fast = _both(make)
    assert repr(pure) == repr(fast)
    assert sorted(slot for slot, _, _ in pure[0]) == [0, 1, 2, 3]


BAD: list[tuple[str, Callable[[], tuple[Any, ...]]]] = [
    ("not a record", lambda: ([7], {5: 0}, [SyncClock()], ENCODER)),
    ("a short record", lambda: ([[1, 2]], {5: 0}, [SyncClock()], ENCODER)),
    ("holders not a tuple", lambda: _args(_bare(3, [1], (0,), (), None, [5], {}))),
    ("holders a set", lambda: _args(_bare(3, [1], (0,), (), None, (5,), {}))),
    ("raw not a list", lambda: _args(_bare(3, (1,), (0,), (), None, (5,), {}))),
    ("an index out of range", lambda: _args(_record([1], (4,)))),
    ("a negative index", lambda: _args(_record([1], (-1,)))),
    ("an index not an int", lambda: _args(_record([1], ("0",)))),  # type: ignore[arg-type]
    ("indices not a tuple", lambda: _args(_record([1], [0]))),  # type: ignore[arg-type]
    ("a net id past u32", lambda: _args(_bare(2**40, [1], (0,), (), None, (5,), {}))),
    ("a negative net id", lambda: _args(_bare(-1, [1], (0,), (), None, (5,), {}))),
    (
        "65 watched",
        lambda: _args(_bare(3, [1] * 65, (), tuple(range(65)), None, (5,), {}, caches=130)),
    ),
    ("a short watched cache", lambda: _args(_bare(3, [1], (), (0,), None, (5,), {}))),
    ("a long cache", lambda: _args(_bare(3, [1], (0,), (0,), None, (5,), {}, caches=4))),
    ("no SYNC cache", lambda: _args(_bare(3, [1], (0,), (), None, (5,), {}, caches=0))),
    ("sent not a dict", lambda: _args(_bare(3, [1], (), (0,), None, (5,), [], caches=2))),
    ("a short sent list", lambda: _args(_bare(3, [1], (), (0,), None, (5,), {5: []}, caches=2))),
    ("a slot past the clocks", lambda: ([_record([1])], {5: 3}, [SyncClock()], ENCODER)),
    ("a clock without a time", lambda: ([_record([1])], {5: 0}, [object()], ENCODER)),
    ("codecs not a tuple", lambda: _args(_bare(3, [1], (0,), (), [None], (5,), {}))),
    ("an encoder not a tuple", lambda: ([_record([1])], {5: 0}, [SyncClock()], list(ENCODER))),
    ("an encoder too short", lambda: ([_record([1])], {5: 0}, [SyncClock()], ENCODER[:5])),
    ("a value nothing encodes", lambda: _args(_record([object()]))),
    (
        "an encoder returning str",
        lambda: (
            [_record([Vector3(1e39, 0, 0)])],
            {5: 0},
            [SyncClock()],
            (lambda *a: "x", *ENCODER[1:]),
        ),
    ),
    (
        "a conversion that raises",
        lambda: (
            [_bare(3, [1], (0,), (), (int,), (5,), {})],
            {5: 0},
            [SyncClock()],
            (*ENCODER[:2], lambda codec, value: 1 / 0, *ENCODER[3:]),
        ),
    ),
]


@pytest.mark.parametrize("make", [make for _, make in BAD], ids=[name for name, _ in BAD])
def test_bad_input_raises_and_never_crashes(make: Callable[[], tuple[Any, ...]]) -> None:
    """Whatever the compiled frame is handed, it raises (or, where the pure frame takes the
    input, answers the same)."""
    pure, fast = _both(make)
    if isinstance(pure, tuple) and isinstance(pure[0], type):
        assert (
            isinstance(fast, tuple) and isinstance(fast[0], type) and issubclass(fast[0], Exception)
        )
    else:
        assert fast == pure or isinstance(fast[0], type)


def _traced_growth(run: Callable[[], None], rounds: int) -> int:
    gc.collect()
    run()
    tracemalloc.start()
    try:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(rounds):
            run()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_the_compiled_frame_leaks_nothing() -> None:
    """Memory stays flat while frames are made again and again, with values encoded afresh,
    reused, and bad input failing: a leaked object per record would add kilobytes a round."""
    fast = compiled()
    world = World(5)
    for _ in range(10):
        world.step()
        world.sync(_frame.COMPILED)
    replicator = world.mp._replicator
    roster = list(replicator._roster.values())
    slots, clocks = replicator._frame_slots()
    bad = [make for _, make in BAD]

    def run() -> None:
        for record in roster[::2]:
            record[_pysync.ENTRY] = None  # half the entries built again
        fast.frame(roster, slots, clocks, ENCODER)
        for make in bad:
            with contextlib.suppress(Exception):
                fast.frame(*make())

    grew = _traced_growth(run, 20)
    assert grew < 32 << 10, f"{grew:,} bytes more after 20 rounds"


def test_a_settled_record_is_compared_again_only_when_unsettled_or_changed() -> None:
    """The compiled frame skips the per-holder comparison of a settled record whose watched
    values did not change (the replicator unsettles it when it shows the node to a peer);
    a changed value, or an unsettled record, is compared and sent as the pure frame does."""
    frame = compiled().frame
    record = _pysync.new_record(3, [Vector2(1, 2), 5], (0,), (1,), None, (5,), {})
    args = ([record], {5: 0}, [SyncClock()], ENCODER)
    first = frame(*args)[0][0][2]
    assert len(first) == 1 and record[_pysync.SETTLED] is True
    assert frame(*args)[0][0][2] == []  # nothing changed, settled: no delta
    record[_pysync.SENT][5][0] = None  # what a new holder looks like, while still settled
    assert frame(*args)[0][0][2] == []
    record[_pysync.SETTLED] = False
    assert frame(*args)[0][0][2] == first  # compared again: the whole watched value
    record[_pysync.RAW][1] = 6
    changed = frame(*args)[0][0][2]
    pure_record = _pysync.new_record(3, [Vector2(1, 2), 6], (0,), (1,), None, (5,), {})
    assert changed == _pysync.frame([pure_record], {5: 0}, [SyncClock()], ENCODER)[0][0][2]
    record[_pysync.HOLDERS] = (5, 9)  # a holder without a slot: not settled after the frame
    record[_pysync.SETTLED] = False
    frame(*args)
    assert record[_pysync.SETTLED] is False


def _frames() -> list[Any]:
    """Both frames' modules (the compiled one skips, or fails when required, if not built)."""
    return [_pysync, compiled()]


def test_the_caches_are_the_records_own_items() -> None:
    """Both frames keep a node's SYNC entry, its ALWAYS values and its ON_CHANGE values and
    bytes as the record's own items, after its head: no list of their own for a frame to
    reach (one list and its item array less each), nor any item added or dropped."""
    for module in _frames():
        label, note = "".join(["a"] * 3), "".join(["b"] * 3)
        record = _pysync.new_record(3, [label, 7, note], (0,), (1, 2), None, (5,), {})
        assert len(record) == _pysync.CACHE + 1 + 2 * 2
        module.frame(*_args(record))
        values = encode_compressed(label)
        assert record[_pysync.ENTRY] == struct.pack("<II", 3, len(values)) + values
        assert record[_pysync.CACHE :] == [
            label,
            7,
            encode_compressed(7),
            note,
            encode_compressed(note),
        ], module.__name__
        assert record[_pysync.SENT] == {5: [encode_compressed(7), encode_compressed(note)]}


def test_no_frame_keeps_a_float_or_vector_the_game_replaces() -> None:
    """A frame holds no float or vector from one frame to the next (their cache slots hold
    None: they are encoded again and compared as bytes), so the write that replaces one
    frees it at once instead of a frame later; ints, strings and the other immutable values
    are still held and reused by identity."""
    for module in _frames():
        position, spin = Vector2(1.5, 2), 0.25
        label = "".join(["x"] * 300)  # made now: a constant would be immortal on 3.12+
        raw = [position, spin, label, Vector3(1, 2, 3)]
        record = _pysync.new_record(3, raw, (0, 1, 2), (3,), None, (5,), {})
        args = ([record], {5: 0}, [SyncClock()], ENCODER)
        counts = [sys.getrefcount(value) for value in (position, spin, label)]
        sent = module.frame(*args)
        assert [sys.getrefcount(value) for value in (position, spin, label)] == [
            counts[0],
            counts[1],
            counts[2] + 1,  # the string, held for the next frame's identity check
        ], module.__name__
        cache = _pysync.CACHE
        assert record[cache : cache + 3] == [None, None, label]
        assert record[cache + 3] is None  # the watched vector's value
        assert record[_pysync.ENTRY] is None  # never reused by identity: not kept either
        raw[0], raw[3] = Vector2(1.5, 2), Vector3(1, 2, 3)  # equal values, new objects
        again = module.frame(*args)
        assert again[0][0][1] == sent[0][0][1] and again[0][0][2] == []  # no delta
        raw[0] = Vector2(1.5, -0.0)
        assert module.frame(*args)[0][0][1] != sent[0][0][1]
        assert record[_pysync.ENTRY] is None
        raw[0:2] = [label, 7]  # every value held: the entry is kept, and reused
        module.frame(*args)
        entry = record[_pysync.ENTRY]
        assert isinstance(entry, bytes) and module.frame(*args)[0][0][1][0][3:] == entry
        assert record[_pysync.ENTRY] is entry


def _counts(kinds: int = _pysync.KINDS) -> Any:
    """Counts as ``tally`` takes them (``_pysync.Counts``): a new peer's cells at the end."""
    slots: dict[Any, int] = {}
    cells = array("q", bytes(16 * kinds))

    def place(peer: Any) -> int:
        slots[peer] = len(cells)
        cells.extend((0, 0))
        return slots[peer]

    return slots, cells, place


def _read(counts: Any) -> tuple[dict[Any, int], list[int]]:
    """Where each peer's cells are, and every cell, as plain values to compare."""
    return dict(counts[0]), counts[1].tolist()


def test_both_tallies_count_every_packet_alike() -> None:
    """``tally`` (TrafficCounter's count of a packet) gives the same counts on both frames,
    for bytes and other bytes-like packets and peers of any hashable kind, and the counts a
    plain sum of the packets gives; an empty packet, or a sequence whose first item is no
    byte, counts for its peer, then raises IndexError, on both; a count past 2**63 - 1
    raises OverflowError, its cell unchanged."""
    rng = random.Random(24)
    peers: list[Any] = [2, 2**31 + 5, Peer(9), "odd"]
    sends: list[tuple[Any, Any]] = []
    for _ in range(400):
        body = bytes([rng.randrange(256)]) + bytes(rng.randrange(40))
        sends.append((rng.choice(peers), rng.choice([body, bytearray(body), memoryview(body)])))
    ends = []
    for module in (_pysync, compiled()):
        mine = _counts()
        for peer, packet in sends:
            module.tally(mine, peer, packet)
        with pytest.raises(IndexError):
            module.tally(mine, "empty", b"")
        for past in ([256], [-1]):  # a sequence whose first item no byte has
            with pytest.raises(IndexError):
                module.tally(mine, "past", past)
        ends.append(_read(mine))
    assert ends[0] == ends[1]
    slots, cells = ends[0]
    kinds = _pysync.KINDS
    for peer in peers:
        mine = [len(packet) for who, packet in sends if who == peer]
        assert cells[slots[peer] : slots[peer] + 2] == [sum(mine), len(mine)]
    assert cells[slots["empty"] : slots["empty"] + 2] == [0, 1]
    for first in range(kinds):
        mine = [len(packet) for _, packet in sends if packet[0] == first]
        assert (cells[first], cells[kinds + first]) == (sum(mine), len(mine))


def test_both_tallies_refuse_a_count_past_64_bits_alike() -> None:
    """A count that would pass 2**63 - 1 raises OverflowError on both frames, with the cells
    before it added and it unchanged (never wrapped); bad counts raise TypeError."""
    top = 2**63 - 1
    ends = []
    for module in (_pysync, compiled()):
        for full in (0, 1, 6, _pysync.KINDS + 6):  # the peer's bytes or messages, the kind's
            mine = _counts()
            module.tally(mine, 5, b"\x06ab")
            mine[1][full if full > 1 else mine[0][5] + full] = top
            with pytest.raises(OverflowError):
                module.tally(mine, 5, b"\x06abc")
            ends.append(_read(mine))
    assert ends[:4] == ends[4:]
    kinds = _pysync.KINDS
    for full, (slots, cells) in zip((0, 1, 6, kinds + 6), ends, strict=False):
        assert cells[full if full > 1 else slots[5] + full] == top
    slots, cells = ends[3]  # the kind's messages full: every count before it added
    assert cells[slots[5] : slots[5] + 2] == [3 + 4, 2] and cells[6] == 7
    fast = compiled().tally
    with pytest.raises(TypeError):
        fast(({}, {}, [], []), 1, b"x")
    with pytest.raises(TypeError):
        fast(({}, bytearray(4096), len), 1, b"x")
    with pytest.raises(IndexError):
        fast(({1: 10**6}, array("q", bytes(4096)), len), 1, b"x")


def test_a_settled_unchanged_record_leaves_its_watched_bytes_unread() -> None:
    """The compiled frame asks whether a settled record's watched values changed from the
    values alone: their cached bytes (a line or two a node) are not read, nor replaced, when
    none did, and are when one did (docs/multiplayer-performance.md, "The twelfth round: fewer
    lines a node")."""
    frame = compiled().frame
    record = _pysync.new_record(3, [Vector2(1, 2), 5], (0,), (1,), None, (5,), {})
    args = ([record], {5: 0}, [SyncClock()], ENCODER)
    frame(*args)
    at = _pysync.CACHE + 1 + 1
    assert record[at] == encode_compressed(5) and record[_pysync.SETTLED] is True
    stand_in = bytearray(record[at])  # not the bytes object the frame stored: never read
    record[at] = stand_in
    assert frame(*args)[0][0][2] == []
    assert record[at] is stand_in
    record[_pysync.RAW][1] = 6
    assert frame(*args)[0][0][2] != [] and record[at] == encode_compressed(6)


def test_sync_entries_cut_into_packets_alike() -> None:
    """Entries the compiled frame writes into one buffer a peer as it makes them are cut into
    SYNC packets where the pure frame cuts its list of them: a packet ends before the entry
    that would take it past 1,350 bytes, an entry alone is never cut, and a state over the
    limit is left out (sizes chosen around each edge)."""
    sizes = [40, 1300, 1339, 1338, 7, 0, 1351, 1342, 200, 1, 1343, 3, 600, 600, 136]
    records = [
        _pysync.new_record(k + 1, ["".join(["y"] * size)], (0,), (), None, (5, 6), {})
        for k, size in enumerate(sizes)
    ]

    def make() -> tuple[Any, ...]:
        fresh = [list(record) for record in records]
        return (fresh, {5: 0, 6: 1}, [SyncClock(), SyncClock()], ENCODER)

    pure, fast = _both(make)
    assert pure == fast
    sends, left_out = fast
    assert len(sends) == 2 and sends[0][1] == sends[1][1] and len(sends[0][1]) > 5
    assert [row[2] for row in left_out] == ["state"] * 3  # 1351, 1342 and 1343 characters


class _EnetPeer:
    """A stand-in for pyenet's peer: records each send, refuses some (-1)."""

    def __init__(self, number: int, log: list[Any], refuse: Callable[[bytes], bool]) -> None:
        self.number, self.log, self.refuse = number, log, refuse

    def send(self, channel: int, packet: tuple[bytes, int]) -> int:
        self.log.append((self.number, channel, packet))
        return -1 if self.refuse(packet[0]) else 0


class _Link:
    """A stand-in for the ENet adapter's link: its peer and whether it is closing."""

    def __init__(self, peer: _EnetPeer, closing: bool) -> None:
        self.peer, self.closing = peer, closing


def _handed_over(module: Any, seed: int) -> tuple[Any, ...]:
    """``hand_over`` driven as the ENet adapter drives it (on from the packet it left, or
    the one after one ENet refused) over random packets of every kind: what it returned,
    what each peer was sent, the counts."""
    rng = random.Random(seed)
    log: list[Any] = []

    def refuses(peer: int) -> Callable[[bytes], bool]:
        return lambda data: len(data) % 7 == peer % 7

    links = {n: _Link(_EnetPeer(n, log, refuses(n)), n % 5 == 0) for n in range(2, 14)}
    modes = [0, 1, 2, 3, -1, 2**70, Small.ONE, True, "0"]
    modes += [TransferMode.UNRELIABLE, TransferMode.RELIABLE]
    packets: list[Any] = []
    for _ in range(300):
        first = rng.choice([6, 6, 6, 6, 7, rng.randrange(256)])  # rows of SYNCs, and others
        data = bytes([first]) + bytes(rng.randrange(60))
        peer = rng.choice([*links, 1, 99])
        packets.append((peer, data, rng.choice(modes), rng.choice([0, 0, 0, 1])))
    counts = _counts()
    answers = []
    index = 0
    while index < len(packets):
        done = module.hand_over(links, packets, index, counts, 40, ROUTES, lambda d, f: (d, f))
        answers.append(done)
        index = (~done if done < 0 else done) + 1
    return answers, log, _read(counts)


ROUTES = ((3, 0), (4, 2))


@pytest.mark.parametrize("seed", range(6))
def test_both_hand_overs_send_and_count_alike(seed: int) -> None:
    """``hand_over`` (the ENet adapter's hand-over of a frame's SYNC packets) stops at the
    same packets (reliable, on another channel, to a link that is gone or closing, too
    large), sends the others on the same routes, reports the same refusals and counts the
    same, on both frames; bad arguments raise."""
    pure, fast = (_handed_over(module, seed) for module in (_pysync, compiled()))
    assert pure == fast
    answers, sent, (_, cells) = pure
    assert any(a < 0 for a in answers) and len(sent) > 20
    assert all(channel in (3, 4) for _, channel, _ in sent)
    assert sum(cells[_pysync.KINDS : 2 * _pysync.KINDS]) >= len(sent)
    hand = compiled().hand_over
    with pytest.raises(TypeError):
        hand({}, [], 0, ([], {}, [], []), 40, ROUTES, bytes)
    with pytest.raises(TypeError):
        hand({}, {1}, 0, _counts(), 40, ROUTES, bytes)
    with pytest.raises(ValueError):
        hand({}, [], -1, _counts(), 40, ROUTES, bytes)
    assert hand({}, [(1, b"x", 0, 0)], 0, _counts(), 40, ROUTES, bytes) == 0


def test_both_hand_overs_fail_alike_with_the_same_counts() -> None:
    """A packet ``tally`` refuses (empty, or one its kind's bytes cannot take) raises the
    same error on both frames, with the counts of the packets before it and its own count by
    peer, and nothing after it sent."""
    link = _Link(_EnetPeer(2, [], lambda data: False), False)
    for bad, error in ((b"", IndexError), (b"\x09", OverflowError)):
        packets = [(2, b"\x06abc", 0, 0), (2, b"\x06de", 1, 0), (2, bad, 0, 0), (2, b"\x06", 0, 0)]
        ends = []
        for module in (_pysync, compiled()):
            link.peer.log = []
            counts = _counts()
            counts[1][9] = 2**63 - 1
            with pytest.raises(error):
                module.hand_over({2: link}, packets, 0, counts, 40, ROUTES, lambda d, f: (d, f))
            ends.append((_read(counts), link.peer.log))
        assert ends[0] == ends[1]
        (slots, cells), log = ends[0]
        assert cells[6] == 7 and cells[_pysync.KINDS + 6] == 2 and len(log) == 2
        assert cells[slots[2] : slots[2] + 2] == [7 + len(bad), 3]


def test_the_compiled_hand_over_leaks_nothing() -> None:
    """Memory stays flat while packets are handed over again and again (sent, refused, left
    to the caller): a leaked packet or link reference would add kilobytes a round."""
    fast = compiled()

    def run() -> None:
        _handed_over(fast, 3)

    grew = _traced_growth(run, 20)
    assert grew < 32 << 10, f"{grew:,} bytes more after 20 rounds"


# -- RPCs in the short form: read_call and write_call -------------------------------------

#: INT values at each width's edges (and past 64 bits), for both directions
EDGE_INTS = [v + d for b in (7, 15, 31, 63) for v in (1 << b, -(1 << b)) for d in (-1, 0, 1)] + [
    0,
    1,
    -1,
    1 << 64,
]
#: those of them a 64-bit INT holds
FIT_INTS = [v for v in EDGE_INTS if -(1 << 63) <= v < 1 << 63]


class Level(enum.IntEnum):
    LOW = 1


def _rpc_args(rng: random.Random) -> tuple[Any, ...]:
    """Arguments of a call: mostly BOOL and INT (the compiled twin's own), at times a value
    of another type, an int subclass or none at all."""
    pool: list[Callable[[], Any]] = [
        lambda: rng.choice(FIT_INTS),
        lambda: rng.randrange(-(1 << 63), 1 << 63) >> rng.randrange(64),
        lambda: rng.random() < 0.5,
    ]
    if rng.random() < 0.2:
        pool += [lambda: rng.random(), lambda: "x" * rng.randrange(3), lambda: Level.LOW]
        pool += [lambda: Vector2(1, 2), lambda: rng.choice(EDGE_INTS)]
    return tuple(rng.choice(pool)() for _ in range(rng.choice((0, 1, 1, 1, 2, 3, 7))))


def _short_call(rng: random.Random) -> bytes:
    """A REMOTE_CALL in the short form, built from the wire spec (not by the code tested):
    byte 0 zero, the node's and the method's id, argc, each argument compressed."""
    args = _rpc_args(rng)
    fitting = [a for a in args if a not in EDGE_INTS or a in FIT_INTS]
    body = b"".join(encode_compressed(a) for a in fitting)
    return bytes((0, rng.randrange(256), rng.randrange(256), len(fitting))) + body


def _mutated(rng: random.Random, data: bytes) -> Any:
    """data cut, grown, with a byte changed, or something that is not a short call."""
    roll = rng.randrange(7) if data else 5
    if roll == 0:
        return data[: rng.randrange(len(data) + 1)]
    if roll == 1:
        return data + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 10)))
    if roll == 2:
        at = rng.randrange(len(data))
        return data[:at] + bytes((rng.randrange(256),)) + data[at + 1 :]
    if roll == 3:  # the argument count changed
        return data[:3] + bytes((rng.randrange(256),)) + data[4:]
    if roll == 4:
        return bytearray(data)  # not bytes: None, as the server's check has it
    if roll == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(12)))
    return data


def _outcome(run: Callable[..., Any], *args: Any) -> Any:
    """What ``run(*args)`` gives: ("ok", value, its type, its fields in order) or ("error",
    class, message)."""
    try:
        value = run(*args)
    except Exception as exc:  # the class and message are what is compared
        return ("error", type(exc), str(exc))
    fields = list(vars(value).items()) if isinstance(value, RemoteCall) else None
    return ("ok", value, type(value), fields)


def _read_call(module: Any, data: Any) -> Any:
    return _outcome(module.read_call, data, False, DEFAULT_LIMITS, RemoteCall, read_short_call)


@pytest.mark.parametrize("seed", range(4))
def test_rpc_reads_match_the_pure_reader(seed: int) -> None:
    """Valid short calls and mutated or hostile packets: the compiled read_call gives what
    the pure one gives, the same call (fields in the same order) or the same error."""
    fast, rng = compiled(), random.Random(seed)
    seen = set()
    for _ in range(3000):
        data = _short_call(rng)
        for packet in (data, _mutated(rng, data), _mutated(rng, _mutated(rng, data))):
            pure = _read_call(_pysync, packet)
            assert _read_call(fast, packet) == pure, packet
            seen.add(pure[0] if pure[0] == "error" else type(pure[1]).__name__)
    assert seen == {"error", "RemoteCall", "NoneType"}  # every outcome was met


def test_rpc_reads_of_known_packets() -> None:
    """Packets written by hand from the spec read as the calls they are, on both twins."""
    cases = {
        b"\x00\x03\x07\x01\x02\x05": RemoteCall(7, (5,), node_id=3),
        b"\x00\x03\x07\x02\x81\x42\x7f\xff": RemoteCall(7, (True, -129), node_id=3),
        b"\x00\x00\x00\x00": RemoteCall(0, (), node_id=0),
        b"\x00\xff\xfe\x01\xc2" + b"\xff" * 7 + b"\x7f": RemoteCall(0xFE, (2**63 - 1,), 0xFF),
        b"\x00\x01\x02\x01\x41": RemoteCall(2, (False,), 1),  # BOOL: bit 7 only
        b"\x00\x01\x02\x01\x02": DecodeError,  # an INT cut short
        b"\x00\x01\x02\x01\x02\x05\x06": None,  # a byte past the arguments: another form
        b"\x10\x01\x00\x02\x01\x02\x05": None,  # not the short form
    }
    for module in (_pysync, compiled()):
        for data, call in cases.items():
            assert _read_call(module, data)[1] == call, data


def test_rpc_writes_match_the_pure_writer() -> None:
    """Calls of every argument kind, ids past a byte, no arguments or too many: the compiled
    write_call gives the pure one's bytes, None or error."""
    fast, rng = compiled(), random.Random(7)
    cases: list[tuple[Any, Any, tuple[Any, ...]]] = [
        (1, 2, (v,)) for v in [*EDGE_INTS, True, False, Level.LOW, 1.5, "s", b"", b"\x01"]
    ]
    cases += [(1, 2, ()), (1, 2, (0,) * 255), (1, 2, (0,) * 256), (1, 2, tuple(EDGE_INTS))]
    cases += [(n, m, (5,)) for n, m in ((-1, 0), (256, 0), (0, 256), (True, 1), (0, -1))]
    cases += [(rng.randrange(256), rng.randrange(256), _rpc_args(rng)) for _ in range(3000)]
    for node, method, args in cases:
        pure = _outcome(_pysync.write_call, node, method, args, write_short_call)
        got = _outcome(fast.write_call, node, method, args, write_short_call)
        assert got == pure, (node, method, args)
        if pure[0] == "ok" and pure[1] is not None:  # and it reads back
            assert read_short_call(pure[1], False, DEFAULT_LIMITS) == RemoteCall(
                method, args, node_id=node
            )


def test_rpc_twins_refuse_bad_arguments() -> None:
    """The compiled twins called wrongly raise TypeError (never a crash)."""
    fast = compiled()
    with pytest.raises(TypeError):
        fast.read_call(b"\x00\x00\x00\x00")
    with pytest.raises(TypeError):
        fast.read_call(b"\x00\x00\x00\x00", False, DEFAULT_LIMITS, 5, read_short_call)
    with pytest.raises(TypeError):
        fast.read_call(b"\x00\x00\x00\x00", False, DEFAULT_LIMITS, int, read_short_call)
    with pytest.raises(TypeError):
        fast.write_call(1, 2, (3,))
    with pytest.raises(TypeError):  # a general that is not callable, reached
        fast.write_call(1, 2, (1.5,), None)


def test_rpc_twins_leak_nothing() -> None:
    """Reading and writing calls again and again keeps memory flat."""
    fast, rng = compiled(), random.Random(3)
    packets = [_short_call(rng) for _ in range(200)]
    calls = [(rng.randrange(256), rng.randrange(256), _rpc_args(rng)) for _ in range(200)]

    def run() -> None:
        for data in packets:
            with contextlib.suppress(Exception):
                fast.read_call(data, False, DEFAULT_LIMITS, RemoteCall, read_short_call)
        for node, method, args in calls:
            with contextlib.suppress(Exception):
                fast.write_call(node, method, args, write_short_call)

    assert _traced_growth(run, 20) < 20_000
