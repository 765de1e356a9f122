"""SceneMultiplayer against the packets a Godot 4.6 server sent for the same game
(tests/vectors/multiplayer/api_server.json, recorded with
``python tools/record_multiplayer_vectors.py --api``): our server, without sockets, plays
the golden script with the recorded client's packets fed in, and sends the same bytes.
tests/test_engine_multiplayer_api.py does the same live, over WebSocket."""

from __future__ import annotations

import asyncio
import json
import struct
from pathlib import Path
from typing import Any

from multiplayer_api_scene import (
    ENTITY,
    PROJECT,
    RPC,
    SPAWN_PATH,
    SPAWNER,
    golden_script,
    golden_view,
)
from multiplayer_fake import FakeServer

from gdvariant.multiplayer import Command, SceneMultiplayer, encode_packet

RECORDING = Path(__file__).parent / "vectors/multiplayer/api_server.json"


def replay(recording: dict[str, Any]) -> list[dict[str, Any]]:
    """Our packets for the recorded client, as recorder entries (with its id message)."""
    c2s = [bytes.fromhex(p["hex"]) for p in recording["packets"] if p["dir"] == "c2s"]
    peer_id = bytes.fromhex(next(p["hex"] for p in recording["packets"] if p["dir"] == "s2c"))
    peer = struct.unpack("<i", peer_id)[0]
    server = FakeServer()
    mp = SceneMultiplayer(server, project=PROJECT)
    mp.node(RPC, script="res://api_rpc.gd", node_rpcs=["hey"])
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

    asyncio.run(golden_script(mp, spawner, peer, wait))
    for data in pending:
        server.receive(peer, data)
    sent = [encode_packet(packet) for _, packet in server.take()]
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
