"""Live: stock Godot 4.6 clients (tests/live/rooms/client) find their rooms through the
matchmaker's HTTP API with ``HTTPRequest``, join the room it names with an ordinary
``WebSocketMultiplayerPeer`` whose AUTH data is the seat token, and play: an RPC round trip
(hello, welcome) and a spawn. Three clients, rooms of two seats, each client in its seat until
all have played: at least two rooms. Skipped without engines; required in ``.ci/run``."""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from gdvariant.multiplayer import SpawnableScene
from gdvariant.rooms import Matchmaker, MemoryDirectory, Room, RoomHost
from tests.support.engines import Engine
from tests.support.multiplayer_recorder import run_godot
from tests.support.paths import LIVE

pytestmark = [pytest.mark.engine, pytest.mark.slow]
httpapi = pytest.importorskip("gdvariant.rooms.httpapi", reason="the rooms extra is missing")

CLIENT = LIVE / "rooms" / "client"
PIECE = SpawnableScene("res://piece.tscn", root_type="Node2D")
USERS = ("ann", "bob", "cy")


class Table(Room):
    seats = 2
    grace = 60.0
    #: the users welcomed so far, in any room (one test at a time)
    played: ClassVar[set[str]] = set()

    def on_create(self, options: Mapping[str, Any]) -> None:
        self.set_metadata(map=options["map"])
        self.multiplayer.node("Main", script="res://main.gd")
        self.pieces = self.multiplayer.add_spawner("Main/Spawner", "Main/Pieces", [PIECE])
        self.multiplayer.on_rpc("Main", "hello", self.hello)

    def hello(self, peer: int, name: str) -> None:
        user = self.clients[peer].user
        assert name == user
        self.pieces.spawn(0, user)
        self.multiplayer.rpc(peer, "Main", "welcome", f"{user}@{self.id}")
        Table.played.add(user)


def test_godot_clients_find_their_room_and_play(godot4: Engine) -> None:
    async def main() -> None:
        Table.played.clear()
        directory = MemoryDirectory()
        with godot4.workdir() as (here, inside):
            for path in CLIENT.iterdir():
                shutil.copy(path, here / path.name)
            async with (
                RoomHost(directory, {"table": Table}, project=CLIENT) as host,
                httpapi.MatchmakerServer(Matchmaker(directory)) as server,
            ):
                url = f"http://127.0.0.1:{await server.listen('127.0.0.1', 0)}"
                clients = asyncio.gather(
                    *(run_godot(godot4, inside, [url, "table", user, "60"]) for user in USERS)
                )
                while len(Table.played) < len(USERS) and not clients.done():
                    await asyncio.sleep(0.05)
                rooms = dict(host.rooms)
                for room in rooms.values():
                    room.multiplayer.rpc(0, "Main", "finish")
                outs = await clients
        seats: dict[str, str] = {}
        for user, out in zip(USERS, outs, strict=True):
            lines = out.splitlines()
            seat = next(line.split() for line in lines if line.startswith("SEAT "))
            done = next(line.split() for line in lines if line.startswith("PLAYED "))
            assert lines[-1] == "DONE"
            room_id = seat[1]
            assert seat[2] == rooms[room_id].address
            assert done[1] == f"{user}@{room_id}"  # the RPC round trip, in the room we named
            assert user in done[2].split(",")  # the spawn
            seats[user] = room_id
        per_room = Counter(seats.values())
        assert len(per_room) >= 2 and max(per_room.values()) <= 2
        assert all(rooms[r].metadata == {"map": "dunes"} for r in per_room)

    asyncio.run(asyncio.wait_for(main(), 180))
