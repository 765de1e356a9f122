"""The room directory: one owner for where every room is and who holds its seats.

:class:`Directory` is what room processes and matchmakers need of it; two implementations
keep the same promises (tests/rooms/test_directory.py runs one suite on both):

* :class:`MemoryDirectory` (here): the embedded default, a single process, no server.
* :class:`gdvariant.rooms.redis.RedisDirectory`: Redis, for many processes and machines.

The promises (docs/rooms.md, "The directory"):

* A process holds a lease of ``ttl`` seconds that its heartbeats renew. A process whose
  lease lapsed (killed, or stalled past ``ttl``) is gone, and its rooms, seats and
  reservations with it; its heartbeat then answers False and the process must drop its rooms.
* A seat is reserved atomically: reservations and seated clients of a room never exceed its
  seats, and a locked room takes none. A reservation not claimed within its own ``ttl`` is
  released. A token is claimed at most once.
* Rooms are created by the process that hosts them, on a matchmaker's request
  (:meth:`Directory.request_room`), so the room's owner is the one that writes it.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Protocol, Self

from ._records import JoinError, ProcessInfo, Reservation, RoomInfo, RoomRequest

__all__ = [
    "DEFAULT_RESERVATION_TTL",
    "DEFAULT_TTL",
    "PRESENCE_CHANNEL",
    "Directory",
    "MemoryDirectory",
    "Subscription",
    "new_token",
]

#: A process's lease (seconds): a SIGKILLed process's rooms vanish within it.
DEFAULT_TTL = 10.0
#: How long a reserved seat waits for its client (seconds).
DEFAULT_RESERVATION_TTL = 15.0
#: The channel on which room processes announce joins and leaves (presence).
PRESENCE_CHANNEL = "presence"


def new_token() -> str:
    """A seat token: 144 random bits, URL-safe (it travels in JSON and in an AUTH packet)."""
    return secrets.token_urlsafe(18)


class Subscription(Protocol):
    """Messages on the channels subscribed to, in order; use with ``async with``."""

    async def get(self, timeout: float | None = None) -> tuple[str, dict[str, Any]] | None:
        """The next (channel, message); None if none came within ``timeout`` seconds."""
        ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...


class Directory(Protocol):
    """What room processes and matchmakers ask of the directory."""

    ttl: float

    # -- a room process's side ------------------------------------------------------------

    async def register(self, process: ProcessInfo) -> None:
        """Start ``process``'s lease (it has no rooms yet)."""
        ...

    async def heartbeat(self, process: ProcessInfo, rooms: Sequence[RoomInfo]) -> bool:
        """Renew ``process``'s lease and its ``rooms`` (their static fields and ``locked``
        written again). A room not in the directory is not added back: one disposed while
        the heartbeat was on its way stays gone. False: the lease had lapsed, nothing was
        written, and the process must drop its rooms and :meth:`register` anew."""
        ...

    async def add_room(
        self, process: ProcessInfo, room: RoomInfo, seated: Mapping[str, str] | None = None
    ) -> bool:
        """A room of ``process``, listed from now on (and its lease renewed); False as for
        :meth:`heartbeat`. ``seated`` (token to user) are its connected clients: a room
        brought back after its process's lease lapsed (Redis restarted empty, or the process
        stalled) keeps its seats counted."""
        ...

    async def unregister(self, process_id: str) -> None:
        """The process leaves: it and its rooms are gone at once."""
        ...

    async def claim(self, room_id: str, token: str) -> str | None:
        """Use the reservation ``token`` of ``room_id``: the user it was made for, or None
        (unknown, used already, expired, or the room is gone)."""
        ...

    async def release(self, room_id: str, token: str) -> None:
        """A seated client left: its seat is free again."""
        ...

    async def dispose_if_empty(self, room_id: str) -> bool:
        """Remove the room if no one holds or waits for a seat (atomic against joins)."""
        ...

    async def next_request(self, process_id: str, timeout: float) -> RoomRequest | None:
        """The next room a matchmaker asked this process to create (None: none in time)."""
        ...

    async def answer(self, request_id: str, room: RoomInfo | None, error: str = "") -> None:
        """Answer a :class:`RoomRequest`: the room created, or why not."""
        ...

    # -- a matchmaker's side ---------------------------------------------------------------

    async def processes(self) -> list[ProcessInfo]:
        """The live processes."""
        ...

    async def rooms(self, name: str | None = None) -> list[RoomInfo]:
        """The live rooms (named ``name``), with their counts."""
        ...

    async def room(self, room_id: str) -> RoomInfo | None:
        """One live room, or None."""
        ...

    async def reserve(self, room_id: str, user: str, ttl: float) -> Reservation:
        """Reserve a seat in ``room_id`` for ``user`` for ``ttl`` seconds, atomically;
        :class:`JoinError` (``room_not_found``, ``room_locked``, ``room_full``) if not."""
        ...

    async def request_room(
        self, process_id: str, name: str, options: dict[str, Any], timeout: float
    ) -> RoomInfo:
        """Have ``process_id`` create a room; :class:`JoinError` (``process_timeout``, or
        the process's own error code) if it does not within ``timeout`` seconds."""
        ...

    # -- everyone: cross-room messages and presence ----------------------------------------

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        """Send ``message`` (JSON-able) to every subscriber of ``channel``, in any process."""
        ...

    def subscribe(self, *channels: str) -> Subscription:
        """A subscription to ``channels`` (messages published after it is entered)."""
        ...

    async def presence(self) -> dict[str, list[str]]:
        """Who is online where: each live room's id to its seated users, sorted."""
        ...

    async def close(self) -> None: ...


