"""Spawning, visibility and synchronizing for :class:`~gdvariant.multiplayer.SceneMultiplayer`:
what Godot's SceneReplicationInterface does on a server, and the one owner of its state.

A :class:`Spawner` stands for a client ``MultiplayerSpawner`` (its scenes in the client's
order); spawning sends SPAWN to every peer that sees the node, despawning DESPAWN. A custom
spawn (the client spawner's ``spawn_function`` builds the node from a data value) carries
that value instead of a scene index. Who sees a node is its synchronizer's
``public_visibility``, ``set_visibility_for`` and visibility filters, which a Godot server
may change at any time (SPAWN to a peer that starts seeing it, DESPAWN to one that stops).
:meth:`Replicator.sync` is one network frame of the synchronizers: a full SYNC of the ALWAYS
properties, a delta of the ON_CHANGE ones that changed since the last delta to that peer.
docs/multiplayer.md ("The server API") has the rules and what the engine showed.

Everything that changes what was spawned, who holds it and what each peer was last sent is
written by :class:`Replicator` alone, here (one owner, as h11's state machine): the scene
calls it, and :class:`Spawner` and :class:`SpawnedNode` are the game's handles on it that
ask it. What it needs of the scene (the peers, sending, the path caches, the RPC tables of
spawned scripts) it is given when built.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .._net.peerlog import PeerLog, clip
from . import _frame, _pysync
from ._rpc_config import RpcMode, RpcTable, TransferMode
from ._synced import SpawnableScene
from .wire import (
    CUSTOM_SCENE,
    EMPTY_CHECKSUM,
    DeltaSync,
    Despawn,
    InboundSyncTime,
    NetIds,
    Packet,
    ProtocolError,
    ReceiveCache,
    SendCache,
    Spawn,
    Sync,
    SyncClock,
    SyncState,
    encode_compressed,
    is_path_net_id,
)
from .wire._counters import PATH_NET_ID

__all__ = ["SpawnedNode", "Spawner"]

LOGGER = logging.getLogger("gdvariant.multiplayer")
SERVER = 1
#: ``set_visibility_for``'s entry for "every peer" (Godot's ``public_visibility``)
PUBLIC = 0

#: ``send(peer, packet, mode, channel)``: the scene's way to a peer
Send = Callable[[int, Packet, TransferMode, int], None]
#: ``(peer, data, mode, channel)``: a packet already encoded, for a peer
EncodedPacket = tuple[int, bytes, TransferMode, int]
#: ``send_frame(packets)``: a frame's packets, already encoded, each to its peer, in order
SendFrame = Callable[[list[EncodedPacket]], None]
#: ``synchronized(node, changed)``: an owner's SYNC or delta, by flat property name
Synchronized = Callable[["SpawnedNode", dict[str, Any]], None]


class SpawnedNode:
    """A node spawned through a :class:`Spawner`. Set properties on ``state`` (the NetClass
    entity); :meth:`SceneMultiplayer.sync` sends what changed. Its visibility methods are
    the synchronizer's, with Godot's names; who holds it and what each peer was sent are
    the replicator's to keep."""

    #: ``state`` in the object itself, the rest in its ``__dict__``: the game's
    #: ``node.state`` reads the line the node's own header is on, not a second one
    __slots__ = ("__dict__", "__weakref__", "state")

    def __init__(
        self,
        replicator: Replicator,
        spawner: Spawner,
        scene: SpawnableScene,
        scene_id: int,
        name: str,
        ids: tuple[int, int | None],
        state: Any,
        owner: int | None,
        spawn_arg: Any,
        replica: _Replica,
    ) -> None:
        self._replicator = replicator
        #: who holds the node and what each peer was sent: the replicator's, which alone
        #: writes it (kept here so that a despawned node still answers from its last state)
        self._replica = replica
        self.spawner, self.scene, self.scene_id, self.name = spawner, scene, scene_id, name
        #: the node's net id and its synchronizer's (None: no synchronizer of the server's)
        self.net_id, self.sync_id = ids
        self.state = state
        self.path = f"{spawner.spawn_path}/{name}"
        #: the client that owns the scene's ``owned`` synchronizer
        self.owner = owner
        #: the ``spawn(data)`` value of a custom spawn (``scene_id`` 255), as it was then
        self.spawn_arg = spawn_arg

    def __repr__(self) -> str:
        return f"SpawnedNode({self.path!r}, net_id={self.net_id})"

    @property
    def spawned_to(self) -> frozenset[int]:
        """The peers that hold the node now (sent SPAWN, not DESPAWN since): Godot's
        ``spawn_nodes``, which syncs, deltas, RPCs and the final despawn go to."""
        return self._replicator.holders(self)

    @property
    def owned_values(self) -> Mapping[str, Any]:
        """What the owner's synchronizer last sent, by flat property name."""
        return self._replicator.owned_values(self)

    @property
    def visibility_filters(self) -> tuple[Callable[[int], Any], ...]:
        """The synchronizer's ``add_visibility_filter`` callables, in order."""
        return self._replicator.visibility_filters(self)

    def is_visible_to(self, peer: int) -> bool:
        """``MultiplayerSynchronizer.is_visible_to`` (see :meth:`Replicator.is_visible_to`)."""
        return self._replicator.is_visible_to(self, peer)

    @property
    def public_visibility(self) -> bool:
        return self.get_visibility_for(PUBLIC)

    @public_visibility.setter
    def public_visibility(self, visible: bool) -> None:
        self.set_visibility_for(PUBLIC, visible)

    def get_visibility_for(self, peer: int) -> bool:
        return self._replicator.get_visibility_for(self, peer)

    def set_visibility_for(self, peer: int, visible: bool) -> None:
        """``set_visibility_for(peer, visible)`` (peer 0: ``public_visibility``): when it
        changes anything, the peers that start seeing the node get SPAWN (its current
        spawn state), those that stop get DESPAWN, at once, as a Godot server sends them."""
        self._replicator.set_visibility_for(self, peer, visible)

    def add_visibility_filter(self, check: Callable[[int], Any]) -> None:
        """``add_visibility_filter``: ``check(peer)`` must also say True for a peer to see
        the node. As in Godot nothing is sent now: ``SceneMultiplayer.sync`` (one network
        frame) re-checks the nodes with filters first, as Godot's synchronizer does every
        frame, or call :meth:`update_visibility`."""
        self._replicator.add_visibility_filter(self, check)

    def remove_visibility_filter(self, check: Callable[[int], Any]) -> None:
        """``remove_visibility_filter``; like Godot, it re-checks nothing by itself."""
        self._replicator.remove_visibility_filter(self, check)

    def update_visibility(self, peer: int = PUBLIC) -> None:
        """``update_visibility(for_peer)``: bring who holds the node in line with
        :meth:`is_visible_to` for ``peer``, or for every peer (0); see
        :meth:`Replicator.update_visibility`."""
        self._replicator.update_visibility(self, peer)


