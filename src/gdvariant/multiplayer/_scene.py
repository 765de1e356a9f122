"""The server API a Godot developer recognises: signals, ``rpc``, spawners, synchronizers.

:class:`SceneMultiplayer` sits on a transport server, the constructor's choice:
``gdvariant.multiplayer.websocket.MultiplayerServer`` for ``WebSocketMultiplayerPeer``
clients, ``gdvariant.multiplayer.enet.MultiplayerServer`` for ``ENetMultiplayerPeer`` ones
(or any object with the same ``send``/``peers``/callback attributes). It plays peer 1 of a
Godot game whose client project is unchanged:

* ``peer_connected``, ``peer_disconnected``, ``peer_authenticating``,
  ``peer_authentication_failed`` and ``packet_refused`` are :class:`Signal` s;
  ``auth_callback`` and ``auth_timeout`` are set on the transport (they shape its
  handshake), ``send_auth`` / ``complete_auth`` / ``disconnect_peer`` work from here too.
* :meth:`SceneMultiplayer.node` declares a node of the client's tree and its ``@rpc``
  functions (read from the client's ``.gd`` file or declared in Python);
  :meth:`SceneMultiplayer.rpc` calls one on clients, :meth:`SceneMultiplayer.on_rpc`
  registers a handler for calls from clients.
* :meth:`SceneMultiplayer.add_spawner` stands for a client ``MultiplayerSpawner``;
  :meth:`Spawner.spawn` / :meth:`Spawner.despawn` create and free nodes on every client,
  and :meth:`SceneMultiplayer.sync` is one network frame of their synchronizers (a full
  SYNC of the ALWAYS properties, a delta of the ON_CHANGE ones that changed).

Everything a client sends that does not fit what was declared (an unknown node or method,
an RPC its ``@rpc`` mode does not let that client call, a wrong argument count, a checksum
mismatch) is refused: logged (at most a few lines a second per peer, with a count of the
rest, and no more than 100 characters of what the client sent), emitted as
``packet_refused(peer, reason)``, and not run. A misuse on our side (calling a name that
is not an ``@rpc`` of the node, a handler for one, a handler no client may ever call) raises
at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .._peerlog import PeerLog, clip
from ._counters import PATH_NET_ID, NetIds, SyncClock, is_path_net_id
from ._errors import ProtocolError
from ._packets import Packet
from ._paths import EMPTY_CHECKSUM, ConfirmPath, SendCache, SimplifyPath
from ._replication import DeltaState, DeltaSync, Despawn, Spawn, Sync, SyncState
from ._rpc import RemoteCall
from ._rpc_config import RpcConfig, RpcMode, RpcTable, TransferMode, read_script_rpcs
from ._server import ServerProtocol
from ._spawner import SpawnedNode, Spawner
from ._synced import SpawnableScene

__all__ = [
    "MAX_DELTA_PACKET_SIZE",
    "MAX_SYNC_PACKET_SIZE",
    "SceneMultiplayer",
    "Signal",
    "Transport",
]

LOGGER = logging.getLogger("gdvariant.multiplayer")
SERVER = 1
#: SceneReplicationInterface's defaults: a SYNC packet is split past this, a bigger state is
#: not sent at all; deltas are split at the other.
MAX_SYNC_PACKET_SIZE = 1350
MAX_DELTA_PACKET_SIZE = 65535
_SYNC_HEADER = 3  # command byte + u16 time
_SYNC_ENTRY = 8  # u32 net id + u32 size
_DELTA_ENTRY = 16  # u32 net id + u64 mask + u32 size


class _Entry(Protocol):
    """A SYNC or delta entry as packing sees it: whose it is, and its bytes."""

    @property
    def net_id(self) -> int: ...

    @property
    def encoded(self) -> bytes: ...


_E = TypeVar("_E", bound=_Entry)


class Transport(Protocol):
    """What :class:`SceneMultiplayer` needs of a transport server (``MultiplayerServer``).

    ``send`` takes the packet's transfer mode and channel; a transport without them (as
    WebSocket, always reliable and ordered) accepts and ignores them."""

    protocol: ServerProtocol
    on_peer_connected: Callable[[int], None] | None
    on_peer_disconnected: Callable[[int], None] | None
    on_peer_authenticating: Callable[[int], None] | None
    on_peer_authentication_failed: Callable[[int], None] | None
    on_packet: Callable[[int, Packet], None] | None

    @property
    def peers(self) -> frozenset[int]: ...

    def send(
        self, peer: int, packet: Packet, *, mode: TransferMode | None = None, channel: int = 0
    ) -> None: ...

    def send_auth(self, peer: int, data: bytes) -> None: ...

    def complete_auth(self, peer: int) -> None: ...

    def disconnect_peer(self, peer: int) -> None: ...


class Signal:
    """A Godot-style signal: ``connect(callable)``, ``disconnect(callable)``, ``emit(...)``.
    A callable that raises is logged; the others still run."""

    def __init__(self, name: str, logger: logging.Logger = LOGGER) -> None:
        self.name, self.logger = name, logger
        self._slots: list[Callable[..., Any]] = []

    def connect(self, slot: Callable[..., Any]) -> None:
        if slot in self._slots:
            raise ValueError(f"{slot!r} is already connected to {self.name}")
        self._slots.append(slot)

    def disconnect(self, slot: Callable[..., Any]) -> None:
        self._slots.remove(slot)

    def emit(self, *args: Any) -> None:
        for slot in list(self._slots):
            try:
                slot(*args)
            except Exception:
                self.logger.exception("a %s callback failed", self.name)


@dataclass
class _Node:
    """A node of the client's tree the server talks to: its path, RPCs and authority."""

    path: str
    rpcs: RpcTable
    authority: int = SERVER


