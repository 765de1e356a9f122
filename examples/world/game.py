"""The open world's rules, without any network: wanderers roam, avatars move as their
clients steer, and a hit-scan shot is tested against the world *as its shooter saw it*.

Each client sees only its area: an :class:`~gdvariant.replication.Interest` follows its
avatar (a radius of :data:`VIEW_RADIUS`), and its own avatar is always relevant to it. The
world keeps the last :data:`REWIND` ticks (``World(rewind=...)``), and :meth:`Game.fire`
rewinds to the client's view tick with ``world.at`` (docs/replication-lag-compensation.md).
``server.py`` puts this on ENet; the tests drive it directly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import gdvariant as gd
from examples.world.world_schema import HALF, Avatar, Wanderer
from gdvariant.replication import Interest, Schema, SnapshotEncoder, World

SCHEMA = Schema.build([Wanderer, Avatar])
RATE = 20  # ticks a second
VIEW_RADIUS = 600.0  # what a client sees around its avatar: about a screen
CELL = 150.0  # the interest grid's cells
#: Ticks kept for rewinding: the most lag compensated (one second, as Source's sv_maxunlag).
REWIND = RATE
#: How far behind its newest snapshot a client renders, in ticks (Source's cl_interp).
INTERP_DELAY = 2.0
AVATAR_SPEED = 200.0  # units a second
WANDER_SPEED = (20.0, 80.0)  # units a second, each wanderer its own
REACH = 500.0  # how far a shot goes
HIT_RADIUS = 12.0  # a body's size for the ray
DAMAGE = 10
CORNERS = (gd.Vector2(-HALF, -HALF), gd.Vector2(HALF, HALF))


@dataclass(frozen=True)
class Hit:
    """A shot that hit: who fired, the entity hit, the tick it was tested at (the view
    tick) and the world's tick when it was, where the target was then (what the shooter
    aimed at) and where it is now."""

    shooter: Hashable
    target: int
    view_tick: float
    world_tick: int
    then: gd.Vector2
    now: gd.Vector2


@dataclass
class Game:
    """The world, its interest and encoder, and each client's avatar and steering."""

    wanderers: int = 2000
    seed: int = 7
    #: Where avatars start (None: somewhere at random).
    spawn: gd.Vector2 | None = None
    #: The chance a tick that a wanderer picks a new heading.
    turn_chance: float = 0.02
    world: World = field(init=False)
    avatars: dict[Hashable, Any] = field(default_factory=dict)
    hits: list[Hit] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.world = World(SCHEMA, rewind=REWIND)
        self.interest = Interest(
            self.world, cell=CELL, positions={Wanderer: "position", Avatar: "position"}
        )
        self.encoder = SnapshotEncoder(self.world, interest=self.interest)
        self.rng = random.Random(self.seed)
        self.velocity: dict[int, gd.Vector2] = {}  # wanderer id -> units a tick
        self.steering: dict[Hashable, gd.Vector2] = {}
        for _ in range(self.wanderers):
            at = gd.Vector2(self.rng.uniform(-HALF, HALF), self.rng.uniform(-HALF, HALF))
            self.add_wanderer(at, self._heading())

    def _heading(self) -> gd.Vector2:
        speed = self.rng.uniform(*WANDER_SPEED) / RATE
        return gd.Vector2(speed, 0).rotated(self.rng.uniform(-math.pi, math.pi))

    def add_wanderer(self, at: gd.Vector2, velocity: gd.Vector2) -> Any:
        """A wanderer at ``at`` moving ``velocity`` units a tick (turning now and then)."""
        wanderer = self.world.spawn(Wanderer, position=at, health=100)
        self.velocity[wanderer.net_id] = velocity
        return wanderer

    def join(self, client_id: Hashable, nickname: str, at: gd.Vector2 | None = None) -> Any:
        """Give ``client_id`` an avatar (at ``at``, else at random) and its area: what is
        within :data:`VIEW_RADIUS` of the avatar, and the avatar wherever it is."""
        if client_id not in self.encoder.clients:
            self.encoder.add_client(client_id)
        at = at if at is not None else self.spawn
        if at is None:
            at = gd.Vector2(self.rng.uniform(-HALF, HALF), self.rng.uniform(-HALF, HALF)) * 0.9
        avatar = self.world.spawn(Avatar, position=at, health=100, nickname=nickname[:24])
        self.avatars[client_id], self.steering[client_id] = avatar, gd.Vector2()
        self.interest.set_area(client_id, radius=VIEW_RADIUS)
        self.interest.follow(client_id, avatar)
        self.interest.add_always(avatar, client_id)
        return avatar

    def leave(self, client_id: Hashable) -> None:
        """Take ``client_id``'s avatar out of the world."""
        avatar = self.avatars.pop(client_id, None)
        self.steering.pop(client_id, None)
        if avatar is not None:
            self.world.despawn(avatar)

    def steer(self, client_id: Hashable, x: float, y: float) -> None:
        """The client's stick: a direction, at most 1 long (longer is cut to 1)."""
        if client_id not in self.avatars or not (math.isfinite(x) and math.isfinite(y)):
            return
        stick = gd.Vector2(x, y)
        self.steering[client_id] = stick.normalized() if stick.length() > 1 else stick

    def step(self) -> int:
        """One tick: everything moves; commit it (the encoder's snapshot). The tick."""
        for net_id, velocity in self.velocity.items():
            wanderer = self.world.entities[net_id]
            if self.rng.random() < self.turn_chance:
                velocity = self.velocity[net_id] = self._heading()
            to = wanderer.position + velocity
            if to.clamp(*CORNERS) != to:  # turn back at the edge of the world
                velocity = self.velocity[net_id] = -velocity
                to = wanderer.position + velocity
            wanderer.position = to
        for client_id, stick in self.steering.items():
            if not stick.is_zero_approx():
                avatar = self.avatars[client_id]
                step = stick * (AVATAR_SPEED / RATE)
                avatar.position = (avatar.position + step).clamp(*CORNERS)
        return self.encoder.snapshot()

    def view_tick(self, claimed: float) -> float:
        """The client's view tick, checked: a number within the ticks kept (a claim from
        the future is the present, one older than :data:`REWIND` ticks is the oldest)."""
        low, now = max(0, self.world.tick - REWIND), self.world.tick
        return min(max(float(claimed), low), now) if math.isfinite(claimed) else float(now)

    def fire(self, client_id: Hashable, aim: gd.Vector2, view_tick: float) -> Hit | None:
        """``client_id`` fires along ``aim`` as it saw the world at ``view_tick``: the
        nearest body the ray crosses *then* is hit (damage lands on it now)."""
        shooter = self.avatars.get(client_id)
        length = math.hypot(aim.x, aim.y)
        if shooter is None or not (math.isfinite(length) and length > 0):
            return None
        tick = self.view_tick(view_tick)
        seen = self.world.at(tick)
        origin = seen.value(shooter.net_id, "position") if shooter.net_id in seen else None
        origin = shooter.position if origin is None else origin
        ray = (aim.x / length, aim.y / length)
        found = self._nearest_on_ray(seen, shooter.net_id, origin, ray, self.world.tick - tick)
        if found is None:
            return None
        target = seen.entity(found)
        if target is None:  # gone since the shooter saw it
            return None
        target.health = max(target.health - DAMAGE, 0) or 100  # down to 0: back at full
        shooter.score = min(shooter.score + 1, 0xFFFF)
        hit = Hit(
            client_id, found, tick, self.world.tick, seen.value(found, "position"), target.position
        )
        self.hits.append(hit)
        return hit

    def _nearest_on_ray(
        self,
        seen: Any,
        shooter: int,
        origin: gd.Vector2,
        ray: tuple[float, float],
        ticks_back: float,
    ) -> int | None:
        """The id of the nearest body whose disc the ray crosses at the rewound tick.
        Broad phase on today's positions (a body cannot have moved further than its top
        speed since then), then the exact test on the positions then, each decoded alone."""
        top_speed = max(AVATAR_SPEED, WANDER_SPEED[1]) / RATE
        reach = REACH + HIT_RADIUS + top_speed * math.ceil(ticks_back) + 1.0
        best: tuple[float, int] | None = None
        for net_id, body in self.world.entities.items():
            if net_id == shooter or origin.distance_to(body.position) > reach:
                continue
            if net_id not in seen:
                continue
            then = seen.value(net_id, "position")
            px, py = then.x - origin.x, then.y - origin.y
            along = px * ray[0] + py * ray[1]
            off = abs(px * ray[1] - py * ray[0])
            if 0.0 <= along <= REACH and off <= HIT_RADIUS and (best is None or along < best[0]):
                best = (along, net_id)
        return None if best is None else best[1]
