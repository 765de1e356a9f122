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


async def http(
    port: int, method: str, target: str, body: bytes | None = None, *, raw: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request to 127.0.0.1:``port`` on a connection of its own (``Connection: close``);
    the status, the headers (lower-case names) and the body. ``raw`` sends those bytes as
    they are instead."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    if raw is None:
        head = f"{method} {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n"
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        raw = head.encode() + b"\r\n" + (body or b"")
    writer.write(raw)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), DEADLINE)
    writer.close()
    head_bytes, _, content = answer.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, content
