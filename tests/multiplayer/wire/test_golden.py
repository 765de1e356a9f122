"""SceneMultiplayer packets recorded from a real Godot 4.6 (tools/record_multiplayer_vectors.py).

A headless server and two clients ran ``tests/live/multiplayer/game``; a WebSocket proxy recorded
every message. Each packet must decode, and encode back to the engine's exact bytes; the
decoded fields must be what the scene did (its scripts, its RPC names, its printed logs).
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from typing import Any

import pytest

from gdvariant import StringName, Vector2
from gdvariant.multiplayer.wire import (
    CUSTOM_SCENE,
    NODE_RPC_FLAG,
    AddPeer,
    Auth,
    ConfirmPath,
    DelPeer,
    DeltaSync,
    Despawn,
    Packet,
    Raw,
    Relay,
    RemoteCall,
    SimplifyPath,
    Spawn,
    Sync,
    decode_scene_packet,
    encode_scene_packet,
    is_path_net_id,
    rpc_checksum,
    rpc_method_ids,
)
from tests.support.paths import VECTORS

SESSION = json.loads((VECTORS / "multiplayer/session.json").read_text(encoding="utf-8"))
# The @rpc functions of tests/live/multiplayer/game/player.gd and main.gd, read from the scripts.
PLAYER_RPCS = [
    "take_damage", "set_input", "play_anim", "ping", "blob", "many", "values", "fast", "ordered",
]  # fmt: skip
MAIN_RPCS = ["server_msg", "client_msg", "hello", "broadcast_msg"]
MAIN_NODE_RPCS = ["dyn_call"]
CROWD_RPCS = [f"r{i:03d}" for i in range(300)]  # crowd.gd


def _split() -> tuple[dict[str, int], list[tuple[int, str, str, bytes]]]:
    """The peer id each client was given, and every later packet as (index, client, dir, bytes)."""
    ids: dict[str, int] = {}
    packets = []
    for index, record in enumerate(SESSION["packets"]):
        data = bytes.fromhex(record["hex"])
        if record["dir"] == "s2c" and record["client"] not in ids:
            assert len(data) == 4, "the first server message is the 4-byte peer id"
            ids[record["client"]] = int.from_bytes(data, "little")
        else:
            packets.append((index, record["client"], record["dir"], data))
    return ids, packets


IDS, PACKETS = _split()
DECODED: list[tuple[str, str, Packet]] = [(c, d, decode_scene_packet(b)) for _, c, d, b in PACKETS]


def _of(kind: type[Any], client: str | None = None, direction: str | None = None) -> list[Any]:
    return [
        p
        for c, d, p in DECODED
        if isinstance(p, kind) and client in (None, c) and direction in (None, d)
    ]


def test_recorded_by_godot_46() -> None:
    assert SESSION["godot"].startswith("4.6")
    assert len(PACKETS) > 800


def test_every_packet_round_trips_byte_for_byte() -> None:
    failures = [
        f"#{index} {client} {direction} {data.hex()}"
        for index, client, direction, data in PACKETS
        if encode_scene_packet(decode_scene_packet(data)) != data
    ]
    assert not failures, "\n".join(failures[:10])


def test_every_command_is_covered() -> None:
    kinds = {type(p) for _, _, p in DECODED}
    expected = {RemoteCall, SimplifyPath, ConfirmPath, Raw, Spawn, Despawn, Sync, DeltaSync}
    assert kinds >= expected | {Auth, AddPeer, DelPeer, Relay}
    widths = {(p.path is not None, p.node_id_size) for p in _of(RemoteCall)}
    assert widths >= {(True, 0), (False, 0), (False, 4)}
    metas = {data[0] for _, _, _, data in PACKETS if data[0] & 7 == 0}
    # u8/u16/u32-with-path node targets, u8/u16 method ids, raw and not
    assert metas >= {0x00, 0x10, 0x20, 0x40, 0x50, 0x60, 0xA0}
    assert {len(p.args) for p in _of(RemoteCall)} >= {0, 1, 2, 8}


def test_peer_ids_match_the_server_log() -> None:
    server_log = SESSION["logs"]["server"]
    for client, peer in IDS.items():
        assert peer >= 2
        assert f"peer_connected {peer}" in server_log, client


def test_auth_exchange() -> None:
    for client in IDS:
        assert _of(Auth, client, "c2s") == [Auth(b"hi"), Auth(b"")]
        assert _of(Auth, client, "s2c") == [Auth(b"ok"), Auth(b"")]


def test_checksums_are_the_md5_of_the_sorted_rpc_names() -> None:
    checksums = {p.path.split("/")[-1]: p.checksum for p in _of(SimplifyPath)}
    assert checksums["Main"] == rpc_checksum(MAIN_RPCS, MAIN_NODE_RPCS)
    assert checksums[str(IDS["A"])] == rpc_checksum(PLAYER_RPCS)
    assert checksums["PlayerSpawner"] == "d41d8cd98f00b204e9800998ecf8427e"


def test_method_ids_follow_the_sorted_names() -> None:
    player, main = rpc_method_ids(PLAYER_RPCS), rpc_method_ids(MAIN_RPCS, MAIN_NODE_RPCS)
    calls = {(p.path, p.method_id): p.args for p in _of(RemoteCall, "A", "s2c") if p.path}
    me = f"Main/Players/{IDS['A']}"
    assert calls[me, player["take_damage"]] == (10,)
    assert calls[me, player["ping"]] == ()
    assert calls[me, player["blob"]] in ((b"\xde\xad",), ())
    assert calls[me, player["many"]] == (1, -1, 128, 40000, 5000000000, 0.5, 0.1, True)
    assert calls[me, player["fast"]] == (3,)
    assert calls[me, player["ordered"]] == (-40000,)
    assert calls["Main", main["server_msg"]] == ("hello",)
    assert calls["Main", main["dyn_call"]] == (42,)
    assert main["dyn_call"] == NODE_RPC_FLAG
    set_input = [p for p in _of(RemoteCall, "A", "c2s") if p.method_id == player["set_input"]]
    assert [p.args for p in set_input] == [(Vector2(1, 0),), (Vector2(0, -1),)]


def test_spawns_carry_the_state_the_client_printed() -> None:
    spawn = _of(Spawn, "A", "s2c")[0]
    assert spawn.name == str(IDS["A"])
    assert spawn.sync_ids == (spawn.net_id + 1,)
    assert spawn.state == (Vector2(100, 200), 100, f"P{IDS['A']}")
    ready = f"READY {IDS['A']} position=(100.0, 200.0) health=100 label=P{IDS['A']}"
    assert ready in SESSION["logs"]["A"]
    custom = [p for p in _of(Spawn) if p.scene_id == CUSTOM_SCENE]
    assert custom and all(p.spawn_arg == {"dir": Vector2(1, 0), "speed": 3.5} for p in custom)
    assert all(p.sync_ids == () and p.state == () for p in custom)


def test_despawns_name_spawned_nodes() -> None:
    spawned = {p.net_id for p in _of(Spawn, "A", "s2c")}
    assert {p.net_id for p in _of(Despawn, "A", "s2c")} == spawned


def test_sync_times_count_up_per_peer() -> None:
    # The time advances every frame a peer has a synchronizer to consider, sent or not: it
    # skips while only synchronizers with a replication_interval are due, and a client's
    # first SYNC may be later than 1 (its path was not confirmed). A frame whose states do
    # not fit in 1350 bytes is sent as several packets with the same time.
    for client in IDS:
        for direction in ("s2c", "c2s"):
            times = [p.time for p in _of(Sync, client, direction)]
            assert times and all(b >= a for a, b in itertools.pairwise(times))
            assert times[0] == 1 if direction == "s2c" else times[0] >= 1
            steps = {b - a for a, b in itertools.pairwise(times)}
            assert 1 in steps


def test_first_delta_sends_every_watched_property() -> None:
    first = _of(DeltaSync, "A", "s2c")[0].states[0]
    assert (first.mask, first.values) == (0b11, (100, 1.5))
    static = [s for p in _of(DeltaSync, "A", "s2c") for s in p.states if is_path_net_id(s.net_id)]
    assert static and static[0].values == (0,)


def test_peers_learn_of_each_other_and_relay() -> None:
    assert _of(AddPeer, "A", "s2c") == [AddPeer(IDS["B"])]
    assert _of(AddPeer, "B", "s2c") == [AddPeer(IDS["A"])]
    assert _of(DelPeer, "A", "s2c") == [DelPeer(IDS["B"])]
    sent: dict[str, list[bytes]] = defaultdict(list)
    for client, direction, packet in DECODED:
        if isinstance(packet, Relay) and direction == "c2s" and packet.peer > 0:
            sent[client].append(packet.packet)
    forwarded = [p.packet for p in _of(Relay, "A", "s2c") if p.peer == IDS["B"]]
    assert sent["B"] and all(inner in forwarded for inner in sent["B"])
    assert Relay(0, b"\x03\x06") in _of(Relay, "B", "c2s")


@pytest.mark.parametrize("client", ["A", "B"])
def test_confirms_answer_simplifies(client: str) -> None:
    sent = {p.cache_id for p in _of(SimplifyPath, client, "s2c")}
    confirmed = {p.cache_id for p in _of(ConfirmPath, client, "c2s")}
    assert confirmed == sent
    assert all(p.valid for p in _of(ConfirmPath))


def test_crowd_calls_use_16_bit_ids() -> None:
    crowd = rpc_method_ids(CROWD_RPCS)
    simplified = {p.path: p.cache_id for p in _of(SimplifyPath, "A", "s2c")}
    members = {f"Main/Crowd/N{i}": i for i in range(260)}
    assert {p for p in simplified if p in members} == set(members)
    checksums = {p.checksum for p in _of(SimplifyPath, "A", "s2c") if p.path in members}
    assert checksums == {rpc_checksum(CROWD_RPCS)}
    by_id = {cache_id: members[path] for path, cache_id in simplified.items() if path in members}
    compressed = [p for p in _of(RemoteCall, "A", "s2c") if p.path is None and p.node_id in by_id]
    r299 = [p for p in compressed if p.method_id == crowd["r299"] and p.node_id > 255]
    assert crowd["r299"] == 299 and crowd["r007"] == 7
    assert len(r299) == 8
    assert all(p.args == (-by_id[p.node_id],) for p in r299)
    r007 = [p for p in compressed if p.method_id == crowd["r007"]]
    assert [p.args for p in r007] == [(StringName(f"N{by_id[p.node_id]}"),) for p in r007]


def test_websocket_handshakes() -> None:
    # What a Godot 4.6 client sends, and what a Godot 4.6 server answers (spec note 2.1).
    for shake in SESSION["handshakes"].values():
        path, *request = shake["godot_client_request"]
        assert path == "/"
        assert [name for name, _ in request] == [
            "Host",
            "Upgrade",
            "Connection",
            "Sec-WebSocket-Key",
            "Sec-WebSocket-Version",
        ]
        assert dict(request)["Sec-WebSocket-Version"] == "13"
        status, *response = shake["godot_server_response"]
        assert status == "101 Switching Protocols"
        assert [(n, v) for n, v in response if n != "Sec-WebSocket-Accept"] == [
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
        ]
    assert not any(p.get("text") for p in SESSION["packets"])  # binary messages only


def test_sync_packets_split_at_1350_and_skip_oversized_states() -> None:
    # Big holds 1400 bytes, Half1-3 600 each (main.tscn): max_sync_packet_size is 1350.
    paths = {
        p.cache_id | 0x80000000: p.path.split("/")[1]
        for p in _of(SimplifyPath, "A", "s2c")
        if p.path.endswith("/Sync")
    }
    times: dict[int, list[tuple[int, list[str]]]] = defaultdict(list)
    for client, direction, packet in DECODED:
        if (client, direction) == ("A", "s2c") and isinstance(packet, Sync):
            names = [paths.get(s.net_id, "player") for s in packet.states]
            times[packet.time].append((len(encode_scene_packet(packet)), names))
    blobs = {t: parts for t, parts in times.items() if any("Half1" in n for _, n in parts)}
    assert len(blobs) >= 3
    for parts in blobs.values():
        assert len(parts) == 2  # one frame, two packets with the same time
        assert all(size <= 1350 for size, _ in parts)
        assert parts[0][1] == ["Half1", "Half2"] and parts[1][1][0] == "Half3"
    assert not any("Big" in names for parts in times.values() for _, names in parts)
