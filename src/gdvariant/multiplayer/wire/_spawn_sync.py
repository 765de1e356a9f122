"""Replication packets: SPAWN (4), DESPAWN (5), SYNC (6) and delta SYNC (``0x16``).

Values are compressed Variants without objects (Godot never allows objects in replication).
A spawn's state and a sync entry carry no count: the receiver takes it from the replication
config, so a decoded packet holds every value its bytes contain, and the caller checks the
count against its schema.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Self

from ... import Limits
from ._reader import Reader, cstr, pack_u16, pack_u32, pack_u64
from ._variant import (
    decode_compressed,
    decode_compressed_list,
    encode_compressed,
    encode_compressed_list,
)
from ._version import LATEST, SYNC_DELTA_FLAG, Command, WireVersion

__all__ = ["CUSTOM_SCENE", "DeltaState", "DeltaSync", "Despawn", "Spawn", "Sync", "SyncState"]

#: The scene id of a spawn made by the spawner's ``spawn_function`` (it carries an argument).
CUSTOM_SCENE = 0xFF
SPAWN_HEADER = 18
MAX_WATCHED = 64
#: A SYNC state's head (net id, size), read in one call: a client decodes one SYNC a tick.
_STATE_HEAD = struct.Struct("<II")


@dataclass(frozen=True)
class Spawn:
    """``04 <scene u8> <u32 spawner cache id> <u32 net id> <u32 K> <u32 N> <K u32 sync ids>
    <name cstr, N bytes> [<u32 A> <arg, A bytes> if scene 0xFF] <state values>``.

    ``sync_ids`` are the net ids of the node's synchronizers whose authority is the sender, in
    tree order; ``state`` is their spawn properties, in the same order.
    """

    spawner_id: int
    net_id: int
    name: str
    sync_ids: tuple[int, ...] = ()
    state: tuple[Any, ...] = ()
    scene_id: int = 0
    spawn_arg: Any = None

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        if not 0 <= self.scene_id <= CUSTOM_SCENE:
            raise ValueError(f"scene id {self.scene_id} does not fit in a byte")
        name = cstr(self.name)
        parts = [
            bytes([Command.SPAWN, self.scene_id]),
            pack_u32(self.spawner_id),
            pack_u32(self.net_id),
            pack_u32(len(self.sync_ids)),
            pack_u32(len(name)),
            *map(pack_u32, self.sync_ids),
            name,
        ]
        if self.scene_id == CUSTOM_SCENE:
            arg = encode_compressed(self.spawn_arg)
            parts += [pack_u32(len(arg)), arg]
        parts.append(encode_compressed_list(self.state))
        return b"".join(parts)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "SPAWN", 1)
        if len(data) < SPAWN_HEADER:
            raise reader.error(f"{len(data)} bytes, at least {SPAWN_HEADER} needed")
        scene_id = reader.u8("scene id")
        spawner_id = reader.u32("spawner id")
        net_id = reader.u32("net id")
        count = reader.u32("synchronizer count")
        name_size = reader.u32("name length")
        if count > reader.remaining // 4:
            raise reader.error(f"{count} synchronizer ids do not fit in the packet", 10)
        sync_ids = tuple(reader.u32("synchronizer id") for _ in range(count))
        if name_size < 1:
            raise reader.error("empty node name", 14)
        name = reader.cstr(name_size, "node name")
        if not name:
            raise reader.error("empty node name", 14)
        arg = None
        if scene_id == CUSTOM_SCENE:
            arg_size = reader.u32("spawn argument size")
            start = reader.need(arg_size, "spawn argument")
            arg, end = decode_compressed(
                data, start, end=start + arg_size, allow_objects=False, limits=limits
            )
            if end != start + arg_size:
                raise reader.error(
                    f"spawn argument uses {end - start} of its {arg_size} bytes", start
                )
        state, _ = decode_compressed_list(data, reader.offset, allow_objects=False, limits=limits)
        return cls(spawner_id, net_id, name, sync_ids, tuple(state), scene_id, arg)


@dataclass(frozen=True)
class Despawn:
    """``05 <u32 net id>``."""

    net_id: int

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        return bytes([Command.DESPAWN]) + pack_u32(self.net_id)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "DESPAWN", 1)
        net_id = reader.u32("net id")
        reader.end()
        return cls(net_id)


@dataclass(frozen=True)
class SyncState:
    """One synchronizer in a full SYNC: the values of its ALWAYS properties, in config order."""

    net_id: int
    values: tuple[Any, ...]

    @cached_property
    def encoded(self) -> bytes:
        """The values' bytes, encoded once however many peers and packets the state goes to."""
        return encode_compressed_list(self.values)


