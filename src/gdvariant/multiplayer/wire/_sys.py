"""RAW (command 3) and the SYS packets (command 7): AUTH, ADD_PEER, DEL_PEER, RELAY."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Self

from ... import Limits
from ._reader import Reader, pack_i32
from ._version import LATEST, Command, SysCommand, WireVersion

__all__ = ["AddPeer", "Auth", "DelPeer", "Raw", "Relay"]

SYS_HEADER = bytes([Command.SYS])


@dataclass(frozen=True)
class Raw:
    """``send_bytes`` payload: ``03 <payload>``, never empty."""

    payload: bytes

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        if not self.payload:
            raise ValueError("a RAW packet needs at least one byte (Godot refuses an empty one)")
        return bytes([Command.RAW]) + bytes(self.payload)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "RAW", 1)
        if not reader.remaining:
            raise reader.error("empty payload")
        return cls(reader.rest())


@dataclass(frozen=True)
class Auth:
    """``07 00 <data>`` during authentication; no data (exactly ``07 00``) means "completed"."""

    data: bytes = b""

    @property
    def completed(self) -> bool:
        return not self.data

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        return bytes([Command.SYS, SysCommand.AUTH]) + bytes(self.data)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        return cls(data[2:])


@dataclass(frozen=True)
class _PeerPacket:
    """``07 <sys> <i32 peer>``: the server telling clients that a peer came or went."""

    SYS: ClassVar[SysCommand]
    peer: int

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        return bytes([Command.SYS, self.SYS]) + pack_i32(self.peer)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, cls.SYS.name, 2)
        peer = reader.i32("peer id")
        reader.end()
        return cls(peer)


@dataclass(frozen=True)
class AddPeer(_PeerPacket):
    """``07 01 <i32 id>``: server to client, another peer joined (relay on)."""

    SYS: ClassVar[SysCommand] = SysCommand.ADD_PEER


@dataclass(frozen=True)
class DelPeer(_PeerPacket):
    """``07 02 <i32 id>``: server to client, another peer left."""

    SYS: ClassVar[SysCommand] = SysCommand.DEL_PEER


@dataclass(frozen=True)
class Relay:
    """``07 03 <i32 peer> <packet>``: from a client ``peer`` is the target (0 = everybody,
    ``-N`` = all but N); from the server it is the source. ``packet`` is a whole inner packet."""

    peer: int
    packet: bytes

    def encode(self, version: WireVersion = LATEST, *, full_objects: bool = False) -> bytes:
        if not self.packet:
            raise ValueError("a RELAY needs an inner packet")
        return bytes([Command.SYS, SysCommand.RELAY]) + pack_i32(self.peer) + bytes(self.packet)

    @classmethod
    def decode(cls, data: bytes, version: WireVersion, allow_objects: bool, limits: Limits) -> Self:
        reader = Reader(data, "RELAY", 2)
        peer = reader.i32("peer id")
        if not reader.remaining:
            raise reader.error("no inner packet")
        return cls(peer, reader.rest())


SYS_PACKETS: dict[int, type[Auth | AddPeer | DelPeer | Relay]] = {
    SysCommand.AUTH: Auth,
    SysCommand.ADD_PEER: AddPeer,
    SysCommand.DEL_PEER: DelPeer,
    SysCommand.RELAY: Relay,
}
