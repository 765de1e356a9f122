"""The server API a Godot developer recognises: signals, ``rpc``, spawners, synchronizers.

:class:`SceneMultiplayer` sits on a transport server, the constructor's choice:
``gdvariant.multiplayer.websocket.MultiplayerServer`` for ``WebSocketMultiplayerPeer``
clients, ``gdvariant.multiplayer.enet.MultiplayerServer`` for ``ENetMultiplayerPeer`` ones
(or any object with the same ``send``/``peers``/callback attributes). It plays peer 1 of a
Godot game whose client project is unchanged:

* ``peer_connected``, ``peer_disconnected``, ``peer_authenticating``,
  ``peer_authentication_failed`` and ``packet_refused`` are :class:`Notifier` s (Godot's
  signals: ``connect``, ``disconnect``, ``emit``);
  ``auth_callback`` and ``auth_timeout`` are set on the transport (they shape its
  handshake), ``send_auth`` / ``complete_auth`` / ``disconnect_peer`` work from here too.
* :meth:`SceneMultiplayer.node` declares a node of the client's tree and its ``@rpc``
  functions (read from the client's ``.gd`` file or declared in Python);
  :meth:`SceneMultiplayer.rpc` calls one on clients, :meth:`SceneMultiplayer.on_rpc`
  registers a handler for calls from clients.
* :meth:`SceneMultiplayer.add_spawner` stands for a client ``MultiplayerSpawner``;
  :meth:`Spawner.spawn` / :meth:`Spawner.despawn` create and free nodes on every client,
  and :meth:`SceneMultiplayer.sync` is one network frame of their synchronizers (a full
  SYNC of the ALWAYS properties, a delta of the ON_CHANGE ones that changed). All of that
  is the :class:`Replicator`'s to keep (``_replicator.py``); this module is the RPC layer
  and the API over both.

Everything a client sends that does not fit what was declared (an unknown node or method,
an RPC its ``@rpc`` mode does not let that client call, a wrong argument count, a checksum
mismatch) is refused: logged (at most a few lines a second per peer, with a count of the
rest, and no more than 100 characters of what the client sent), emitted as
``packet_refused(peer, reason)``, and not run. A misuse on our side (calling a name that
is not an ``@rpc`` of the node, a handler for one, a handler no client may ever call) raises
at once. docs/multiplayer.md ("The server API") has the whole of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._net.peerlog import PeerLog, clip
from ._frame import SWITCH
from ._replicator import EncodedPacket, Replicator, Spawner
from ._rpc_config import RpcConfig, RpcMode, RpcTable, TransferMode, read_script_rpcs
from ._stats import DEFAULT_WINDOW, NetStats, StatsLevel, TickRecorder, TrafficCounter
from ._synced import SpawnableScene
from ._transport import Transport, TransportListener
from .wire import (
    EMPTY_CHECKSUM,
    ConfirmPath,
    DeltaSync,
    Despawn,
    Packet,
    ProtocolError,
    RemoteCall,
    SendCache,
    SimplifyPath,
    Spawn,
    Sync,
    decode_scene_packet,
)
from .wire._rpc import write_short_call

__all__ = ["Notifier", "SceneMultiplayer"]

LOGGER = logging.getLogger("gdvariant.multiplayer")
SERVER = 1


#: The RPC modes every call checks, read as globals (an enum class's attribute goes through
#: its metaclass's lookup on every read)
_AUTHORITY = RpcMode.AUTHORITY
_DISABLED = RpcMode.DISABLED


class Notifier:
    """What a Godot signal of ``multiplayer`` is here: ``connect(callable)``,
    ``disconnect(callable)``, ``emit(...)``. A callable that raises is logged; the others
    still run. (Named apart from :class:`gdvariant.Signal`, the Variant value.)"""

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
    the ``@rpc`` functions from there. ``stats`` is what :meth:`stats` measures besides the
    counts: ``"basic"`` or ``"detail"`` (the transport's CPU, and bytes by synced class;
    docs/multiplayer.md has what each costs).
    """

    def __init__(
        self,
        transport: Transport,
        *,
        project: str | Path | None = None,
        logger: logging.Logger = LOGGER,
        stats: StatsLevel = "basic",
    ) -> None:
        if stats not in ("basic", "detail"):
            raise ValueError(f"stats must be 'basic' or 'detail', not {stats!r}")
        self.transport = transport
        self.project = None if project is None else Path(project)
        self.logger = logger
        # one budget per client between the transport's lines and ours (docs/multiplayer.md,
        # "Clients that do not read, logs they cannot flood")
        given = getattr(transport, "peer_log", None)
        self.peer_log = PeerLog(logger, share=given if isinstance(given, PeerLog) else None)
        self.peer_connected = Notifier("peer_connected", logger)
        self.peer_disconnected = Notifier("peer_disconnected", logger)
        self.peer_authenticating = Notifier("peer_authenticating", logger)
        self.peer_authentication_failed = Notifier("peer_authentication_failed", logger)
        self.packet_refused = Notifier("packet_refused", logger)
        #: ``synchronized(node, changed)``: an owner's SYNC or delta, by flat property name
        self.synchronized = Notifier("synchronized", logger)
        #: packets from clients that no layer here handles (client-authority syncs...)
        self.packet_received = Notifier("packet_received", logger)
        for notifier, given in (
            (self.peer_connected, transport.on_peer_connected),
            (self.peer_disconnected, transport.on_peer_disconnected),
            (self.peer_authenticating, transport.on_peer_authenticating),
            (self.peer_authentication_failed, transport.on_peer_authentication_failed),
            (self.packet_received, transport.on_packet),
        ):
            if given is not None:
                notifier.connect(given)
        #: the transport's peer state machine (its peers and path caches)
        self.server = transport.protocol
        self._scripts: dict[tuple[str, bool], RpcTable] = {}
        self._nodes: dict[str, _Node] = {}
        self._handlers: dict[tuple[str, str], Callable[..., Any]] = {}
        traffic = getattr(transport, "traffic", None)
        self._ticks = TickRecorder(
            traffic if isinstance(traffic, TrafficCounter) else TrafficCounter()
        )
        self._replicator = Replicator(
            peers=lambda: self.transport.peers,
            send=self._send,
            send_cache=self.server.send_cache,
            receive_cache=self.server.receive_cache,
            script_rpcs=self.script_rpcs,
            declare_rpcs=lambda path, script: self.node(path, script=script),
            forget_rpcs=self.forget_node,
            synchronized=self.synchronized.emit,
            send_frame=self._send_frame,
            peer_log=self.peer_log,
            logger=logger,
        )
        if stats == "detail":
            self._ticks.traffic.detail(self._replicator.synced_classes)
        transport.attach(
            TransportListener(
                peer_connected=self._connected,
                peer_disconnected=self._disconnected,
                peer_authenticating=self.peer_authenticating.emit,
                peer_authentication_failed=self.peer_authentication_failed.emit,
                packet_received=self._packet,
                check_path=self._check_path,
            )
        )

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
        self._replicator.peer_connected(peer)
        self.peer_connected.emit(peer)

    def _disconnected(self, peer: int) -> None:
        self._replicator.peer_disconnected(peer)
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
        if config.mode is _AUTHORITY and node.authority == SERVER:
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
        node = self._nodes.get(path) or self._declared(path)
        config = node.rpcs.configs.get(method) or node.rpcs.config(method, f"rpc on {path}")
        low, high = config.arg_counts
        if not low <= len(args) <= high:  # the message only for a call refused
            config.check_args(len(args), f"rpc on {path}")
        if config.mode is _AUTHORITY and node.authority != SERVER:
            raise ValueError(
                f'{path}.{method} is @rpc("authority") and peer {node.authority} owns the '
                "node: its clients would refuse our call"
            )
        if config.mode is _DISABLED:
            raise ValueError(f"{path}.{method} has RPC mode disabled")
        peers = self.transport.peers
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
        holders = self._replicator.holders_at(path)
        if holders is not None:  # a spawned node goes to who holds it, as Godot's sender does
            if peer > SERVER and peer not in holders:
                raise ValueError(f"peer {peer} cannot see {path} (its visibility)")
            targets = [t for t in targets if t in holders]
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
        cache, path = self.server.send_cache, node.path
        for target in targets:
            simplify = cache.simplify(target, path, node.rpcs.checksum)
            if simplify is not None:
                self._send(target, simplify, TransferMode.RELIABLE, 0)
        method_id = node.rpcs.ids[config.name]
        is_confirmed = cache.is_confirmed
        if len(targets) == 1:  # one peer, the common call: no comprehension (a function)
            confirmed = [is_confirmed(targets[0], path)]
        else:
            confirmed = [is_confirmed(t, path) for t in targets]
        cache_id = cache.cache_id(path)
        send_many = getattr(self.transport, "send_encoded_many", None)
        if send_many is not None and all(confirmed):
            # every target gets the same bytes: encoded once, handed over in one call
            # the live frame's write_call: the compiled one writes BOOL and INT arguments itself
            data = SWITCH.module.write_call(cache_id, method_id, args, write_short_call)
            if data is None:  # not the short form: ids past a byte, raw, no arguments
                data = RemoteCall(method_id, args, node_id=cache_id).encode()
            mode, channel = config.transfer_mode, config.channel
            if len(targets) == 1:
                send_many(((targets[0], data, mode, channel),))
            else:
                send_many([(target, data, mode, channel) for target in targets])
            return
        for target, done in zip(targets, confirmed, strict=True):
            if all(confirmed):
                call = RemoteCall(method_id, args, node_id=cache_id)
            elif done:
                call = RemoteCall(method_id, args, node_id=cache_id, node_id_size=4)
            else:
                call = RemoteCall(method_id, args, path=node.path)
            self._send(target, call, config.transfer_mode, config.channel)

    def _send(self, peer: int, packet: Packet, mode: TransferMode, channel: int) -> None:
        self.transport.send(peer, packet, mode=mode, channel=channel)

    def _send_frame(self, packets: list[EncodedPacket]) -> None:
        """A frame's encoded packets: all at once to a transport with ``send_encoded_many``,
        else one by one, decoded for a transport of the shape before ``send_encoded``."""
        transport = self.transport
        send_many = getattr(transport, "send_encoded_many", None)
        if send_many is not None:
            send_many(packets)
            return
        send_encoded = getattr(transport, "send_encoded", None)
        for peer, data, mode, channel in packets:
            if send_encoded is None:
                self._send(peer, decode_scene_packet(data), mode, channel)
            else:
                send_encoded(peer, data, mode=mode, channel=channel)

    def _checksum(self, path: str) -> str | None:
        node = self._nodes.get(path)
        if node is not None:
            return node.rpcs.checksum
        return EMPTY_CHECKSUM if self._replicator.has_path(path) else None

    def _check_path(self, path: str, checksum: str) -> bool | None:
        """The transport's question about a path a client simplified (``PathCheck``)."""
        ours = self._checksum(path)
        return None if ours is None else ours == checksum

    def _packet(self, peer: int, packet: Packet) -> None:
        try:
            if isinstance(packet, RemoteCall):
                self._remote_call(peer, packet)
            elif isinstance(packet, Sync | DeltaSync):
                self._replicator.owned_sync(peer, packet)
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
        if call.path is None:
            path, checksum = self.server.receive_cache.entry(peer, call.node_id)
        else:
            path, checksum = call.path, None
        node = self._nodes.get(path)
        if node is None:
            raise ProtocolError(f"RPC on '{clip(path)}', which was not declared")
        if checksum is not None and checksum != node.rpcs.checksum:
            raise ProtocolError(
                f"RPC on {path!r}: the client's @rpc names differ from ours ({node.rpcs!r}); "
                "the method ids do not match"
            )
        config = node.rpcs.by_id.get(call.method_id)
        if config is None:
            raise ProtocolError(f"RPC id {call.method_id} on {path!r}: {node.rpcs!r} has none")
        method = config.name
        if config.mode is _DISABLED or (config.mode is _AUTHORITY and peer != node.authority):
            raise ProtocolError(
                f"peer {peer} called {path}.{method}, whose @rpc mode {config.mode.name} "
                f"does not let it (authority {node.authority})"
            )
        low, high = config.arg_counts
        if not low <= len(call.args) <= high:  # refused: the message only then
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
        spawned = self._replicator.node_at(path)
        if spawned is not None:
            scene_handler = spawned.spawner.handler(spawned.scene.path, method)
            if scene_handler is not None:
                scene_handler(spawned, peer, *call.args)
                return
        raise ProtocolError(f"no handler for {path}.{method} (SceneMultiplayer.on_rpc)")

    # -- spawning and synchronizing: the replicator's ------------------------------------

    def add_spawner(self, path: str, spawn_path: str, scenes: Sequence[SpawnableScene]) -> Spawner:
        """Stand for the client's ``MultiplayerSpawner`` at ``path`` (spawning under
        ``spawn_path``, both relative to ``/root``), listing ``scenes`` in its order."""
        return self._replicator.add_spawner(path, spawn_path, scenes)

    def sync(self) -> None:
        """One network frame: to each client a full SYNC of every spawned node's ALWAYS
        properties (split at 1350 bytes, as Godot does), then a delta of the ON_CHANGE ones
        that changed since the last delta to that client (all of them the first time).
        A node goes only to the peers that hold it. Nodes with visibility filters are
        re-checked first (Godot's synchronizer does it every frame), so a node a filter
        turned away is despawned (or one it lets in spawned) before the frame's syncs.
        Each node's values are read and encoded once per frame, whatever the number of
        peers, and the same bytes go to all of them."""
        started = self._ticks.started()
        self._replicator.sync()
        self._ticks.finished(started)

    # -- what it costs -------------------------------------------------------------------

    def stats(self, window: int = DEFAULT_WINDOW) -> NetStats:
        """What the server spent and sent: CPU per tick (game code, ``sync()``, transport),
        bytes and messages per tick over the last ``window`` ticks (1 to 300) and in total,
        by packet kind, per connected peer with what waits for it, and per synced class
        (with ``stats="detail"``). A tick runs from one :meth:`sync` call to the next.
        ``str()`` of the answer is one log line."""
        depth = getattr(self.transport, "queue_depth", None)
        return self._ticks.stats(self.peers, depth, window)
