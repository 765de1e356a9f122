"""What the rooms tests share: the directory maker's type, and waiting for what must happen
within a TTL without timing it (poll with a generous deadline)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from gdvariant.rooms import Directory

#: A short lease for the tests, in seconds: long enough for a loaded machine's heartbeat.
TEST_TTL = 3.0
#: A generous deadline for what must happen "within the TTL" on a loaded machine (seconds).
DEADLINE = 30.0

#: ``make(ttl=TEST_TTL)``: a directory on the test's store (see tests/rooms/conftest.py).
DirectoryMaker = Callable[..., Directory]


async def eventually(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Poll ``check`` until it holds, failing only past :data:`DEADLINE`."""
    loop = asyncio.get_running_loop()
    end = loop.time() + DEADLINE
    while not await check():
        if loop.time() > end:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.05)