class Spawner:
    """A client ``MultiplayerSpawner`` at ``path`` whose ``spawn_path`` is ``spawn_path``,
    listing ``scenes`` in the order of its ``_spawnable_scenes``
    (``SceneMultiplayer.add_spawner`` makes one)."""

    def __init__(
        self,
        replicator: Replicator,
        path: str,
        spawn_path: str,
        scenes: Sequence[SpawnableScene],
    ) -> None:
        if len(scenes) > 0xFE:
            raise ValueError("a spawner lists at most 254 scenes (the id is a byte, 255 custom)")
        self._replicator = replicator
        self.path, self.spawn_path = path, spawn_path
        self.scenes = tuple(scenes)
        #: by the scene's ``res://`` path and the method
        self._handlers: dict[tuple[str, str], Callable[..., Any]] = {}

    @property
    def nodes(self) -> Mapping[str, SpawnedNode]:
        """The nodes this spawner has spawned and not despawned, by name."""
        return self._replicator.children(self)

    def on_rpc(
        self, scene: int | str | SpawnableScene, method: str, handler: Callable[..., Any]
    ) -> None:
        """Run ``handler(node, sender, *args)`` when a client calls ``method`` on any node
        spawned from ``scene`` (as the scene's script would run it on each instance). A
        scene that custom spawns build (not in the list) is given as its SpawnableScene."""
        spec = scene if isinstance(scene, SpawnableScene) else self.scenes[self._scene_index(scene)]
        if spec.script is None:
            raise ValueError(f"{spec.path} has no script, so no @rpc functions")
        config = self._replicator.script_rpcs(spec.script).config(
            method, f"handler for {spec.path}"
        )
        if config.mode is RpcMode.AUTHORITY:
            raise ValueError(
                f'{spec.path}: {method} is @rpc("authority") and the server spawns (owns) '
                "the nodes: no client may call it"
            )
        self._handlers[(spec.path, method)] = handler

    def handler(self, scene_path: str, method: str) -> Callable[..., Any] | None:
        """The :meth:`on_rpc` handler of ``method`` on nodes of the scene at ``scene_path``."""
        return self._handlers.get((scene_path, method))

    def spawn(
        self,
        scene: int | str,
        name: str,
        values: Mapping[str, Any] | None = None,
        *,
        owner: int | None = None,
        visible_to: Iterable[int] | None = None,
    ) -> SpawnedNode:
        """Instantiate ``scene`` (its index or ``res://`` path) as child ``name`` of the
        spawn path on every client, its spawn properties set from ``values`` (by flat
        property name) before the client's ``_ready``. ``owner``: the peer whose values
        the scene's ``owned`` synchronizer takes (the scene's script must give it that
        authority). ``visible_to``: only these peers (connected now or later) get the
        node, as a Godot server's synchronizer with ``public_visibility`` off and
        ``set_visibility_for(peer, true)`` makes it; the node's visibility methods
        change it later."""
        index = self._scene_index(scene)
        spec = self.scenes[index]
        return self._replicator.spawn(self, index, spec, name, values, owner, visible_to, None)

    def spawn_custom(
        self,
        data: Any,
        name: str,
        scene: SpawnableScene | None = None,
        values: Mapping[str, Any] | None = None,
        *,
        owner: int | None = None,
        visible_to: Iterable[int] | None = None,
    ) -> SpawnedNode:
        """A Godot server's ``spawner.spawn(data)``: every client's ``spawn_function``
        builds the node from ``data`` (a Variant value without objects, sent as the SPAWN's
        argument; a later joiner gets the value as it was now) and names it ``name``.
        ``scene`` describes what that function builds (its script, its synchronizers; it
        need not be in the spawner's list), ``values`` its spawn state; the rest as in
        :meth:`spawn`."""
        encode_compressed(data)  # refuse what no SPAWN can carry, now
        spec = scene if scene is not None else SpawnableScene("")
        arg = copy.deepcopy(data)
        return self._replicator.spawn(
            self, CUSTOM_SCENE, spec, name, values, owner, visible_to, arg
        )

    def despawn(self, node: SpawnedNode) -> None:
        """Free ``node`` on every client (DESPAWN)."""
        self._replicator.despawn(self, node)

    def _scene_index(self, scene: int | str) -> int:
        if isinstance(scene, int):
            if not 0 <= scene < len(self.scenes):
                raise ValueError(f"{self.path} has no scene {scene}")
            return scene
        for i, spec in enumerate(self.scenes):
            if spec.path == scene:
                return i
        raise ValueError(f"{self.path} does not list {scene!r}")


