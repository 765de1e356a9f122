"""The matchmaker: join or create a room, join one by id, list them; stateless.

:class:`Matchmaker` holds nothing of its own between requests: every answer is read from,
and every seat reserved in, the directory, so any number of matchmakers may serve the same
rooms. :meth:`Matchmaker.handle` is its HTTP JSON API without I/O (a method, a target and a
body in; a status and a JSON body out); :class:`~gdvariant.rooms.MatchmakerServer` puts it
on a socket. docs/rooms.md ("The matchmaker's API") lists the routes and errors.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ._directory import DEFAULT_RESERVATION_TTL, Directory
from ._records import JoinError, ProcessInfo, Reservation, RoomInfo

__all__ = [
    "MAX_NAME",
    "Matchmaker",
    "ProcessLoad",
    "least_loaded",
]

#: The longest room name or user name taken.
MAX_NAME = 64
_ROOM_ID = re.compile(r"[0-9a-f]{1,32}")
#: How many rooms join-or-create makes for one request that keeps finding them full at once
#: (a join storm): then it answers ``room_full``.
CREATE_ATTEMPTS = 3


@dataclass(frozen=True)
class ProcessLoad:
    """A live process and its load: its rooms and the seats taken or reserved in them."""

    process: ProcessInfo
    rooms: int
    seats: int


#: ``pick(name, options, candidates)``: the process to create a room on (or None: none).
Pick = Callable[[str, dict[str, Any], Sequence[ProcessLoad]], ProcessLoad | None]


def least_loaded(
    name: str, options: dict[str, Any], candidates: Sequence[ProcessLoad]
) -> ProcessLoad | None:
    """The default pick: the process with the fewest seats in use, then the fewest rooms;
    a tie is broken at random. Not by id: requests of a join storm read the same loads at
    once, and a fixed tie-break sent every room they created to one process."""
    if not candidates:
        return None
    least = min((c.seats, c.rooms) for c in candidates)
    return random.choice([c for c in candidates if (c.seats, c.rooms) == least])


class BadRequest(Exception):
    """A request the API refuses before doing anything: ``status`` and ``code``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


