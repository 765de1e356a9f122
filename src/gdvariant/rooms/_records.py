"""What the directory holds, as plain records: processes, rooms and the errors of a join.

Every record is a frozen snapshot taken from the directory: the directory owns the state,
these only carry it (to a matchmaker's answer, a listing, a test). ``as_json`` is the shape
the matchmaker's HTTP API answers with (docs/rooms.md, "The matchmaker's API").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DirectoryUnavailable",
    "JoinError",
    "ProcessInfo",
    "Reservation",
    "RoomError",
    "RoomInfo",
    "RoomRequest",
]


_STATUS = {
    "room_not_found": 404,
    "unknown_room_name": 404,
    "room_full": 409,
    "room_locked": 409,
    "no_process": 503,
    "process_full": 503,
    "process_timeout": 503,
    "directory_unavailable": 503,
}


class RoomError(Exception):
    """The root of what rooms, the directory and the matchmaker raise on purpose."""


class JoinError(RoomError):
    """A seat could not be had: ``code`` says why, in the words the HTTP API answers with
    (``room_not_found``, ``room_full``, ``room_locked``, ``no_process``, ``process_full``,
    ``process_timeout``, ``unknown_room_name``, ``room_create_failed``) and ``status`` is its HTTP
    status. ``process`` names the room process that failed to make a room, when one did."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.status = _STATUS.get(code, 500)
        self.process = ""


class DirectoryUnavailable(JoinError):
    """The directory's store did not answer in time (Redis down, restarting or out of
    reach): a matchmaker answers ``503 directory_unavailable``, a room process tries again."""

    def __init__(self, message: str) -> None:
        super().__init__("directory_unavailable", message)


@dataclass(frozen=True)
class ProcessInfo:
    """A room process as it registered: where its rooms are reached (``host``), which room
    names it can create (``room_names``) and how many rooms it takes (``capacity``)."""

    id: str
    host: str
    room_names: tuple[str, ...]
    capacity: int = 100

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "host": self.host,
            "room_names": list(self.room_names),
            "capacity": self.capacity,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ProcessInfo:
        return cls(
            str(data["id"]),
            str(data["host"]),
            tuple(str(n) for n in data["room_names"]),
            int(data["capacity"]),
        )


@dataclass(frozen=True)
class RoomInfo:
    """A live room as the directory sees it: its process, address, seats and state.

    ``clients`` are the seated players, ``reserved`` the seats promised and not yet used;
    ``address`` is what a Godot client connects to (``ws://host:port`` or
    ``enet://host:port``)."""

    id: str
    name: str
    process: str
    address: str
    seats: int
    metadata: dict[str, Any] = field(default_factory=dict)
    locked: bool = False
    clients: int = 0
    reserved: int = 0

    @property
    def free(self) -> int:
        """Seats a join may still reserve (0 when locked)."""
        return 0 if self.locked else max(0, self.seats - self.clients - self.reserved)

    def as_json(self) -> dict[str, Any]:
        """Every field: what the room's process owns, then the counts."""
        return {
            **self.static_json(),
            "locked": self.locked,
            "clients": self.clients,
            "reserved": self.reserved,
        }

    def static_json(self) -> dict[str, Any]:
        """The fields the room's process owns and writes (no counts)."""
        return {
            "id": self.id,
            "name": self.name,
            "process": self.process,
            "address": self.address,
            "seats": self.seats,
            "metadata": self.metadata,
        }

    @classmethod
    def from_json(
        cls, data: dict[str, Any], *, locked: bool, clients: int, reserved: int
    ) -> RoomInfo:
        return cls(
            str(data["id"]),
            str(data["name"]),
            str(data["process"]),
            str(data["address"]),
            int(data["seats"]),
            dict(data.get("metadata") or {}),
            locked,
            clients,
            reserved,
        )


@dataclass(frozen=True)
class Reservation:
    """A seat promised to ``user`` in ``room`` until ``expires_in`` seconds from when it was
    made: the client proves it with ``token`` in SceneMultiplayer's auth step."""

    room: RoomInfo
    token: str
    user: str
    expires_in: float

    def as_json(self) -> dict[str, Any]:
        return {
            "room": self.room.as_json(),
            "address": self.room.address,
            "token": self.token,
            "user": self.user,
            "expires_in": self.expires_in,
        }


@dataclass(frozen=True)
class RoomRequest:
    """A matchmaker's request that a process create a room named ``name`` with ``options``."""

    id: str
    name: str
    options: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "options": self.options}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoomRequest:
        return cls(str(data["id"]), str(data["name"]), dict(data["options"]))
