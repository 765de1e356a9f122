"""The generated GDScript decoder (``gdscript.generate(schema)``) in Godot 4.6 (marked
``engine``, required in CI), through the harnesses beside this file (the generated text's
structure, without an engine, is tests/replication/gdscript/test_generate.py):

* a live session over UDP: our asyncio server runs a seeded world in which entities of every
  codec enter, change and leave, drops 10% of the packets and applies the client's lagging
  acks late; a headless Godot client (``client.gd`` beside this file) applies each
  packet it gets with the generated decoder and sends back ``var_to_bytes`` of its state,
  which must be byte-identical to our server's quantized state at that tick. Lockstep: the
  server sends the next packet when the report for the last one arrives, and a dropped
  packet is simply never sent, so nothing waits on a timer.
* the state view, read only now and then (it is built when read): after each read it must
  equal our ``SnapshotDecoder``'s newest state;
* malformed and truncated packets: the engine's decoder must reject exactly the packets our
  ``SnapshotDecoder`` rejects, name the same entity and property, and keep its state; where
  ours accepts a corrupted packet, the engine must decode the same state.

The seed is printed; rerun one with GDVARIANT_SEED=<seed>.
"""

from __future__ import annotations

import asyncio
import math
import random
import shutil
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

import gdvariant
from gdvariant import DecodeError
from gdvariant.replication import (
    Array,
    EntityState,
    NetClass,
    Schema,
    SnapshotDecoder,
    SnapshotEncoder,
    Str,
    UInt,
    Variant,
    World,
    gdscript,
    godot_state,
    godot_value,
)
from gdvariant.replication._packet_format import OP_ENTER, OP_UPDATE, VERSION, encode_record
from gdvariant.replication.gdscript import _record_reads
from gdvariant.replication.gdscript._record_reads import DENSE_IDS
from tests.support.engines import SEED, Engine, run_beside
from tests.support.replication_driver import Script
from tests.support.replication_worlds import Cargo, Pawn, gdscript_schema

pytestmark = [pytest.mark.engine, pytest.mark.slow]
SCRIPTS = Path(__file__).parent
TICKS = 1000
HISTORY = 8
DROP = 0.1
TIMEOUT = 120
HELLO, PACKET, DONE, REPORT = 0, 1, 2, 3


def first_difference(theirs: bytes, ours: list[dict[int, Any]]) -> str:
    """Where the engine's reported state departs from ours (for the failure message)."""
    got = gdvariant.loads(theirs)
    want_values, want_classes = ours
    got_values, got_classes = got
    if list(got_values) != list(want_values):
        return f"entity ids {list(got_values)} != {list(want_values)}"
    for net_id, values in want_values.items():
        if got_classes[net_id] != want_classes[net_id]:
            return f"entity {net_id}: class {got_classes[net_id]} != {want_classes[net_id]}"
        for path, value in values.items():
            if gdvariant.dumps(got_values[net_id].get(path)) != gdvariant.dumps(value):
                return f"entity {net_id}.{path}: {got_values[net_id].get(path)!r} != {value!r}"
    return "same values, different bytes"


