"""Rooms, a matchmaker and a room directory: a SceneMultiplayer game served by many processes.

A :class:`Room` is one game instance with its own :class:`~gdvariant.multiplayer.SceneMultiplayer`;
a :class:`RoomHost` (a room process) creates rooms on demand, one port each, and admits a
Godot client whose AUTH data is a seat token. A :class:`Matchmaker` (stateless, any number of
them; on HTTP with :class:`gdvariant.rooms.httpapi.MatchmakerServer`) picks a room or a
process, reserves a seat atomically and answers the room's address and the token. They meet
in a :class:`Directory`: :class:`MemoryDirectory` inside one process, or
:class:`gdvariant.rooms.redis.RedisDirectory` on Redis for many. The processes of a
deployment run from :mod:`gdvariant.rooms.serve` (``gdvariant rooms host|matchmaker``), a
local cluster from :mod:`gdvariant.rooms.cluster` (``gdvariant rooms dev``), with Agones
hooks in :mod:`gdvariant.rooms.agones`. docs/rooms.md is the guide.
"""

from __future__ import annotations

from ._directory import (
    DEFAULT_RESERVATION_TTL,
    DEFAULT_TTL,
    PRESENCE_CHANNEL,
    Directory,
    MemoryDirectory,
    Subscription,
)
from ._host import RoomHost
from ._matchmaker import Matchmaker, ProcessLoad, least_loaded
from ._records import (
    DirectoryUnavailable,
    JoinError,
    ProcessInfo,
    Reservation,
    RoomError,
    RoomInfo,
    RoomRequest,
)
from ._room import Client, Room, RoomState

__all__ = [
    "DEFAULT_RESERVATION_TTL",
    "DEFAULT_TTL",
    "PRESENCE_CHANNEL",
    "Client",
    "Directory",
    "DirectoryUnavailable",
    "JoinError",
    "Matchmaker",
    "MemoryDirectory",
    "ProcessInfo",
    "ProcessLoad",
    "Reservation",
    "Room",
    "RoomError",
    "RoomHost",
    "RoomInfo",
    "RoomRequest",
    "RoomState",
    "Subscription",
    "least_loaded",
]
