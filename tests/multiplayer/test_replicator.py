"""Spawning and visibility without sockets (gdvariant.multiplayer._replicator): what a
spawner refuses, how its scenes' RPC handlers are found, how watched values are judged, who
sees a spawned node as its visibility changes, and custom (``spawn_function``) spawns. The
packets a spawn and a sync send through SceneMultiplayer are in tests/multiplayer/test_scene.py."""

from __future__ import annotations

import logging
import sys
import weakref
from types import FrameType
from typing import Any

import pytest

from gdvariant import EncodeError, Vector2, Vector2i
from gdvariant.multiplayer import (
    SceneMultiplayer,
    SpawnableScene,
    _pysync,
    _replicator,
    _scene,
    synced_class,
)
from gdvariant.multiplayer.wire import (
    CUSTOM_SCENE,
    DeltaState,
    DeltaSync,
    Despawn,
    RemoteCall,
    SimplifyPath,
    Spawn,
    Sync,
    SyncState,
    decode_scene_packet,
)
from gdvariant.replication import Float32, Int, NetClass, Prop, Vec2
from tests.support.multiplayer_api_scene import ENTITY, PROJECT
from tests.support.multiplayer_fake import FakeServer

PUBLIC = _replicator.PUBLIC

#: a scene with no script and no synchronizer: the spawner's bookkeeping alone
PLAIN = SpawnableScene("res://plain.tscn")


def test_spawner_refuses_strangers_and_bad_names() -> None:
    server = FakeServer()
    spawner = SceneMultiplayer(server).add_spawner("Main/Spawner", "Main/Mobs", [PLAIN])
    server.join(5)
    node = spawner.spawn(0, "M")
    with pytest.raises(ValueError, match="already has a spawned child 'M'"):
        spawner.spawn(0, "M")
    spawner.despawn(node)
    assert server.take()[-1] == (5, Despawn(node.net_id))
    with pytest.raises(ValueError, match="not spawned"):
        spawner.despawn(node)
    with pytest.raises(ValueError, match="does not list"):
        spawner.spawn("res://other.tscn", "X")
    with pytest.raises(ValueError, match="has no scene 1"):
        spawner.spawn(1, "X")
    for name in ("", "a/b", "a:b", "a.b", "a@b", 'a"b', "a%b"):
        with pytest.raises(ValueError, match="not a valid node name"):
            spawner.spawn(0, name)
    with pytest.raises(ValueError, match="has no owned synchronizer, so no owner"):
        spawner.spawn(0, "Owned", owner=5)


def test_a_spawned_node_keeps_its_state_in_the_object_itself() -> None:
    """``node.state``, read for every node every tick, sits in the node's own memory (a
    slot) and not in its ``__dict__``; other attributes and weak references still work."""
    server = FakeServer()
    spawner = SceneMultiplayer(server, project=PROJECT).add_spawner(
        "Main/Spawner", "Main/Mobs", [ENTITY]
    )
    server.join(5)
    node = spawner.spawn(0, "M", {"position": Vector2(1, 2)})
    assert type(vars(type(node))["state"]).__name__ == "member_descriptor"
    assert "state" not in vars(node)
    assert node.state.position == Vector2(1, 2)
    setattr(node, "note", "kept")  # noqa: B010 (a game's own attribute: to the __dict__)
    assert vars(node)["note"] == "kept"
    assert weakref.ref(node)() is node


def test_scene_handlers_serve_every_spawned_instance() -> None:
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    spawner = mp.add_spawner("Api/Spawner", "Api/Entities", [ENTITY, PLAIN])
    pokes: list[tuple[str, int, int]] = []
    spawner.on_rpc(ENTITY.path, "poke", lambda node, peer, n: pokes.append((node.name, peer, n)))
    with pytest.raises(ValueError, match="'nope' is not an @rpc method"):
        spawner.on_rpc(0, "nope", print)
    with pytest.raises(ValueError, match="has no script"):
        spawner.on_rpc(PLAIN.path, "poke", print)
    server.join(5)
    spawner.spawn(0, "A")
    spawner.spawn(0, "B")
    server.deliver(5, RemoteCall(0, (1,), path="Api/Entities/B"))
    server.deliver(5, RemoteCall(0, (2,), path="Api/Entities/A"))
    assert pokes == [("B", 5, 1), ("A", 5, 2)]


def _kinds(server: FakeServer) -> list[tuple[int, str]]:
    """The packets sent since the last call, as (peer, kind), SIMPLIFY_PATHs left out."""
    sent = server.take()
    return [(peer, type(p).__name__) for peer, p in sent if not isinstance(p, SimplifyPath)]


