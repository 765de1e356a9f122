"""One network frame of full SYNC and delta packets as bytes: the pure-Python reference of
the compiled frame (``_csync.c``), with the same arguments and the same results.

The replicator keeps one :data:`Record` per node that has a synchronizer of the server's
(its roster, in spawn order) and hands the roster to :func:`frame` once per
``SceneMultiplayer.sync``. Each node's SYNC entry (``u32 net id | u32 size | values``) is
encoded once and the same bytes object goes to every peer that holds the node; its watched
(ON_CHANGE) values are encoded once, in the compressed form, and compared per peer with the
bytes last sent to it; one delta entry is built per distinct mask. Nothing is encoded again
for a value that is the very object of last frame (of an immutable type), or an equal int,
str or bool. Floats and vectors are not kept from frame to frame: they are encoded again
and compared as bytes (last frame's bytes object is kept when they are equal), so the one
the game replaced is freed by the write that replaced it, not a frame later. Packets are
cut as Godot's ``_send_sync``/``_send_delta`` cut them: a new one starts when
``offset + 8 + size`` (``+ 16`` for a delta) would pass the limit, and a state larger than
the limit on its own is left out and reported (docs/multiplayer.md, "The server API").
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .wire._rpc import SHORT_ARGS

#: nothing here is public: the replicator's own machinery, reached by module
__all__: list[str] = []

#: SceneReplicationInterface's defaults: a SYNC packet is split past this, a bigger state is
#: not sent at all; deltas are split at the other.
MAX_SYNC_PACKET_SIZE = 1350
MAX_DELTA_PACKET_SIZE = 65535

#: A node as the frame reads it, one list (the compiled frame indexes it): ``[net id, raw
#: values (the entity's _net_vals), raw index of each ALWAYS property, raw index of each
#: ON_CHANGE property, codec per raw index whose value needs godot_value (None: none does),
#: holders (a tuple of peers), {peer: bytes of each watched value last sent}, settled, last
#: SYNC entry or None (None too when a value is not held, see :func:`_sync_entry`), then last
#: frame's value of each ALWAYS property, then the last value and its bytes of each ON_CHANGE
#: property]``. The two caches are the record's own items (a cache
#: holds None for a float or a vector, see :func:`_held`), not lists of their own: a frame
#: reads a node's line or two of items instead of two more lists and their item arrays, and
#: makes no new containers per node. The holders are a tuple the replicator replaces wherever
#: they change (its set of them stays the one RPCs read): one small object whose peers are
#: inline, for a frame to read, instead of a set's header and table. *Settled* (a bool) is the
#: compiled frame's shortcut: True when every holder was sent the node's current watched bytes
#: at its last frame; the replicator sets it False when it shows the node to a peer or hides it
#: (a holder that leaves keeps it true), and the compiled frame then compares the bytes again,
#: as it does when a watched value changed. This frame ignores it (it always compares) and
#: leaves it as it is, which keeps it true.
Record = list[Any]
ID, RAW, SYNC, WATCH, CONVERT, HOLDERS, SENT, SETTLED, ENTRY, CACHE = range(10)
#: ``(dumps, encode_compressed, godot_value, immutable types, Vector2, Vector3)``:
#: ``var_to_bytes`` (the compiled frame's for what it does not write itself), the compressed
#: form, the value conversion, the types whose values never change, and the two vector types
#: the compiled frame writes itself.
Encoder = tuple[
    Callable[[Any], bytes], Callable[[Any], bytes], Callable[[Any, Any], Any], Any, type, type
]
#: What :func:`tally` counts into, ``(slots, cells, place)``: ``cells`` (int64) holds the
#: bytes by a packet's first byte at ``[0, KINDS)``, its messages at ``[KINDS, 2 * KINDS)``,
#: then a peer's bytes and messages at ``slots[peer]`` and the cell after; ``place(peer)``
#: gives a peer not in ``slots`` its two cells (``TrafficCounter`` keeps them)
Counts = tuple[dict[Any, int], "array[int]", Callable[[Any], int]]
#: a packet's first byte: the number of counts by kind
KINDS = 256
#: ``([(peer slot, its SYNC packets, its delta packets)] for the slots with anything to send,
#: [(net id, size, "state" or "delta") left out])``
Frame = tuple[list[tuple[int, list[bytes], list[bytes]]], list[tuple[int, int, str]]]

#: types whose values are equal exactly when their encoded bytes are (not float: -0.0 == 0.0)
_EXACT_EQ = frozenset({int, str, bool})
#: raw value types the caches do not hold (their slot holds None), besides the encoder's
#: Vector2 and Vector3: cheap to encode again, and made anew by nearly every write
_UNHELD = frozenset({float})
_ENTRY = struct.Struct("<II")
_DELTA = struct.Struct("<IQI")
_SYNC_HEAD = struct.Struct("<BH")
_SYNC_COMMAND = 6
_DELTA_HEAD = b"\x16"
_SYNC_ENTRY = 8
_TIME_MODULUS = 1 << 16


def new_record(
    net_id: int,
    raw: list[Any],
    sync: tuple[int, ...],
    watch: tuple[int, ...],
    convert: tuple[Any, ...] | None,
    holders: tuple[int, ...],
    sent: dict[int, list[bytes | None]],
) -> Record:
    """A node's record; ``sent`` is the replicator's own dict, kept live, and ``holders`` its
    peers now (the replicator replaces the tuple when they change)."""
    head: Record = [net_id, raw, sync, watch, convert, holders, sent, False, None]
    return head + [None] * (len(sync) + 2 * len(watch))


def frame(
    roster: Iterable[Record], slots: Mapping[int, int], clocks: list[Any], encoder: Encoder
) -> Frame:
    """One frame for the peers of ``slots`` (peer -> slot, slots in send order), whose SYNC
    clocks (``SyncClock``, read, not advanced) are ``clocks`` by slot: the slots that have
    anything to send, in order, each with its SYNC packets (at the clock's next time) and
    its delta packets, and the states too large to send. Peers with nothing to send cost
    nothing. The records' caches and each peer's sent watched bytes are brought up to date.
    ``slots`` must not change while the frame runs (the compiled frame remembers the last
    peer it looked up)."""
    entries: dict[int, list[bytes]] = {}
    deltas: dict[int, list[bytes]] = {}
    left_out: list[tuple[int, int, str]] = []
    for record in roster:
        holders = record[HOLDERS]
        if not holders:
            continue
        targets = [peer for peer in holders if peer in slots]
        if not targets:
            continue
        if record[SYNC]:
            entry = _sync_entry(record, encoder)
            if len(entry) - _SYNC_ENTRY > MAX_SYNC_PACKET_SIZE:
                left_out.append((record[ID], len(entry), "state"))
            else:
                for peer in targets:
                    entries.setdefault(slots[peer], []).append(entry)
        if record[WATCH]:
            _deltas(record, _watched(record, encoder), targets, slots, deltas, left_out)
    sends = []
    for slot in sorted(entries.keys() | deltas.keys()):
        items = entries.get(slot)
        head = _SYNC_HEAD.pack(_SYNC_COMMAND, (clocks[slot].last + 1) % _TIME_MODULUS)
        syncs = [] if items is None else _packed(head, items, MAX_SYNC_PACKET_SIZE)
        changes = deltas.get(slot)
        packed = [] if changes is None else _packed(_DELTA_HEAD, changes, MAX_DELTA_PACKET_SIZE)
        sends.append((slot, syncs, packed))
    return sends, left_out


def _value(record: Record, index: int, encoder: Encoder) -> bytes:
    value = record[RAW][index]
    convert = record[CONVERT]
    if convert is not None and convert[index] is not None:
        value = encoder[2](convert[index], value)
    return encoder[1](value)


def _held(value: Any, encoder: Encoder) -> Any:
    """What a cache keeps of a raw value: the value, or None for a float or a vector."""
    kind = type(value)
    return None if kind in _UNHELD or kind is encoder[4] or kind is encoder[5] else value


def _sync_entry(record: Record, encoder: Encoder) -> bytes:
    """The node's SYNC entry; last frame's bytes when every value is the same object, or
    when the values encode to the same bytes. The cache is the record's ``ENTRY`` item and
    the one value after ``CACHE`` per ALWAYS property (None for a value not held), updated in
    place (no new objects per frame). An entry is kept only when every value is held: one
    with a float or a vector is never reused by identity, so it is not kept (``ENTRY`` None)
    and the compiled frame copies it to the peers from where it encoded it, making no bytes
    object a node and frame (docs/multiplayer-performance.md, "The twelfth round: fewer lines a
    node")."""
    raw = record[RAW]
    immutable = encoder[3]
    sync = record[SYNC]
    cached = record[ENTRY]
    if cached is not None and all(
        record[k] is not None and raw[i] is record[k] and type(record[k]) in immutable
        for k, i in enumerate(sync, CACHE)
    ):
        reused: bytes = cached
        return reused
    if record[CONVERT] is None:
        encode = encoder[1]
        data = b"".join([encode(raw[i]) for i in sync])
    else:
        data = b"".join([_value(record, i, encoder) for i in sync])
    entry = _ENTRY.pack(record[ID], len(data)) + data
    kept = True
    for k, i in enumerate(sync, CACHE):
        record[k] = _held(raw[i], encoder)
        kept = kept and record[k] is not None
    if not kept:
        record[ENTRY] = None
        return entry
    if cached == entry:
        entry = cached
    record[ENTRY] = entry
    return entry


def _watched(record: Record, encoder: Encoder) -> list[bytes]:
    """The compressed bytes of each watched value, encoded only when it may have changed
    (last frame's bytes object when they are equal). The cache is the record's two items
    per ON_CHANGE property after the ALWAYS ones' (``value, bytes``; None for a value not
    held), updated in place."""
    raw = record[RAW]
    immutable = encoder[3]
    out = []
    at = CACHE + len(record[SYNC])
    for k, index in enumerate(record[WATCH]):
        value = raw[index]
        last, data = record[at + 2 * k], record[at + 2 * k + 1]
        if data is not None:
            kind = type(value)
            same = last is value and last is not None and kind in immutable
            if same or (kind is type(last) and kind in _EXACT_EQ and last == value):
                out.append(data)
                continue
        now = _value(record, index, encoder)
        if now != data:
            data = now
        record[at + 2 * k], record[at + 2 * k + 1] = _held(value, encoder), data
        out.append(data)
    return out


def _deltas(
    record: Record,
    encoded: list[bytes],
    targets: list[int],
    slots: Mapping[int, int],
    deltas: dict[int, list[bytes]],
    left_out: list[tuple[int, int, str]],
) -> None:
    """Each target's delta entry of the watched values whose bytes differ from those last
    sent to it (now recorded as sent); peers with the same mask share one entry."""
    by_mask: dict[int, bytes | None] = {}
    sent_by_peer = record[SENT]
    for peer in targets:
        sent = sent_by_peer.get(peer)
        if sent is None:
            sent = sent_by_peer[peer] = [None] * len(encoded)
        mask = 0
        for k, now in enumerate(encoded):
            if sent[k] is not now and sent[k] != now:
                mask |= 1 << k
                sent[k] = now
        if not mask:
            continue
        if mask in by_mask:
            delta = by_mask[mask]
        else:
            data = b"".join(now for k, now in enumerate(encoded) if mask >> k & 1)
            delta = _DELTA.pack(record[ID], mask, len(data)) + data
            if len(data) > MAX_DELTA_PACKET_SIZE:
                left_out.append((record[ID], len(delta), "delta"))
                delta = None
            by_mask[mask] = delta
        if delta is not None:
            deltas.setdefault(slots[peer], []).append(delta)


def _packed(head: bytes, items: list[bytes], limit: int) -> list[bytes]:
    """``items`` in order after ``head``, cut into packets of at most ``limit`` bytes."""
    packets = []
    batch = [head]
    size = len(head)
    for item in items:
        if size + len(item) > limit and len(batch) > 1:
            packets.append(b"".join(batch))
            batch, size = [head], len(head)
        batch.append(item)
        size += len(item)
    if len(batch) > 1:
        packets.append(b"".join(batch))
    return packets


def tally(counts: Counts, peer: Any, data: bytes) -> None:
    """Count one packet handed to the transport for ``peer``: its bytes and one message to
    the peer's cells and to those of its first byte (``TrafficCounter.sent``, bound to the
    counter's :data:`Counts`; here with the frame since the compiled frame does the same
    count without a Python call a packet, nor a Python int). A count past 2**63 - 1 raises
    OverflowError (the array's own check), the cell unchanged."""
    slots, cells, place = counts
    at = slots.get(peer)
    if at is None:
        at = place(peer)
    size = len(data)
    cells[at] += size
    cells[at + 1] += 1
    first = data[0]
    if not 0 <= first < KINDS:  # a first item no byte has: refused, as the compiled tally does
        raise IndexError("array index out of range")
    cells[first] += size
    cells[KINDS + first] += 1


def hand_over(
    links: Mapping[int, Any],
    packets: Sequence[tuple[int, bytes, int, int]],
    start: int,
    counts: Counts,
    largest: int,
    routes: Sequence[tuple[int, int]],
    make: Callable[[bytes, int], Any],
) -> int:
    """The ENet adapter's hand-over (``MultiplayerServer._put_all``) of ``packets[start:]``
    while each is its common kind, a frame's SYNC: unreliable (mode 0 or 1) on channel 0, to
    a link that is there and not closing, at most ``largest`` bytes. Each is counted
    (:func:`tally`) and given to ENet, ``link.peer.send(channel, make(data, flags))`` on
    ``routes[mode]``. Returns the index of the first packet it left to the caller
    (``len(packets)`` when none), or ``~index`` of one ENet refused (counted and tried: the
    caller logs it and goes on after it). Here with the frame since the compiled one hands
    them over without a Python loop of ours."""
    index = start
    while index < len(packets):
        packet = packets[index]
        if type(packet) is not tuple or len(packet) != 4:
            return index
        peer, data, mode, channel = packet
        if not isinstance(data, bytes) or not isinstance(mode, int) or mode not in (0, 1):
            return index
        if not isinstance(channel, int) or channel != 0:
            return index
        link = links.get(peer)
        if link is None or len(data) > largest or link.closing:
            return index
        enet_channel, flags = routes[mode]
        tally(counts, peer, data)
        if link.peer.send(enet_channel, make(data, flags)) < 0:
            return ~index
        index += 1
    return index


def read_call(
    data: bytes, allow_objects: bool, limits: Any, cls: type, general: Callable[..., Any]
) -> Any:
    """The RPC in ``data`` when it is bytes in the short form (byte 0 is ``00``, 4 bytes at
    least), as ``general(data, allow_objects, limits)`` reads it (``wire._rpc.read_short_call``,
    the reference), else None. The compiled twin reads a call whose arguments are all BOOL or
    INT itself, making ``cls`` as ``read_short_call`` does, and hands any other to ``general``."""
    if type(data) is not bytes or data[:1] != b"\x00" or len(data) < SHORT_ARGS:
        return None
    return general(data, allow_objects, limits)


def write_call(
    node_id: int, method_id: int, args: tuple[Any, ...], general: Callable[..., Any]
) -> bytes | None:
    """``general(node_id, method_id, args)`` (``wire._rpc.write_short_call``, the reference):
    here that call itself. The compiled twin writes a call of BOOL and INT arguments (ids in a
    byte) itself and hands any other to ``general``."""
    data: bytes | None = general(node_id, method_id, args)
    return data
