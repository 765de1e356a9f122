"""One entry point for every SceneMultiplayer packet: :func:`decode_packet` picks the codec
from byte 0 (and byte 1 for SYS); :func:`encode_packet` writes any packet object."""

from __future__ import annotations

from .. import DEFAULT_LIMITS, Limits
from ._paths import ConfirmPath, SimplifyPath
from ._protocol import CMD_MASK, SYNC_DELTA_FLAG, Command, Protocol, get_protocol
from ._reader import Buffer, Reader
from ._replication import DeltaSync, Despawn, Spawn, Sync
from ._rpc import RemoteCall
from ._sys import SYS_PACKETS, AddPeer, Auth, DelPeer, Raw, Relay

__all__ = ["Packet", "decode_packet", "encode_packet"]

Packet = (
    RemoteCall
    | SimplifyPath
    | ConfirmPath
    | Raw
    | Spawn
    | Despawn
    | Sync
    | DeltaSync
    | Auth
    | AddPeer
    | DelPeer
    | Relay
)

PACKETS: dict[int, type[Packet]] = {
    Command.REMOTE_CALL: RemoteCall,
    Command.SIMPLIFY_PATH: SimplifyPath,
    Command.CONFIRM_PATH: ConfirmPath,
    Command.RAW: Raw,
    Command.SPAWN: Spawn,
    Command.DESPAWN: Despawn,
    Command.SYNC: Sync,
}
#: Commands whose flag bits mean something; any other command must have them clear.
FLAGGED = {Command.REMOTE_CALL, Command.SYNC}


def decode_packet(
    data: Buffer,
    *,
    protocol: str | Protocol = "4.6",
    allow_objects: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Packet:
    """Decode one SceneMultiplayer packet as a Godot ``protocol`` peer would read it.

    ``allow_objects`` is SceneMultiplayer's ``allow_object_decoding`` (RPC arguments only).
    Malformed input raises :class:`~gdvariant.DecodeError`.
    """
    packet = bytes(data)
    proto = get_protocol(protocol)
    reader = Reader(packet, "packet")
    head = reader.u8("command byte")
    command = Command(head & CMD_MASK)
    kind: type[Packet]
    if command == Command.SYS:
        sys_command = reader.u8("SYS command")
        if sys_command not in SYS_PACKETS:
            raise reader.error(f"unknown SYS command {sys_command}", 1)
        kind = SYS_PACKETS[sys_command]
    elif command == Command.SYNC and head & SYNC_DELTA_FLAG:
        kind = DeltaSync
    else:
        kind = PACKETS[command]
    if command not in FLAGGED and head & ~CMD_MASK:
        raise reader.error(f"command byte 0x{head:02x} has flags {command.name} does not use", 0)
    if command == Command.SYNC and head & ~CMD_MASK & ~SYNC_DELTA_FLAG:
        raise reader.error(f"command byte 0x{head:02x} has unknown SYNC flags", 0)
    return kind.decode(packet, proto, allow_objects, limits)


def encode_packet(
    packet: Packet, *, protocol: str | Protocol = "4.6", full_objects: bool = False
) -> bytes:
    """The bytes of ``packet`` as a Godot ``protocol`` peer writes them."""
    return packet.encode(get_protocol(protocol), full_objects=full_objects)
