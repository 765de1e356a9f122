"""Godot 4's high-level multiplayer (SceneMultiplayer), served from Python.

What a Godot developer uses, with Godot's names: :class:`SceneMultiplayer` (``multiplayer``:
its signals as :class:`Notifier` s, ``rpc``, ``send_auth``...) on a transport server
(``gdvariant.multiplayer.websocket.MultiplayerServer`` for ``WebSocketMultiplayerPeer``
clients, ``gdvariant.multiplayer.enet.MultiplayerServer`` for ``ENetMultiplayerPeer``
ones); :class:`Spawner` and :class:`SpawnedNode` for ``MultiplayerSpawner`` and what it
spawned, with the synchronizer's visibility; :func:`synced_class` and :func:`scene_tscn`
for ``MultiplayerSynchronizer`` configs; :class:`RpcConfig` and :class:`RpcTable` for
``@rpc``; :func:`run` runs a server's coroutine on uvloop's event loop when it is
installed. Underneath, without I/O, :class:`ServerProtocol` is peer 1 as a state machine
(bytes in, events and bytes out) for a transport of your own.

The packets themselves, their codecs and what each Godot release puts on the wire are
:mod:`gdvariant.multiplayer.wire`. docs/multiplayer.md is the guide.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from ._auth import DEFAULT_AUTH_TIMEOUT
from ._auth import Authenticator as Authenticator
from ._auth import AuthVerdict as AuthVerdict
from ._config import ReplicatedProperty, ReplicationConfig, ReplicationMode
from ._loop import every, run
from ._relay import RelayRoute as RelayRoute
from ._relay import route_relay as route_relay
from ._replicator import SpawnedNode, Spawner
from ._rpc_config import (
    RpcConfig,
    RpcMode,
    RpcTable,
    ScriptError,
    TransferMode,
    read_script_rpcs,
)
from ._rpc_config import (
    parse_rpc_annotations as parse_rpc_annotations,
)
from ._rpc_config import (
    parse_rpc_config_calls as parse_rpc_config_calls,
)
from ._scene import Notifier, SceneMultiplayer
from ._server import (
    AuthData,
    Event,
    PacketDropped,
    PacketReceived,
    PathCheck,
    PeerAuthenticating,
    PeerAuthenticationFailed,
    PeerConnected,
    PeerDisconnected,
    ServerProtocol,
)
from ._stats import ClassStats, CpuTime, NetStats, PeerStats, StatsLevel, Traffic, TrafficRate
from ._synced import SpawnableScene, SyncedClass, scene_tscn, synced_class
from ._transport import Transport, TransportListener

# Every name of the wire, importable from here as before it had its own namespace.
from .wire import *  # noqa: F403
from .wire import ProtocolError

__all__ = [
    "DEFAULT_AUTH_TIMEOUT",
    "AuthData",
    "ClassStats",
    "CpuTime",
    "Event",
    "NetStats",
    "Notifier",
    "PacketDropped",
    "PacketReceived",
    "PathCheck",
    "PeerAuthenticating",
    "PeerAuthenticationFailed",
    "PeerConnected",
    "PeerDisconnected",
    "PeerStats",
    "ProtocolError",
    "ReplicatedProperty",
    "ReplicationConfig",
    "ReplicationMode",
    "RpcConfig",
    "RpcMode",
    "RpcTable",
    "SceneMultiplayer",
    "ScriptError",
    "ServerProtocol",
    "SpawnableScene",
    "SpawnedNode",
    "Spawner",
    "StatsLevel",
    "SyncedClass",
    "Traffic",
    "TrafficRate",
    "TransferMode",
    "Transport",
    "TransportListener",
    "every",
    "read_script_rpcs",
    "run",
    "scene_tscn",
    "synced_class",
]

# Importable from here too, outside __all__: every name of the wire (the star import), the
# peer's parts (Authenticator, AuthVerdict, RelayRoute, route_relay) and the GDScript
# reader's steps (parse_rpc_annotations, parse_rpc_config_calls).


if TYPE_CHECKING:
    # The old names, as type checkers see them (each use warns when the code runs).
    from ._renamed import decode_packet as decode_packet
    from ._renamed import encode_packet as encode_packet
    from .wire import WIRE_VERSIONS, WireVersion, wire_version

    Signal = Notifier
    Protocol = WireVersion
    PROTOCOLS = WIRE_VERSIONS
    get_protocol = wire_version
else:

    def __getattr__(name: str) -> Any:
        """The old names of what was renamed (``Protocol``, ``decode_packet``, ``Signal``...):
        they still work, with a DeprecationWarning naming the new one."""
        from ._renamed import RENAMED

        if name not in RENAMED:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value, new = RENAMED[name]
        warnings.warn(
            f"gdvariant.multiplayer.{name} is now {new}", DeprecationWarning, stacklevel=2
        )
        return value
