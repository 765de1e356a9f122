"""A Room on its own: its state from seats and the lock, and that lock, unlock and metadata
ask the host to write the record at once."""

from __future__ import annotations

import pytest

from gdvariant.rooms import Client, MemoryDirectory, Room, RoomState
from gdvariant.rooms._room import RoomLink

mpws = pytest.importorskip(
    "gdvariant.multiplayer.websocket", reason="the websockets extra is missing"
)


def make_room(changes: list[str]) -> Room:
    from gdvariant.multiplayer import SceneMultiplayer

    async def publish(channel: str, message: dict[str, object]) -> None:
        changes.append(channel)

    class Pair(Room):
        seats = 2

    return Pair(
        room_id="r1",
        name="pair",
        address="ws://h:1",
        multiplayer=SceneMultiplayer(mpws.MultiplayerServer()),
        link=RoomLink(lambda: changes.append("changed"), publish, MemoryDirectory().subscribe),
    )


def state(room: Room) -> RoomState:
    return room.state  # read anew each time (mypy would narrow an attribute)


def test_state_follows_seats_and_the_lock() -> None:
    changes: list[str] = []
    room = make_room(changes)
    assert state(room) is RoomState.OPEN and not room.locked
    room._seat(Client(5, "ann", "t1"))
    room._seat(Client(6, "bob", "t2"))
    assert state(room) is RoomState.LOCKED and not room.locked  # full
    assert room._unseat(5) == Client(5, "ann", "t1")
    assert room._unseat(5) is None
    assert state(room) is RoomState.OPEN
    room.lock()
    room.lock()
    assert state(room) is RoomState.LOCKED and room.locked
    room.unlock()
    room.set_metadata(map="dunes")
    assert room.metadata == {"map": "dunes"}
    assert changes == ["changed", "changed", "changed"]
    room._mark_disposed()
    assert state(room) is RoomState.DISPOSED