def test_visibility_changes_spawn_and_despawn_per_peer() -> None:
    """``public_visibility`` and ``set_visibility_for`` after the spawn: a peer that starts
    seeing the node gets SPAWN with today's state at once, one that stops gets DESPAWN;
    syncs, deltas and RPCs follow who holds the node (as a Godot 4.6 server, in
    tests/vectors/multiplayer/api_visibility.json)."""
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    spawner = mp.add_spawner("Api/Spawner", "Api/Entities", [ENTITY])
    server.join(5)
    server.join(6)
    node = spawner.spawn(0, "A", {"hp": 1})
    assert _kinds(server) == [(5, "Spawn"), (6, "Spawn")]
    node.public_visibility = False
    assert not node.public_visibility and _kinds(server) == [(5, "Despawn"), (6, "Despawn")]
    node.state.hp = 2
    mp.sync()
    assert server.take() == []  # nobody holds it
    node.set_visibility_for(5, True)
    assert node.get_visibility_for(5) and not node.get_visibility_for(6)
    sent = server.take()
    assert [(peer, type(p).__name__) for peer, p in sent] == [(5, "Spawn")]
    spawn = sent[0][1]
    assert isinstance(spawn, Spawn) and spawn.net_id == node.net_id and spawn.state[2] == 2
    mp.sync()
    deltas = [p for peer, p in server.take() if isinstance(p, DeltaSync)]
    assert deltas == [DeltaSync((DeltaState(2, 0b11, (2, "")),))]  # every watched value
    with pytest.raises(ValueError, match="peer 6 cannot see Api/Entities/A"):
        mp.rpc(6, node.path, "poke", 1)
    mp.rpc(0, node.path, "poke", 1)
    assert _kinds(server) == [(5, "RemoteCall")]
    node.set_visibility_for(5, True)  # no change: nothing sent
    node.set_visibility_for(6, True)
    node.set_visibility_for(5, False)
    assert _kinds(server) == [(6, "Spawn"), (5, "Despawn")]
    node.set_visibility_for(1, True)  # the server's own id: no packet
    assert server.take() == []
    spawner.despawn(node)
    assert _kinds(server) == [(6, "Despawn")]
    node.set_visibility_for(5, True)  # despawned: nothing to update
    assert server.take() == []


def test_visibility_filters_are_rechecked_each_frame() -> None:
    """Filters act at the next ``sync()`` (Godot: the next frame) or ``update_visibility``;
    for every peer at once Godot asks about peer 0 first, and a yes there spawns to all
    and despawns nobody. A peer that joins is asked about on its own."""
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    spawner = mp.add_spawner("Api/Spawner", "Api/Entities", [ENTITY])
    server.join(5)
    server.join(6)
    node = spawner.spawn(0, "A", visible_to=[5, 6])
    server.take()
    node.add_visibility_filter(lambda peer: peer != 6)
    assert server.take() == []  # nothing until the frame
    mp.sync()
    assert _kinds(server)[:1] == [(6, "Despawn")]
    with pytest.raises(ValueError, match="filters Api/Entities/A already"):
        node.add_visibility_filter(node.visibility_filters[0])
    node.public_visibility = True  # asked about peer 0: yes, so 6 gets it back
    assert _kinds(server) == [(6, "Spawn")]
    mp.sync()
    assert all(kind != "Despawn" for _, kind in _kinds(server))
    server.join(7)  # asked about 7 alone: the filter says yes
    assert _kinds(server) == [(7, "Spawn")]
    node.remove_visibility_filter(node.visibility_filters[0])
    verdicts: dict[int, object] = {0: False, 5: True, 6: "yes", 7: True}
    node.add_visibility_filter(lambda peer: verdicts[peer])  # not a bool: a no
    node.update_visibility()
    assert _kinds(server) == [(6, "Despawn")]
    node.remove_visibility_filter(node.visibility_filters[0])
    node.add_visibility_filter(lambda peer: 1 / peer > 0.15)  # raises for 0: a no
    node.update_visibility()
    assert _kinds(server) == [(6, "Spawn"), (7, "Despawn")]  # 1/6 > 0.15 > 1/7
    assert node.spawned_to == {5, 6}


def test_a_peer_that_leaves_no_longer_holds_anything() -> None:
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    spawner = mp.add_spawner("Api/Spawner", "Api/Entities", [ENTITY])
    server.join(5)
    node = spawner.spawn(0, "A")
    server.disconnect_peer(5)
    assert server.listener is not None
    server.listener.peer_disconnected(5)
    assert node.spawned_to == set()


