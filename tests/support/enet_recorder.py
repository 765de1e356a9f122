"""Record what a real Godot 4.6 ENetMultiplayerPeer server sends (tests/live/multiplayer/game).

The project runs as a headless ENet server; a bare pyenet client joins it as a Godot client
would (its id as the CONNECT data, 255 channels), authenticates with "hi", confirms every
path the server simplifies and completes the session, keeping each packet the server sends
with its ENet channel and flags as the receiver sees them. Two more clients ask for ids the
server must refuse (1, and the first client's), and try to authenticate. Used by
tools/record_multiplayer_vectors.py --enet and tests/live/multiplayer/test_enet.py.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import socket
from typing import Any

import enet

from gdvariant.multiplayer import TransferMode
from gdvariant.multiplayer.wire import (
    ConfirmPath,
    RemoteCall,
    SimplifyPath,
    decode_scene_packet,
    encode_scene_packet,
    rpc_method_ids,
)
from tests.support.engines import Engine
from tests.support.multiplayer_recorder import PROJECT, free_port, run_godot

SERVER_SECONDS = 3.0
AUTH = b"\x07\x00"
#: tests/live/multiplayer/game/player.gd's @rpc methods: "fast" is unreliable, "ordered" is
#: unreliable_ordered on transfer channel 1; the others are reliable on channel 0.
PLAYER_RPCS = rpc_method_ids(
    ["take_damage", "set_input", "play_anim", "ping", "blob", "many", "values", "fast", "ordered"]
)
PLAYER_MODES = {
    PLAYER_RPCS["fast"]: (TransferMode.UNRELIABLE, 0),
    PLAYER_RPCS["ordered"]: (TransferMode.UNRELIABLE_ORDERED, 1),
}


def _answer(data: bytes) -> bytes | None:
    """What a Godot client sends back: its auth completion, and a CONFIRM_PATH per path."""
    if data == AUTH:
        return AUTH
    if data[:1] == b"\x01":
        simplify = decode_scene_packet(data)
        assert isinstance(simplify, SimplifyPath)
        return encode_scene_packet(ConfirmPath(True, simplify.cache_id))
    return None


async def wait_udp_listening(port: int) -> None:
    """Until something holds UDP ``port``: a datagram to a closed port comes back as
    "connection refused". ENet drops the 1-byte probe as too short to be a command."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("127.0.0.1", port))
        probe.setblocking(False)
        for _ in range(400):
            try:
                probe.send(b"?")
                await asyncio.sleep(0.05)
                probe.recv(1)
            except ConnectionRefusedError:
                continue
            except BlockingIOError:
                return
        raise RuntimeError(f"the Godot server never listened on UDP {port}")


async def record(
    engine: Engine, inside: str, peer_id: int
) -> tuple[list[dict[str, Any]], list[str], str]:
    port = free_port()
    server = asyncio.create_task(
        run_godot(engine, inside, ["server", str(port), str(SERVER_SECONDS), "enet"])
    )
    await wait_udp_listening(port)
    address = enet.Address("127.0.0.1", port)
    host = enet.Host(None, 1, 0, 0, 0)
    peer = host.connect(address, 255, peer_id)
    packets: list[dict[str, Any]] = []
    intruders: list[tuple[enet.Host, enet.Peer]] = []
    intruded: list[str] = []
    while not server.done():
        for other, other_peer in intruders:
            _intrude(other, other_peer, intruded)
        event = host.service(0, True)
        if event is None:
            await asyncio.sleep(0.002)
            continue
        if event.type == enet.EVENT_TYPE_DISCONNECT:
            break
        reply = None
        if event.type == enet.EVENT_TYPE_CONNECT:
            reply = AUTH + b"hi"
            # Once we hold our id, two clients Godot must refuse: id 1 and ours again.
            for bad_id in (1, peer_id):
                other = enet.Host(None, 1, 0, 0, 0)
                intruders.append((other, other.connect(address, 255, bad_id)))
        elif event.type == enet.EVENT_TYPE_RECEIVE:
            data = event.packet.data
            packets.append(
                {"channel": event.channelID, "flags": event.packet.flags, "hex": data.hex()}
            )
            reply = _answer(data)
        if reply is not None:
            peer.send(0, enet.Packet(reply, enet.PACKET_FLAG_RELIABLE))
            host.flush()
    return packets, intruded, await server


def _intrude(host: enet.Host, peer: enet.Peer, seen: list[str]) -> None:
    """Service a client Godot should refuse: it tries to authenticate; note what it gets."""
    while (event := host.service(0, True)) is not None:
        if event.type == enet.EVENT_TYPE_CONNECT:
            peer.send(0, enet.Packet(AUTH + b"hi", enet.PACKET_FLAG_RELIABLE))
            host.flush()
        elif event.type == enet.EVENT_TYPE_RECEIVE:
            seen.append(event.packet.data.hex())


def record_enet_server(engine: Engine, seed: int) -> dict[str, Any]:
    """Run the project as an ENet server on ``engine`` and return the recording."""
    peer_id = random.Random(seed).randint(2, 2**31 - 1)
    with engine.workdir() as (here, inside):
        for path in PROJECT.iterdir():
            if path.is_file():
                shutil.copy(path, here / path.name)
        packets, intruded, log = asyncio.run(record(engine, inside, peer_id))
    return {
        "godot": engine.version(),
        "about": "what tests/live/multiplayer/game sends over ENetMultiplayerPeer to one client "
        "(peer_id) that authenticates and confirms every path: each packet with the ENet "
        "channel and the flags its receiver sees; 'intruded' is what two clients got that asked "
        "for id 1 and for peer_id again (Godot must refuse both)",
        "peer_id": peer_id,
        "packets": packets,
        "intruded": intruded,
        "log": log.splitlines(),
    }


def rpc_modes(recording: dict[str, Any]) -> list[tuple[TransferMode, int] | None]:
    """Per recorded packet, the mode and channel its ``@rpc`` annotation gives a call to the
    client's player node; None for the packets SceneMultiplayer sends with its own mode."""
    player = f"Main/Players/{recording['peer_id']}"
    paths: dict[int, str] = {}
    modes: list[tuple[TransferMode, int] | None] = []
    for record in recording["packets"]:
        packet = decode_scene_packet(bytes.fromhex(record["hex"]))
        if isinstance(packet, SimplifyPath):
            paths[packet.cache_id] = packet.path
        mode = None
        if isinstance(packet, RemoteCall):
            target = packet.path if packet.path is not None else paths.get(packet.node_id)
            if target == player:
                mode = PLAYER_MODES.get(packet.method_id, (TransferMode.RELIABLE, 0))
            else:
                mode = (TransferMode.RELIABLE, 0)
        modes.append(mode)
    return modes
