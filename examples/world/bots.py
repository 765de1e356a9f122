"""Load for the open world: bots in Python, each an ENet SceneMultiplayer client like the
Godot one (client/main.gd), without the drawing.

A bot takes the snapshots that come as RAW packets with a
:class:`~gdvariant.replication.SnapshotDecoder`, acks them as the Godot receiver does
(unreliable on the link's channel), steers with ``move`` RPCs and now and then fires a
``fire`` RPC in a random direction with its view tick (the newest tick minus the
interpolation delay). Its RPCs name the node by path (the form Godot uses before the server
has confirmed a path), so a bot keeps no path cache.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

import gdvariant as gd
from examples.world.game import INTERP_DELAY, RATE, SCHEMA
from examples.world.server import CLIENT, NET
from gdvariant.multiplayer import TransferMode, enet, read_script_rpcs
from gdvariant.multiplayer.snapshots import ACK, CHANNEL, TAG
from gdvariant.multiplayer.wire import RemoteCall
from gdvariant.replication import SnapshotDecoder

#: The ids of net.gd's RPC methods, as Godot numbers them.
METHODS = read_script_rpcs(CLIENT, "res://net.gd").ids


@dataclass
class BotStats:
    """What one bot did: snapshots applied and refused, the most entities it held at once,
    its avatar (the ``welcome`` RPC) and how far it saw it go, shots fired and hits the
    server confirmed (``shot`` RPCs)."""

    applied: int = 0
    refused: int = 0
    most_seen: int = 0
    avatar: int = -1
    travelled: float = 0.0
    shots: int = 0
    hits: int = 0


async def run_bot(host: str, port: int, seconds: float, seed: int) -> BotStats:
    """One bot, connected for ``seconds`` (``math.inf``: until cancelled)."""
    rng = random.Random(seed)
    stats = BotStats()
    decoder = SnapshotDecoder(SCHEMA)
    client: enet.MultiplayerClient
    start: list[gd.Vector2] = []

    def told(_peer: int, packet: object) -> None:
        if isinstance(packet, RemoteCall) and packet.method_id == METHODS["welcome"]:
            stats.avatar = packet.args[0]
        elif isinstance(packet, RemoteCall) and packet.method_id == METHODS["shot"]:
            stats.hits += packet.args[0] >= 0

    def snapshot(_peer: int, data: bytes) -> None:
        if data[:1] != bytes([TAG]):
            return
        try:
            decoder.apply(data[1:])
        except (gd.DecodeError, ValueError):
            stats.refused += 1
            return
        stats.applied += 1
        stats.most_seen = max(stats.most_seen, len(decoder.state))
        mine = decoder.state.get(stats.avatar)
        if mine is not None:
            start[:] = start or [mine.values["position"]]
            stats.travelled = start[0].distance_to(mine.values["position"])
        ack = ACK.pack(TAG, decoder.ack)
        client.send_raw(ack, mode=TransferMode.UNRELIABLE, channel=CHANNEL)

    client = enet.MultiplayerClient(on_raw=snapshot, on_packet=told, ids=rng)
    await client.connect(host, port)
    stick = gd.Vector2(1, 0).rotated(rng.uniform(-3.14, 3.14))
    try:
        step = 0
        while step < seconds * RATE:  # seconds may be infinite: until cancelled
            step += 1
            if rng.random() < 0.05:
                stick = stick.rotated(rng.uniform(-1.5, 1.5))
            call = RemoteCall(METHODS["move"], (stick.x, stick.y), path=NET)
            client.send(call, mode=TransferMode.UNRELIABLE_ORDERED)
            if step % RATE == 0 and decoder.ack > 0:
                aim = gd.Vector2(1, 0).rotated(rng.uniform(-3.14, 3.14))
                view = decoder.ack - INTERP_DELAY
                client.send(RemoteCall(METHODS["fire"], (aim, float(view)), path=NET))
                stats.shots += 1
            await asyncio.sleep(1 / RATE)
    finally:
        await client.close()
    return stats
