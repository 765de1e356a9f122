"""SceneMultiplayer against the packets a Godot 4.6 server sent for the same game
(tests/vectors/multiplayer/api_server.json, recorded with
``python -m tools.record_multiplayer_vectors --api``; api_visibility.json, with
``--visibility``): our server, without sockets, plays the golden script with the recorded
client's packets fed in, and sends the same bytes. tests/live/multiplayer/test_api.py
does the same live, over WebSocket."""

from __future__ import annotations

import asyncio
import json
import struct
from typing import Any

from gdvariant.multiplayer import SceneMultiplayer
from gdvariant.multiplayer.wire import (
    CUSTOM_SCENE,
    Command,
    Spawn,
    decode_scene_packet,
    encode_scene_packet,
)
from tests.support.multiplayer_api_scene import (
    CUSTOM_DATA,
    ENTITY,
    PROJECT,
    RPC,
    SPAWN_PATH,
    SPAWNER,
    golden_script,
    golden_view,
    visibility_script,
)
from tests.support.multiplayer_fake import FakeServer
from tests.support.paths import VECTORS

RECORDING = VECTORS / "multiplayer/api_server.json"
VISIBILITY = VECTORS / "multiplayer/api_visibility.json"


def replay(recording: dict[str, Any], script: str = "calls") -> list[dict[str, Any]]:
    """Our packets for the recorded client, as recorder entries (with its id message);
    ``script`` is the golden script the Godot server played (``calls`` or ``visibility``)."""
    c2s = [bytes.fromhex(p["hex"]) for p in recording["packets"] if p["dir"] == "c2s"]
    peer_id = bytes.fromhex(next(p["hex"] for p in recording["packets"] if p["dir"] == "s2c"))
    peer = struct.unpack("<i", peer_id)[0]
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    mp.node(RPC, script="res://api_rpc.gd")
    spawner = mp.add_spawner(SPAWNER, SPAWN_PATH, [ENTITY])
    spawner.on_rpc(0, "poke", lambda node, sender, n: None)
    server.join(peer)
    pending = iter(c2s)

    async def wait(step: str) -> None:
        """Feed the client's packets up to the one the Godot server waited frames for."""
        for data in pending:
            server.receive(peer, data)
            if step == "confirmed" and data == bytes.fromhex("020101000000"):
                return
            if step == "poked" and data[0] & 7 == Command.REMOTE_CALL and b"E1" in data:
                return
        raise AssertionError(f"the recorded client never got to {step!r}")

    if script == "visibility":
        visibility_script(mp, spawner, peer)
        mp.rpc(0, RPC, "finish")
    else:
        asyncio.run(golden_script(mp, spawner, peer, wait))
    for data in pending:
        server.receive(peer, data)
    sent = [encode_scene_packet(packet) for _, packet in server.take()]
    sent += [data for _, data in server.protocol.data_to_send()]
    return [{"dir": "s2c", "hex": data.hex()} for data in [peer_id, *sent]]


def test_we_send_what_godot_sent() -> None:
    recording = json.loads(RECORDING.read_text())
    assert recording["godot"].startswith("4.6")
    expected = golden_view(recording["packets"])
    auth = [h for h in expected["ordered"] if h.startswith("07")]
    assert auth == [b"\x07\x00letmein".hex(), "0700"]  # the transport's part, not the API's
    expected["ordered"] = [h for h in expected["ordered"] if h not in auth]
    assert golden_view(replay(recording)) == expected
    assert [h[:2] for h in expected["ordered"]] == [
        "01",  # SIMPLIFY_PATH Api/Rpc
        "a0",  # r0() by path: raw (no arguments), 4-byte path offset
        "20",  # r2(7, "seven") by path
        "a0",  # u1(PackedByteArray) by path: raw
        "00",  # r3(...) by id, once confirmed
        "01",  # SIMPLIFY_PATH Api/Spawner
        "04",  # SPAWN
        "16",  # the first delta: every watched property
        "01",  # SIMPLIFY_PATH Api/Entities/E1 (the entity script's checksum)
        "20",  # poke(41) by path
        "16",  # hp
        "16",  # label
        "05",  # DESPAWN
        "80",  # finish(): no arguments, raw flag
    ]


def test_visibility_changes_and_custom_spawns_send_what_godot_sent() -> None:
    """A Godot 4.6 server's synchronizer made invisible, shown to the peer, hidden, public
    again, filtered, and a ``spawn_function`` spawn: SPAWN (today's state) when the peer
    starts seeing the node, DESPAWN when it stops, the next delta with every watched value,
    and the custom SPAWN with scene id 255 and its argument; ours sends the same."""
    recording = json.loads(VISIBILITY.read_text())
    assert recording["godot"].startswith("4.6")
    expected = golden_view(recording["packets"])
    expected["ordered"] = [h for h in expected["ordered"] if not h.startswith("07")]
    assert golden_view(replay(recording, "visibility")) == expected
    assert [h[:2] for h in expected["ordered"]] == [
        "01",  # SIMPLIFY_PATH Api/Spawner
        "04",  # SPAWN V1 (hp 1)
        "16",  # its first delta: hp and label
        "05",  # public_visibility = false: DESPAWN
        "04",  # set_visibility_for(peer, true): SPAWN with hp 2, set while unseen
        "16",  # every watched value again
        "05",  # set_visibility_for(peer, false)
        "04",  # public_visibility = true
        "16",
        "16",  # a filter that says no to the peer, yes to peer 0: the node stays; hp 3
        "05",  # a filter that says no to all
        "04",  # ... then yes
        "16",
        "05",  # despawn
        "04",  # the custom spawn
        "16",
        "05",
        "01",  # SIMPLIFY_PATH Api/Rpc
        "a0",  # finish() by path: raw (no arguments)
    ]
    spawns = [decode_scene_packet(bytes.fromhex(h)) for h in expected["ordered"] if h[:2] == "04"]
    assert all(isinstance(s, Spawn) for s in spawns)
    assert [(s.name, s.scene_id, s.state[2]) for s in spawns] == [  # type: ignore[union-attr]
        ("V1", 0, 1),
        ("V1", 0, 2),
        ("V1", 0, 2),
        ("V1", 0, 3),
        ("C1", CUSTOM_SCENE, 7),
    ]
    assert spawns[-1].spawn_arg == CUSTOM_DATA  # type: ignore[union-attr]
