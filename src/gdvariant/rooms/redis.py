"""The room directory on Redis, for room processes and matchmakers on many machines.

:class:`RedisDirectory` keeps every promise of :class:`gdvariant.rooms.Directory` with the
maintained ``redis`` client's asyncio API (``pip install 'gdvariant[rooms]'``): leases are
keys that expire (``PEXPIRE``), each read-then-write step is one Lua script
(:mod:`gdvariant.rooms._lua`), room requests go through a list per process (``RPUSH`` /
``BLPOP``, so one sent before the process listens is not lost) and cross-room messages over
Redis pub/sub. Every call is bounded by ``timeout`` seconds (a blocking read by its wait on
top): a Redis that is down, restarting or out of reach raises
:class:`~gdvariant.rooms.DirectoryUnavailable` in that time, never a hang. docs/rooms.md
("The directory on Redis", "Faults") has the key layout, the TTLs and what a fault does.

Usage::

    directory = RedisDirectory.from_url("redis://127.0.0.1:6379/0", ttl=10.0)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Self

from . import _lua
from ._directory import DEFAULT_TTL, Subscription, new_token
from ._records import (
    DirectoryUnavailable,
    JoinError,
    ProcessInfo,
    Reservation,
    RoomInfo,
    RoomRequest,
)

try:
    import redis.asyncio as aioredis
    import redis.exceptions as redis_errors
    from redis.asyncio.client import PubSub
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "gdvariant.rooms.redis needs the 'redis' package: pip install 'gdvariant[rooms]'"
    ) from exc

__all__ = ["RedisDirectory"]

#: How long an answer to a room request is kept for a matchmaker that is slow to read it.
_ANSWER_TTL_MS = 30_000
#: The default bound on one call to Redis (seconds), a blocking read's wait not counted.
DEFAULT_TIMEOUT = 5.0
#: What a Redis that is down or out of reach raises (a script's own error is not one).
_UNREACHABLE = (
    redis_errors.ConnectionError,
    redis_errors.TimeoutError,
    OSError,
    TimeoutError,
)


@contextlib.asynccontextmanager
async def _reach(seconds: float) -> AsyncIterator[None]:
    """Bound the calls to Redis in the block: :class:`DirectoryUnavailable` after
    ``seconds``, or at once when Redis cannot be reached."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except _UNREACHABLE as exc:
        why = str(exc) or f"no answer within {seconds:g} s"
        raise DirectoryUnavailable(f"the directory's Redis is unavailable: {why}") from None


class _RedisSubscription:
    def __init__(self, client: aioredis.Redis, channels: tuple[str, ...], ns: str) -> None:
        self._client = client
        self._channels = channels
        self._prefix = f"{ns}:chan:"
        self._pubsub: PubSub | None = None

    async def get(self, timeout: float | None = None) -> tuple[str, dict[str, Any]] | None:
        if self._pubsub is None:
            raise RuntimeError("enter the subscription (async with) first")
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        while True:
            left = 1.0 if end is None else max(0.0, end - loop.time())
            async with _reach(left + DEFAULT_TIMEOUT):
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=left
                )
            if message is not None and message.get("type") == "message":
                channel = message["channel"].decode().removeprefix(self._prefix)
                return channel, json.loads(message["data"])
            if end is not None and loop.time() >= end:
                return None

    async def __aenter__(self) -> Self:
        self._pubsub = self._client.pubsub()
        async with _reach(DEFAULT_TIMEOUT):
            await self._pubsub.subscribe(*(self._prefix + c for c in self._channels))
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._pubsub is not None:
            await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = None


