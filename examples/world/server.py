"""The open world's server on ENet: SceneMultiplayer for joins and RPCs, snapshots over
the same connection (:class:`~gdvariant.multiplayer.snapshots.SnapshotLink`).

A peer that joins gets an avatar and an area (``Game.join``) and a ``welcome`` RPC; its
``move`` RPCs steer the avatar; a ``fire`` RPC is tested against the world at the view tick
it carries (``Game.fire``) and answered with a ``shot`` RPC. The RPCs are declared in the
client's own script, client/net.gd, which the server reads.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gdvariant as gd
from examples.world.game import INTERP_DELAY, RATE, Game
from gdvariant.multiplayer import SceneMultiplayer, enet
from gdvariant.multiplayer.snapshots import SnapshotLink

LOG = logging.getLogger("world")
CLIENT = Path(__file__).resolve().parent / "client"
NET = "Main/Net"
#: No ENet throttle on our side: ENet's default drops unreliable packets (the snapshots)
#: when round trips vary, even on loopback (docs/multiplayer.md).
NO_THROTTLE = (5000, 2, 0)


class Server:
    """One :class:`Game` served over ENet; :meth:`tick` runs one tick and sends it.
    ``on_game_raw(peer, payload)``, if set, gets the clients' own RAW packets (the
    snapshot acks go to the link)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.on_game_raw: Callable[[int, bytes], None] | None = None
        self.transport = enet.MultiplayerServer(throttle=NO_THROTTLE, on_raw=self._game_raw)
        self.mp = SceneMultiplayer(self.transport, project=CLIENT)
        self.mp.node(NET, script="res://net.gd")
        self.link = SnapshotLink(self.mp, game.encoder, on_join=self._joined)
        self.mp.peer_disconnected.connect(game.leave)
        self.mp.on_rpc(NET, "move", self._move)
        self.mp.on_rpc(NET, "fire", self._fire)

    async def listen(self, host: str, port: int) -> int:
        """Start listening; the port."""
        return await self.transport.listen(host, port)

    def tick(self) -> int:
        """Move the world one tick and send every client its packet; the tick."""
        tick = self.game.step()
        self.link.send()
        return tick

    async def run(self, ticks: int | None = None) -> None:
        """Tick at :data:`RATE` a second (``ticks`` times, or until cancelled)."""
        loop = asyncio.get_running_loop()
        done = 0
        while ticks is None or done < ticks:
            started = loop.time()
            self.tick()
            done += 1
            await asyncio.sleep(max(0.0, 1 / RATE - (loop.time() - started)))

    async def close(self) -> None:
        await self.transport.close()

    def _game_raw(self, peer: int, payload: bytes) -> None:
        if self.on_game_raw is not None:
            self.on_game_raw(peer, payload)

    def _joined(self, peer: int, _client: Any) -> None:
        avatar = self.game.join(peer, f"player {peer}")
        LOG.info("peer %d joined as entity %d", peer, avatar.net_id)
        self.mp.rpc(peer, NET, "welcome", avatar.net_id, RATE, INTERP_DELAY)

    def _move(self, peer: int, x: Any, y: Any) -> None:
        if isinstance(x, float | int) and isinstance(y, float | int):
            self.game.steer(peer, float(x), float(y))
        else:
            self.transport.peer_log.warning(peer, "move from peer %d: not two numbers", peer)

    def _fire(self, peer: int, aim: Any, view_tick: Any) -> None:
        if not (isinstance(aim, gd.Vector2) and isinstance(view_tick, float | int)):
            self.transport.peer_log.warning(peer, "fire from peer %d: not (Vector2, tick)", peer)
            return
        hit = self.game.fire(peer, aim, float(view_tick))
        if hit is None:
            tested = self.game.view_tick(float(view_tick))
            self.mp.rpc(peer, NET, "shot", -1, tested, gd.Vector2())
            return
        LOG.info(
            "peer %d hit %d at tick %.2f: it was at %s then, %.1f units from where it is now",
            peer,
            hit.target,
            hit.view_tick,
            hit.then,
            math.dist(hit.then, hit.now),
        )
        self.mp.rpc(peer, NET, "shot", hit.target, hit.view_tick, hit.then)
