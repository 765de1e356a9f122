"""Snapshots and deltas, client side: the Python decoder of the packets.

Client side, :class:`SnapshotDecoder` applies a packet to a copy of the state at the packet's
base tick and commits only at the end: a malformed or truncated packet is a DecodeError
naming the entity and property, and leaves the decoder as it was. It also keeps the states
of the newest few ticks applied, and :meth:`SnapshotDecoder.interpolated` gives the state at
a fractional render tick between them (``_interpolation``;
``docs/replication-interpolation.md``).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any

from gdvariant import DecodeError, GodotError

from ._bits import BitReader, Malformed, Truncated
from ._interpolation import Blender, render_pair
from ._packet_format import (
    FLAG_DELTAS,
    FLAG_FULL,
    FLAG_PARTIAL,
    FLAG_STAMP,
    GAP_WIDTHS,
    HEADER,
    OP_DELETE,
    OP_ENTER,
    OP_UPDATE,
    VERSION,
)
from ._schema import ClassLayout, Schema

__all__ = ["EntityState", "SnapshotDecoder"]


@dataclass(frozen=True)
class EntityState:
    """One entity as a client holds it: class (table) name and ``{path: value}``.
    Treat ``values`` as read-only: states of older ticks share these dicts."""

    class_name: str
    values: dict[str, Any] = field(default_factory=dict)


class SnapshotDecoder:
    """A client: applies packets, keeps the states of the last ``history`` ticks it got
    (a delta is applied to the state of its base tick), and reports what to ack; for
    rendering, it keeps the states of the ``interpolation_buffer`` newest ticks applied and
    blends them (:meth:`interpolated`)."""

    def __init__(self, schema: Schema, *, history: int = 32, interpolation_buffer: int = 4) -> None:
        if type(interpolation_buffer) is not int or interpolation_buffer < 1:
            raise ValueError(
                f"interpolation_buffer must be an int of at least 1, not {interpolation_buffer!r}"
            )
        self.schema, self.history = schema, history
        self.interpolation_buffer = interpolation_buffer
        self.states: dict[int, dict[int, EntityState]] = {}
        self.tick = 0
        self._ring_ticks: list[int] = []
        self._ring: list[dict[int, EntityState]] = []
        self._blender = Blender(schema)

    @property
    def state(self) -> dict[int, EntityState]:
        """The newest state (empty before the first packet)."""
        return self.states.get(self.tick, {})

    @property
    def ack(self) -> int:
        """The tick to acknowledge: the newest one applied."""
        return self.tick

    def apply(self, packet: bytes) -> int:
        """Decode ``packet`` and store the state it describes; return its tick."""
        tick, state = self._decode(bytes(packet), None)
        self.states[tick] = state
        if tick > self.tick:
            self.tick = tick
        for old in [t for t in self.states if t <= self.tick - self.history]:
            del self.states[old]
        self._remember(tick, state)
        return tick

    def _remember(self, tick: int, state: dict[int, EntityState]) -> None:
        """Keep ``state`` among the newest ``interpolation_buffer`` ticks applied, in tick
        order (a late packet of an older tick is put in its place, the oldest dropped)."""
        ticks, ring = self._ring_ticks, self._ring
        at = bisect.bisect_left(ticks, tick)
        if at < len(ticks) and ticks[at] == tick:
            ring[at] = state
        else:
            ticks.insert(at, tick)
            ring.insert(at, state)
        while len(ticks) > self.interpolation_buffer:
            del ticks[0], ring[0]

    @property
    def buffered_ticks(self) -> list[int]:
        """The ticks kept for interpolation, oldest first (the newest is :attr:`tick`)."""
        return list(self._ring_ticks)

    def interpolated(self, render_tick: float) -> dict[int, EntityState]:
        """The state at ``render_tick`` (in ticks, fractional) between the two kept ticks
        around it: each entity of the older one, its values blended towards the newer one
        where that holds it with the same class (linear, the shorter arc for angles, nlerp
        for rotations; stepwise otherwise). An entity appears at its first state when the
        render time reaches the tick it entered at, and is gone from the tick it left at.
        Before the oldest kept tick the oldest state, from the newest on the newest (held:
        no extrapolation); empty before the first packet."""
        if isinstance(render_tick, bool) or not isinstance(render_tick, int | float):
            raise TypeError(f"render_tick must be a number, not {render_tick!r}")
        if math.isnan(render_tick):
            raise ValueError("render_tick is NaN")
        if not self._ring:
            return {}
        i, j, w = render_pair(self._ring_ticks, float(render_tick))
        before, after = self._ring[i], self._ring[j]
        if i == j:
            return dict(before)
        blender = self._blender
        out: dict[int, EntityState] = {}
        for net_id, ent in before.items():
            other = after.get(net_id)
            name = ent.class_name
            if other is None or other.class_name != name or not blender.blends(name):
                out[net_id] = ent
            else:
                out[net_id] = EntityState(name, blender.values(name, ent.values, other.values, w))
        return out

    def explain(self, packet: bytes) -> str:
        """A readable dump of ``packet``: header, then each record with its entity, class
        and decoded values. Nothing is stored; a delta needs its base tick, as in apply."""
        lines: list[str] = []
        self._decode(bytes(packet), lines)
        return "\n".join(lines)

    def _decode(self, data: bytes, trace: list[str] | None) -> tuple[int, dict[int, EntityState]]:
        """The tick of ``data`` and the state it describes (applied to a copy of its base)."""
        if len(data) < HEADER.size:
            raise DecodeError(
                f"packet of {len(data)} bytes is shorter than the {HEADER.size}-byte header",
                0,
                code=GodotError.ERR_FILE_EOF,
            )
        version, flags, tick, base, shared, private = HEADER.unpack_from(data)
        if version != VERSION:
            raise DecodeError(f"packet version {version}, expected {VERSION}", 0)
        if flags & ~(FLAG_STAMP | FLAG_FULL | FLAG_DELTAS | FLAG_PARTIAL):
            raise DecodeError(f"unknown packet flags {flags:#04x}", 1)
        if bool(flags & FLAG_FULL) != (base == 0):
            raise DecodeError(f"full flag and base tick {base} disagree", 1)
        pos = HEADER.size
        if flags & FLAG_STAMP:
            stamp = data[pos : pos + 8]
            if stamp != self.schema.fingerprint:
                raise DecodeError(
                    f"schema fingerprint {stamp.hex()} is not ours "
                    f"({self.schema.fingerprint.hex()})",
                    pos,
                    code=GodotError.ERR_INVALID_DATA,
                )
            pos += 8
        if base:
            if base not in self.states:
                raise DecodeError(
                    f"packet for tick {tick} is a delta from tick {base}, which this client lacks",
                    6,
                    code=GodotError.ERR_UNAVAILABLE,
                )
            state = dict(self.states[base])
        else:
            state = {}
        if trace is not None:
            kind = "full update" if not base else f"delta from tick {base}"
            stamp_note = ", fingerprint stamp" if flags & FLAG_STAMP else ""
            stamp_note += ", value deltas" if flags & FLAG_DELTAS else ""
            stamp_note += ", partial" if flags & FLAG_PARTIAL else ""
            trace.append(
                f"tick {tick}, {kind}{stamp_note}: {shared} shared + {private} private records, "
                f"{len(data)} bytes"
            )
        deltas = bool(flags & FLAG_DELTAS)
        pos = self._read_section(data, pos, shared, state, True, deltas, trace)
        pos = self._read_section(data, pos, private, state, False, False, trace)
        if pos != len(data):
            raise DecodeError(f"{len(data) - pos} bytes of trailing data after the records", pos)
        return int(tick), state

    def _read_section(
        self,
        data: bytes,
        pos: int,
        count: int,
        state: dict[int, EntityState],
        shared_section: bool,
        deltas: bool,
        trace: list[str] | None,
    ) -> int:
        prev = -1
        classes = self.schema.classes
        for _ in range(count):
            if pos >= len(data):
                raise DecodeError(
                    "packet truncated before a record", pos, code=GodotError.ERR_FILE_EOF
                )
            reader = BitReader(data, pos)
            try:
                op = reader.read(2)
                gap = 0
                if reader.read(1):
                    gap = reader.read(GAP_WIDTHS[reader.read(2)])
            except Truncated:
                raise DecodeError(
                    "packet truncated in a record header", pos, code=GodotError.ERR_FILE_EOF
                ) from None
            net_id = prev + 1 + gap
            prev = net_id
            where = f"entity[{net_id}]"
            if op == OP_DELETE:
                if net_id not in state:
                    raise DecodeError(
                        f"delete of entity {net_id}, which this client lacks", pos, where
                    )
                del state[net_id]
                if trace is not None:
                    trace.append(f"  byte {pos}: delete entity {net_id}")
                pos = reader.align()
                continue
            if (op == OP_ENTER and not shared_section) or op > OP_DELETE:
                raise DecodeError(
                    f"record op {op} is not allowed here (entity {net_id})", pos, where
                )
            if op == OP_ENTER:
                try:
                    class_id = reader.read(self.schema.class_bits)
                except Truncated:
                    raise DecodeError(
                        f"packet truncated in entity {net_id}'s class id",
                        pos,
                        where,
                        GodotError.ERR_FILE_EOF,
                    ) from None
                if class_id >= len(classes):
                    raise DecodeError(
                        f"entity {net_id} enters with unknown class id {class_id}", pos, where
                    )
                lay = classes[class_id]
                values = dict(zip((p.path for p in lay.props), lay.baseline, strict=True))
            else:
                old = state.get(net_id)
                if old is None:
                    raise DecodeError(
                        f"update of entity {net_id}, which this client lacks", pos, where
                    )
                lay = self.schema.by_name[old.class_name]
                values = dict(old.values)
            if trace is not None:
                section = "shared" if shared_section else "private"
                verb = "enter" if op == OP_ENTER else "update"
                trace.append(f"  byte {pos} ({section}): {verb} entity {net_id} ({lay.name})")
            delta = deltas and op == OP_UPDATE
            self._change_set(reader, lay, net_id, values, trace, delta)
            state[net_id] = EntityState(lay.name, values)
            pos = reader.align()
        return pos

    @staticmethod
    def _change_set(
        reader: BitReader,
        lay: ClassLayout,
        net_id: int,
        values: dict[str, Any],
        trace: list[str] | None,
        delta: bool,
    ) -> None:
        """Read a change list and its values into ``values``; with ``delta`` (shared update
        records) the codecs that allow it read a value delta against the value held."""
        where = f"entity[{net_id}]"
        deltas = lay.deltas if delta else (None,) * lay.count
        try:
            indices: list[int] = []
            if reader.read(1):
                prev = -1
                while reader.read(1):
                    i = prev + 1 + reader.read(lay.index_bits)
                    if i >= lay.count:
                        raise DecodeError(
                            f"entity {net_id} ({lay.name}): index {i} is past "
                            f"its {lay.count} properties",
                            reader.byte_offset,
                            where,
                        )
                    indices.append(i)
                    prev = i
            else:
                mask = reader.read(lay.count)
                while mask:
                    low = mask & -mask
                    indices.append(low.bit_length() - 1)
                    mask ^= low
        except Truncated:
            raise DecodeError(
                f"packet truncated in entity {net_id} ({lay.name})'s change list",
                reader.byte_offset,
                where,
                GodotError.ERR_FILE_EOF,
            ) from None
        for i in indices:
            prop = lay.props[i]
            start = reader.pos
            try:
                coder = deltas[i]
                if coder is None:
                    values[prop.path] = prop.codec.decode(reader)
                else:
                    values[prop.path] = coder.read(reader, values[prop.path])
            except Truncated:
                raise DecodeError(
                    f"packet truncated in entity {net_id} ({lay.name}) property {prop.path}",
                    reader.byte_offset,
                    f"{where}.{prop.path}",
                    GodotError.ERR_FILE_EOF,
                ) from None
            except Malformed as exc:
                raise DecodeError(
                    f"entity {net_id} ({lay.name}) property {prop.path}: {exc}",
                    reader.byte_offset,
                    f"{where}.{prop.path}",
                ) from None
            if trace is not None:
                trace.append(
                    f"    [{i}] {prop.path} = {values[prop.path]!r} ({reader.pos - start} bits)"
                )
