"""SceneMultiplayer's wire: every packet of Godot 4's high-level multiplayer, as data.

One frozen class per packet kind (RPCs, path caching, spawns, syncs, RAW, the SYS commands),
:func:`decode_scene_packet` and :func:`encode_scene_packet` for any of them, the compressed
Variant form their values use, the node path caches and net id and sync time counters both
sides keep, and :class:`WireVersion`: what each Godot 4 release puts on the wire. Nothing
here keeps peers or opens a socket; the peer (``ServerProtocol``) and the game's API
(``SceneMultiplayer``) are :mod:`gdvariant.multiplayer`, as is the error a well-formed packet
that breaks the protocol raises (``ProtocolError``, importable from here too).
docs/multiplayer.md ("What it holds", "Versions") has the layouts' sources and what the
engine showed.

>>> from gdvariant.multiplayer.wire import RemoteCall, decode_scene_packet, encode_scene_packet
>>> encode_scene_packet(RemoteCall(method_id=2, args=(10,), node_id=2)).hex()
'00020201020a'
>>> decode_scene_packet(bytes.fromhex("0501000000"))
Despawn(net_id=1)
"""

from __future__ import annotations

from ._counters import InboundSyncTime, NetIds, SyncClock, is_path_net_id, path_net_id
from ._errors import ProtocolError as ProtocolError
from ._packets import Packet, decode_scene_packet, encode_scene_packet
from ._paths import EMPTY_CHECKSUM, ConfirmPath, ReceiveCache, SendCache, SimplifyPath
from ._rpc import NODE_RPC_FLAG, RemoteCall, rpc_checksum, rpc_method_ids
from ._spawn_sync import CUSTOM_SCENE, DeltaState, DeltaSync, Despawn, Spawn, Sync, SyncState
from ._sys import AddPeer, Auth, DelPeer, Raw, Relay
from ._variant import (
    decode_compressed,
    decode_compressed_list,
    encode_compressed,
    encode_compressed_list,
)
from ._version import WIRE_VERSIONS, Command, SysCommand, WireVersion, wire_version

__all__ = [
    "CUSTOM_SCENE",
    "EMPTY_CHECKSUM",
    "NODE_RPC_FLAG",
    "WIRE_VERSIONS",
    "AddPeer",
    "Auth",
    "Command",
    "ConfirmPath",
    "DelPeer",
    "DeltaState",
    "DeltaSync",
    "Despawn",
    "InboundSyncTime",
    "NetIds",
    "Packet",
    "Raw",
    "ReceiveCache",
    "Relay",
    "RemoteCall",
    "SendCache",
    "SimplifyPath",
    "Spawn",
    "Sync",
    "SyncClock",
    "SyncState",
    "SysCommand",
    "WireVersion",
    "decode_compressed",
    "decode_compressed_list",
    "decode_scene_packet",
    "encode_compressed",
    "encode_compressed_list",
    "encode_scene_packet",
    "is_path_net_id",
    "path_net_id",
    "rpc_checksum",
    "rpc_method_ids",
    "wire_version",
]