@dataclass(frozen=True)
class Sync:
    """``06 <u16 time> {<u32 net id> <u32 size> <values>}+``, sent unreliably."""

    time: int
    states: tuple[SyncState, ...]

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        if not self.states:
            raise ValueError("a SYNC needs at least one synchronizer state")
        parts = [bytes([Command.SYNC]), pack_u16(self.time)]
        for state in self.states:
            values = state.encoded
            parts += [pack_u32(state.net_id), pack_u32(len(values)), values]
        return b"".join(parts)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "SYNC", 1)
        time = reader.u16("time")
        data, offset = reader.data, reader.offset
        stop = len(data)
        states: list[SyncState] = []
        while offset < stop or not states:
            if stop - offset < _STATE_HEAD.size:  # the reader names what is cut short
                reader.offset = offset
                reader.u32("net id")
                reader.u32("state size")
            net_id, size = _STATE_HEAD.unpack_from(data, offset)
            start = offset + _STATE_HEAD.size
            if size > stop - start:
                reader.offset = start
                reader.need(size, "state")
            offset = start + size
            values, _ = decode_compressed_list(
                data, start, end=offset, allow_objects=False, limits=limits
            )
            states.append(SyncState(net_id, tuple(values)))
        return cls(time, tuple(states))


@dataclass(frozen=True)
class DeltaState:
    """One synchronizer in a delta: bit i of ``mask`` = watched property i (ON_CHANGE ones, in
    config order); ``values`` are the set bits' values, lowest bit first."""

    net_id: int
    mask: int
    values: tuple[Any, ...]

    @cached_property
    def encoded(self) -> bytes:
        """The values' bytes, encoded once (see :attr:`SyncState.encoded`)."""
        return encode_compressed_list(self.values)


@dataclass(frozen=True)
class DeltaSync:
    """``16 {<u32 net id> <u64 mask> <u32 size> <values>}+``, sent reliably (4.1+)."""

    states: tuple[DeltaState, ...]

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        if not version.delta_sync:
            raise ValueError(f"Godot {version.name} has no delta sync")
        if not self.states:
            raise ValueError("a delta SYNC needs at least one synchronizer state")
        parts = [bytes([Command.SYNC | SYNC_DELTA_FLAG])]
        for state in self.states:
            if not 0 < state.mask < 1 << MAX_WATCHED or state.mask.bit_count() != len(state.values):
                raise ValueError(f"mask {state.mask:#x} does not match {len(state.values)} values")
            values = state.encoded
            parts += [pack_u32(state.net_id), pack_u64(state.mask), pack_u32(len(values)), values]
        return b"".join(parts)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "delta SYNC", 1)
        if not version.delta_sync:
            raise reader.error(f"Godot {version.name} has no delta sync", 0)
        states: list[DeltaState] = []
        while reader.remaining or not states:
            net_id = reader.u32("net id")
            mask_at = reader.offset
            mask = reader.u64("changed mask")
            if not mask:
                raise reader.error("empty changed mask", mask_at)
            size = reader.u32("state size")
            start = reader.need(size, "state")
            values, end = decode_compressed_list(
                data,
                start,
                end=start + size,
                count=mask.bit_count(),
                allow_objects=False,
                limits=limits,
            )
            if end != start + size:
                raise reader.error(
                    f"{mask.bit_count()} values use {end - start} of {size} bytes", start
                )
            states.append(DeltaState(net_id, mask, tuple(values)))
        return cls(tuple(states))