@dataclass
class _Room:
    info: RoomInfo
    expires: float
    reservations: dict[str, tuple[str, float]] = field(default_factory=dict)
    seats: dict[str, str] = field(default_factory=dict)

    def live_reservations(self, now: float) -> int:
        for token in [t for t, (_, end) in self.reservations.items() if end <= now]:
            del self.reservations[token]
        return len(self.reservations)


class _MemorySubscription:
    def __init__(self, hub: dict[str, set[asyncio.Queue[tuple[str, dict[str, Any]]]]]) -> None:
        self._hub = hub
        self._channels: tuple[str, ...] = ()
        self._queue: asyncio.Queue[tuple[str, dict[str, Any]]] = asyncio.Queue()

    def listen(self, channels: tuple[str, ...]) -> Self:
        self._channels = channels
        return self

    async def get(self, timeout: float | None = None) -> tuple[str, dict[str, Any]] | None:
        try:
            async with asyncio.timeout(timeout):
                return await self._queue.get()
        except TimeoutError:
            return None

    async def __aenter__(self) -> Self:
        for channel in self._channels:
            self._hub.setdefault(channel, set()).add(self._queue)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for channel in self._channels:
            self._hub.get(channel, set()).discard(self._queue)


class MemoryDirectory:
    """The embedded directory: every promise of :class:`Directory` inside one process, on
    ``clock`` (seconds, never going back). Room processes and matchmakers that share it
    must run in this process (the embedded setup: one process, no Redis)."""

    def __init__(
        self, *, ttl: float = DEFAULT_TTL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not ttl > 0:
            raise ValueError(f"ttl must be positive, not {ttl!r}")
        self.ttl = ttl
        self.clock = clock
        self._processes: dict[str, tuple[ProcessInfo, float]] = {}
        self._rooms: dict[str, _Room] = {}
        self._requests: dict[str, asyncio.Queue[RoomRequest]] = {}
        self._answers: dict[str, asyncio.Future[RoomInfo]] = {}
        self._hub: dict[str, set[asyncio.Queue[tuple[str, dict[str, Any]]]]] = {}

    def _alive(self, process_id: str, now: float) -> bool:
        entry = self._processes.get(process_id)
        if entry is not None and entry[1] > now:
            return True
        if entry is not None:
            self._drop_process(process_id)
        return False

    def _drop_process(self, process_id: str) -> None:
        self._processes.pop(process_id, None)
        for room_id in [r for r, room in self._rooms.items() if room.info.process == process_id]:
            del self._rooms[room_id]

    def _live(self, room_id: str, now: float) -> _Room | None:
        room = self._rooms.get(room_id)
        if room is None:
            return None
        if room.expires <= now or not self._alive(room.info.process, now):
            self._rooms.pop(room_id, None)
            return None
        return room

    def _snapshot(self, room: _Room, now: float) -> RoomInfo:
        info = room.info
        return RoomInfo.from_json(
            info.static_json(),
            locked=info.locked,
            clients=len(room.seats),
            reserved=room.live_reservations(now),
        )

    async def register(self, process: ProcessInfo) -> None:
        self._processes[process.id] = (process, self.clock() + self.ttl)

    async def heartbeat(self, process: ProcessInfo, rooms: Sequence[RoomInfo]) -> bool:
        now = self.clock()
        if not self._alive(process.id, now):
            return False
        expires = now + self.ttl
        self._processes[process.id] = (process, expires)
        for info in rooms:
            room = self._rooms.get(info.id)
            if room is not None:
                room.info, room.expires = info, expires
        return True

    async def add_room(
        self, process: ProcessInfo, room: RoomInfo, seated: Mapping[str, str] | None = None
    ) -> bool:
        if not await self.heartbeat(process, ()):
            return False
        expires = self._processes[process.id][1]
        self._rooms[room.id] = _Room(room, expires, seats=dict(seated or {}))
        return True

    async def unregister(self, process_id: str) -> None:
        self._drop_process(process_id)

    async def claim(self, room_id: str, token: str) -> str | None:
        now = self.clock()
        room = self._live(room_id, now)
        if room is None:
            return None
        entry = room.reservations.pop(token, None)
        if entry is None or entry[1] <= now:
            return None
        room.seats[token] = entry[0]
        return entry[0]

    async def release(self, room_id: str, token: str) -> None:
        room = self._rooms.get(room_id)
        if room is not None:
            room.seats.pop(token, None)

    async def dispose_if_empty(self, room_id: str) -> bool:
        room = self._rooms.get(room_id)
        if room is None:
            return True
        if room.seats or room.live_reservations(self.clock()):
            return False
        del self._rooms[room_id]
        return True

    async def next_request(self, process_id: str, timeout: float) -> RoomRequest | None:
        queue = self._requests.setdefault(process_id, asyncio.Queue())
        try:
            async with asyncio.timeout(timeout):
                return await queue.get()
        except TimeoutError:
            return None

    async def answer(self, request_id: str, room: RoomInfo | None, error: str = "") -> None:
        waiter = self._answers.pop(request_id, None)
        if waiter is None or waiter.done():
            return
        if room is None:
            waiter.set_exception(JoinError(error or "no_process", f"the process said: {error}"))
        else:
            waiter.set_result(room)

    async def processes(self) -> list[ProcessInfo]:
        now = self.clock()
        return [info for pid, (info, _) in list(self._processes.items()) if self._alive(pid, now)]

    async def rooms(self, name: str | None = None) -> list[RoomInfo]:
        now = self.clock()
        found = []
        for room_id in list(self._rooms):
            room = self._live(room_id, now)
            if room is not None and (name is None or room.info.name == name):
                found.append(self._snapshot(room, now))
        return found

    async def room(self, room_id: str) -> RoomInfo | None:
        now = self.clock()
        room = self._live(room_id, now)
        return None if room is None else self._snapshot(room, now)

    async def reserve(self, room_id: str, user: str, ttl: float) -> Reservation:
        now = self.clock()
        room = self._live(room_id, now)
        if room is None:
            raise JoinError("room_not_found", f"no room {room_id!r}")
        if room.info.locked:
            raise JoinError("room_locked", f"room {room_id!r} is locked")
        if room.live_reservations(now) + len(room.seats) >= room.info.seats:
            raise JoinError("room_full", f"room {room_id!r} is full")
        token = new_token()
        room.reservations[token] = (user, now + ttl)
        return Reservation(self._snapshot(room, now), token, user, ttl)

    async def request_room(
        self, process_id: str, name: str, options: dict[str, Any], timeout: float
    ) -> RoomInfo:
        request = RoomRequest(new_token(), name, options)
        waiter: asyncio.Future[RoomInfo] = asyncio.get_running_loop().create_future()
        self._answers[request.id] = waiter
        self._requests.setdefault(process_id, asyncio.Queue()).put_nowait(request)
        try:
            async with asyncio.timeout(timeout):
                return await waiter
        except TimeoutError:
            raise JoinError(
                "process_timeout", f"process {process_id!r} did not create the room in time"
            ) from None
        finally:
            self._answers.pop(request.id, None)

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        for queue in list(self._hub.get(channel, ())):
            queue.put_nowait((channel, message))

    def subscribe(self, *channels: str) -> Subscription:
        if not channels:
            raise ValueError("subscribe to at least one channel")
        return _MemorySubscription(self._hub).listen(channels)

    async def presence(self) -> dict[str, list[str]]:
        now = self.clock()
        found = {}
        for room_id in list(self._rooms):
            room = self._live(room_id, now)
            if room is not None:
                found[room_id] = sorted(room.seats.values())
        return found

    async def close(self) -> None:
        self._hub.clear()
