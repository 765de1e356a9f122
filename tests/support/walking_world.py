"""The world the live interest and budget tests walk a Godot client through: roaming
entities (some cloaked), a clock without a position, what the walking client must hold by
brute force, and the UDP inbox our side reads the client's messages from."""

from __future__ import annotations

import asyncio
import math
from typing import Any

from gdvariant.replication import Coord, EntityState, NetClass, Prop, UInt, Vec2, World

#: the walking client's radius
RADIUS = 30.0
#: what the client's messages start with (``client.gd``)
HELLO, PACKET, DONE, REPORT = 0, 1, 2, 3


class Roamer(NetClass):
    pos = Prop(Vec2(Coord(8, 4, clamp=True)), hot=True)
    hp = UInt(7)
    kind = UInt(2)


class Clock(NetClass):
    seconds = UInt(16)


def hidden(ent: Any, client: Any) -> bool:
    """The game rule: kind 3 is invisible (a cloaked unit)."""
    return not isinstance(ent, Roamer) or ent.kind != 3


def in_view(world: World, me: Any) -> dict[int, EntityState]:
    """What the walking client must hold, by brute force over every entity."""
    out = {}
    centre = tuple(me.pos)
    for net_id, ent in sorted(world.entities.items()):
        if ent is me or isinstance(ent, Clock):  # its own, and what has no position
            seen = True
        else:
            seen = math.dist(tuple(ent.pos), centre) <= RADIUS and hidden(ent, None)
        if seen:
            out[net_id] = EntityState(ent._net_layout.name, world.quantized(ent))
    return out


class Inbox(asyncio.DatagramProtocol):
    """The client's datagrams, queued with their address."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[bytes, Any]] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.queue.put_nowait((data, addr))