class RedisDirectory:
    """The directory in the Redis that ``client`` talks to, under keys starting ``namespace``.

    ``ttl`` is every process's lease, in seconds: a process that stops renewing it (killed,
    or stalled) is gone with its rooms that long after its last heartbeat. ``timeout``
    bounds each call (seconds): past it, or when Redis cannot be reached,
    :class:`~gdvariant.rooms.DirectoryUnavailable` is raised."""

    def __init__(
        self,
        client: aioredis.Redis,
        *,
        namespace: str = "gdv",
        ttl: float = DEFAULT_TTL,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        if not ttl > 0:
            raise ValueError(f"ttl must be positive, not {ttl!r}")
        if not timeout > 0:
            raise ValueError(f"timeout must be positive, not {timeout!r}")
        if not namespace or ":" in namespace:
            raise ValueError(f"namespace must be a non-empty name without ':', not {namespace!r}")
        self.client = client
        self.ns = namespace
        self.ttl = ttl
        self.timeout = timeout
        self._reserve = client.register_script(_lua.RESERVE)
        self._claim = client.register_script(_lua.CLAIM)
        self._dispose = client.register_script(_lua.DISPOSE)
        self._heartbeat = client.register_script(_lua.HEARTBEAT)
        self._list = client.register_script(_lua.LIST)

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisDirectory:
        """A directory on the Redis at ``url`` (``redis://host:port/db``). The client
        connects within ``timeout`` and retries a failed command once, on a new connection,
        at once (a Redis that restarted leaves the pooled connections dead); our own bound
        covers the rest, so its socket reads wait as long as a blocking read needs."""
        timeout = float(options.get("timeout", DEFAULT_TIMEOUT))
        client = aioredis.Redis.from_url(
            url,
            socket_connect_timeout=timeout,
            socket_timeout=None,
            retry=Retry(NoBackoff(), 1),
        )
        return cls(client, **options)

    def _reach(self, wait: float = 0.0) -> contextlib.AbstractAsyncContextManager[None]:
        return _reach(self.timeout + wait)

    def _room_keys(self, room_id: str) -> list[str]:
        key = f"{self.ns}:room:{room_id}"
        return [key, f"{key}:res", f"{key}:users", f"{key}:seats"]

    @property
    def _ttl_ms(self) -> int:
        return max(1, round(self.ttl * 1000))

    # -- a room process's side ------------------------------------------------------------

    async def register(self, process: ProcessInfo) -> None:
        key = f"{self.ns}:proc:{process.id}"
        async with self._reach(), self.client.pipeline(transaction=True) as pipe:
            pipe.hset(key, "info", json.dumps(process.as_json()))
            pipe.pexpire(key, self._ttl_ms)
            pipe.sadd(f"{self.ns}:procs", process.id)
            await pipe.execute()

    async def heartbeat(self, process: ProcessInfo, rooms: Sequence[RoomInfo]) -> bool:
        return await self._beat(process, [(room, None) for room in rooms], create=False)

    async def add_room(
        self, process: ProcessInfo, room: RoomInfo, seated: Mapping[str, str] | None = None
    ) -> bool:
        return await self._beat(process, [(room, seated)], create=True)

    async def _beat(
        self,
        process: ProcessInfo,
        rooms: Sequence[tuple[RoomInfo, Mapping[str, str] | None]],
        *,
        create: bool,
    ) -> bool:
        args: list[str | int] = [self.ns, process.id, self._ttl_ms, int(create)]
        for room, seated in rooms:
            info = json.dumps(room.static_json())
            seats = "" if seated is None else json.dumps(dict(seated))
            args += [room.id, info, room.name, room.seats, int(room.locked), seats]
        keys = [f"{self.ns}:proc:{process.id}", f"{self.ns}:procs", f"{self.ns}:rooms"]
        async with self._reach():
            return bool(await self._heartbeat(keys=keys, args=args))

    async def unregister(self, process_id: str) -> None:
        async with self._reach():
            for room in await self.rooms():
                if room.process == process_id:
                    await self.client.delete(*self._room_keys(room.id))
                    await self.client.srem(f"{self.ns}:rooms", room.id)
            await self.client.delete(f"{self.ns}:proc:{process_id}")
            await self.client.srem(f"{self.ns}:procs", process_id)

    async def claim(self, room_id: str, token: str) -> str | None:
        async with self._reach():
            user = await self._claim(keys=self._room_keys(room_id), args=[token])
        return None if user is None else _text(user)

    async def release(self, room_id: str, token: str) -> None:
        async with self._reach():
            await self.client.hdel(self._room_keys(room_id)[3], token)

    async def dispose_if_empty(self, room_id: str) -> bool:
        keys = [*self._room_keys(room_id), f"{self.ns}:rooms"]
        async with self._reach():
            return bool(await self._dispose(keys=keys, args=[room_id]))

    async def next_request(self, process_id: str, timeout: float) -> RoomRequest | None:
        async with self._reach(timeout):
            found = await self.client.blpop([f"{self.ns}:proc:{process_id}:requests"], timeout)
        if found is None:
            return None
        return RoomRequest.from_json(json.loads(found[1]))

    async def answer(self, request_id: str, room: RoomInfo | None, error: str = "") -> None:
        key = f"{self.ns}:answer:{request_id}"
        body = {"room": None if room is None else room.as_json(), "error": error}
        async with self._reach(), self.client.pipeline(transaction=True) as pipe:
            pipe.rpush(key, json.dumps(body))
            pipe.pexpire(key, _ANSWER_TTL_MS)
            await pipe.execute()

    # -- a matchmaker's side ---------------------------------------------------------------

    async def processes(self) -> list[ProcessInfo]:
        index = f"{self.ns}:procs"
        found = []
        async with self._reach():
            ids = sorted(_text(i) for i in await self.client.smembers(index))
            for process_id in ids:
                info = await self.client.hget(f"{self.ns}:proc:{process_id}", "info")
                if info is None:
                    await self.client.srem(index, process_id)
                else:
                    found.append(ProcessInfo.from_json(json.loads(info)))
        return found

    async def _rows(self, name: str, room_id: str) -> list[tuple[RoomInfo, list[str]]]:
        async with self._reach():
            rows = await self._list(keys=[f"{self.ns}:rooms"], args=[self.ns, name, room_id])
        found = []
        for info, locked, clients, reserved, users in rows:
            room = RoomInfo.from_json(
                json.loads(info),
                locked=_text(locked) == "1",
                clients=int(clients),
                reserved=int(reserved),
            )
            found.append((room, sorted(json.loads(users))))
        return found

    async def rooms(self, name: str | None = None) -> list[RoomInfo]:
        return [room for room, _ in await self._rows(name or "", "")]

    async def room(self, room_id: str) -> RoomInfo | None:
        rows = await self._rows("", room_id)
        return rows[0][0] if rows else None

    async def reserve(self, room_id: str, user: str, ttl: float) -> Reservation:
        token = new_token()
        args: list[str | int] = [self.ns, token, user, max(1, round(ttl * 1000))]
        async with self._reach():
            verdict = _text(await self._reserve(keys=self._room_keys(room_id), args=args))
        if verdict != "ok":
            raise JoinError(verdict, f"room {room_id!r}: {verdict.replace('_', ' ')}")
        room = await self.room(room_id)
        if room is None:  # gone in between: the seat went with it
            raise JoinError("room_not_found", f"no room {room_id!r}")
        return Reservation(room, token, user, ttl)

    async def request_room(
        self, process_id: str, name: str, options: dict[str, Any], timeout: float
    ) -> RoomInfo:
        request = RoomRequest(new_token(), name, options)
        queue = f"{self.ns}:proc:{process_id}:requests"
        async with self._reach(timeout):
            async with self.client.pipeline(transaction=True) as pipe:
                pipe.rpush(queue, json.dumps(request.as_json()))
                pipe.pexpire(queue, self._ttl_ms)
                await pipe.execute()
            found = await self.client.blpop([f"{self.ns}:answer:{request.id}"], timeout)
        if found is None:
            raise JoinError(
                "process_timeout", f"process {process_id!r} did not create the room in time"
            )
        body = json.loads(found[1])
        if body["room"] is None:
            code = str(body["error"]) or "no_process"
            raise JoinError(code, f"process {process_id!r} did not create the room: {code}")
        return RoomInfo.from_json(body["room"], locked=False, clients=0, reserved=0)

    # -- everyone ----------------------------------------------------------------------------

    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        async with self._reach():
            await self.client.publish(f"{self.ns}:chan:{channel}", json.dumps(message))

    def subscribe(self, *channels: str) -> Subscription:
        if not channels:
            raise ValueError("subscribe to at least one channel")
        return _RedisSubscription(self.client, channels, self.ns)

    async def presence(self) -> dict[str, list[str]]:
        return {room.id: users for room, users in await self._rows("", "")}

    async def close(self) -> None:
        await self.client.aclose()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
