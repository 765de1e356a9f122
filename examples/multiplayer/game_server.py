"""The relay example's game on Godot's high-level multiplayer, served from Python.

    python -m examples.multiplayer.game_server --port 9080

The Godot project in ``project/`` is the client, unchanged whether it joins this server or
its own Godot server (``godot --headless --path project -- server 9080``). This is what
the Godot server does in ``main.gd``, through :class:`gdvariant.multiplayer.SceneMultiplayer`:

- a client authenticates with its name (``auth_callback``); empty or taken names are refused;
- each admitted peer gets a player spawned through the ``PlayerSpawner`` (named by its id,
  its ``display_name`` in the spawn state); it is despawned when the peer leaves;
- ``Player.move(pos)`` from the player's own peer sets its position, which the player's
  synchronizer sends to everyone 30 times a second;
- ``Main.say(text)`` is passed on to everyone as ``Main.said(name, text)``.

It runs on uvloop's event loop when that is installed (``pip install gdvariant[uvloop]``,
:func:`gdvariant.multiplayer.run`), else on asyncio's. ``--stats SECONDS`` logs
``mp.stats()`` every SECONDS: CPU per tick (game, sync, transport), bytes and messages sent
per tick, by kind, per peer and per synced class.

``python -m examples.multiplayer.game_server --write-scene`` rewrites ``project/player.tscn``
from :class:`Player`, so that the client's synchronizer config is the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from pathlib import Path

from gdvariant import Vector2
from gdvariant.multiplayer import (
    SceneMultiplayer,
    SpawnableScene,
    SpawnedNode,
    StatsLevel,
    scene_tscn,
    synced_class,
)
from gdvariant.multiplayer import run as serve
from gdvariant.multiplayer.websocket import MultiplayerServer
from gdvariant.replication import Float32, NetClass, Prop, Str, Vec2

PROJECT = Path(__file__).resolve().parent / "project"
TICK = 1 / 30
log = logging.getLogger("relay")


class Player(NetClass):
    """What the player's synchronizer holds: position synced ALWAYS (hot), the name
    ON_CHANGE; both in the spawn state, so the client has them in ``_ready``."""

    position = Prop(Vec2(Float32()), hot=True)
    display_name = Str(max_bytes=64)


PLAYER = SpawnableScene(
    "res://player.tscn", synced_class(Player), script="res://player.gd", root_type="Node2D"
)


class Game:
    """The server's game: names, players, moves and chat."""

    def __init__(self, stats_every: float | None = None) -> None:
        self.server = MultiplayerServer(auth_callback=self.auth)
        level: StatsLevel = "basic" if stats_every is None else "detail"
        self.mp = SceneMultiplayer(self.server, project=PROJECT, stats=level)
        #: seconds between two stats log lines (None: none)
        self.stats_every = stats_every
        self.mp.node("Main", script="res://main.gd")
        self.mp.on_rpc("Main", "say", self.say)
        self.spawner = self.mp.add_spawner("Main/PlayerSpawner", "Main/Players", [PLAYER])
        self.spawner.on_rpc(PLAYER.path, "move", self.move)
        self.mp.peer_connected.connect(self.joined)
        self.mp.peer_disconnected.connect(self.left)
        self.names: dict[int, str] = {}
        self.players: dict[int, SpawnedNode] = {}

    def auth(self, peer: int, data: bytes) -> None:
        name = data.decode("utf-8", "replace")
        if not name or name in self.names.values():
            log.warning("peer %d: refused the name %r", peer, name)
            self.mp.disconnect_peer(peer)
            return
        self.names[peer] = name
        self.mp.send_auth(peer, b"ok")
        self.mp.complete_auth(peer)

    def joined(self, peer: int) -> None:
        name = self.names[peer]
        log.info("%s joined as peer %d", name, peer)
        self.players[peer] = self.spawner.spawn(PLAYER.path, str(peer), {"display_name": name})

    def left(self, peer: int) -> None:
        log.info("%s left", self.names.pop(peer, "?"))
        player = self.players.pop(peer, None)
        if player is not None:
            self.spawner.despawn(player)

    def move(self, player: SpawnedNode, sender: int, pos: Vector2) -> None:
        if player.name == str(sender):  # only your own player
            player.state.position = pos

    def say(self, sender: int, text: str) -> None:
        self.mp.rpc(0, "Main", "said", self.names.get(sender, "?"), str(text)[:200])

    async def run(self, host: str, port: int, ready: asyncio.Future[int] | None = None) -> None:
        """Serve until cancelled; ``ready`` gets the port once listening."""
        async with self.server:
            bound = await self.server.listen(host, port)
            log.info("listening on %s:%d", host, bound)
            if ready is not None:
                ready.set_result(bound)
            loop = asyncio.get_running_loop()
            logged = loop.time()
            while True:
                self.mp.sync()
                if self.stats_every is not None and loop.time() - logged >= self.stats_every:
                    logged = loop.time()
                    log.info("%s", self.mp.stats().format())
                await asyncio.sleep(TICK)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9080)
    parser.add_argument("--write-scene", action="store_true", help="rewrite player.tscn")
    parser.add_argument(
        "--stats",
        type=float,
        metavar="SECONDS",
        help="log what the server spends and sends (mp.stats()) every SECONDS",
    )
    args = parser.parse_args()
    if args.stats is not None and not args.stats > 0:
        parser.error("--stats takes a positive number of seconds")
    if args.write_scene:
        (PROJECT / "player.tscn").write_text(scene_tscn(PLAYER, "Player"))
        return
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    with contextlib.suppress(KeyboardInterrupt):
        serve(Game(args.stats).run(args.host, args.port))


if __name__ == "__main__":
    main()
