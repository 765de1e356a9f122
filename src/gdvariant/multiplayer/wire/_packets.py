"""One entry point for every SceneMultiplayer packet: :func:`decode_scene_packet` picks the
codec from byte 0 (and byte 1 for SYS); :func:`encode_scene_packet` writes any packet object.

Named apart from ``gdvariant.decode_packet`` (one Variant in a ``PacketPeer`` packet): a
SceneMultiplayer packet is a command byte and its fields (docs/multiplayer.md, "What it
holds")."""

from __future__ import annotations

from ... import DEFAULT_LIMITS, Limits
from ._paths import ConfirmPath, SimplifyPath
from ._reader import Buffer, Reader
from ._rpc import SHORT_ARGS, SHORT_HEAD, RemoteCall, read_short_call
from ._spawn_sync import DeltaSync, Despawn, Spawn, Sync
from ._sys import SYS_PACKETS, AddPeer, Auth, DelPeer, Raw, Relay
from ._version import CMD_MASK, SYNC_DELTA_FLAG, Command, WireVersion, wire_version

__all__ = ["Packet", "decode_scene_packet", "encode_scene_packet"]

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


def decode_scene_packet(
    data: Buffer,
    *,
    version: str | WireVersion = "4.6",
    allow_objects: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> Packet:
    """Decode one SceneMultiplayer packet as a Godot ``version`` peer would read it.

    ``allow_objects`` is SceneMultiplayer's ``allow_object_decoding`` (RPC arguments only).
    Malformed input raises :class:`~gdvariant.DecodeError`.
    """
    packet = bytes(data)
    wire = version if type(version) is WireVersion else wire_version(version)
    if packet and not packet[0] & CMD_MASK:  # REMOTE_CALL: every flag bit is its own
        if packet[0] == SHORT_HEAD and len(packet) >= SHORT_ARGS:  # the common form
            call = read_short_call(packet, allow_objects, limits)
            if call is not None:
                return call
        return RemoteCall.decode(packet, wire, allow_objects, limits)
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
    return kind.decode(packet, wire, allow_objects, limits)


def encode_scene_packet(
    packet: Packet, *, version: str | WireVersion = "4.6", full_objects: bool = False
) -> bytes:
    """The bytes of ``packet`` as a Godot ``version`` peer writes them."""
    return packet.encode(wire_version(version), full_objects=full_objects)