def same_but_nan_payloads(a: Any, b: Any) -> bool:
    """Equal, counting any two NaNs as equal."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_but_nan_payloads(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(map(same_but_nan_payloads, a, b))
    return bool(type(a) is type(b) and a == b)


# -- with Godot 4.6 ----------------------------------------------------------------------


class _Inbox(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[bytes, Any]] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.queue.put_nowait((data, addr))


async def _serve(
    schema: Schema, transport: asyncio.DatagramTransport, inbox: _Inbox, seed: int
) -> dict[str, int]:
    """Our side of the live session; returns what it checked."""
    data, addr = await asyncio.wait_for(inbox.queue.get(), TIMEOUT)
    assert data == bytes([HELLO])
    world = World(schema)
    server = SnapshotEncoder(world, history=HISTORY, stamp=True)
    server.add_client(0)
    script = Script(world, random.Random(seed))
    net = random.Random(seed + 1)
    late_acks: list[tuple[int, int]] = []  # (tick it arrives at, acked tick)
    counts = {"checked": 0, "dropped": 0, "full": 0, "ack_lag": 0}
    for _ in range(TICKS):
        script.step()
        tick = server.snapshot()
        for due, acked in [a for a in late_acks if a[0] <= tick]:
            server.ack(0, acked)
            late_acks.remove((due, acked))
        packet = server.packet_for(0)
        counts["full"] += packet[1] >> 1 & 1
        if net.random() < DROP:
            counts["dropped"] += 1
            continue
        transport.sendto(bytes([PACKET]) + packet, addr)
        data, _ = await asyncio.wait_for(inbox.queue.get(), TIMEOUT)
        assert data[0] == REPORT
        applied, acked = struct.unpack_from("<II", data, 1)
        context = f"tick {tick} (seed {seed})"
        assert applied, f"{context}: the engine rejected the packet: {data[9:].decode()}"
        assert applied == tick, context
        want = godot_state(schema, server.expected_state(0))
        if data[9:] != gdvariant.dumps(want):
            pytest.fail(f"{context}: {first_difference(data[9:], want)}")
        counts["checked"] += 1
        if acked:
            counts["ack_lag"] += tick - acked
            late_acks.append((tick + net.randrange(4), acked))
    transport.sendto(bytes([DONE]), addr)
    return counts


def test_live_session_over_udp(godot4: Engine) -> None:
    print(f"GDVARIANT_SEED={SEED}")
    schema = gdscript_schema()

    async def main() -> dict[str, int]:
        loop = asyncio.get_running_loop()
        transport, inbox = await loop.create_datagram_endpoint(_Inbox, local_addr=("127.0.0.1", 0))
        port = transport.get_extra_info("sockname")[1]
        try:
            with godot4.workdir() as (here, inside):
                (here / "decoder.gd").write_text(
                    gdscript.generate(schema, class_name="ArenaDecoder")
                )
                shutil.copy(SCRIPTS / "client.gd", here)
                args = ["127.0.0.1", str(port), f"{inside}/decoder.gd", str(SEED), str(HISTORY)]
                ours = _serve(schema, transport, inbox, SEED)
                return await run_beside(
                    godot4,
                    "client.gd",
                    args,
                    ours,
                    cwd=(here, inside),
                    timeout=TIMEOUT,
                    strict=True,
                )
        finally:
            transport.close()

    counts = asyncio.run(main())
    print(counts)
    assert counts["checked"] + counts["dropped"] == TICKS
    assert counts["checked"] >= 0.8 * TICKS
    assert counts["dropped"] > 0 and counts["full"] > 1 and counts["ack_lag"] > 0


def _run_on_files(godot4: Engine, schema: Schema, script: str, payload: Any) -> Any:
    """Run ``<script>`` (beside this file) with ``schema``'s generated decoder on ``payload``
    (``var_to_bytes``) and return what it wrote. The decoder must never fail at run time: a
    GDScript error abandons the function, so any SCRIPT ERROR fails the test."""
    with godot4.workdir() as (here, inside):
        (here / "decoder.gd").write_text(gdscript.generate(schema))
        for name in (script, "state.gd"):
            shutil.copy(SCRIPTS / name, here)
        (here / "in.bin").write_bytes(gdvariant.dumps(payload))
        proc = godot4.run(
            script,
            [f"{inside}/decoder.gd", f"{inside}/in.bin", f"{inside}/out.bin"],
            cwd=(here, inside),
            timeout=TIMEOUT,
        )
        assert "SCRIPT ERROR" not in proc.stderr, proc.stderr[-3000:]
        return gdvariant.loads((here / "out.bin").read_bytes())


def _unread_run(
    rng: random.Random, value_deltas: bool = False, first_id: int = 0
) -> tuple[list[bytes], list[bool]]:
    """Packets for one client, some pairs swapped in delivery, and when to read the state:
    now and then, every tick for a while, and never for a long run in the middle. Values
    are whole by default (flag bit 2 clear: the live test has the value deltas). Entity ids
    start at ``first_id`` (the world hands out the lowest free id above its counter)."""
    schema = gdscript_schema()
    world = World(schema)
    world._next = first_id
    server = SnapshotEncoder(world, history=HISTORY, stamp=True, value_deltas=value_deltas)
    server.add_client(0)
    script = Script(world, rng, size=12)
    packets: list[bytes] = []
    for _ in range(80):
        script.step()
        tick = server.snapshot()
        packets.append(server.packet_for(0))
        # Acks lag 2-4 ticks, so a packet swapped with the one before it still has its base.
        server.ack(0, max(tick - rng.randrange(2, 5), 0))
    for k in range(1, len(packets) - 1, 7):
        packets[k], packets[k + 1] = packets[k + 1], packets[k]
    reads = [
        k == len(packets) - 1 or (k < 20 and rng.random() < 0.4) or 50 <= k < 60
        for k in range(len(packets))
    ]
    return packets, reads


@pytest.mark.parametrize("first_id", [0, DENSE_IDS - 6])
def test_state_view_read_now_and_then(godot4: Engine, first_id: int) -> None:
    """``state`` is built when read, from every record applied since the last read: it must
    equal our decoder's newest state after runs of unread packets in which entities enter,
    leave, change and reuse ids with another class, after late packets, and after a run long
    enough that the view is rebuilt whole. Also with ids on both sides of ``DENSE_IDS``
    (kept in an Array by id below it, in a Dictionary above)."""
    print(f"GDVARIANT_SEED={SEED}")
    packets, reads = _unread_run(random.Random(SEED), first_id=first_id)
    schema = gdscript_schema()
    results = _run_on_files(godot4, schema, "unread.gd", [packets, reads])
    same_reports(results, schema, packets, reads, lambda state: godot_state(schema, state))


def same_reports(
    results: list[Any],
    schema: Schema,
    packets: list[bytes],
    flags: list[bool],
    view: Callable[[dict[int, EntityState]], Any],
) -> None:
    """The engine's reports ``[tick, var_to_bytes(value)]``, one per flagged packet, equal
    ours: our decoder applies the same packets and gives ``[tick, view(state)]`` (any two
    NaNs counting as equal)."""
    ours = SnapshotDecoder(schema, history=HISTORY)
    want = []
    for packet, flag in zip(packets, flags, strict=True):
        ours.apply(packet)
        if flag:
            want.append([ours.tick, view(ours.state)])
    assert len(results) == len(want) == sum(flags), results[-1]
    for (tick, got), (want_tick, value) in zip(results, want, strict=True):
        assert tick == want_tick
        if got != gdvariant.dumps(value):
            assert same_but_nan_payloads(gdvariant.loads(got), value), f"tick {tick}"


@pytest.mark.parametrize("first_id", [0, DENSE_IDS - 6])
def test_apply_to_nodes(godot4: Engine, first_id: int) -> None:
    """``apply_to_nodes()`` sets the newest state on objects (the engine script's recorders
    capture each ``set()``), called now and then, with some nodes replaced between calls and
    ids reused by other classes: after each call, every recorder's properties of its
    entity's class must equal our decoder's newest state of that entity."""
    print(f"GDVARIANT_SEED={SEED}")
    packets, calls = _unread_run(random.Random(SEED + 1), value_deltas=True, first_id=first_id)
    schema = gdscript_schema()
    results = _run_on_files(godot4, schema, "nodes.gd", [packets, calls])

    def nodes(state: dict[int, EntityState]) -> dict[int, dict[str, Any]]:
        out = {}
        for net_id, ent in sorted(state.items()):
            lay = schema.layout(ent.class_name)
            out[net_id] = {
                p.path.replace(".", "_").replace("[", "_").replace("]", ""): godot_value(
                    p.codec, ent.values[p.path]
                )
                for p in lay.props
            }
        return out

    same_reports(results, schema, packets, calls, nodes)


def test_negative_zero_coord_and_a_delta_from_it(godot4: Engine) -> None:
    """A Coord with its sign bit set on a zero magnitude is -0.0 (wire doc §5: the value is
    negated if sign), which an ordinal cannot hold: the decoder, which keeps Coord values with
    value deltas as ordinals, must still give -0.0, and a value delta from it must start at
    ordinal 0. Compared with our decoder through var_to_bytes, which tells -0.0 from 0.0."""
    schema = gdscript_schema()
    lay = schema.layout("Pawn")  # a Mover
    i = lay.index["origin"]
    bits, widths = list(lay.base_bits), list(lay.base_widths)
    bits[i] = 0b0_1_10 | bits[i] >> 2 << 8  # x: flags "fraction", sign, fraction 0
    widths[i] += 6
    enter = encode_record(lay, schema.class_bits, OP_ENTER, 0, 1 << i, bits, widths)
    # Coord(10, 5): W = 17, first tier 4 bits (offset 8); x moves by +1 (z = 9), y and z
    # by 0 (z = 8): each a 0 bit, then z.
    bits[i], widths[i] = 9 << 1 | 8 << 6 | 8 << 11, 15
    update = encode_record(lay, schema.class_bits, OP_UPDATE, 0, 1 << i, bits, widths)
    fp = schema.fingerprint
    packets = [
        struct.pack("<BBIIII", VERSION, 3, 1, 0, 1, 0) + fp + enter,
        struct.pack("<BBIIII", VERSION, 5, 2, 1, 1, 0) + fp + update,
    ]
    results = _run_on_files(godot4, schema, "unread.gd", [packets, [True, True]])
    ours = SnapshotDecoder(schema, history=HISTORY)
    xs = []
    for packet, (tick, got) in zip(packets, results, strict=True):
        assert ours.apply(packet) == tick
        xs.append(ours.state[0].values["origin"][0])
        assert got == gdvariant.dumps(godot_state(schema, ours.state)), f"tick {tick}"
    assert math.copysign(1.0, xs[0]) == -1.0 and xs[0] == 0.0
    assert xs[1] == 1 / 32


def _full_packet(
    schema: Schema, tick: int, shared: list[bytes], private: list[bytes] | None = None
) -> bytes:
    """A stamped full update of ``tick`` whose sections hold these records."""
    private = private or []
    head = struct.pack("<BBIIII", VERSION, 3, tick, 0, len(shared), len(private))
    return head + schema.fingerprint + b"".join(shared) + b"".join(private)


def _crafted(schema: Schema, tick: int) -> list[bytes]:
    """Errors random damage rarely makes: a bad embedded Variant, an enter in the private
    section, an unknown class id (3 of the arena's 3 classes)."""
    lay = schema.layout("Cargo")
    i = lay.index["extra"]
    bits, widths = list(lay.base_bits), list(lay.base_widths)
    record = encode_record(lay, schema.class_bits, OP_ENTER, 0, 1 << i, bits, widths)
    raw = bytes([0x7F, 0, 0, 0])  # no such Variant type
    len_bits = cast(Variant, lay.codecs[i]).len_bits
    bits[i] = len(raw) | int.from_bytes(raw, "little") << len_bits
    widths[i] = len_bits + 8 * len(raw)
    bad_variant = encode_record(lay, schema.class_bits, OP_ENTER, 0, 1 << i, bits, widths)

    unknown_class = bytes([1 | 3 << 3])  # op enter, no gap, class id 3
    return [
        _full_packet(schema, tick, [bad_variant]),
        _full_packet(schema, tick, [], [record]),
        _full_packet(schema, tick, [unknown_class]),
    ]


def _bad_packets(rng: random.Random) -> tuple[bytes, bytes, list[bytes]]:
    """A full packet, a delta from it, and damaged versions of both."""
    schema = gdscript_schema()
    world = World(schema)
    server = SnapshotEncoder(world, history=HISTORY, stamp=True)
    server.add_client(0)
    script = Script(world, rng, size=12)
    for _ in range(6):
        script.step()
    while not world.entities:  # some seeds spawn nothing in six ticks: no records to damage
        script.step()
    full_tick = server.snapshot()
    full = server.packet_for(0)
    server.ack(0, full_tick)
    for _ in range(3):
        script.step()
        server.snapshot()
    delta = server.packet_for(0)
    bad = [p[:cut] for p in (full, delta) for cut in range(len(p))]
    bad += [delta + b"\x00", bytes([2]) + delta[1:], delta[:1] + bytes([0x80]) + delta[2:]]
    bad.append(delta[:1] + bytes([delta[1] | 2]) + delta[2:])  # full flag with a base
    bad.append(delta[:18] + bytes(8) + delta[26:])  # another schema's stamp
    bad.append(delta[:6] + struct.pack("<I", full_tick + 1) + delta[10:])  # unknown base
    bad += _crafted(schema, full_tick + 5)
    # Flips land past the header and stamp (26 bytes), in packets that have records: with
    # some seeds nothing changes in the three ticks and the delta is bare (seed 42967960).
    with_records = [p for p in (full, delta) if len(p) > 26]
    for _ in range(300):
        flipped = bytearray(rng.choice(with_records))
        for _ in range(rng.randrange(1, 4)):
            flipped[rng.randrange(26, len(flipped))] ^= 1 << rng.randrange(8)
        bad.append(bytes(flipped))
    return full, delta, bad


def _after_full_as_ours(
    godot4: Engine, schema: Schema, full: bytes, packets: list[bytes]
) -> tuple[int, int]:
    """Each packet applied by the generated decoder after ``full`` (a fresh decoder each)
    gives what ours gives: the same tick and state, or the same error path with the state
    kept. Returns how many were rejected and accepted."""
    *bad, last = packets
    results = _run_on_files(godot4, schema, "bad_packets.gd", [full, last, bad])
    assert len(results) == len(packets)
    rejected = accepted = 0
    for i, (packet, (tick, error, path, kept, state)) in enumerate(
        zip(packets, results, strict=True)
    ):
        ours = SnapshotDecoder(schema, history=HISTORY)
        ours.apply(full)
        context = f"packet #{i} (seed {SEED}) {packet.hex()}"
        try:
            want_tick = ours.apply(packet)
        except DecodeError as exc:
            assert tick == -1, f"{context}: ours says {exc}, the engine accepted it"
            assert kept, f"{context}: the engine's state changed"
            assert error and path == exc.path, f"{context}: {error!r} at {path!r}; ours: {exc}"
            rejected += 1
            continue
        assert tick == want_tick, f"{context}: the engine says {error!r}"
        want = godot_state(schema, ours.state)
        if state != gdvariant.dumps(want):
            # Damage can make a Half NaN; Godot keeps its payload bits, Python's struct
            # (3.11) does not. Anything else must be byte-identical.
            assert same_but_nan_payloads(gdvariant.loads(state), want), context
        accepted += 1
    return rejected, accepted


@pytest.mark.parametrize("checked_each", [False, True])
def test_malformed_packets_in_the_engine(
    godot4: Engine, checked_each: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Also with every class's fast path checking bounds after each property, as it does
    for a class whose record can be longer than ``FAST_RUN_BITS`` (none of the arena's)."""
    print(f"GDVARIANT_SEED={SEED}")
    if checked_each:
        monkeypatch.setattr(_record_reads, "FAST_RUN_BITS", 0)
    full, delta, bad = _bad_packets(random.Random(SEED))
    rejected, accepted = _after_full_as_ours(godot4, gdscript_schema(), full, [*bad, delta])
    assert rejected > len(full) + len(delta) and accepted > 1


def _gap_listed(
    schema: Schema, cls: str, indices: list[int], fields: list[tuple[int, int]]
) -> bytes:
    """An enter record of the next id whose change list is a gap list of ``indices``
    (ascending, each below 2 ** index_bits, not necessarily a property), whatever its
    length: the encoder sends the shorter form, but a decoder accepts either (wire doc §3).
    The values are ``fields`` (bits and width per property) of the indices that exist."""
    lay = schema.layout(cls)
    acc, n = OP_ENTER | lay.class_id << 3, 3 + schema.class_bits
    acc |= 1 << n  # selector: a gap list
    n += 1
    prev = -1
    for i in indices:
        acc |= (1 | (i - prev - 1) << 1) << n
        n += 1 + lay.index_bits
        prev = i
    n += 1  # the closing 0 flag
    for i in indices:
        if i < lay.count:
            bits, width = fields[i]
            acc |= bits << n
            n += width
    return acc.to_bytes((n + 7) >> 3, "little")


def test_gap_lists_of_every_length(godot4: Engine) -> None:
    """The fast path reads the first entries of a gap list from the bits it already holds,
    unrolled, and the rest in a loop (``gdscript._record_reads._unrolled_changes``); the encoder
    never sends lists long enough to reach the loop. Here: enter records listing 0 to all
    of a class's properties as gap lists, with the values of entities of a scripted world,
    and an index past the class at each position of the list, through the generated
    decoder as through ours."""
    rng = random.Random(SEED)
    schema = gdscript_schema()
    world = World(schema)
    script = Script(world, rng, size=12)
    kinds = {"Cargo": Cargo, "Pawn": Pawn}
    while not all(any(type(e) is k for e in world.entities.values()) for k in kinds.values()):
        script.step()
    packets = []
    for cls, kind in kinds.items():
        lay = schema.layout(cls)
        ent = next(e for e in world.entities.values() if type(e) is kind)
        fields = [codec.encode(v) for codec, v in zip(lay.codecs, ent._net_vals, strict=True)]
        good = [
            _gap_listed(schema, cls, sorted(rng.sample(range(lay.count), k)), fields)
            for k in range(lay.count + 1)
        ]
        packets.append(_full_packet(schema, 2, good))
        for k in range(7):
            past = [*sorted(rng.sample(range(lay.count), k)), lay.count]
            packets.append(_full_packet(schema, 2, [_gap_listed(schema, cls, past, fields)]))
    rejected, accepted = _after_full_as_ours(godot4, schema, _full_packet(schema, 1, []), packets)
    assert (rejected, accepted) == (14, 2)


class Tiny(NetClass):
    """Fewer properties than a record's first bits hold gap-list entries."""

    level = UInt(5)
    lit = UInt(1)


def test_gap_lists_of_a_class_with_few_properties(godot4: Engine) -> None:
    """A class of 2 properties (1-bit gaps): its unrolled entries stop at 2, so a list of 3
    entries, whose last index is past the class, reaches the loop after them."""
    schema = Schema.build([Tiny])
    lay = schema.layout(Tiny)
    fields = [(17, 5), (1, 1)]
    packets = [
        _full_packet(schema, 2, [_gap_listed(schema, lay.name, indices, fields)])
        for indices in ([], [0], [1], [0, 1], [0, 1, 2])
    ]
    rejected, accepted = _after_full_as_ours(godot4, schema, _full_packet(schema, 1, []), packets)
    assert (rejected, accepted) == (1, 4)


class Note(NetClass):
    """Strings that start with a BOM, which Godot's UTF-8 decoder drops (wire doc §5)."""

    text = Str(16)
    lines = Array(Str(8), max_len=3)


BOM_TEXTS = ["\ufeffa", "\ufeff\ufeffé", "\ufeff", "a\ufeff", "é", "plain"]


def test_a_leading_bom_is_kept_as_by_our_decoder(godot4: Engine) -> None:
    """Strings starting with U+FEFF (once or twice), the BOM alone, one inside, and
    strings without: the generated decoder holds what ``quantize`` and our decoder hold,
    compared through ``var_to_bytes``, which keeps a leading BOM."""
    schema = Schema.build([Note])
    world = World(schema)
    server = SnapshotEncoder(world, history=HISTORY)
    server.add_client(0)
    notes = [world.spawn(Note) for _ in range(2)]
    packets = []
    for i, text in enumerate(BOM_TEXTS):
        notes[0].text = text
        notes[1].lines = (text, BOM_TEXTS[i - 1], "\ufeffz")
        assert Str(16).quantize(text) == text
        server.snapshot()
        packets.append(server.packet_for(0))
        server.ack(0, world.tick)
    results = _run_on_files(godot4, schema, "unread.gd", [packets, [True] * 6])
    ours = SnapshotDecoder(schema)
    for packet, text, (tick, got) in zip(packets, BOM_TEXTS, results, strict=True):
        assert ours.apply(packet) == tick
        assert ours.state[0].values["text"] == text
        assert got == gdvariant.dumps(godot_state(schema, ours.state)), repr(text)


def test_sorted_state_is_a_snapshot(godot4: Engine) -> None:
    """``sorted_state()`` kept after each packet, encoded only after the last one: each
    must still be the state of its own tick, although ``state`` (whose Dictionaries are
    updated in place) moved on."""
    print(f"GDVARIANT_SEED={SEED}")
    packets, _ = _unread_run(random.Random(SEED + 2))
    keeps = [True] * len(packets)
    schema = gdscript_schema()
    results = _run_on_files(godot4, schema, "kept.gd", [packets, keeps])
    same_reports(results, schema, packets, keeps, lambda state: godot_state(schema, state))


def test_an_owner_change_in_the_engine(godot4: Engine) -> None:
    """A pawn's owner-only purse moves from client 0 to client 1 and back: each client's
    generated decoder holds the purse only while its client owns the pawn (the old
    owner's values are reset to their baselines), gets owner-only changes only then, and
    equals our decoder and the server's view of that client after every packet."""
    schema = gdscript_schema()
    world = World(schema)
    server = SnapshotEncoder(world, history=HISTORY)
    for cid in (0, 1):
        server.add_client(cid)
    pawn = world.spawn(Pawn, net_owner=0, name="p")
    pawn.purse.gold, pawn.purse.note = 5, "mine"
    packets: dict[int, list[bytes]] = {0: [], 1: []}
    expected: dict[int, list[Any]] = {0: [], 1: []}
    steps: list[tuple[Any, str, Any]] = [
        (pawn, "net_owner", 0),
        (pawn, "net_owner", 1),
        (pawn.purse, "gold", 9),
        (pawn, "net_owner", 0),
        (pawn.purse, "debt", -3),
    ]
    for target, name, value in steps:
        setattr(target, name, value)
        server.snapshot()
        for cid, packet in server.packets().items():
            packets[cid].append(packet)
            server.ack(cid, world.tick)
            expected[cid].append(godot_state(schema, server.expected_state(cid)))
    purse: dict[int, list[tuple[int, str, int]]] = {0: [], 1: []}
    for cid in (0, 1):
        flags = [True] * len(steps)
        results = _run_on_files(godot4, schema, "unread.gd", [packets[cid], flags])
        same_reports(results, schema, packets[cid], flags, lambda s: godot_state(schema, s))
        for (tick, got), want in zip(results, expected[cid], strict=True):
            assert got == gdvariant.dumps(want), f"client {cid}, tick {tick}"
            values = gdvariant.loads(got)[0][pawn.net_id]
            purse[cid].append((values["purse.gold"], values["purse.note"], values["purse.debt"]))
    assert purse[0] == [(5, "mine", 0), (0, "", 0), (0, "", 0), (9, "mine", 0), (9, "mine", -3)]
    assert purse[1] == [(0, "", 0), (5, "mine", 0), (9, "mine", 0), (0, "", 0), (0, "", 0)]
