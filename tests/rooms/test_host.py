"""A room process (RoomHost) on both directories: rooms created on a matchmaker's request,
clients admitted only with a valid seat token (once), the hooks, presence, locking, disposal
after the grace, and a lapsed lease dropping the rooms."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from gdvariant.rooms import (
    PRESENCE_CHANNEL,
    Client,
    Directory,
    JoinError,
    Matchmaker,
    MemoryDirectory,
    Room,
    RoomHost,
    RoomState,
)
from tests.support.multiplayer_serving import run, until
from tests.support.rooms import DEADLINE, TEST_TTL, DirectoryMaker, eventually

#: A logger for hosts whose failures the test provokes (they are logged, not shown).
QUIET = logging.getLogger("tests.rooms.quiet")
QUIET.disabled = True

mpws = pytest.importorskip(
    "gdvariant.multiplayer.websocket", reason="the websockets extra is missing"
)


class Arena(Room):
    seats = 2
    grace = 0.2
    events: list[tuple[str, Any]]

    def on_create(self, options: Mapping[str, Any]) -> None:
        self.events = [("create", dict(options))]
        self.set_metadata(mode=options.get("mode", "plain"))

    async def on_join(self, client: Client) -> None:
        self.events.append(("join", client.user))

    def on_leave(self, client: Client) -> None:
        self.events.append(("leave", client.user))

    def on_dispose(self) -> None:
        self.events.append(("dispose", None))


async def connect(address: str, token: bytes) -> tuple[Any, list[int]]:
    """A Python SceneMultiplayer client that sends ``token`` as its AUTH data; the peers it
    saw connect (1 once the room admitted it)."""
    connected: list[int] = []
    client = mpws.MultiplayerClient(
        auth_callback=lambda data: None, on_peer_connected=connected.append
    )
    await client.connect(address)
    client.send_auth(token)
    client.complete_auth()
    return client, connected


async def refused(address: str, token: bytes) -> None:
    client, connected = await connect(address, token)
    await asyncio.wait_for(client.wait_closed(), DEADLINE)
    assert connected == []


def host_for(directory: Directory) -> RoomHost:
    return RoomHost(directory, {"arena": Arena}, auth_timeout=DEADLINE)


def test_a_client_gets_in_with_its_token_once(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        directory = make_directory()
        matchmaker = Matchmaker(make_directory())
        async with host_for(directory) as host, directory.subscribe(PRESENCE_CHANNEL) as news:
            seat = await matchmaker.join_or_create("arena", {"mode": "duel"}, "ann")
            room = host.rooms[seat.room.id]
            assert isinstance(room, Arena) and seat.room.address == room.address
            assert seat.room.metadata == {"mode": "duel"}
            await refused(room.address, b"not a token")
            await refused(room.address, b"x" * 300)
            client, connected = await connect(room.address, seat.token.encode())
            await until(lambda: connected == [1])
            assert [c.user for c in room.clients.values()] == ["ann"]
            message = await news.get(DEADLINE)
            assert message is not None
            assert message[1] == {"event": "join", "room": room.id, "name": "arena", "user": "ann"}
            assert await directory.presence() == {room.id: ["ann"]}
            await refused(room.address, seat.token.encode())  # used already
            second = await matchmaker.join_or_create("arena", {}, "bob")
            assert second.room.id == room.id  # the room with a free seat is filled first
            assert room.state is RoomState.OPEN
            with pytest.raises(JoinError) as full:
                await matchmaker.join(room.id, "cy")
            assert full.value.code == "room_full"
            await client.close()
            await until(lambda: ("leave", "ann") in room.events)
            assert room.events[:3] == [
                ("create", {"mode": "duel"}),
                ("join", "ann"),
                ("leave", "ann"),
            ]
        await directory.close()
        await matchmaker.directory.close()

    run(main())


def test_an_empty_room_is_disposed_after_its_grace(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        directory = make_directory()
        async with host_for(directory) as host:
            room = await host.create_room("arena", {})
            assert isinstance(room, Arena)
            seat = await directory.reserve(room.id, "ann", DEADLINE)
            await asyncio.sleep(room.grace * 3)
            assert room.id in host.rooms  # a seat is promised: the room waits for it
            client, connected = await connect(room.address, seat.token.encode())
            await until(lambda: connected == [1])
            await client.close()

            async def disposed() -> bool:
                return room.state is RoomState.DISPOSED and await directory.room(room.id) is None

            await eventually(disposed, "the empty room was disposed")
            assert room.events[-1] == ("dispose", None)
            assert room.id not in host.rooms
            with pytest.raises(JoinError) as unknown:
                await host.create_room("lobby")
            assert unknown.value.code == "unknown_room_name"
        await directory.close()

    run(main())


def test_a_locked_room_takes_no_one(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        directory = make_directory()
        async with host_for(directory) as host:
            room = await host.create_room("arena")
            room.lock()
            assert room.state is RoomState.LOCKED

            async def locked() -> bool:
                listed = await directory.room(room.id)
                return listed is not None and listed.locked

            await eventually(locked, "the directory heard of the lock")
            with pytest.raises(JoinError) as refused_join:
                await directory.reserve(room.id, "ann", DEADLINE)
            assert refused_join.value.code == "room_locked"
        await directory.close()

    run(main())


def test_a_host_whose_lease_lapsed_brings_its_rooms_back_seats_and_all(
    make_directory: DirectoryMaker,
) -> None:
    async def main() -> None:
        directory = make_directory()
        async with host_for(directory) as host:
            room = await host.create_room("arena")
            seat = await directory.reserve(room.id, "ann", DEADLINE)
            client, connected = await connect(room.address, seat.token.encode())
            await until(lambda: connected == [1])
            await directory.unregister(host.info.id)  # as if its lease had run out
            assert await directory.room(room.id) is None

            async def back() -> bool:
                listed = await directory.room(room.id)
                return listed is not None and listed.clients == 1

            await eventually(back, "the host listed its room again with its client")
            assert room.state is RoomState.OPEN
            assert await directory.presence() == {room.id: ["ann"]}
            await directory.reserve(room.id, "bob", DEADLINE)  # two seats: one left
            with pytest.raises(JoinError) as full:  # ann's seat still counts
                await directory.reserve(room.id, "cy", DEADLINE)
            assert full.value.code == "room_full"
            assert [c.user for c in room.clients.values()] == ["ann"]  # it played on
            await client.close()
        await directory.close()

    run(main())


def test_rooms_on_enet_take_the_token_too() -> None:
    enet = pytest.importorskip("gdvariant.multiplayer.enet", reason="the enet extra is missing")

    async def main() -> None:
        directory = MemoryDirectory()
        async with RoomHost(directory, {"arena": Arena}, transport="enet") as host:
            seat = await Matchmaker(directory).join_or_create("arena", {}, "ann")
            assert seat.room.address.startswith("enet://127.0.0.1:")
            port = int(seat.room.address.rsplit(":", 1)[1])
            connected: list[int] = []
            client = enet.MultiplayerClient(
                auth_callback=lambda data: None, on_peer_connected=connected.append
            )
            await client.connect("127.0.0.1", port)
            client.send_auth(seat.token.encode())
            client.complete_auth()
            await until(lambda: connected == [1])
            room = host.rooms[seat.room.id]
            assert [c.user for c in room.clients.values()] == ["ann"]
            await client.close()
        with pytest.raises(ValueError, match="transport must be"):
            RoomHost(directory, {"arena": Arena}, transport="tcp")  # type: ignore[arg-type]

    run(main())


def test_a_failing_directory_does_not_stop_the_host() -> None:
    class Flaky(MemoryDirectory):
        failures: ClassVar[dict[str, int]] = {"next_request": 1, "heartbeat": 1}

        async def next_request(self, process_id: str, timeout: float) -> Any:
            if self.failures["next_request"]:
                self.failures["next_request"] -= 1
                raise ConnectionError("the store went away")
            return await super().next_request(process_id, timeout)

        async def heartbeat(self, process: Any, rooms: Any) -> bool:
            if self.failures["heartbeat"]:
                self.failures["heartbeat"] -= 1
                raise ConnectionError("the store went away")
            return await super().heartbeat(process, rooms)

    async def main() -> None:
        directory = Flaky(ttl=TEST_TTL)  # one failed beat leaves two before the lease ends
        async with RoomHost(directory, {"arena": Arena}, logger=QUIET):
            seat = await Matchmaker(directory).join_or_create("arena", {}, "ann")
            assert directory.failures["next_request"] == 0  # it failed once; the host went on
            assert await directory.room(seat.room.id) is not None

            async def beating() -> bool:
                return directory.failures["heartbeat"] == 0 and bool(await directory.rooms())

            await eventually(beating, "the heartbeats went on after a failure")

    run(main())


def test_rooms_in_two_processes_chat_across_rooms(make_directory: DirectoryMaker) -> None:
    async def main() -> None:
        one, two = make_directory(), make_directory()
        async with host_for(one) as first, host_for(two) as second:
            lobby = await first.create_room("arena")
            match = await second.create_room("arena")
            async with match.subscribe("chat") as chat:
                await lobby.publish("chat", {"from": lobby.id, "text": "gg"})
                got = await chat.get(DEADLINE)
            assert got == ("chat", {"from": lobby.id, "text": "gg"})
        await one.close()
        await two.close()

    run(main())


def test_a_host_creates_no_more_rooms_than_its_capacity() -> None:
    async def main() -> None:
        directory = MemoryDirectory()
        async with RoomHost(directory, {"arena": Arena}, capacity=2) as host:
            made = await asyncio.gather(
                *(host.create_room("arena") for _ in range(5)), return_exceptions=True
            )
            codes = sorted(m.code if isinstance(m, JoinError) else "ok" for m in made)
            assert codes == ["ok", "ok", "process_full", "process_full", "process_full"]
            assert len(host.rooms) == 2

    run(main())
