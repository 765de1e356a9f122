"""A room: one game instance with its own SceneMultiplayer, seats and lifecycle.

Subclass :class:`Room` and override its hooks; a :class:`~gdvariant.rooms.RoomHost`
creates instances on demand (a matchmaker's request, or ``RoomHost.create_room``), gives
each its own transport server and ``multiplayer``, and runs the hooks:

* ``on_create(options)``: the room was made (``options`` from the join request, JSON);
  set ``seats``, ``metadata``, declare nodes and spawners on ``self.multiplayer`` here.
* ``on_join(client)``: a client's seat token was accepted and it is connected.
* ``on_leave(client)``: it left (its seat is free again unless the room is locked).
* ``on_dispose()``: the room is going away (empty past ``grace``, or its host closes).

Each hook may be a plain method or a coroutine. The room's state is its host's to keep
(clients, the directory's record); the room reads it and asks for changes (``lock``,
``set_metadata``, ``publish``, ``subscribe``). docs/rooms.md ("Rooms") is the guide.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..multiplayer import SceneMultiplayer
from ._directory import Subscription

__all__ = ["Client", "Room", "RoomState"]


class RoomState(enum.Enum):
    """Where a room is in its life."""

    OPEN = "open"  # takes joins
    LOCKED = "locked"  # full, or locked by the game (``Room.lock``): no new seats
    DISPOSED = "disposed"  # gone: its transport is closed


@dataclass(frozen=True)
class Client:
    """A connected client of a room: its peer id, the user named in its join request, and
    the seat token it used."""

    peer: int
    user: str
    token: str


@dataclass(frozen=True)
class RoomLink:
    """What a room asks of its host: write its record now, publish a message, subscribe."""

    changed: Callable[[], None]
    publish: Callable[[str, dict[str, Any]], Awaitable[None]]
    subscribe: Callable[..., Subscription]


class Room:
    """A game instance. Class attributes are defaults an instance may change in
    ``on_create``: ``seats`` (the most clients at once) and ``grace`` (seconds an empty
    room waits for a client before it is disposed)."""

    seats: int = 8
    grace: float = 10.0

    def __init__(
        self,
        *,
        room_id: str,
        name: str,
        address: str,
        multiplayer: SceneMultiplayer,
        link: RoomLink,
    ) -> None:
        self.id = room_id
        self.name = name
        self.address = address
        self.multiplayer = multiplayer
        self.metadata: dict[str, Any] = {}
        self._link = link
        self._locked = False
        self._disposed = False
        self._clients: dict[int, Client] = {}

    # -- the hooks a game overrides ------------------------------------------------------

    def on_create(self, options: Mapping[str, Any]) -> Awaitable[None] | None:
        """The room was created with ``options``."""
        return None

    def on_join(self, client: Client) -> Awaitable[None] | None:
        """``client`` is connected and seated."""
        return None

    def on_leave(self, client: Client) -> Awaitable[None] | None:
        """``client`` left."""
        return None

    def on_dispose(self) -> Awaitable[None] | None:
        """The room goes away; its clients (if any) are disconnected after this."""
        return None

    # -- what a game reads and asks ------------------------------------------------------

    @property
    def clients(self) -> Mapping[int, Client]:
        """The connected clients by peer id."""
        return self._clients

    @property
    def state(self) -> RoomState:
        if self._disposed:
            return RoomState.DISPOSED
        if self._locked or len(self._clients) >= self.seats:
            return RoomState.LOCKED
        return RoomState.OPEN

    @property
    def locked(self) -> bool:
        """Locked by the game: no seat is reserved in it (a full room takes none either)."""
        return self._locked

    def lock(self) -> None:
        """Take no more joins (the match started); the directory hears of it at once."""
        if not self._locked:
            self._locked = True
            self._link.changed()

    def unlock(self) -> None:
        if self._locked:
            self._locked = False
            self._link.changed()

    def set_metadata(self, **values: Any) -> None:
        """Add JSON-able ``values`` to the metadata listed with the room."""
        self.metadata.update(values)
        self._link.changed()

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        """Send JSON-able ``message`` on ``channel`` to every subscriber in every process
        (a lobby chat across rooms)."""
        await self._link.publish(channel, message)

    def subscribe(self, *channels: str) -> Subscription:
        """The messages published on ``channels`` from now on, from any room or process:
        ``async with room.subscribe("lobby") as chat: channel, message = await chat.get()``."""
        return self._link.subscribe(*channels)

    # -- the host's side (RoomHost only) -------------------------------------------------

    def _seat(self, client: Client) -> None:
        self._clients[client.peer] = client

    def _unseat(self, peer: int) -> Client | None:
        return self._clients.pop(peer, None)

    def _mark_disposed(self) -> None:
        self._disposed = True
