"""Spawning for :class:`~gdvariant.multiplayer.SceneMultiplayer`: a client ``MultiplayerSpawner``
stood for on the server (:class:`Spawner`), and the nodes it spawned (:class:`SpawnedNode`).

A spawner lists its scenes in the client's order; spawning sends SPAWN to every peer that
sees the node, and despawning DESPAWN. A custom spawn (the client spawner's
``spawn_function`` builds the node from a data value) carries that value instead of a scene
index. A spawned node keeps what its synchronizers last sent to each peer, which
``SceneMultiplayer.sync`` compares against, and who sees it: its synchronizer's
``public_visibility``, ``set_visibility_for`` and visibility filters, which a Godot server
may change at any time (SPAWN to a peer that starts seeing it, DESPAWN to one that stops).
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import dumps
from ._counters import InboundSyncTime
from ._replication import CUSTOM_SCENE, Despawn
from ._rpc_config import RpcMode
from ._synced import SpawnableScene
from ._variant import encode_compressed

if TYPE_CHECKING:
    from ._scene import SceneMultiplayer

__all__ = ["SpawnedNode", "Spawner"]

LOGGER = logging.getLogger("gdvariant.multiplayer")
SERVER = 1
#: ``peer_visibility``'s entry for "every peer" (Godot's ``public_visibility``)
PUBLIC = 0

#: types whose values are equal exactly when their encoded bytes are (not float: -0.0 == 0.0)
_EXACT_EQ = frozenset({int, str, bool})


@dataclass
class SpawnedNode:
    """A node spawned through a :class:`Spawner`. Set properties on ``state`` (the NetClass
    entity); :meth:`SceneMultiplayer.sync` sends what changed."""

    spawner: Spawner
    scene: SpawnableScene
    scene_id: int
    name: str
    net_id: int
    sync_id: int | None
    state: Any
    path: str
    #: per peer: the compressed bytes of each watched property last sent in a delta
    watched: dict[int, dict[str, bytes]] = field(default_factory=dict)
    #: the client that owns the scene's ``owned`` synchronizer, and what it last sent, by
    #: flat property name
    owner: int | None = None
    owned_values: dict[str, Any] = field(default_factory=dict)
    owned_time: InboundSyncTime = field(default_factory=InboundSyncTime)
    #: the synchronizer's ``set_visibility_for`` set; 0 in it is ``public_visibility``
    peer_visibility: set[int] = field(default_factory=lambda: {PUBLIC})
    #: the synchronizer's ``add_visibility_filter`` callables, each ``filter(peer) -> bool``
    visibility_filters: list[Callable[[int], Any]] = field(default_factory=list)
    #: the peers that hold the node now (sent SPAWN, not DESPAWN since): Godot's
    #: ``spawn_nodes``, which syncs, deltas, RPCs and the final despawn go to
    spawned_to: set[int] = field(default_factory=set)
    #: the ``spawn(data)`` value of a custom spawn (``scene_id`` 255), as it was then
    spawn_arg: Any = None
    #: each watched property's last value and its bytes (see ``watched_bytes``)
    watch_cache: dict[str, tuple[Any, bytes]] = field(default_factory=dict)

    def watched_bytes(self, values: Mapping[str, Any], props: Sequence[str]) -> dict[str, bytes]:
        """The encoded bytes of the watched ``props``, by which changes are judged. A value
        of a type whose ``==`` means equal bytes (int, str, bool), equal to last frame's, is
        not encoded again: a frame of many entities mostly repeats them."""
        cache = self.watch_cache
        out = {}
        for prop in props:
            value = values[prop]
            last = cache.get(prop)
            same_type = last is not None and type(last[0]) is type(value)
            if same_type and type(value) in _EXACT_EQ and last is not None and last[0] == value:
                out[prop] = last[1]
                continue
            out[prop] = data = dumps(value)
            cache[prop] = (value, data)
        return out

    def visible_peers(self, peers: frozenset[int]) -> list[int]:
        """Those of ``peers`` that hold the node now (its syncs go to them), in order."""
        return sorted(peers & self.spawned_to)

    # -- visibility: the synchronizer's, as a Godot server changes it ---------------------

    def is_visible_to(self, peer: int) -> bool:
        """``MultiplayerSynchronizer.is_visible_to``: every filter says yes, and the node is
        public or ``peer`` was given ``set_visibility_for``. A node without a synchronizer
        the server owns is seen by all, as Godot spawns it to all. A filter that raises or
        returns something else than a bool counts as no (Godot prints an error)."""
        if self.scene.synced is None:
            return True
        for check in self.visibility_filters:
            try:
                verdict = check(peer)
            except Exception:
                LOGGER.exception("visibility filter %r of %s failed", check, self.path)
                return False
            if not isinstance(verdict, bool):
                LOGGER.error("visibility filter %r of %s returned %r", check, self.path, verdict)
                return False
            if not verdict:
                return False
        return PUBLIC in self.peer_visibility or peer in self.peer_visibility

    @property
    def public_visibility(self) -> bool:
        return PUBLIC in self.peer_visibility

    @public_visibility.setter
    def public_visibility(self, visible: bool) -> None:
        self.set_visibility_for(PUBLIC, visible)

    def get_visibility_for(self, peer: int) -> bool:
        return peer in self.peer_visibility

    def set_visibility_for(self, peer: int, visible: bool) -> None:
        """``set_visibility_for(peer, visible)`` (peer 0: ``public_visibility``): when it
        changes anything, the peers that start seeing the node get SPAWN (its current
        spawn state), those that stop get DESPAWN, at once, as a Godot server sends them."""
        if (peer in self.peer_visibility) == visible:
            return
        if visible:
            self.peer_visibility.add(peer)
        else:
            self.peer_visibility.discard(peer)
        self.update_visibility(peer)

    def add_visibility_filter(self, check: Callable[[int], Any]) -> None:
        """``add_visibility_filter``: ``check(peer)`` must also say True for a peer to see
        the node. As in Godot nothing is sent now: ``SceneMultiplayer.sync`` (one network
        frame) re-checks the nodes with filters first, as Godot's synchronizer does every
        frame, or call :meth:`update_visibility`."""
        if check in self.visibility_filters:
            raise ValueError(f"{check!r} filters {self.path} already")
        self.visibility_filters.append(check)

    def remove_visibility_filter(self, check: Callable[[int], Any]) -> None:
        """``remove_visibility_filter``; like Godot, it re-checks nothing by itself."""
        self.visibility_filters.remove(check)

    def update_visibility(self, peer: int = PUBLIC) -> None:
        """``update_visibility(for_peer)``: bring who holds the node in line with
        :meth:`is_visible_to` for ``peer``, or for every peer (0). Peer 0 is Godot's: it
        asks the filters about peer 0 first, and when they and the node say yes there, it
        spawns the node to every peer that lacks it without asking about each one (and
        despawns nobody); only a no for peer 0 checks each peer on its own."""
        mp = self.spawner.multiplayer
        if self.spawner.nodes.get(self.name) is not self:
            return  # despawned: nothing to update
        peers = mp.peers
        if peer == SERVER:
            return
        if peer != PUBLIC:
            if peer in peers:
                self._show(peer, self.is_visible_to(peer))
            return
        if self.is_visible_to(PUBLIC):
            for each in sorted(peers - self.spawned_to):
                self._show(each, True)
            return
        for each in sorted(peers):
            self._show(each, self.is_visible_to(each))

    def _show(self, peer: int, visible: bool) -> None:
        """SPAWN to ``peer`` if it should hold the node and does not, DESPAWN if the
        reverse; a peer that stops seeing it starts over with deltas (all watched values)."""
        if visible == (peer in self.spawned_to):
            return
        mp = self.spawner.multiplayer
        if visible:
            self.spawned_to.add(peer)
            mp.send_spawn(peer, self)
        else:
            self.spawned_to.discard(peer)
            self.watched.pop(peer, None)
            mp.send_reliable(peer, Despawn(self.net_id))


class Spawner:
    """A client ``MultiplayerSpawner`` at ``path`` whose ``spawn_path`` is ``spawn_path``,
    listing ``scenes`` in the order of its ``_spawnable_scenes``."""

    def __init__(
        self,
        multiplayer: SceneMultiplayer,
        path: str,
        spawn_path: str,
        scenes: Sequence[SpawnableScene],
    ) -> None:
        if len(scenes) > 0xFE:
            raise ValueError("a spawner lists at most 254 scenes (the id is a byte, 255 custom)")
        self.multiplayer, self.path, self.spawn_path = multiplayer, path, spawn_path
        self.scenes = tuple(scenes)
        self.nodes: dict[str, SpawnedNode] = {}
        #: by the scene's ``res://`` path and the method
        self.handlers: dict[tuple[str, str], Callable[..., Any]] = {}

    def on_rpc(
        self, scene: int | str | SpawnableScene, method: str, handler: Callable[..., Any]
    ) -> None:
        """Run ``handler(node, sender, *args)`` when a client calls ``method`` on any node
        spawned from ``scene`` (as the scene's script would run it on each instance). A
        scene that custom spawns build (not in the list) is given as its SpawnableScene."""
        spec = scene if isinstance(scene, SpawnableScene) else self.scenes[self._scene_index(scene)]
        if spec.script is None:
            raise ValueError(f"{spec.path} has no script, so no @rpc functions")
        table = self.multiplayer.script_rpcs(spec.script)
        config = table.config(method, f"handler for {spec.path}")
        if config.mode is RpcMode.AUTHORITY:
            raise ValueError(
                f'{spec.path}: {method} is @rpc("authority") and the server spawns (owns) '
                "the nodes: no client may call it"
            )
        self.handlers[(spec.path, method)] = handler

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
        return self._spawn(index, self.scenes[index], name, values, owner, visible_to, None)

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
        return self._spawn(CUSTOM_SCENE, spec, name, values, owner, visible_to, copy.deepcopy(data))

    def _spawn(
        self,
        index: int,
        spec: SpawnableScene,
        name: str,
        values: Mapping[str, Any] | None,
        owner: int | None,
        visible_to: Iterable[int] | None,
        data: Any,
    ) -> SpawnedNode:
        if (spec.owned is not None) != (owner is not None):
            need = "needs" if spec.owned is not None else "has no owned synchronizer, so no"
            raise ValueError(f"{spec.path or 'the custom node'} {need} owner")
        if not name or any(c in name for c in '.:@/"%'):
            raise ValueError(f"{name!r} is not a valid node name")
        if name in self.nodes:
            raise ValueError(f"{self.spawn_path} already has a spawned child {name!r}")
        if visible_to is not None and spec.synced is None:
            raise ValueError(
                f"{spec.path or 'the custom node'} has no synchronizer of the server's, which "
                "is where Godot keeps visibility: every peer sees it"
            )
        state = spec.synced.new_state(values or {}) if spec.synced is not None else None
        mp = self.multiplayer
        net_id, sync_ids = mp.net_ids.spawn(1 if spec.synced is not None else 0)
        node = SpawnedNode(
            self,
            spec,
            index,
            name,
            net_id,
            sync_ids[0] if sync_ids else None,
            state,
            f"{self.spawn_path}/{name}",
            owner=owner,
            spawn_arg=data,
        )
        if visible_to is not None:
            node.peer_visibility = set(visible_to)
        self.nodes[name] = node
        mp.spawned[net_id] = node
        mp.spawned_at[node.path] = node
        if spec.owned is not None:
            mp.owned_at[f"{node.path}/{spec.owned_synchronizer}"] = node
        if spec.script is not None:
            mp.node(node.path, script=spec.script)
        node.update_visibility(PUBLIC)  # as Godot's spawn does, once the node is ready
        return node

    def despawn(self, node: SpawnedNode) -> None:
        """Free ``node`` on every client (DESPAWN)."""
        if self.nodes.get(node.name) is not node:
            raise ValueError(f"{node.path} is not spawned by {self.path}")
        del self.nodes[node.name]
        mp = self.multiplayer
        del mp.spawned[node.net_id]
        del mp.spawned_at[node.path]
        mp.owned_at.pop(f"{node.path}/{node.scene.owned_synchronizer}", None)
        mp.forget_node(node.path)
        for peer in node.visible_peers(mp.peers):
            mp.send_reliable(peer, Despawn(node.net_id))
        node.spawned_to.clear()

    def _scene_index(self, scene: int | str) -> int:
        if isinstance(scene, int):
            if not 0 <= scene < len(self.scenes):
                raise ValueError(f"{self.path} has no scene {scene}")
            return scene
        for i, spec in enumerate(self.scenes):
            if spec.path == scene:
                return i
        raise ValueError(f"{self.path} does not list {scene!r}")
