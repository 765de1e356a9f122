"""Godot 4's high-level multiplayer (SceneMultiplayer) on the wire, sans I/O.

Packet objects for every SceneMultiplayer command, the compressed Variant form its values
use, the node path caches, net ids, sync time counters, authentication and relay routing.
Nothing here opens a socket: feed the bytes of one packet (one WebSocket message or ENet
packet after the peer id) to :func:`decode_packet`, and send what :func:`encode_packet`
returns.

>>> from gdvariant.multiplayer import RemoteCall, decode_packet, encode_packet
>>> encode_packet(RemoteCall(method_id=2, args=(10,), node_id=2)).hex()
'00020201020a'
"""

from __future__ import annotations

from ._auth import DEFAULT_AUTH_TIMEOUT, Authenticator, AuthVerdict
from ._config import ReplicatedProperty, ReplicationConfig, ReplicationMode
from ._counters import InboundSyncTime, NetIds, SyncClock, is_path_net_id, path_net_id
from ._errors import ProtocolError
from ._packets import Packet, decode_packet, encode_packet
from ._paths import EMPTY_CHECKSUM, ConfirmPath, ReceiveCache, SendCache, SimplifyPath
from ._protocol import PROTOCOLS, Command, Protocol, SysCommand, get_protocol
from ._relay import RelayRoute, route_relay
from ._replication import CUSTOM_SCENE, DeltaState, DeltaSync, Despawn, Spawn, Sync, SyncState
from ._rpc import NODE_RPC_FLAG, RemoteCall, rpc_checksum, rpc_method_ids
from ._rpc_config import (
    RpcConfig,
    RpcMode,
    RpcTable,
    ScriptError,
    TransferMode,
    parse_rpc_annotations,
    parse_rpc_config_calls,
    read_script_rpcs,
)
from ._scene import SceneMultiplayer, Signal, Transport
from ._server import (
    AuthData,
    Event,
    PacketDropped,
    PacketReceived,
    PeerAuthenticating,
    PeerAuthenticationFailed,
    PeerConnected,
    PeerDisconnected,
    ServerProtocol,
)
from ._spawner import SpawnedNode, Spawner
from ._synced import SpawnableScene, SyncedClass, scene_tscn, synced_class
from ._sys import AddPeer, Auth, DelPeer, Raw, Relay
from ._variant import (
    decode_compressed,
    decode_compressed_list,
    encode_compressed,
    encode_compressed_list,
)

__all__ = [
    "CUSTOM_SCENE",
    "DEFAULT_AUTH_TIMEOUT",
    "EMPTY_CHECKSUM",
    "NODE_RPC_FLAG",
    "PROTOCOLS",
    "AddPeer",
    "Auth",
    "AuthData",
    "AuthVerdict",
    "Authenticator",
    "Command",
    "ConfirmPath",
    "DelPeer",
    "DeltaState",
    "DeltaSync",
    "Despawn",
    "Event",
    "InboundSyncTime",
    "NetIds",
    "Packet",
    "PacketDropped",
    "PacketReceived",
    "PeerAuthenticating",
    "PeerAuthenticationFailed",
    "PeerConnected",
    "PeerDisconnected",
    "Protocol",
    "ProtocolError",
    "Raw",
    "ReceiveCache",
    "Relay",
    "RelayRoute",
    "RemoteCall",
    "ReplicatedProperty",
    "ReplicationConfig",
    "ReplicationMode",
    "RpcConfig",
    "RpcMode",
    "RpcTable",
    "SceneMultiplayer",
    "ScriptError",
    "SendCache",
    "ServerProtocol",
    "Signal",
    "SimplifyPath",
    "Spawn",
    "SpawnableScene",
    "SpawnedNode",
    "Spawner",
    "Sync",
    "SyncClock",
    "SyncState",
    "SyncedClass",
    "SysCommand",
    "TransferMode",
    "Transport",
    "decode_compressed",
    "decode_compressed_list",
    "decode_packet",
    "encode_compressed",
    "encode_compressed_list",
    "encode_packet",
    "get_protocol",
    "is_path_net_id",
    "parse_rpc_annotations",
    "parse_rpc_config_calls",
    "path_net_id",
    "read_script_rpcs",
    "route_relay",
    "rpc_checksum",
    "rpc_method_ids",
    "scene_tscn",
    "synced_class",
]