@dataclass(eq=False)
class _Replica:
    """What the replicator keeps of one spawned node."""

    #: the synchronizer's ``set_visibility_for`` set; ``PUBLIC`` in it is ``public_visibility``
    visible_to: set[int]
    #: the synchronizer's ``add_visibility_filter`` callables, each ``filter(peer) -> bool``
    filters: list[Callable[[int], Any]] = field(default_factory=list)
    #: the peers that hold the node now (sent SPAWN, not DESPAWN since)
    holders: set[int] = field(default_factory=set)
    #: per peer: the compressed bytes of each watched property last sent in a delta
    watched: dict[int, list[bytes | None]] = field(default_factory=dict)
    #: what the owner's synchronizer last sent, by flat property name, and its SYNC times
    owned_values: dict[str, Any] = field(default_factory=dict)
    owned_time: InboundSyncTime = field(default_factory=InboundSyncTime)


class Replicator:
    """A server's spawners, the nodes they spawned, who holds each, and what each peer was
    last sent: the one owner of that state.

    Built by the scene with what it needs of it: ``peers()`` (the admitted ones), ``send``,
    the server's path caches, ``script_rpcs(script)`` (a client script's RPC table),
    ``declare_rpcs(path, script)`` / ``forget_rpcs(path)`` (a spawned node's RPCs come and
    go with it) and ``synchronized`` (an owner's sync arrived).
    """

    def __init__(
        self,
        *,
        peers: Callable[[], frozenset[int]],
        send: Send,
        send_cache: SendCache,
        receive_cache: ReceiveCache,
        script_rpcs: Callable[[str], RpcTable],
        declare_rpcs: Callable[[str, str], object],
        forget_rpcs: Callable[[str], None],
        synchronized: Synchronized,
        send_frame: SendFrame,
        peer_log: PeerLog | None = None,
        logger: logging.Logger = LOGGER,
    ) -> None:
        self._peers, self._send, self._send_frame = peers, send, send_frame
        self._send_cache, self._receive_cache = send_cache, receive_cache
        self.script_rpcs = script_rpcs
        self._declare_rpcs, self._forget_rpcs = declare_rpcs, forget_rpcs
        self._synchronized = synchronized
        self.logger = logger
        #: where states too large to send are reported, a few lines a second at most
        self._peer_log = PeerLog(logger) if peer_log is None else peer_log
        self._net_ids = NetIds()
        self._spawners: dict[str, Spawner] = {}
        #: each spawner's nodes by name, by the spawner's path
        self._children: dict[str, dict[str, SpawnedNode]] = {}
        #: the spawned nodes by net id, in spawn order (the order of a frame's SYNC entries)
        self._nodes: dict[int, SpawnedNode] = {}
        self._at: dict[str, SpawnedNode] = {}
        #: by the path of the node's owned synchronizer
        self._owned_at: dict[str, SpawnedNode] = {}
        self._clocks: dict[int, SyncClock] = {}
        #: what a frame reads of each node with a synchronizer of the server's, by net id in
        #: spawn order: kept as nodes are spawned and despawned, never rebuilt
        self._roster: dict[int, _pysync.Record] = {}
        #: the roster's records as the list a frame reads (None: made again at the next frame,
        #: after a spawn or despawn), so that a frame does not copy 2,000 records into a new
        #: list; replaced, never changed in place, so a frame running holds its own
        self._roster_list: list[_pysync.Record] | None = None
        #: the nodes with visibility filters, by net id ascending (spawn order): what a frame
        #: re-checks, without looking at the others
        self._filtered: dict[int, SpawnedNode] = {}
        #: the peers a frame goes to, each one's slot, and by slot the peers and clocks: rebuilt
        #: only when the peers change
        self._frame_peers: frozenset[int] | None = None
        self._slots: dict[int, int] = {}
        self._slot_peers: list[int] = []
        self._slot_clocks: list[SyncClock] = []

    # -- what the scene asks ---------------------------------------------------------------

    def node_at(self, path: str) -> SpawnedNode | None:
        """The spawned node at ``path`` (relative to ``/root``), if any."""
        return self._at.get(path)

    def holders_at(self, path: str) -> AbstractSet[int] | None:
        """The peers that hold the spawned node at ``path`` when its visibility limits who
        gets its RPCs (it has a synchronizer of the server's), else None: the live set, to
        read at once (an RPC reads it without copying it)."""
        node = self._at.get(path)
        if node is None or node.scene.synced is None:
            return None
        return node._replica.holders

    def children(self, spawner: Spawner) -> Mapping[str, SpawnedNode]:
        """The nodes ``spawner`` spawned and did not despawn, by name (a read-only view)."""
        return MappingProxyType(self._children[spawner.path])

    def holders(self, node: SpawnedNode) -> frozenset[int]:
        """The peers that hold ``node`` now (none once it is despawned)."""
        return frozenset(node._replica.holders)

    def owned_values(self, node: SpawnedNode) -> Mapping[str, Any]:
        """What ``node``'s owner last synced, by flat property name (a read-only view)."""
        return MappingProxyType(node._replica.owned_values)

    def synced_classes(self) -> dict[int, str]:
        """Every spawned node's synchronizer net id -> its NetClass's name (what
        ``mp.stats()`` credits SYNC and delta entries to)."""
        return {
            node.sync_id: node.scene.synced.cls.__name__
            for node in self._nodes.values()
            if node.sync_id is not None and node.scene.synced is not None
        }

    def has_path(self, path: str) -> bool:
        """Whether ``path`` names a node of ours without RPCs: a spawner or an owned
        synchronizer (a client simplifies those to sync or to be spawned)."""
        return path in self._spawners or path in self._owned_at

    # -- peers -----------------------------------------------------------------------------

    def peer_connected(self, peer: int) -> None:
        """A peer was admitted: its sync time starts over, and it gets what it may see."""
        self._clocks[peer] = SyncClock()
        self._frame_peers = None
        for node in list(self._nodes.values()):
            self._update(node, peer)

    def peer_disconnected(self, peer: int) -> None:
        self._clocks.pop(peer, None)
        self._frame_peers = None
        for node in self._nodes.values():
            node._replica.watched.pop(peer, None)
            if peer in node._replica.holders:
                node._replica.holders.discard(peer)
                self._held(node)

    # -- spawning --------------------------------------------------------------------------

    def add_spawner(self, path: str, spawn_path: str, scenes: Sequence[SpawnableScene]) -> Spawner:
        if path in self._spawners:
            raise ValueError(f"a spawner at {path!r} exists already")
        spawner = Spawner(self, path, spawn_path, scenes)
        self._spawners[path] = spawner
        self._children[path] = {}
        return spawner

    def spawn(
        self,
        spawner: Spawner,
        index: int,
        spec: SpawnableScene,
        name: str,
        values: Mapping[str, Any] | None,
        owner: int | None,
        visible_to: Iterable[int] | None,
        data: Any,
    ) -> SpawnedNode:
        """Spawn ``spec`` as child ``name`` of ``spawner``'s spawn path (see
        :meth:`Spawner.spawn`); ``data`` is a custom spawn's argument."""
        what = spec.path or "the custom node"
        if (spec.owned is not None) != (owner is not None):
            need = "needs" if spec.owned is not None else "has no owned synchronizer, so no"
            raise ValueError(f"{what} {need} owner")
        if not name or any(c in name for c in '.:@/"%'):
            raise ValueError(f"{name!r} is not a valid node name")
        children = self._children[spawner.path]
        if name in children:
            raise ValueError(f"{spawner.spawn_path} already has a spawned child {name!r}")
        if visible_to is not None and spec.synced is None:
            raise ValueError(
                f"{what} has no synchronizer of the server's, which is where Godot keeps "
                "visibility: every peer sees it"
            )
        state = spec.synced.new_state(values or {}) if spec.synced is not None else None
        path = f"{spawner.spawn_path}/{name}"
        if spec.script is not None:
            self._declare_rpcs(path, spec.script)
        net_id, sync_ids = self._net_ids.spawn(1 if spec.synced is not None else 0)
        ids = (net_id, sync_ids[0] if sync_ids else None)
        replica = _Replica({PUBLIC} if visible_to is None else set(visible_to))
        node = SpawnedNode(self, spawner, spec, index, name, ids, state, owner, data, replica)
        children[name] = node
        self._nodes[net_id] = node
        self._at[path] = node
        if spec.owned is not None:
            self._owned_at[f"{path}/{spec.owned_synchronizer}"] = node
        synced = spec.synced
        if synced is not None and node.sync_id is not None and state is not None:
            sync, watch, convert = synced.plan
            self._roster[net_id] = _pysync.new_record(
                node.sync_id,
                state._net_vals,
                sync,
                watch,
                convert,
                tuple(replica.holders),
                replica.watched,
            )
            self._roster_list = None
        self._update(node, PUBLIC)  # as Godot's spawn does, once the node is ready
        return node

    def despawn(self, spawner: Spawner, node: SpawnedNode) -> None:
        """Free ``node`` on every peer that holds it (DESPAWN)."""
        children = self._children[spawner.path]
        if children.get(node.name) is not node:
            raise ValueError(f"{node.path} is not spawned by {spawner.path}")
        del children[node.name]
        del self._nodes[node.net_id]
        del self._at[node.path]
        self._owned_at.pop(f"{node.path}/{node.scene.owned_synchronizer}", None)
        self._forget_rpcs(node.path)
        if self._roster.pop(node.net_id, None) is not None:
            self._roster_list = None
        self._filtered.pop(node.net_id, None)
        holders = node._replica.holders
        for peer in sorted(self._peers() & holders):
            self._send(peer, Despawn(node.net_id), TransferMode.RELIABLE, 0)
        holders.clear()

    def _send_spawn(self, peer: int, node: SpawnedNode) -> None:
        """SIMPLIFY_PATH for the spawner (once per peer), then SPAWN, as Godot sends them."""
        spawner = node.spawner
        simplify = self._send_cache.simplify(peer, spawner.path, EMPTY_CHECKSUM)
        if simplify is not None:
            self._send(peer, simplify, TransferMode.RELIABLE, 0)
        state: tuple[Any, ...] = ()
        synced = node.scene.synced
        if synced is not None:
            state = synced.config.spawn_values(synced.values(node.state))
        spawn = Spawn(
            self._send_cache.cache_id(spawner.path),
            node.net_id,
            node.name,
            () if node.sync_id is None else (node.sync_id,),
            state,
            node.scene_id,
            node.spawn_arg,
        )
        self._send(peer, spawn, TransferMode.RELIABLE, 0)

    # -- visibility: the synchronizer's, as a Godot server changes it ----------------------

    def is_visible_to(self, node: SpawnedNode, peer: int) -> bool:
        """``MultiplayerSynchronizer.is_visible_to``: every filter says yes, and the node is
        public or ``peer`` was given ``set_visibility_for``. A node without a synchronizer
        the server owns is seen by all, as Godot spawns it to all. A filter that raises or
        returns something else than a bool counts as no (Godot prints an error)."""
        return self._visible(node, peer)

    def _visible(self, node: SpawnedNode, peer: int) -> bool:
        replica = node._replica
        if node.scene.synced is None:
            return True
        for check in replica.filters:
            try:
                verdict = check(peer)
            except Exception:
                self.logger.exception("visibility filter %r of %s failed", check, node.path)
                return False
            if not isinstance(verdict, bool):
                self.logger.error(
                    "visibility filter %r of %s returned %r", check, node.path, verdict
                )
                return False
            if not verdict:
                return False
        return PUBLIC in replica.visible_to or peer in replica.visible_to

    def get_visibility_for(self, node: SpawnedNode, peer: int) -> bool:
        return peer in node._replica.visible_to

    def visibility_filters(self, node: SpawnedNode) -> tuple[Callable[[int], Any], ...]:
        return tuple(node._replica.filters)

    def set_visibility_for(self, node: SpawnedNode, peer: int, visible: bool) -> None:
        replica = node._replica
        if (peer in replica.visible_to) == visible:
            return
        if visible:
            replica.visible_to.add(peer)
        else:
            replica.visible_to.discard(peer)
        self._update(node, peer)

    def add_visibility_filter(self, node: SpawnedNode, check: Callable[[int], Any]) -> None:
        filters = node._replica.filters
        if check in filters:
            raise ValueError(f"{check!r} filters {node.path} already")
        filters.append(check)
        if self._nodes.get(node.net_id) is node and node.net_id not in self._filtered:
            self._filtered[node.net_id] = node
            if next(reversed(self._filtered)) != max(self._filtered):
                self._filtered = dict(sorted(self._filtered.items()))

    def remove_visibility_filter(self, node: SpawnedNode, check: Callable[[int], Any]) -> None:
        filters = node._replica.filters
        filters.remove(check)
        if not filters:
            self._filtered.pop(node.net_id, None)

    def update_visibility(self, node: SpawnedNode, peer: int = PUBLIC) -> None:
        """``update_visibility(for_peer)``: bring who holds ``node`` in line with
        :meth:`is_visible_to` for ``peer``, or for every peer (0). Peer 0 is Godot's: it
        asks the filters about peer 0 first, and when they and the node say yes there, it
        spawns the node to every peer that lacks it without asking about each one (and
        despawns nobody); only a no for peer 0 checks each peer on its own."""
        self._update(node, peer)

    def _update(self, node: SpawnedNode, peer: int) -> None:
        if self._nodes.get(node.net_id) is not node:
            return  # despawned: nothing to update
        peers = self._peers()
        if peer == SERVER:
            return
        if peer != PUBLIC:
            if peer in peers:
                self._show(node, peer, self._visible(node, peer))
            return
        if self._visible(node, PUBLIC):
            for each in sorted(peers - node._replica.holders):
                self._show(node, each, True)
            return
        for each in sorted(peers):
            self._show(node, each, self._visible(node, each))

    def _show(self, node: SpawnedNode, peer: int, visible: bool) -> None:
        """SPAWN to ``peer`` if it should hold the node and does not, DESPAWN if the
        reverse; a peer that stops seeing it starts over with deltas (all watched values)."""
        replica = node._replica
        if visible == (peer in replica.holders):
            return
        if visible:
            replica.holders.add(peer)
        else:
            replica.holders.discard(peer)
            replica.watched.pop(peer, None)
        record = self._roster.get(node.net_id)
        if record is not None:
            record[_pysync.SETTLED] = False  # a new holder: the frame compares what each was sent
            record[_pysync.HOLDERS] = tuple(replica.holders)
        if visible:
            self._send_spawn(peer, node)
        else:
            self._send(peer, Despawn(node.net_id), TransferMode.RELIABLE, 0)

    def _held(self, node: SpawnedNode) -> None:
        """The frame's tuple of ``node``'s holders made again from the set after a change to
        it: the frame reads one small object with the peers inline, not the set."""
        record = self._roster.get(node.net_id)
        if record is not None:
            record[_pysync.HOLDERS] = tuple(node._replica.holders)

    # -- synchronizing ---------------------------------------------------------------------

    def sync(self) -> None:
        """One network frame (``SceneMultiplayer.sync``): visibility filters re-checked, then
        to each peer a full SYNC of the ALWAYS values of the nodes it holds, then their
        deltas. Each node's SYNC entry and watched values are encoded once per frame (and
        not at all when they are last frame's), and the same bytes go to every peer."""
        for node in list(self._filtered.values()):
            self._update(node, PUBLIC)
        slots, clocks = self._frame_slots()
        encoder = _frame.encoder()
        roster = self._roster_list
        if roster is None:
            roster = self._roster_list = list(self._roster.values())
        sends, left_out = _frame.live().frame(roster, slots, clocks, encoder)
        for net_id, size, what in left_out:
            self._peer_log.warning(
                f"net id {net_id}", "net id %d: a %d-byte %s is never sent", net_id, size, what
            )
        packets: list[EncodedPacket] = []
        add, peers = packets.append, self._slot_peers
        unreliable, reliable = TransferMode.UNRELIABLE, TransferMode.RELIABLE
        for slot, syncs, deltas in sends:
            peer = peers[slot]
            if syncs:
                clocks[slot].tick()
                for data in syncs:
                    add((peer, data, unreliable, 0))
            for data in deltas:
                add((peer, data, reliable, 0))
        if packets:
            self._send_frame(packets)

    def _frame_slots(self) -> tuple[dict[int, int], list[SyncClock]]:
        """The peers of a frame by slot (ascending: the send order), and their SYNC clocks."""
        peers = self._peers()
        if peers is not self._frame_peers and peers != self._frame_peers:
            order = sorted(peers)
            self._slots = {peer: slot for slot, peer in enumerate(order)}
            self._slot_peers = order
            self._slot_clocks = [self._clocks.setdefault(peer, SyncClock()) for peer in order]
            self._frame_peers = peers
        return self._slots, self._slot_clocks

    def owned_sync(self, peer: int, packet: Sync | DeltaSync) -> None:
        """A client's SYNC or delta of the synchronizers it owns (path-based net ids): each
        state's values, checked against their properties' types, are kept and passed to
        ``synchronized``. A packet with a state that breaks the rules (a value of the wrong
        type among them) raises :class:`ProtocolError`, and nothing of it is kept."""
        taken: list[tuple[SpawnedNode, dict[str, Any]]] = []
        for state in packet.states:
            if not is_path_net_id(state.net_id):
                raise ProtocolError(f"peer {peer} synced net id {state.net_id}, which we spawned")
            path = self._receive_cache.path(peer, state.net_id & ~PATH_NET_ID)
            node = self._owned_at.get(path)
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
                values = synced.config.read_sync(state)
            else:
                values = synced.config.read_delta(state)
            taken.append((node, synced.checked(values)))
        time = packet.time if isinstance(packet, Sync) else None
        for node, changed in taken:
            if time is not None and not node._replica.owned_time.accept(time):
                continue  # stale, as a Godot receiver drops it
            node._replica.owned_values.update(changed)
            self._synchronized(node, changed)