class Matchmaker:
    """Seats in the rooms of ``directory``. ``reservation_ttl``: how long a client has to
    connect with its token; ``create_timeout``: how long a process has to create a room;
    ``pick``: which process gets a new room (:func:`least_loaded`)."""

    def __init__(
        self,
        directory: Directory,
        *,
        reservation_ttl: float = DEFAULT_RESERVATION_TTL,
        create_timeout: float = 5.0,
        pick: Pick = least_loaded,
    ) -> None:
        self.directory = directory
        self.reservation_ttl = reservation_ttl
        self.create_timeout = create_timeout
        self.pick = pick

    # -- what a client asks ------------------------------------------------------------------

    async def join_or_create(
        self, name: str, options: dict[str, Any] | None = None, user: str = ""
    ) -> Reservation:
        """A seat in a room named ``name`` with one free (the fullest first, to fill rooms),
        or in a new one."""
        rooms = [room for room in await self.directory.rooms(name) if room.free > 0]
        rooms.sort(key=lambda room: (-room.clients - room.reserved, room.id))
        for room in rooms:
            try:
                return await self.directory.reserve(room.id, user, self.reservation_ttl)
            except JoinError as exc:
                if exc.code not in ("room_full", "room_locked", "room_not_found"):
                    raise
        return await self.create(name, options, user)

    async def create(
        self, name: str, options: dict[str, Any] | None = None, user: str = ""
    ) -> Reservation:
        """A seat in a new room named ``name``, created with ``options``. A process that
        does not answer in time (killed, its lease not yet run out) is passed over for the
        next one, so one dead process costs a client ``create_timeout``, not a failure."""
        silent: set[str] = set()
        for _ in range(CREATE_ATTEMPTS):
            try:
                room = await self._new_room(name, dict(options or {}), silent)
                return await self.directory.reserve(room.id, user, self.reservation_ttl)
            except JoinError as exc:
                if exc.code == "process_timeout" and exc.process:
                    silent.add(exc.process)
                elif exc.code not in ("room_full", "room_locked"):
                    raise
        raise JoinError("room_full", f"every new room named {name!r} filled at once; try again")

    async def join(self, room_id: str, user: str = "") -> Reservation:
        """A seat in the room ``room_id``."""
        return await self.directory.reserve(room_id, user, self.reservation_ttl)

    async def list_rooms(self, name: str | None = None) -> list[RoomInfo]:
        return await self.directory.rooms(name)

    async def _new_room(
        self, name: str, options: dict[str, Any], silent: AbstractSet[str] = frozenset()
    ) -> RoomInfo:
        processes = [p for p in await self.directory.processes() if name in p.room_names]
        if silent and not [p for p in processes if p.id not in silent]:
            raise JoinError("process_timeout", f"no process hosting {name!r} answered in time")
        processes = [p for p in processes if p.id not in silent]
        if not processes:
            raise JoinError("unknown_room_name", f"no live process hosts rooms named {name!r}")
        rooms = await self.directory.rooms()
        loads = []
        for process in processes:
            mine = [room for room in rooms if room.process == process.id]
            if len(mine) < process.capacity:
                seats = sum(room.clients + room.reserved for room in mine)
                loads.append(ProcessLoad(process, len(mine), seats))
        chosen = self.pick(name, options, loads)
        if chosen is None:
            raise JoinError("no_process", f"every process hosting {name!r} is full")
        try:
            return await self.directory.request_room(
                chosen.process.id, name, options, self.create_timeout
            )
        except JoinError as exc:
            exc.process = chosen.process.id
            raise

    # -- the HTTP API, without I/O -------------------------------------------------------------

    async def handle(self, method: str, target: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """Answer one HTTP request: its status and JSON body (errors as
        ``{"error": {"code", "message"}}``)."""
        try:
            return 200, await self._route(method, target, body)
        except BadRequest as exc:
            return exc.status, _error(exc.code, str(exc))
        except JoinError as exc:
            return exc.status, _error(exc.code, str(exc))

    async def _route(self, method: str, target: str, body: bytes) -> dict[str, Any]:
        url = urlsplit(target)
        parts = [p for p in url.path.split("/") if p]
        if parts == ["rooms"]:
            _allow(method, "GET")
            query = parse_qs(url.query)
            name = query.get("name", [None])[0]
            rooms = await self.list_rooms(name and _name(name, "name"))
            return {"rooms": [room.as_json() for room in rooms]}
        if parts in (["rooms", "join-or-create"], ["rooms", "create"]):
            _allow(method, "POST")
            request = _json_object(body)
            name = _name(request.get("name"), "name")
            options = request.get("options", {})
            if not isinstance(options, dict):
                raise BadRequest(400, "bad_request", "'options' must be a JSON object")
            user = _user(request)
            act = self.join_or_create if parts[1] == "join-or-create" else self.create
            return (await act(name, options, user)).as_json()
        if len(parts) == 3 and parts[0] == "rooms" and parts[2] == "join":
            _allow(method, "POST")
            if not _ROOM_ID.fullmatch(parts[1]):
                raise JoinError("room_not_found", f"no room {parts[1][:40]!r}")
            user = _user(_json_object(body) if body.strip() else {})
            return (await self.join(parts[1], user)).as_json()
        raise BadRequest(404, "not_found", f"no route {url.path[:80]!r}")


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def _allow(method: str, allowed: str) -> None:
    if method != allowed:
        raise BadRequest(405, "method_not_allowed", f"use {allowed} here, not {method[:10]}")


def _json_object(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise BadRequest(400, "bad_json", f"the body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise BadRequest(400, "bad_json", "the body must be a JSON object")
    return value


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not 0 < len(value) <= MAX_NAME:
        raise BadRequest(
            400, "bad_request", f"'{what}' must be a string of 1 to {MAX_NAME} characters"
        )
    return value


def _user(request: dict[str, Any]) -> str:
    user = request.get("user", "")
    if not isinstance(user, str) or len(user) > MAX_NAME:
        raise BadRequest(
            400, "bad_request", f"'user' must be a string of at most {MAX_NAME} characters"
        )
    return user