def test_the_frame_reads_a_tuple_of_the_holders_kept_at_every_change() -> None:
    """A record's holders are a tuple the replicator makes again wherever the node's holders
    change (spawn, visibility set per peer and public, a filter at the frame, a peer that
    joins or leaves, despawn): the frame reads it, and it always names who holds the node."""
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    spawner = mp.add_spawner("Api/Spawner", "Api/Entities", [ENTITY])
    roster = mp._replicator._roster
    server.join(5)
    nodes = [spawner.spawn(0, "A"), spawner.spawn(0, "B", visible_to=[6])]

    def check() -> None:
        for node in nodes:
            held = roster[node.net_id][_pysync.HOLDERS]
            assert isinstance(held, tuple) and len(set(held)) == len(held)
            assert set(held) == node.spawned_to, node

    check()
    server.join(6)
    server.join(7)
    check()
    nodes[0].set_visibility_for(PUBLIC, False)
    nodes[0].set_visibility_for(7, True)
    nodes[1].set_visibility_for(PUBLIC, True)
    check()
    nodes[1].add_visibility_filter(lambda peer: peer != 6)
    nodes[1].update_visibility(6)  # 6 alone asked: it stops holding the node
    check()
    assert nodes[1].spawned_to == {5, 7}
    mp.sync()  # peer 0 asked: a yes spawns it to every peer again, 6 too (Godot's rule)
    check()
    server.disconnect_peer(7)
    assert server.listener is not None
    server.listener.peer_disconnected(7)
    check()
    assert roster[nodes[0].net_id][_pysync.HOLDERS] == ()  # 7 held it alone
    spawner.despawn(nodes[1])
    assert nodes[1].net_id not in roster


def test_custom_spawns_carry_their_data() -> None:
    """``spawn_custom`` is a Godot server's ``spawner.spawn(data)``: scene id 255, the data
    as the argument (a later joiner gets it as it was), the described node's state; RPC
    handlers of a scene outside the list are registered by its SpawnableScene."""
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    spawner = mp.add_spawner("Api/Spawner", "Api/Entities", [PLAIN])
    pokes: list[tuple[str, int]] = []
    spawner.on_rpc(ENTITY, "poke", lambda node, peer, n: pokes.append((node.name, n)))
    server.join(5)
    data = ["C1", 7, "made"]
    node = spawner.spawn_custom(data, "C1", ENTITY, {"hp": 7, "label": "made"})
    data.append("later")
    sent = [p for _, p in server.take() if isinstance(p, Spawn)]
    assert sent == [Spawn(1, 1, "C1", (2,), (Vector2(0, 0), 0.0, 7, "made"), 255, data[:3])]
    assert sent[0].encode() == decode_scene_packet(sent[0].encode()).encode()
    server.join(6)
    assert [p.spawn_arg for _, p in server.take() if isinstance(p, Spawn)] == [data[:3]]
    server.deliver(5, RemoteCall(0, (3,), path=node.path))
    assert pokes == [("C1", 3)]
    bare = spawner.spawn_custom({"kind": "rock"}, "Rock")  # builds a node with no synchronizer
    assert [(p.sync_ids, p.state) for _, p in server.take() if isinstance(p, Spawn)] == [
        ((), ()),
        ((), ()),
    ]
    assert bare.scene_id == CUSTOM_SCENE
    with pytest.raises(EncodeError, match="cannot encode"):
        spawner.spawn_custom(object(), "Bad")
    assert "Bad" not in spawner.nodes
    with pytest.raises(ValueError, match="where Godot keeps visibility"):
        spawner.spawn_custom(1, "Hidden", visible_to=[5])


class Mover(NetClass):
    position = Prop(Vec2(Float32()), hot=True)
    hp = Int(16)


class Quiet(NetClass):
    """Only ON_CHANGE values: a frame sends nothing of it while they stay the same."""

    hp = Int(16)


def _lines_of_one_sync(peers: int, idle: int) -> int:
    """The Python lines the scene and the replicator run in one ``sync()`` (the frame's own
    loop aside) of a world of ``peers`` peers and ``idle`` nodes nobody holds, besides
    one node with a visibility filter and one that moves, seen by one peer."""
    server = FakeServer()
    mp = SceneMultiplayer(server)
    scenes = [SpawnableScene("res://mover.tscn", synced_class(Mover))]
    scenes.append(SpawnableScene("res://quiet.tscn", synced_class(Quiet)))
    spawner = mp.add_spawner("Main/Spawner", "Main/Nodes", scenes)
    for peer in range(2, 2 + peers):
        server.join(peer)
    mover = spawner.spawn(0, "Mover", visible_to=[2])
    spawner.spawn(1, "Filtered").add_visibility_filter(lambda peer: True)
    for i in range(idle):
        spawner.spawn(0, f"Idle{i}", visible_to=[])
    mp.sync()
    files = {_replicator.__file__, _scene.__file__}
    lines = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        if frame.f_code.co_filename not in files:
            return None
        lines += event == "line"
        return trace

    mover.state.position = Vector2(1, 2)
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        mp.sync()
    finally:
        sys.settrace(previous)
    assert [type(p).__name__ for _, p in server.take()][-1] == "Sync"
    return lines


