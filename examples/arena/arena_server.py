"""The arena's server: players steer and shoot, the world goes out as snapshot packets.

Each client joins over UDP, sends its input with the newest tick it applied (its ack), and
gets every tick a packet from ``gdvariant.replication``: what changed since its ack, its own
loadout included, nobody else's. At the end the server stops the game, waits until every
client holds the final state, asks for it, and checks it against its own.

Messages (first byte = kind):
  client -> server:  0 JOIN name | 1 INPUT u32 ack, s8 dx, s8 dy, u8 fire
                     | 2 REPORT u32 tick, var_to_bytes([state, classes])
  server -> client:  0 WELCOME u32 player id | 1 PACKET snapshot | 2 DONE (send your REPORT)
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import struct
from dataclasses import dataclass, field
from typing import Any

import gdvariant as gd
from examples.arena.arena_schema import Player, Shot
from gdvariant.replication import AckError, Schema, SnapshotEncoder, World, godot_state

LOG = logging.getLogger("arena")
JOIN, INPUT, REPORT = 0, 1, 2
WELCOME, PACKET, DONE = 0, 1, 2
SCHEMA = Schema.build([Player, Shot])
RATE = 30  # ticks per second
SIZE = 900.0  # the floor spans -SIZE..SIZE on both axes
CORNERS = (gd.Vector2(-SIZE, -SIZE), gd.Vector2(SIZE, SIZE))
SPEED, SHOT_SPEED, SHOT_LIFE, CLIP = 240.0, 600.0, 30, 12
HIT_RADIUS = 24.0


@dataclass
class Seat:
    """One connected client and the player it steers."""

    address: Any
    name: str
    player: Any
    steer: gd.Vector2 = field(default_factory=gd.Vector2)
    fire: bool = False
    report: bytes | None = None


@dataclass
class Arena:
    """The game: the world, the encoder, the seats, and the shots in flight."""

    world: World = field(default_factory=lambda: World(SCHEMA))
    seats: dict[Any, Seat] = field(default_factory=dict)
    shots: dict[int, int] = field(default_factory=dict)  # shot id -> ticks left
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def __post_init__(self) -> None:
        self.encoder = SnapshotEncoder(self.world, history=32)

    def join(self, address: Any, name: str) -> Seat:
        x, y = self.rng.uniform(-SIZE, SIZE), self.rng.uniform(-SIZE, SIZE)
        player = self.world.spawn(
            Player,
            net_owner=address,
            position=gd.Vector2(x, y),
            health=100,
            team=len(self.seats) % 2,
            name=name[:24],
            loadout={"ammo": CLIP, "reloading": False},
        )
        self.encoder.add_client(address)
        seat = self.seats[address] = Seat(address, name, player)
        LOG.info("%s joined as entity %d", name, player.net_id)
        return seat

    def step(self) -> None:
        """One tick of the game: move, shoot, hit, reload. The motion is Godot's own
        arithmetic (``gd.Vector2``, float32 as the engine), so a Godot client predicting
        its player computes the same positions."""
        for seat in self.seats.values():
            p = seat.player
            steer = seat.steer
            if not steer.is_zero_approx():
                p.position = (p.position + steer * (SPEED / RATE)).clamp(*CORNERS)
                p.velocity = steer * SPEED
                p.heading = math.degrees(steer.angle())
            if seat.fire and p.loadout.ammo > 0:
                self._fire(p)
            elif p.loadout.ammo == 0:
                p.loadout.reloading = True
                p.loadout.ammo = CLIP
            else:
                p.loadout.reloading = False
        for shot_id, left in list(self.shots.items()):
            self._fly(self.world.entities[shot_id], left)

    def _fire(self, player: Any) -> None:
        velocity = gd.Vector2(SHOT_SPEED, 0).rotated(math.radians(player.heading))
        shot = self.world.spawn(
            Shot, position=player.position, velocity=velocity, shooter=player, heat=1.0
        )
        self.shots[shot.net_id] = SHOT_LIFE
        player.loadout.ammo -= 1

    def _fly(self, shot: Any, left: int) -> None:
        position = shot.position + shot.velocity / RATE
        hit = next(
            (
                s.player
                for s in self.seats.values()
                if s.player is not shot.shooter
                and position.distance_to(s.player.position) < HIT_RADIUS
            ),
            None,
        )
        if hit is not None:
            hit.health = max(hit.health - 10, 0) or 100  # down to 0: back at full health
        off_floor = position.clamp(*CORNERS) != position
        if hit is not None or left <= 1 or off_floor:
            self.world.despawn(shot)
            del self.shots[shot.net_id]
            return
        shot.position = position
        shot.heat = left / SHOT_LIFE
        self.shots[shot.net_id] = left - 1


class _Inbox(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[bytes, Any]] = asyncio.Queue()

    def datagram_received(self, data: bytes, addr: Any) -> None:
        self.queue.put_nowait((data, addr))


def _handle(arena: Arena, transport: Any, data: bytes, address: Any) -> None:
    """One message from a client."""
    seat = arena.seats.get(address)
    if data[:1] == bytes([JOIN]) and seat is None:
        seat = arena.join(address, data[1:].decode("utf-8", "replace"))
        transport.sendto(struct.pack("<BI", WELCOME, seat.player.net_id), address)
    elif data[:1] == bytes([INPUT]) and seat is not None and len(data) == 8:
        ack, dx, dy, fire = struct.unpack_from("<IbbB", data, 1)
        try:
            arena.encoder.ack(address, ack)
        except AckError as exc:  # a tick this client was never sent: not to be trusted
            LOG.warning("%s: %s", seat.name, exc)
            return
        seat.steer, seat.fire = gd.Vector2(dx / 127, dy / 127), bool(fire)
    elif data[:1] == bytes([REPORT]) and seat is not None:
        seat.report = data[1:]


async def run(
    host: str, port: int, ready: asyncio.Future[int], *, players: int, ticks: int
) -> dict[str, bool]:
    """Serve ``players`` clients for ``ticks`` ticks; return, per client name, whether the
    state it ended with is exactly the server's."""
    loop = asyncio.get_running_loop()
    transport, inbox = await loop.create_datagram_endpoint(_Inbox, local_addr=(host, port))
    arena = Arena()
    ready.set_result(transport.get_extra_info("sockname")[1])

    def drain() -> None:
        while not inbox.queue.empty():
            _handle(arena, transport, *inbox.queue.get_nowait())

    async def next_tick(started: float) -> None:
        await asyncio.sleep(max(0.0, 1 / RATE - (loop.time() - started)))

    try:
        while len(arena.seats) < players:
            _handle(arena, transport, *await inbox.queue.get())
        for _ in range(ticks):  # the game
            started = loop.time()
            drain()
            arena.step()
            arena.encoder.snapshot()
            for seat in arena.seats.values():
                packet = arena.encoder.packet_for(seat.address)
                transport.sendto(bytes([PACKET]) + packet, seat.address)
            await next_tick(started)
        final = arena.world.tick
        for _ in range(RATE * 10):  # the end: nothing changes; each client catches up
            started = loop.time()
            drain()
            waiting = [s for s in arena.seats.values() if s.report is None]
            if not waiting:
                break
            for seat in waiting:
                if arena.encoder.clients[seat.address].acked >= final:
                    transport.sendto(bytes([DONE]), seat.address)
                else:
                    packet = arena.encoder.packet_for(seat.address)
                    transport.sendto(bytes([PACKET]) + packet, seat.address)
            await next_tick(started)
        return {s.name: _check(arena, s) for s in arena.seats.values()}
    finally:
        transport.close()


def _check(arena: Arena, seat: Seat) -> bool:
    if seat.report is None:
        LOG.warning("%s never reported its state", seat.name)
        return False
    want = gd.dumps(godot_state(SCHEMA, arena.encoder.expected_state(seat.address)))
    same = seat.report[4:] == want
    if not same:
        LOG.warning("%s ended with a different state than the server's", seat.name)
    return same
