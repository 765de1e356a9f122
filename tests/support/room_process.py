"""A room process for the tests that kill one: ``python -m tests.support.room_process URL
NAMESPACE TTL`` registers a RoomHost on the Redis at URL, creates one room, prints
``READY <room id>`` and serves until it is killed."""

from __future__ import annotations

import asyncio
import sys

from gdvariant.rooms import Room, RoomHost
from gdvariant.rooms.redis import RedisDirectory


class Table(Room):
    seats = 4
    grace = 600.0


async def serve(url: str, namespace: str, ttl: float) -> None:
    directory = RedisDirectory.from_url(url, namespace=namespace, ttl=ttl)
    async with RoomHost(directory, {"table": Table}) as host:
        room = await host.create_room("table")
        print("READY", room.id, flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], sys.argv[2], float(sys.argv[3])))