class SceneMultiplayer:
    """Peer 1's ``multiplayer`` of a Godot game, on ``transport``.

    ``project`` is the client project's folder: ``node(path, script="res://x.gd")`` reads
    the ``@rpc`` functions from there.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        project: str | Path | None = None,
        logger: logging.Logger = LOGGER,
    ) -> None:
        self.transport = transport
        self.project = None if project is None else Path(project)
        self.logger = logger
        self.peer_log = PeerLog(logger)
        self.peer_connected = Signal("peer_connected", logger)
        self.peer_disconnected = Signal("peer_disconnected", logger)
        self.peer_authenticating = Signal("peer_authenticating", logger)
        self.peer_authentication_failed = Signal("peer_authentication_failed", logger)
        self.packet_refused = Signal("packet_refused", logger)
        #: ``synchronized(node, changed)``: an owner's SYNC or delta, by flat property name
        self.synchronized = Signal("synchronized", logger)
        #: packets from clients that no layer here handles (client-authority syncs...)
        self.packet_received = Signal("packet_received", logger)
        for signal, old in (
            (self.peer_connected, transport.on_peer_connected),
            (self.peer_disconnected, transport.on_peer_disconnected),
            (self.peer_authenticating, transport.on_peer_authenticating),
            (self.peer_authentication_failed, transport.on_peer_authentication_failed),
            (self.packet_received, transport.on_packet),
        ):
            if old is not None:
                signal.connect(old)
        transport.on_peer_connected = self._connected
        transport.on_peer_disconnected = self._disconnected
        transport.on_peer_authenticating = self.peer_authenticating.emit
        transport.on_peer_authentication_failed = self.peer_authentication_failed.emit
        transport.on_packet = self._packet
        self.server = transport.protocol
        self.server.checksum = self._checksum
        self.net_ids = NetIds()
        self.spawned: dict[int, SpawnedNode] = {}
        self.spawned_at: dict[str, SpawnedNode] = {}
        #: the path of each spawned node's owned synchronizer
        self.owned_at: dict[str, SpawnedNode] = {}
        self._scripts: dict[tuple[str, bool], RpcTable] = {}
        self._nodes: dict[str, _Node] = {}
        self._handlers: dict[tuple[str, str], Callable[..., Any]] = {}
        self._spawners: dict[str, Spawner] = {}
        self._clocks: dict[int, SyncClock] = {}

    # -- peers and authentication ------------------------------------------------------

    @property
    def peers(self) -> frozenset[int]:
        """``get_peers()``: the admitted clients."""
        return self.transport.peers

    def get_unique_id(self) -> int:
        return SERVER

    def send_auth(self, peer: int, data: bytes) -> None:
        """``send_auth``: data for a peer's ``auth_callback`` while it authenticates. The
        server's own ``auth_callback`` (and ``auth_timeout``) are the transport's settings,
        since they decide its handshake."""
        self.transport.send_auth(peer, data)

    def complete_auth(self, peer: int) -> None:
        """``complete_auth``: we accept ``peer``; it is admitted once it completed too."""
        self.transport.complete_auth(peer)

    def disconnect_peer(self, peer: int) -> None:
        """``disconnect_peer``: close ``peer`` (a pending one: ``peer_authentication_failed``)."""
        self.transport.disconnect_peer(peer)

    @property
    def send_cache(self) -> SendCache:
        return self.server.send_cache

    def _connected(self, peer: int) -> None:
        self._clocks[peer] = SyncClock()
        for node in list(self.spawned.values()):
            node.update_visibility(peer)
        self.peer_connected.emit(peer)

    def _disconnected(self, peer: int) -> None:
        self._clocks.pop(peer, None)
        for node in self.spawned.values():
            node.watched.pop(peer, None)
            node.spawned_to.discard(peer)
        self.peer_disconnected.emit(peer)

    # -- nodes and RPCs ----------------------------------------------------------------

    def node(
        self,
        path: str,
        *,
        script: str | None = None,
        rpcs: Iterable[RpcConfig | str] | None = None,
        node_rpcs: Iterable[RpcConfig | str] | None = None,
        authority: int = SERVER,
    ) -> RpcTable:
        """Declare the client node at ``path`` (relative to ``/root``, e.g. ``Main/Chat``):
        its ``@rpc`` functions read from ``script`` (``res://...`` in ``project``) or given
        as ``rpcs``, its node-level RPCs (``rpc_config``), and its multiplayer authority.
        The node-level ones are read from the script's own ``rpc_config("name", {...})``
        calls unless ``node_rpcs`` declares them (then the calls are not read: the way to
        declare calls the reader cannot follow, or made on the node by another script).
        Returns its RPC table."""
        if (script is None) == (rpcs is None):
            raise ValueError("give the node's script or its rpcs (one of them)")
        if script is None:
            table = RpcTable(rpcs or (), node_rpcs or ())
        elif node_rpcs is None:
            table = self.script_rpcs(script)
        else:
            table = RpcTable(
                self.script_rpcs(script, node_rpcs=False).script_configs.values(), node_rpcs
            )
        self._nodes[path] = _Node(path, table, authority)
        return table

    def script_rpcs(self, script: str, *, node_rpcs: bool = True) -> RpcTable:
        """The RPC table of the client script ``script`` (read once from ``project``), with
        the names its ``rpc_config`` calls add unless ``node_rpcs`` is False."""
        table = self._scripts.get((script, node_rpcs))
        if table is None:
            if self.project is None:
                raise ValueError("reading a script needs SceneMultiplayer(project=...)")
            table = read_script_rpcs(self.project, script, node_rpcs=node_rpcs)
            self._scripts[(script, node_rpcs)] = table
        return table

    def forget_node(self, path: str) -> None:
        self._nodes.pop(path, None)
        for key in [key for key in self._handlers if key[0] == path]:
            del self._handlers[key]

    def _declared(self, path: str) -> _Node:
        node = self._nodes.get(path)
        if node is None:
            raise ValueError(f"no node {path!r} was declared (SceneMultiplayer.node)")
        return node

    def on_rpc(self, path: str, method: str, handler: Callable[..., Any]) -> None:
        """Run ``handler(sender, *args)`` when a client calls ``method`` on ``path``. The
        method must be an ``@rpc`` of the node that a client may call (``any_peer``, or
        ``authority`` on a node a client owns)."""
        node = self._declared(path)
        config = node.rpcs.config(method, f"handler for {path}")
        if config.mode is RpcMode.AUTHORITY and node.authority == SERVER:
            raise ValueError(
                f'{path}.{method} is @rpc("authority") and the server is the node\'s '
                "authority: no client may call it"
            )
        self._handlers[(path, method)] = handler

    def rpc(self, peer: int, path: str, method: str, *args: Any) -> None:
        """``node.rpc_id(peer, method, ...args)``: call a client's ``@rpc`` function
        (peer 0: every client; -N: all but N). With ``call_local`` the handler registered
        for it here runs too. A spawned node is called only on the peers that hold it
        now (its visibility); naming another one is an error, as in Godot."""
        node = self._declared(path)
        config = node.rpcs.config(method, f"rpc on {path}")
        config.check_args(len(args), f"rpc on {path}")
        if config.mode is RpcMode.AUTHORITY and node.authority != SERVER:
            raise ValueError(
                f'{path}.{method} is @rpc("authority") and peer {node.authority} owns the '
                "node: its clients would refuse our call"
            )
        if config.mode is RpcMode.DISABLED:
            raise ValueError(f"{path}.{method} has RPC mode disabled")
        peers = self.peers
        if peer == 0:
            targets = sorted(peers)
        elif peer < 0:
            targets = sorted(peers - {-peer})
        elif peer in peers:
            targets = [peer]
        elif peer == SERVER:
            targets = []
        else:
            raise ValueError(f"peer {peer} is not connected")
        spawned = self.spawned_at.get(path)
        if spawned is not None and spawned.scene.synced is not None:  # as Godot's sender does
            if peer > SERVER and peer not in spawned.spawned_to:
                raise ValueError(f"peer {peer} cannot see {path} (its visibility)")
            targets = [t for t in targets if t in spawned.spawned_to]
        self._send_call(targets, node, config, args)
        runs_here = peer == SERVER or (config.call_local and (peer <= 0 and peer != -SERVER))
        if runs_here:
            handler = self._handlers.get((path, method))
            if handler is not None:
                handler(SERVER, *args)

    def _send_call(
        self, targets: list[int], node: _Node, config: RpcConfig, args: tuple[Any, ...]
    ) -> None:
        if not targets:
            return
        cache = self.send_cache
        for target in targets:
            simplify = cache.simplify(target, node.path, node.rpcs.checksum)
            if simplify is not None:
                self._send(target, simplify, TransferMode.RELIABLE, 0)
        method_id = node.rpcs.ids[config.name]
        confirmed = [cache.is_confirmed(t, node.path) for t in targets]
        cache_id = cache.cache_id(node.path)
        for target, done in zip(targets, confirmed, strict=True):
            if all(confirmed):
                call = RemoteCall(method_id, args, node_id=cache_id)
            elif done:
                call = RemoteCall(method_id, args, node_id=cache_id, node_id_size=4)
            else:
                call = RemoteCall(method_id, args, path=node.path)
            self._send(target, call, config.transfer_mode, config.channel)

    def send_reliable(self, peer: int, packet: Packet) -> None:
        """Send on channel 0, reliably (spawns, despawns, path caching)."""
        self._send(peer, packet, TransferMode.RELIABLE, 0)

    def _send(self, peer: int, packet: Packet, mode: TransferMode, channel: int) -> None:
        self.transport.send(peer, packet, mode=mode, channel=channel)

    def _checksum(self, path: str) -> str | None:
        node = self._nodes.get(path)
        if node is not None:
            return node.rpcs.checksum
        known = path in self._spawners or path in self.owned_at
        return EMPTY_CHECKSUM if known else None

    def _packet(self, peer: int, packet: Packet) -> None:
        try:
            if isinstance(packet, RemoteCall):
                self._remote_call(peer, packet)
            elif isinstance(packet, Sync | DeltaSync):
                self._owned_sync(peer, packet)
            elif isinstance(packet, Spawn | Despawn):
                raise ProtocolError(f"{type(packet).__name__} from a client; the server spawns")
            elif isinstance(packet, SimplifyPath | ConfirmPath):
                if isinstance(packet, SimplifyPath) and self._checksum(packet.path) is None:
                    self.peer_log.warning(
                        peer,
                        "peer %d named '%s', which is not declared (not confirmed)",
                        peer,
                        clip(packet.path),
                    )
            else:
                self.packet_received.emit(peer, packet)
        except (ProtocolError, TypeError, ValueError) as exc:
            reason = exc.reason if isinstance(exc, ProtocolError) else str(exc)
            self.peer_log.error(peer, "refused a packet from peer %d: %s", peer, clip(reason, 160))
            self.packet_refused.emit(peer, reason)

    def _remote_call(self, peer: int, call: RemoteCall) -> None:
        receive = self.server.receive_cache
        path = call.path if call.path is not None else receive.path(peer, call.node_id)
        node = self._nodes.get(path)
        if node is None:
            raise ProtocolError(f"RPC on '{clip(path)}', which was not declared")
        if call.path is None and receive.checksum(peer, call.node_id) != node.rpcs.checksum:
            raise ProtocolError(
                f"RPC on {path!r}: the client's @rpc names differ from ours ({node.rpcs!r}); "
                "the method ids do not match"
            )
        config = node.rpcs.by_id.get(call.method_id)
        if config is None:
            raise ProtocolError(f"RPC id {call.method_id} on {path!r}: {node.rpcs!r} has none")
        method = config.name
        if config.mode is RpcMode.DISABLED or (
            config.mode is RpcMode.AUTHORITY and peer != node.authority
        ):
            raise ProtocolError(
                f"peer {peer} called {path}.{method}, whose @rpc mode {config.mode.name} "
                f"does not let it (authority {node.authority})"
            )
        try:
            config.check_args(len(call.args), f"RPC from peer {peer} on {path}")
        except TypeError as exc:
            if call.args:
                raise
            note = "a Godot peer sends a call of one empty PackedByteArray as one of none"
            raise TypeError(f"{exc} ({note})") from None
        handler = self._handlers.get((path, method))
        if handler is not None:
            handler(peer, *call.args)
            return
        spawned = self.spawned_at.get(path)
        if spawned is not None:
            scene_handler = spawned.spawner.handlers.get((spawned.scene.path, method))
            if scene_handler is not None:
                scene_handler(spawned, peer, *call.args)
                return
        raise ProtocolError(f"no handler for {path}.{method} (SceneMultiplayer.on_rpc)")

    def _owned_sync(self, peer: int, packet: Sync | DeltaSync) -> None:
        """A client's SYNC or delta of the synchronizers it owns (path-based net ids)."""
        for state in packet.states:
            if not is_path_net_id(state.net_id):
                raise ProtocolError(f"peer {peer} synced net id {state.net_id}, which we spawned")
            path = self.server.receive_cache.path(peer, state.net_id & ~PATH_NET_ID)
            node = self.owned_at.get(path)
            if node is None:
                # Skipped, as a Godot server skips a synchronizer it cannot find: the owner
                # syncs every frame until our DESPAWN reaches it, so some arrive after it.
                self.logger.debug("peer %d synced '%s', no owned synchronizer", peer, clip(path))
                continue
            if node.owner != peer:
                raise ProtocolError(f"peer {peer} synced {path!r}, owned by peer {node.owner}")
            synced = node.scene.owned
            assert synced is not None
            if isinstance(state, SyncState):
                assert isinstance(packet, Sync)
                if not node.owned_time.accept(packet.time):
                    continue  # stale, as a Godot receiver drops it
                values = synced.config.read_sync(state)
            else:
                values = synced.config.read_delta(state)
            changed = synced.by_flat_name(values)
            node.owned_values.update(changed)
            self.synchronized.emit(node, changed)

    # -- spawning and synchronizing ----------------------------------------------------

    def add_spawner(self, path: str, spawn_path: str, scenes: Sequence[SpawnableScene]) -> Spawner:
        """Stand for the client's ``MultiplayerSpawner`` at ``path`` (spawning under
        ``spawn_path``, both relative to ``/root``), listing ``scenes`` in its order."""
        if path in self._spawners:
            raise ValueError(f"a spawner at {path!r} exists already")
        spawner = Spawner(self, path, spawn_path, scenes)
        self._spawners[path] = spawner
        return spawner

    def send_spawn(self, peer: int, node: SpawnedNode) -> None:
        """SIMPLIFY_PATH for the spawner (once per peer), then SPAWN, as Godot sends them."""
        spawner = node.spawner
        simplify = self.send_cache.simplify(peer, spawner.path, EMPTY_CHECKSUM)
        if simplify is not None:
            self._send(peer, simplify, TransferMode.RELIABLE, 0)
        state: tuple[Any, ...] = ()
        synced = node.scene.synced
        if synced is not None:
            values = synced.values(node.state)
            state = synced.config.spawn_values(values)
        self._send(
            peer,
            Spawn(
                self.send_cache.cache_id(spawner.path),
                node.net_id,
                node.name,
                () if node.sync_id is None else (node.sync_id,),
                state,
                node.scene_id,
                node.spawn_arg,
            ),
            TransferMode.RELIABLE,
            0,
        )

    def sync(self) -> None:
        """One network frame: to each client a full SYNC of every spawned node's ALWAYS
        properties (split at 1350 bytes, as Godot does), then a delta of the ON_CHANGE ones
        that changed since the last delta to that client (all of them the first time).
        A node goes only to the peers that hold it. Nodes with visibility filters are
        re-checked first (Godot's synchronizer does it every frame), so a node a filter
        turned away is despawned (or one it lets in spawned) before the frame's syncs.
        Each node's values are read and encoded once per frame, whatever the number of
        peers."""
        for node in list(self.spawned.values()):
            if node.visibility_filters:
                node.update_visibility()
        peers = self.peers
        states: dict[int, list[SyncState]] = {peer: [] for peer in peers}
        deltas: dict[int, list[DeltaState]] = {peer: [] for peer in peers}
        for node in self.spawned.values():
            synced = node.scene.synced
            if synced is None or node.sync_id is None:
                continue
            targets = node.visible_peers(peers)
            if not targets:
                continue
            values = synced.values(node.state)
            config = synced.config
            if config.sync_props:
                state = config.sync_state(node.sync_id, values)
                for peer in targets:
                    states[peer].append(state)
            if config.watch_props:
                encoded = node.watched_bytes(values, config.watch_props)
                for peer in targets:
                    delta = self._delta(peer, node, values, encoded)
                    if delta is not None:
                        deltas[peer].append(delta)
        for peer in sorted(peers):
            if states[peer]:
                time = self._clocks.setdefault(peer, SyncClock()).tick()
                for packet in self._packed_syncs(time, states[peer]):
                    self._send(peer, packet, TransferMode.UNRELIABLE, 0)
            for delta_packet in self._packed_deltas(deltas[peer]):
                self._send(peer, delta_packet, TransferMode.RELIABLE, 0)

    def _delta(
        self,
        peer: int,
        node: SpawnedNode,
        values: Mapping[str, Any],
        encoded: Mapping[str, bytes],
    ) -> DeltaState | None:
        """The watched values whose ``encoded`` bytes differ from the last sent to ``peer``."""
        assert node.scene.synced is not None and node.sync_id is not None
        sent = node.watched.setdefault(peer, {})
        changed = {}
        for prop, now in encoded.items():
            if sent.get(prop) != now:
                changed[prop] = values[prop]
                sent[prop] = now
        if not changed:
            return None
        return node.scene.synced.config.delta_state(node.sync_id, changed)

    def _batches(
        self, entries: Sequence[_E], header: int, entry_head: int, limit: int, what: str
    ) -> list[tuple[_E, ...]]:
        """``entries`` in order, cut into packets of at most ``limit`` bytes; an entry larger
        than ``limit`` on its own can never be sent, and is logged and left out."""
        packets: list[tuple[_E, ...]] = []
        batch: list[_E] = []
        size = header
        for item in entries:
            entry = entry_head + len(item.encoded)
            if entry - entry_head > limit:
                self.logger.warning(
                    "net id %d: a %d-byte %s is never sent", item.net_id, entry, what
                )
                continue
            if batch and size + entry > limit:
                packets.append(tuple(batch))
                batch, size = [], header
            batch.append(item)
            size += entry
        if batch:
            packets.append(tuple(batch))
        return packets

    def _packed_syncs(self, time: int, states: list[SyncState]) -> list[Sync]:
        batches = self._batches(states, _SYNC_HEADER, _SYNC_ENTRY, MAX_SYNC_PACKET_SIZE, "state")
        return [Sync(time, batch) for batch in batches]

    def _packed_deltas(self, deltas: list[DeltaState]) -> list[DeltaSync]:
        batches = self._batches(deltas, 1, _DELTA_ENTRY, MAX_DELTA_PACKET_SIZE, "delta")
        return [DeltaSync(batch) for batch in batches]