def test_a_frame_does_no_work_for_idle_nodes_and_peers() -> None:
    """What one frame runs outside the frame's loop does not grow with the nodes nobody
    holds, nor with the peers that get nothing: no scan of every node for visibility
    filters, no per-peer tables, no copy of the peers (counted in lines run, not timed)."""
    assert _lines_of_one_sync(2, 10) == _lines_of_one_sync(40, 300)


class Aim(NetClass):
    aim = Prop(Vec2(Float32()), hot=True)
    presses = Int(32)


HERO = SpawnableScene("res://hero.tscn", owned=synced_class(Aim, spawn=()))
HERO_SYNC = 0x80000007


def test_an_owner_that_syncs_values_of_the_wrong_type_is_refused_and_nothing_kept(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Found reading the receive path: an owner's SYNC and delta values were kept as sent,
    whatever their type, so a hostile owner put a String, a huge Array or a number past its
    codec into ``owned_values`` and ``synchronized``. Each value is now checked against its
    property's type: a packet with one that is not is refused as every bad packet is (the
    peer log's line, ``packet_refused``), and nothing of it is kept, passed on or sent."""
    server = FakeServer()
    mp = SceneMultiplayer(server)
    mp.peer_log._clock = lambda: 0.0  # one second of the log's budget for the whole test
    spawner = mp.add_spawner("Main/Spawner", "Main/Heroes", [HERO])
    seen: list[dict[str, Any]] = []
    refused: list[tuple[int, str]] = []
    mp.synchronized.connect(lambda node, changed: seen.append(changed))
    mp.packet_refused.connect(lambda peer, why: refused.append((peer, why)))
    server.join(5)
    server.join(6)
    hero = spawner.spawn(0, "5", owner=5)
    server.receive(5, SimplifyPath(7, "Main/Heroes/5/OwnerSynchronizer", "").encode())
    server.receive(5, Sync(1, (SyncState(HERO_SYNC, (Vector2(1, 2),)),)).encode())
    server.take()
    server.protocol.data_to_send()
    hostile: list[Sync | DeltaSync] = [
        Sync(2, (SyncState(HERO_SYNC, ("aim",)),)),  # a String for a Vector2
        Sync(3, (SyncState(HERO_SYNC, ([0.0] * 20_000,)),)),  # a huge Array
        Sync(4, (SyncState(HERO_SYNC, (None,)),)),
        DeltaSync((DeltaState(HERO_SYNC, 1, (1 << 40,)),)),  # an int past Int(32)
        DeltaSync((DeltaState(HERO_SYNC, 1, (Vector2(1, 1),)),)),
        DeltaSync((DeltaState(HERO_SYNC, 1, ("12",)),)),  # Godot would parse it: refused
        # a good state, then a bad one: nothing of the packet is kept
        Sync(5, (SyncState(HERO_SYNC, (Vector2(5, 5),)), SyncState(HERO_SYNC, (7,)))),
    ]
    with caplog.at_level("DEBUG", logger="gdvariant.multiplayer"):
        for packet in hostile:
            server.receive(5, packet.encode())
    assert hero.owned_values == {"aim": Vector2(1, 2)} and len(seen) == 1
    assert 5 in server.peers  # refused, not disconnected: as Godot, and as refused RPCs
    assert [peer for peer, _ in refused] == [5] * len(hostile)
    assert all(" is no value of " in why or " is outside " in why for _, why in refused)
    assert server.take() == [] and server.protocol.data_to_send() == []
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == mp.peer_log.per_peer  # the rest counted, not written
    assert all(not r.exc_info and "refused a packet from peer 5" in r.getMessage() for r in lines)
    caplog.clear()
    mp.peer_log.flush()
    assert caplog.messages == [
        f"... and {len(hostile) - mp.peer_log.per_peer} more from peer 5 in the last second"
    ]
    # What Godot converts is kept converted: a Vector2i as a Vector2, 2.9 as the int 2.
    server.receive(5, Sync(6, (SyncState(HERO_SYNC, (Vector2i(3, 4),)),)).encode())
    server.receive(5, DeltaSync((DeltaState(HERO_SYNC, 1, (2.9,)),)).encode())
    assert hero.owned_values == {"aim": Vector2(3, 4), "presses": 2}
    assert type(hero.owned_values["aim"]) is Vector2 and type(hero.owned_values["presses"]) is int
    assert seen[1:] == [{"aim": Vector2(3, 4)}, {"presses": 2}]
