"""A room process: many rooms, each on its own port, registered in the directory.

:class:`RoomHost` is the one owner of its rooms: it creates them (on a matchmaker's
request, through the directory, or directly), listens for each on a port of its own, checks
each client's seat token in SceneMultiplayer's auth step, renews its lease and writes its
rooms to the directory every ``ttl / 3`` seconds, and disposes of a room left empty for its
``grace``.

One port per room, not one per process: a Godot client's ``SceneMultiplayer`` session is
one transport connection to one server, with its own peer ids and path caches, and has no
redirect; a room is exactly one such session, so it gets its own transport server. Sharing a
port would need the transport to hand a connection to a room only after its first AUTH
packet, which neither Godot's ``WebSocketMultiplayerPeer`` nor ENet routes by (docs/rooms.md,
"One port per room").
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import secrets
from collections.abc import Awaitable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Self, TypeAlias

from ..multiplayer import SceneMultiplayer
from ._directory import PRESENCE_CHANNEL, Directory
from ._records import DirectoryUnavailable, JoinError, ProcessInfo, RoomError, RoomInfo
from ._room import Client, Room, RoomLink

if TYPE_CHECKING:
    from ..multiplayer import enet, websocket

    ServerEndpoint: TypeAlias = websocket.MultiplayerServer | enet.MultiplayerServer

__all__ = ["MAX_TOKEN", "RoomHost"]

LOGGER = logging.getLogger("gdvariant.rooms")
#: The longest seat token taken from an AUTH packet (ours are 24 characters).
MAX_TOKEN = 256
TransportName = Literal["websocket", "enet"]


async def _run_hook(result: Awaitable[None] | None) -> None:
    if inspect.isawaitable(result):
        await result


class _Hosted:
    """One room and what its host keeps beside it: the transport, the tokens being checked,
    the disposal timer."""

    def __init__(self, room: Room, transport: ServerEndpoint) -> None:
        self.room = room
        self.transport = transport
        self.pending: dict[int, tuple[str, str]] = {}  # peer -> (token, user), claimed
        self.disposal: asyncio.Task[None] | None = None


class RoomHost:
    """A room process's rooms. ``room_types`` maps a room name to its :class:`Room` class;
    ``bind`` is the interface the rooms listen on and ``public_host`` the name clients reach
    it by (default: ``bind``); ``transport`` is ``"websocket"`` (``ws://``) or ``"enet"``;
    ``capacity`` is the most rooms at once; ``project`` the client's Godot project folder
    (each room's ``SceneMultiplayer(project=...)``)."""

    def __init__(
        self,
        directory: Directory,
        room_types: Mapping[str, type[Room]],
        *,
        bind: str = "127.0.0.1",
        public_host: str | None = None,
        transport: TransportName = "websocket",
        capacity: int = 100,
        project: str | Path | None = None,
        process_id: str | None = None,
        auth_timeout: float = 3.0,
        logger: logging.Logger = LOGGER,
    ) -> None:
        if not room_types:
            raise ValueError("give at least one room type")
        if transport not in ("websocket", "enet"):
            raise ValueError(f"transport must be 'websocket' or 'enet', not {transport!r}")
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, not {capacity}")
        self.directory = directory
        self.room_types = dict(room_types)
        self.bind = bind
        self.transport = transport
        self.project = project
        self.auth_timeout = auth_timeout
        self.logger = logger
        self.info = ProcessInfo(
            process_id or secrets.token_hex(6),
            public_host or bind,
            tuple(sorted(self.room_types)),
            capacity,
        )
        self._rooms: dict[str, _Hosted] = {}
        self._creating = 0  # rooms being created: they count against the capacity
        self._tasks: list[asyncio.Task[None]] = []
        self._beat_now = asyncio.Event()
        self._background: set[asyncio.Task[None]] = set()

    @property
    def rooms(self) -> Mapping[str, Room]:
        """The live rooms by id."""
        return {room_id: hosted.room for room_id, hosted in self._rooms.items()}

    async def start(self) -> None:
        """Register with the directory and start serving room requests and heartbeats."""
        if self._tasks:
            raise RuntimeError("this host is started already")
        await self.directory.register(self.info)
        self._tasks = [
            asyncio.create_task(self._serve_requests()),
            asyncio.create_task(self._heartbeats()),
        ]

    async def close(self) -> None:
        """Dispose of every room and leave the directory."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        for room_id in list(self._rooms):
            await self._dispose(room_id)
        for task in list(self._background):
            task.cancel()
        try:
            await self.directory.unregister(self.info.id)
        except RoomError as exc:  # its lease ends on its own within the TTL
            self.logger.warning("process %s: leaving the directory failed: %s", self.info.id, exc)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # -- creating rooms ----------------------------------------------------------------------

    async def create_room(self, name: str, options: Mapping[str, Any] | None = None) -> Room:
        """Create a room of type ``name`` with ``options``, listening and registered."""
        cls = self.room_types.get(name)
        if cls is None:
            raise JoinError("unknown_room_name", f"this process has no room type {name!r}")
        if len(self._rooms) + self._creating >= self.info.capacity:
            raise JoinError("process_full", f"process {self.info.id} hosts its most rooms")
        self._creating += 1
        try:
            return await self._create(cls, name, options)
        finally:
            self._creating -= 1

    async def _create(self, cls: type[Room], name: str, options: Mapping[str, Any] | None) -> Room:
        room_id = secrets.token_hex(8)
        transport = self._transport(room_id)
        port = await transport.listen(self.bind, 0)
        scheme = "ws" if self.transport == "websocket" else "enet"
        room = cls(
            room_id=room_id,
            name=name,
            address=f"{scheme}://{self.info.host}:{port}",
            multiplayer=SceneMultiplayer(transport, project=self.project, logger=self.logger),
            link=RoomLink(self._beat_now.set, self.directory.publish, self.directory.subscribe),
        )
        hosted = _Hosted(room, transport)
        room.multiplayer.peer_connected.connect(lambda peer: self._joined(hosted, peer))
        room.multiplayer.peer_disconnected.connect(lambda peer: self._left(hosted, peer))
        room.multiplayer.peer_authentication_failed.connect(
            lambda peer: self._auth_failed(hosted, peer)
        )
        try:
            await _run_hook(room.on_create(dict(options or {})))
        except BaseException:
            await transport.close()
            raise
        self._rooms[room_id] = hosted
        self._dispose_when_idle(hosted)  # first, so a failing write below leaves no orphan
        await self.directory.add_room(self.info, self._info(room))
        return room

    def _transport(self, room_id: str) -> ServerEndpoint:
        def auth(peer: int, data: bytes) -> None:
            self._spawn(self._authenticate(room_id, peer, data))

        if self.transport == "enet":
            from ..multiplayer import enet

            return enet.MultiplayerServer(auth_callback=auth, auth_timeout=self.auth_timeout)
        from ..multiplayer import websocket

        return websocket.MultiplayerServer(auth_callback=auth, auth_timeout=self.auth_timeout)

    def _info(self, room: Room) -> RoomInfo:
        metadata = dict(room.metadata)
        return RoomInfo(
            room.id, room.name, self.info.id, room.address, room.seats, metadata, room.locked
        )

    def _infos(self) -> list[RoomInfo]:
        return [self._info(hosted.room) for hosted in self._rooms.values()]

    # -- seats ---------------------------------------------------------------------------------

    async def _authenticate(self, room_id: str, peer: int, data: bytes) -> None:
        """A client's AUTH data is its seat token: claimed in the directory, then admitted."""
        hosted = self._rooms.get(room_id)
        if hosted is None:
            return
        transport = hosted.transport
        token = data.decode("utf-8", "replace") if len(data) <= MAX_TOKEN else ""
        if peer in hosted.pending or not token:
            transport.disconnect_peer(peer)
            return
        hosted.pending[peer] = ("", "")  # claiming: a second AUTH is refused
        try:
            user = await self.directory.claim(room_id, token)
        except RoomError as exc:  # the directory is unavailable: the client tries again
            self.logger.warning("room %s: peer %d not admitted: %s", room_id, peer, exc)
            user = None
        if not transport.protocol.auth.is_pending(peer):  # it left or timed out meanwhile
            hosted.pending.pop(peer, None)
            if user is not None:
                await self.directory.release(room_id, token)
            return
        if user is None:
            self.logger.info("room %s: peer %d gave no valid seat token", room_id, peer)
            hosted.pending.pop(peer, None)
            transport.disconnect_peer(peer)
            return
        hosted.pending[peer] = (token, user)
        transport.complete_auth(peer)

    def _joined(self, hosted: _Hosted, peer: int) -> None:
        token, user = hosted.pending.pop(peer, ("", ""))
        client = Client(peer, user, token)
        hosted.room._seat(client)
        if hosted.disposal is not None:
            hosted.disposal.cancel()
            hosted.disposal = None
        self._spawn(self._announce(hosted, client, "join", hosted.room.on_join(client)))

    def _left(self, hosted: _Hosted, peer: int) -> None:
        client = hosted.room._unseat(peer)
        if client is None:
            return
        self._spawn(self._leave(hosted, client))

    async def _leave(self, hosted: _Hosted, client: Client) -> None:
        while True:  # a seat never freed would be lost: try until the directory answers
            try:
                await self.directory.release(hosted.room.id, client.token)
                break
            except RoomError as exc:
                self.logger.warning("room %s: freeing a seat failed: %s", hosted.room.id, exc)
                await asyncio.sleep(self._retry_delay)
        await self._announce(hosted, client, "leave", hosted.room.on_leave(client))
        if not hosted.room.clients:
            self._dispose_when_idle(hosted)

    def _auth_failed(self, hosted: _Hosted, peer: int) -> None:
        token, _ = hosted.pending.pop(peer, ("", ""))
        if token:
            self._spawn(self.directory.release(hosted.room.id, token))

    async def _announce(
        self, hosted: _Hosted, client: Client, event: str, hook: Awaitable[None] | None
    ) -> None:
        await _run_hook(hook)
        room = hosted.room
        message = {"event": event, "room": room.id, "name": room.name, "user": client.user}
        await self.directory.publish(PRESENCE_CHANNEL, message)

    # -- lifecycle -------------------------------------------------------------------------

    def _dispose_when_idle(self, hosted: _Hosted) -> None:
        if hosted.disposal is None or hosted.disposal.done():
            hosted.disposal = asyncio.create_task(self._idle(hosted))

    async def _idle(self, hosted: _Hosted) -> None:
        """Dispose of an empty room after its grace, unless a seat is held or reserved then
        (the directory removes the room only if so, atomically against joins)."""
        room = hosted.room
        while True:
            await asyncio.sleep(room.grace)
            if room.clients:
                return  # the last one to leave starts the wait again
            if hosted.pending:
                continue  # a client is being admitted: wait another grace
            try:
                empty = await self.directory.dispose_if_empty(room.id)
            except RoomError as exc:  # unavailable: wait another grace and ask again
                self.logger.warning("room %s: disposal put off: %s", room.id, exc)
                continue
            if empty:
                hosted.disposal = None
                await self._dispose(room.id)
                return

    async def _dispose(self, room_id: str) -> None:
        hosted = self._rooms.pop(room_id, None)
        if hosted is None:
            return
        if hosted.disposal is not None and hosted.disposal is not asyncio.current_task():
            hosted.disposal.cancel()
        try:
            await _run_hook(hosted.room.on_dispose())
        except Exception:
            self.logger.exception("room %s: on_dispose failed", room_id)
        hosted.room._mark_disposed()
        await hosted.transport.close()

    async def _serve_requests(self) -> None:
        """Create the rooms matchmakers ask for; a failing directory is logged and retried."""
        while True:
            try:
                await self._serve_request()
            except DirectoryUnavailable as exc:
                self.logger.warning("process %s: no room requests: %s", self.info.id, exc)
                await asyncio.sleep(self._retry_delay)
            except Exception:
                self.logger.exception("process %s: reading room requests failed", self.info.id)
                await asyncio.sleep(self._retry_delay)

    async def _serve_request(self) -> None:
        request = await self.directory.next_request(self.info.id, 1.0)
        if request is None:
            return
        try:
            room = await self.create_room(request.name, request.options)
        except JoinError as exc:
            await self.directory.answer(request.id, None, exc.code)
            return
        except Exception:
            self.logger.exception("creating a room %r failed", request.name)
            await self.directory.answer(request.id, None, "room_create_failed")
            return
        await self.directory.answer(request.id, self._info(room))

    async def _heartbeats(self) -> None:
        """Renew the lease every ttl/3 (or at once when a room changed); a lapsed lease means
        the directory dropped our rooms: we register anew and bring them back, seats and
        all. A failing directory is logged and tried again (the lease runs out meanwhile;
        the rooms keep serving their clients)."""
        while True:
            # asyncio.timeout, not wait_for: Python 3.11's wait_for may swallow the task's
            # cancellation when the event is set at the same moment, and close() would hang.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.directory.ttl / 3):
                    await self._beat_now.wait()
            self._beat_now.clear()
            try:
                await self._heartbeat()
            except DirectoryUnavailable as exc:
                self.logger.warning("process %s: heartbeat failed: %s", self.info.id, exc)
            except Exception:
                self.logger.exception("process %s: its heartbeat failed", self.info.id)

    async def _heartbeat(self) -> None:
        if await self.directory.heartbeat(self.info, self._infos()):
            return
        # The directory forgot us (Redis restarted empty, or we stalled past the TTL). Our
        # rooms' ids are ours alone and their clients still play: list them again with
        # their seated and admitted clients, so their seats stay counted. Reservations made
        # before are gone: a client holding one is refused and asks the matchmaker again.
        self.logger.warning("process %s: its lease lapsed; registering again", self.info.id)
        await self.directory.register(self.info)
        for hosted in list(self._rooms.values()):
            seated = {client.token: client.user for client in hosted.room.clients.values()}
            seated.update({token: user for token, user in hosted.pending.values() if token})
            await self.directory.add_room(self.info, self._info(hosted.room), seated)
            if hosted.room.id not in self._rooms:  # disposed meanwhile: no ghost is left
                await self.directory.dispose_if_empty(hosted.room.id)

    @property
    def _retry_delay(self) -> float:
        return min(1.0, self.directory.ttl / 3)

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.logger.error("room work failed", exc_info=task.exception())
